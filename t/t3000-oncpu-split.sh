#!/bin/sh
test_description='on-CPU profile of a 75/25 workload: folded, pprof, go tool pprof'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_expect_success ROOT,BPF 'profile the burn workload' '
	mkworkload burn b3000 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3000 -c 4 >burn.out &&
	daemon_stop &&
	folded cpu b3000 >burn.folded &&
	test -s burn.folded
'

test_expect_success ROOT,BPF 'main is under the comm, the leaves split 75/25' '
	a=$(folded_sum "^b3000;(.*;)?main;work;burn_a(;|$)" <burn.folded) &&
	b=$(folded_sum "^b3000;(.*;)?main;work;burn_b(;|$)" <burn.folded) &&
	all=$(folded_sum "^b3000;" <burn.folded) &&
	echo "burn_a $a burn_b $b all $all" &&
	test $((a + b)) -ge 1000 &&
	test $((a + b)) -ge $((all * 95 / 100)) &&
	within $(percent $a $((a + b))) 75 5
'

test_expect_success ROOT,BPF,PYTHON3 'the pprof file holds the same stacks and totals' '
	for f in out/cpu/b3000/*.pb.gz; do
		python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" "$f" ||
		return 1
	done >decoded &&
	awk "{ n = \$NF; sub(/ [0-9]+\$/, \"\"); s[\$0] += n }
	    END { for (k in s) printf \"%s %.0f\\n\", k, s[k] }" decoded |
	    sort >decoded.ns &&
	period=$(python3 "$EBPFSPY_SOURCE_DIR/t/helper/pprof_decode.py" \
	    --summary out/cpu/b3000/*.pb.gz | sed -n "s/^period: *//p" | head -1) &&
	test "$period" = 2004008 &&
	awk -v p=$period "{ n = \$NF; sub(/ [0-9]+\$/, \"\"); printf \"%s %.0f\\n\", \$0, n / p }" \
	    decoded.ns >decoded.samples &&
	test_cmp burn.folded decoded.samples
'

test_expect_success ROOT,BPF,GO 'go tool pprof reads the same totals' '
	f=$(ls out/cpu/b3000/*.pb.gz | head -1) &&
	go tool pprof -raw "$f" >raw 2>raw.err &&
	grep -q "^PeriodType: cpu nanoseconds" raw &&
	grep -q "^Period: 2004008" raw &&
	awk "/^Samples:/ { s = 1; next } /^Locations/ { s = 0 }
	    s && /^ *[0-9]+ *[0-9]+:/ { t += \$1 } END { printf \"%.0f\\n\", t }" raw >go.total &&
	folded_sum "." <burn.folded >our.samples &&
	echo $(( $(cat our.samples) * 2004008 )) >our.total &&
	test_cmp our.total go.total
'

test_done
