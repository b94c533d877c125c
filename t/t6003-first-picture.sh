#!/bin/sh
test_description='the first picture is right

The README quick start (-t 30, rounds of 15 s) ended with a final round
of a few ms that overwrote latest.svg, and the exit message pointed at
that file.  Now a short final round is merged into latest.svg with the
full round before it, every flame graph title says what it holds (the
total and the UTC span), and the exit message points at a graph that
holds the run, of a named service.'
. "$(dirname "$0")/test-lib.sh"
. "$TEST_DIRECTORY/lib-daemon.sh"
. "$TEST_DIRECTORY/lib-profile.sh"

# title FILE: the title of a flame graph.
title () {
	sed -n 's/^<text id="title" [^>]*>\([^<]*\)<.*/\1/p' "$1"
}

# svg_total FILE: the total value the graph was drawn for.
svg_total () {
	sed -n 's/^<g id="frames" data-total="\([0-9]*\)".*/\1/p' "$1"
}

# title_total TITLE: its samples, without the separators.
title_total () {
	echo "$1" | sed -n 's/.*, \([0-9,]*\) samples*, .*/\1/p' |
	tr -d ,
}

# title_span TITLE: the seconds from its start to its end.
title_span () {
	echo "$1" | sed -n 's/.* \([0-9:]*\)-\([0-9:]*\) UTC$/\1 \2/p' |
	awk '{ split($1, a, ":"); split($2, b, ":")
	    d = b[1] * 3600 + b[2] * 60 + b[3]
	    d -= a[1] * 3600 + a[2] * 60 + a[3]
	    if (d < 0) d += 86400
	    print d }'
}

# folded_names: the .folded files of b6003, oldest first ("-1" after).
folded_names () {
	ls out/cpu/b6003 | grep "\.folded$" |
	awk '{ k = $0; sub(/Z\.folded$/, "Z-0.folded", k); print k, $0 }' |
	sort | cut -d" " -f2
}

# sum_of NAME...: the samples of those .folded files of b6003.
sum_of () {
	for f in "$@"; do
		cat "out/cpu/b6003/$f"
	done | folded_sum .
}

# The path the exit message says to open.
opened () {
	sed -n "s/^open \(.*\) first: .*/\1/p" "$DAEMON_LOG"
}

# A title: service, type, samples thousands separated, the UTC span.
T='[0-9]{2}:[0-9]{2}:[0-9]{2}'
D='20[0-9]{2}-[0-9]{2}-[0-9]{2}'
TITLE_ERE="^b6003: cpu, [0-9]{1,3}(,[0-9]{3})* samples, $D $T-$T UTC\$"

# run_burn CONF SECONDS: b6003 busy while a daemon runs -t SECONDS.
run_burn () {
	{ ./b6003 -t 30 >burn.out & } && burn=$! &&
	workload_wait burn.out &&
	rm -rf out &&
	daemon_start -c "$1" -o out -t "$2" &&
	daemon_wait_exit 60
	rc=$?
	kill $burn && wait $burn
	return $rc
}

test_expect_success ROOT,BPF 'setup' '
	mkworkload burn b6003 &&
	cat >base.conf <<-\EOF
	[metrics]
	listen =
	[profile]
	sample_rate = 199
	[targets]
	targets_only = yes
	[target "b6003"]
	comm = b6003
	EOF
'

test_expect_success ROOT,BPF 'a run shorter than a round: latest.svg holds it' '
	{ printf "[daemon]\ncollect_interval = 30\n" && cat base.conf; } \
	    >short.conf &&
	run_burn short.conf 2 &&
	folded_names >names &&
	test_line_count = 1 names &&
	n=$(sum_of $(cat names)) &&
	echo "$n samples" &&
	test "$n" -ge 50 &&
	test "$(svg_total out/cpu/b6003/latest.svg)" = "$n" &&
	t=$(title out/cpu/b6003/latest.svg) &&
	echo "$t" &&
	echo "$t" | grep -E "$TITLE_ERE" &&
	test "$(title_total "$t")" = "$n" &&
	s=$(title_span "$t") &&
	test "$s" -ge 1 && test "$s" -le 4
'

test_expect_success ROOT,BPF 'its exit message points at a graph of the run' '
	p=$(opened) &&
	echo "$p" &&
	test "$p" = "$PWD/out/cpu/b6003/last-hour.svg" &&
	test_path_is_file "$p" &&
	test "$(svg_total "$p")" = "$(sum_of $(folded_names))" &&
	t=$(title "$p") &&
	echo "$t" &&
	echo "$t" | grep "^b6003: cpu, last hour, [0-9,]* samples*, 20"
'

test_expect_success ROOT,BPF 'a short final round joins the last full one' '
	: rounds at 3 and 6 s, the final one at 7 s: a third of a round &&
	{ printf "[daemon]\ncollect_interval = 3\n" && cat base.conf; } \
	    >final.conf &&
	run_burn final.conf 7 &&
	folded_names >names &&
	cat names &&
	test $(wc -l <names) -ge 3 &&
	tail -n 2 names >last2 &&
	final=$(sum_of $(tail -n 1 last2)) &&
	both=$(sum_of $(cat last2)) &&
	latest=$(svg_total out/cpu/b6003/latest.svg) &&
	echo "final round $final, with the round before $both," \
	    "latest.svg $latest" &&
	test "$latest" = "$both" &&
	test "$latest" -gt "$final" &&
	t=$(title out/cpu/b6003/latest.svg) &&
	echo "$t" &&
	echo "$t" | grep -E "$TITLE_ERE" &&
	test "$(title_total "$t")" = "$both" &&
	s=$(title_span "$t") &&
	test "$s" -ge 3 && test "$s" -le 5 &&
	p=$(opened) &&
	test "$(svg_total "$p")" = "$(sum_of $(cat names))"
'

test_expect_success ROOT,BPF 'only unknown_service sampled: no graph named' '
	sed -e "s/^comm = b6003$/&\nlabel.service_name = unknown/" \
	    -e "s/target \"b6003\"/target \"idle\"/" base.conf >idle.conf &&
	printf "[daemon]\ncollect_interval = 30\n" >>idle.conf &&
	cat idle.conf &&
	run_burn idle.conf 1 &&
	test_path_is_file out/cpu/unknown/latest.svg &&
	grep "^1 profile in .*/out$" "$DAEMON_LOG" &&
	! grep "^open " "$DAEMON_LOG"
'

test_done
