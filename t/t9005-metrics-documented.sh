#!/bin/sh
test_description='ebpfspyd(8) lists every family /metrics serves, with its
labels

A daemon with a push configured (to a port nobody listens on, so the
push families are there) serves /metrics on a unix socket; each family
of its TYPE lines must have an item in ebpfspyd(8)'"'"'s METRICS list,
and each label name a sample of the family carries must be on that
item'"'"'s line.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"

MAN8=$EBPFSPY_BUILD_DIR/man/ebpfspyd.8

test_lazy_prereq CURL 'test "${EBPFSPY_REQUIRE_BPF-}" = 1 || curl --version'

test_expect_success ROOT,BPF,CURL 'the families and labels /metrics serves' '
	cat >ebpfspy.conf <<-EOF &&
	[daemon]
	collect_interval = 1
	[metrics]
	listen = unix:$TRASH_DIRECTORY/metrics.sock
	[pyroscope]
	url = http://127.0.0.1:9/
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	daemon_wait_log "^round [0-9]+ done" &&
	curl -sS --max-time 5 --unix-socket "$TRASH_DIRECTORY/metrics.sock" \
	    http://localhost/metrics >metrics.out &&
	daemon_stop &&
	awk "\$1 == \"#\" && \$2 == \"TYPE\" { print \$3 }" metrics.out \
	    >families &&
	test $(wc -l <families) -ge 60 &&
	# family label: every label name of every sample, once.
	sed -n "s/^\\([a-z_0-9]*\\){\\(.*\\)} .*/\\1 \\2/p" metrics.out |
	while read -r name labels; do
		for f in $name ${name%_sum} ${name%_count}; do
			grep -qx "$f" families && break
		done
		echo "$labels" | grep -o "[a-z_]*=\"" | tr -d "=\"" |
		sed "s/^/$f /"
	done | sort -u >labels &&
	test -s labels
'

test_expect_success ROOT,BPF,CURL 'each family has its item, each label is on it' '
	sed -n "s/^\\.It Li \\(ebpfspy_[a-z_0-9]*\\|process_[a-z_]*\\) .*/&/p" \
	    "$MAN8" >items &&
	: >missing &&
	while read -r f; do
		grep -q "^\\.It Li $f\\( \\|\$\\)" items ||
		echo "family $f" >>missing
	done <families &&
	while read -r f l; do
		grep "^\\.It Li $f\\( \\|\$\\)" items | grep -q " Ar $l\\( \\|\$\\)" ||
		echo "label $f $l" >>missing
	done <labels &&
	test_must_be_empty missing
'

test_done
