#!/bin/sh

test_description='the man pages and the example config agree with ebpfspyd

The SYNOPSIS of ebpfspyd(8) is usage() letter for letter and its option
list has the same flags; ebpfspy.conf(5) documents exactly the keys the
parser knows, each with the default and live/restart mark that
"ebpfspyd -n -v" prints; conf/ebpfspy.conf sets every key to its default;
and both pages format without warnings.'

. "$(dirname "$0")/test-lib.sh"

MAN8=$EBPFSPY_BUILD_DIR/man/ebpfspyd.8
MAN5=$EBPFSPY_BUILD_DIR/man/ebpfspy.conf.5
MAN5_IN=$EBPFSPY_SOURCE_DIR/man/ebpfspy.conf.5.in
EXAMPLE=$EBPFSPY_BUILD_DIR/conf/ebpfspy.conf

test_lazy_prereq GROFF 'groff -v'
test_lazy_prereq MANDOC 'echo .Dd | mandoc -Tascii'

# Render a page as plain text, lines long enough not to wrap.
render () {
	groff -mdoc -Tascii -rLL=300n -P-c -P-b -P-o -P-u "$1"
}

# The "key = value\t; help, mark" lines of -n -v as
# "section.key<TAB>value<TAB>mark", sorted.
dump_keys () {
	awk '
	/^\[[^]]*\]$/ { sec = substr($0, 2, length($0) - 2); next }
	/^$/ || /^configuration OK$/ { next }
	{
		i = index($0, " = ")
		t = index($0, "\t; ")
		if (sec == "" || i == 0 || t < i) {
			print "unparsable: " $0
			next
		}
		key = substr($0, 1, i - 1)
		val = substr($0, i + 3, t - i - 3)
		mark = substr($0, t + 3)
		sub(/.*, /, "", mark)
		print sec "." key "\t" val "\t" mark
	}' "$1" | sort
}

# The keys of ebpfspy.conf(5), from the entries under KEYS written
#	.It Ic name No = Ar type Pq live|restart , default Ql value
dump_man_keys () {
	awk '
	/^\.Sh / { keys = ($2 == "KEYS"); sec = ""; next }
	!keys { next }
	/^\.Ss / {
		sec = $2
		if (sec !~ /^\[[a-z0-9_]+\]$/)
			print "bad section header: " $0
		gsub(/[][]/, "", sec)
		next
	}
	/^\.It / {
		line = $0
		if ($2 != "Ic" || sec == "" ||
		    !sub(/^\.It Ic [a-z0-9_]+ No = Ar [^ ]+ Pq /, "", line) ||
		    line !~ /^(live|restart) , default Ql /) {
			print "bad key entry: " $0
			next
		}
		mark = line
		sub(/ .*/, "", mark)
		sub(/^[a-z]+ , default Ql /, "", line)
		if (line ~ /^".*"$/)
			line = substr(line, 2, length(line) - 2)
		print sec "." $3 "\t" line "\t" mark
	}' "$1" | sort
}

# The active lines of an INI file as "section.key<TAB>value", sorted;
# and, in $2, keys not right below a comment that ends with their mark.
ini_keys () {
	awk -v marks="$3" -v bad="$2" '
	BEGIN {
		while ((getline l < marks) > 0) {
			split(l, f, "\t")
			mark[f[1]] = f[3]
		}
	}
	/^[ \t]*$/ { comment = ""; next }
	/^[ \t]*[#;]/ { comment = $0; next }
	/^\[[^]]*\][ \t]*$/ {
		sec = $0
		sub(/[ \t]*$/, "", sec)
		sec = substr(sec, 2, length(sec) - 2)
		comment = ""
		next
	}
	{
		line = $0
		sub(/[ \t];.*/, "", line)
		i = index(line, "=")
		key = substr(line, 1, i - 1)
		val = substr(line, i + 1)
		gsub(/^[ \t]+|[ \t]+$/, "", key)
		gsub(/^[ \t]+|[ \t]+$/, "", val)
		print sec "." key "\t" val
		n = split(comment, w, /[ \t]+/)
		if (!((sec "." key) in mark) || w[n] != mark[sec "." key])
			print sec "." key ": comment above does not end" \
			    " with \"" mark[sec "." key] "\"" > bad
		comment = ""
	}' "$1" | sort
}

# From "section.key<TAB>@VARIABLE@<TAB>mark" lines, "section.key<TAB>": a
# fixed string for grep -F that matches those keys' lines.
configured_keys () {
	awk -F '\t' '$2 ~ /^@[A-Za-z_]+@$/ { print $1 "\t" }' "$1"
}

test_expect_success 'ebpfspyd -h prints usage() and a line per flag, exit 0' '
	ebpfspyd -h >help 2>err &&
	test_must_be_empty err &&
	head -n 1 help >usage &&
	grep "^usage: ebpfspyd " usage &&
	sed -n "s/^  -\\([A-Za-z0-9]\\) .*/\\1/p" help | sort >help-flags &&
	test_line_count = $(($(wc -l <help) - 1)) help-flags
'

# getopt(3) may say what was wrong first.
test_expect_success 'an unknown flag prints usage() to stderr, exit 1' '
	test_expect_code 1 ebpfspyd -Q >out 2>err &&
	test_must_be_empty out &&
	tail -n 1 err >actual &&
	test_cmp usage actual
'

test_expect_success GROFF 'SYNOPSIS of ebpfspyd.8 is usage() letter for letter' '
	render "$MAN8" >ebpfspyd.8.txt &&
	sed -n "/^SYNOPSIS/,/^[A-Z]/p" ebpfspyd.8.txt |
	sed -e "1d" -e "\$d" -e "/^ *\$/d" -e "s/^ *//" >synopsis &&
	test_line_count = 1 synopsis &&
	sed "s/^/usage: /" synopsis >expect &&
	test_cmp expect usage
'

# The flags of usage(): "-dhnVv" gives d h n V v; "-c file" gives c.
test_expect_success 'ebpfspyd.8 describes exactly the flags of usage()' '
	sed -e "s/^usage: ebpfspyd //" -e "s/\\] \\[/\\n/g" -e "s/[][]//g" \
	    usage |
	while read -r flags arg; do
		if test -n "$arg"; then
			echo "${flags#-}"
		else
			echo "${flags#-}" | sed "s/./&\\n/g" | sed "/^\$/d"
		fi
	done | sort >expect &&
	sed -n "s/^\\.It Fl \\([A-Za-z0-9]\\).*/\\1/p" "$MAN8" | sort >actual &&
	test_cmp expect actual &&
	test_cmp expect help-flags
'

# Each flag's entry in ebpfspyd.8 begins with what -h says of it, up
# to its first comma, semicolon or parenthesis.
test_expect_success GROFF 'each -h line begins its flag'"'"'s entry in ebpfspyd.8' '
	sed -n "/^     -[A-Za-z0-9]/,/^[A-Z]/p" ebpfspyd.8.txt |
	awk "/^     -/ { if (e != \"\") print e; e = \$0; next }
	    { e = e \" \" \$0 } END { print e }" |
	sed -e "s/^ *\\(-[A-Za-z0-9]\\)\\( [a-z]*\\)\\{0,1\\} */\\1 /" \
	    -e "s/  */ /g" >entries &&
	sed 1d help |
	sed -e "s/^  \\(-[A-Za-z0-9]\\)\\( [a-z]*\\)\\{0,1\\}  */\\1 /" \
	    -e "s/[,;(].*//" -e "s/ *\$//" >said &&
	test_line_count -gt 5 said &&
	while read -r flag text; do
		grep -i -F -x -e "$flag $text" entries >/dev/null ||
		grep -i -F -e "$flag $text" entries | grep "^$flag " >/dev/null ||
		{ echo "ebpfspyd.8: $flag does not begin: $text"; return 1; }
	done <said
'

test_expect_success 'ebpfspyd -n -v prints every key' '
	: >empty.conf &&
	ebpfspyd -n -v -c empty.conf >dump 2>err &&
	test_must_be_empty err &&
	tail -n 1 dump >last &&
	echo "configuration OK" >expect &&
	test_cmp expect last &&
	dump_keys dump >keys &&
	! grep "^unparsable" keys &&
	test_line_count -gt 10 keys
'

test_expect_success 'ebpfspy.conf.5 documents every key, default and mark' '
	dump_man_keys "$MAN5" >man-keys &&
	test_cmp keys man-keys
'

# Defaults that depend on ./configure (a path under localstatedir):
# conf/ebpfspy.conf.in holds @VARIABLE@, filled in as in the binary.
test_expect_success 'find the keys whose default ./configure sets' '
	dump_man_keys "$MAN5_IN" >man-keys-in &&
	configured_keys man-keys-in >configured &&
	cut -f 1 man-keys-in >expect &&
	cut -f 1 man-keys >actual &&
	test_cmp expect actual
'

test_expect_success 'conf/ebpfspy.conf sets every key to its default' '
	: >bad-comments &&
	ini_keys "$EXAMPLE" bad-comments keys >example-keys &&
	cut -f 1,2 keys >expect &&
	grep -v -F -f configured expect >expect.fixed &&
	grep -v -F -f configured example-keys >actual.fixed &&
	test_cmp expect.fixed actual.fixed &&
	cut -f 1 expect >expect.names &&
	cut -f 1 example-keys >actual.names &&
	test_cmp expect.names actual.names
'

test_expect_success 'the built conf/ebpfspy.conf has the binary'"'"'s paths too' '
	cut -f 1,2 keys >expect &&
	test_cmp expect example-keys
'

test_expect_success 'each key of conf/ebpfspy.conf has a comment with its mark' '
	test_must_be_empty bad-comments
'

test_expect_success 'ebpfspyd -n accepts conf/ebpfspy.conf, same settings' '
	ebpfspyd -n -c "$EXAMPLE" >out 2>err &&
	test_must_be_empty err &&
	echo "configuration OK" >expect &&
	test_cmp expect out &&
	ebpfspyd -n -v -c "$EXAMPLE" >example-dump &&
	dump_keys example-dump >example-dump-keys &&
	grep -v -F -f configured keys >expect &&
	grep -v -F -f configured example-dump-keys >actual &&
	test_cmp expect actual
'

test_expect_success 'the generated pages have no @VARIABLE@ left' '
	! grep -n "@[A-Za-z_]*@" "$MAN8" "$MAN5"
'

test_expect_success GROFF 'groff -mdoc -ww finds nothing to warn about' '
	for page in "$MAN8" "$MAN5"; do
		groff -mdoc -Tutf8 -ww -z "$page" 2>>warnings || return 1
	done &&
	test_must_be_empty warnings
'

test_expect_success MANDOC 'mandoc -Tlint finds nothing to warn about' '
	# Its exit status says the same as its output, which we want to see.
	mandoc -Tlint -Wwarning "$MAN8" "$MAN5" >lint 2>&1
	test_must_be_empty lint
'

test_done
