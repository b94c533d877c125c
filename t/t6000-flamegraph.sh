#!/bin/sh
test_description='SVG flame graphs

t/helper/flamegraph draws folded stacks with the daemon'\''s code: the
document is well-formed XML, hostile names are escaped, the root frames
add up to the folded totals, and it renders in headless Chromium, where
its script labels the frames, zooms and searches.  Then the daemon
writes latest.svg and last-hour.svg for a workload, which hold the same
totals as its folded files and show its hot function.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq XMLLINT 'xmllint --version'
test_lazy_prereq CHROMIUM 'chromium --version'
# CI installs both (tools/install-deps.sh): there a missing one fails.
if test "${EBPFSPY_REQUIRE_BPF-}" = 1; then
	test_set_prereq XMLLINT
	test_set_prereq CHROMIUM
fi

# A frame's title, then its box and its label.
LABEL='<rect [^>]*/><text [^>]*'

# svg_total FILE: the total value the graph was drawn for.
svg_total () {
	sed -n 's/^<g id="frames" data-total="\([0-9]*\)".*/\1/p' "$1"
}

# svg_roots FILE: "values width" of the root frames, summed.
svg_roots () {
	awk '/^<g data-d="0" / {
		v = $0; sub(/.* data-v="/, "", v); sub(/".*/, "", v)
		w = $0; sub(/.* width="/, "", w); sub(/".*/, "", w)
		sv += v; sw += w
	} END { printf "%.0f %.2f\n", sv, sw }' "$1"
}

# chromium_run FILE [options...]: headless Chromium on a file here.
chromium_run () {
	chromium_url_="file://$(echo "$PWD/$1" | sed 's/ /%20/g')" &&
	shift &&
	mkdir -p chromium-profile &&
	timeout 120 chromium --headless --no-sandbox --disable-gpu \
	    --disable-background-networking --disable-component-update \
	    --disable-sync --no-first-run \
	    --user-data-dir="$PWD/chromium-profile" "$@" \
	    "$chromium_url_" 2>chromium.err
}

# warm_pixels PNG: how many pixels of the on-CPU palette it shows.
warm_pixels () {
	python3 - "$1" <<\EOF
import struct, sys, zlib
data = open(sys.argv[1], "rb").read()
assert data[:8] == b"\x89PNG\r\n\x1a\n"
pos, idat = 8, b""
while pos < len(data):
    n, kind = struct.unpack(">I4s", data[pos:pos + 8])
    body = data[pos + 8:pos + 8 + n]
    if kind == b"IHDR":
        w, h, depth, ctype = struct.unpack(">IIBB", body[:10])
    elif kind == b"IDAT":
        idat += body
    pos += 12 + n
assert depth == 8 and ctype in (2, 6)
bpp = 3 if ctype == 2 else 4
raw, stride = zlib.decompress(idat), w * bpp
prev, warm, i = bytearray(stride), 0, 0
for y in range(h):
    f, line = raw[i], bytearray(raw[i + 1:i + 1 + stride])
    i += 1 + stride
    for x in range(stride):
        a = line[x - bpp] if x >= bpp else 0
        b = prev[x]
        c = prev[x - bpp] if x >= bpp else 0
        if f == 1:
            line[x] = (line[x] + a) & 255
        elif f == 2:
            line[x] = (line[x] + b) & 255
        elif f == 3:
            line[x] = (line[x] + (a + b) // 2) & 255
        elif f == 4:
            p = a + b - c
            pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
            pr = a if pa <= pb and pa <= pc else b if pb <= pc else c
            line[x] = (line[x] + pr) & 255
    for x in range(0, stride, bpp):
        if line[x] >= 200 and line[x + 1] < 230 and line[x + 2] < 100:
            warm += 1
    prev = line
print(warm)
EOF
}

test_expect_success 'draw folded stacks, hostile names included' '
	cat >in.folded <<-\EOF &&
	burn;_start;main;burn_a;spin 750
	burn;_start;main;burn_b;spin 250
	burn;_start;main 12
	burn;<script>alert(1)</script>;a&b "q" '\''x'\'' 30
	burn;_start;main;burn_a;spin;asm_sysvec_apic_timer_interrupt 40
	EOF
	flamegraph -t "b6000: cpu <test>" in.folded >fg.svg &&
	test "$(svg_total fg.svg)" = 1082 &&
	! grep "<script>alert" fg.svg &&
	grep "&lt;script&gt;alert(1)&lt;/script&gt;" fg.svg &&
	grep "a&amp;b &quot;q&quot; &apos;x&apos;" fg.svg &&
	grep "<title>burn_a (790 samples, 73.01%)</title>" fg.svg &&
	grep ">b6000: cpu &lt;test&gt;</text>" fg.svg
'

test_expect_success XMLLINT 'the document is well-formed XML' '
	xmllint --noout fg.svg
'

test_expect_success 'the root frames add up to the folded totals' '
	echo "1082 1180.00" >expect &&
	svg_roots fg.svg >actual &&
	test_cmp expect actual
'

test_expect_success CHROMIUM 'it renders in headless Chromium' '
	chromium_run fg.svg --screenshot="$PWD/shot.png" \
	    --window-size=1200,800 &&
	test -s shot.png
'

test_expect_success CHROMIUM,PYTHON3 'the screenshot shows the frames' '
	n=$(warm_pixels shot.png) &&
	echo "$n warm pixels" &&
	test "$n" -ge 20000
'

test_expect_success CHROMIUM 'its script ran and labelled burn_a' '
	chromium_run fg.svg --dump-dom >dom &&
	grep "^<svg [^>]* data-fg=\"ready\"" dom &&
	grep "<title>burn_a (790 samples, 73.01%)</title>$LABEL>burn_a<" dom
'

test_expect_success CHROMIUM 'a click zooms, Reset Zoom unzooms, Search finds' '
	sed "/^<\/svg>$/d" fg.svg >zoom.svg &&
	cat >>zoom.svg <<-\EOF &&
	<script type="text/ecmascript"><![CDATA[
	(function () {
		var root = document.documentElement;
		var gs = Array.prototype.slice.call(
		    document.querySelectorAll("#frames > g"));
		function find(name) {
			return gs.filter(function (g) {
				return g.firstElementChild.textContent
				    .indexOf(name + " (") === 0;
			})[0];
		}
		function click(e) {
			e.dispatchEvent(new MouseEvent("click",
			    { bubbles: true }));
		}
		function width(name) {
			return find(name).querySelector("rect")
			    .getAttribute("width");
		}
		var a = find("burn_a");
		click(find("burn_b").querySelector("rect"));
		root.setAttribute("data-t-b", width("burn_b"));
		root.setAttribute("data-t-main", width("main") + " " +
		    find("main").getAttribute("class"));
		root.setAttribute("data-t-a", a.getAttribute("class"));
		click(document.getElementById("unzoom"));
		root.setAttribute("data-t-unzoomed", width("burn_b") + " " +
		    a.getAttribute("class"));
		window.prompt = function () { return "^burn_a$"; };
		click(document.getElementById("search"));
		root.setAttribute("data-t-matched",
		    document.getElementById("matched").textContent);
		root.setAttribute("data-t-fill",
		    a.querySelector("rect").getAttribute("fill"));
	})();
	]]></script>
	</svg>
	EOF
	xmllint --noout zoom.svg 2>/dev/null || ! command -v xmllint &&
	chromium_run zoom.svg --dump-dom >dom &&
	head -1 dom >root &&
	grep " data-t-b=\"1180.00\"" root &&
	grep " data-t-main=\"1180.00 caller\"" root &&
	grep " data-t-a=\"hide\"" root &&
	grep " data-t-unzoomed=\"272.64 \"" root &&
	grep " data-t-matched=\"Matched: 73.01%\"" root &&
	grep " data-t-fill=\"rgb(230,0,230)\"" root
'

test_expect_success 'off-CPU graphs show time, in blue' '
	printf "srv;read 1500000\nsrv;poll 2500000000\n" >off.folded &&
	flamegraph -o off.folded >off.svg &&
	grep "<title>read (1.500 ms, 0.06%)</title>" off.svg &&
	grep "<title>poll (2.50 s, 99.94%)</title>" off.svg &&
	grep "<title>srv (" off.svg | sed -e "s/.* fill=\"rgb(//" \
	    -e "s/).*//" -e "s/,/ /g" >rgb &&
	read r g b <rgb &&
	test "$b" -ge 200 && test "$b" -gt "$r" && test "$b" -gt "$g"
'

test_expect_success 'a large profile stays bounded' '
	awk "BEGIN { for (i = 0; i < 100000; i++)
	    printf \"app;m%d;f%d;leaf%d %d\\n\",
	    i % 7, i % 1013, i, 1 + i % 5 }" >big.folded &&
	flamegraph big.folded >big.svg &&
	n=$(grep -c "^<g data-d=" big.svg) &&
	echo "$n frames, $(wc -c <big.svg) bytes" &&
	test "$n" -le 20000 &&
	test "$(wc -c <big.svg)" -le 8388608 &&
	total=$(awk "{ s += \$NF } END { print s }" big.folded) &&
	test "$(svg_roots big.svg)" = "$total 1180.00"
'

test_expect_success ROOT,BPF 'the daemon writes latest.svg and last-hour.svg' '
	mkworkload burn b6000 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b6000 -t 4 >burn.out &&
	daemon_stop &&
	test_path_is_file out/cpu/b6000/latest.svg &&
	test_path_is_file out/cpu/b6000/last-hour.svg &&
	folded cpu b6000 >burn.folded &&
	test -s burn.folded &&
	! ls -A out/cpu/b6000 | grep "^\."
'

test_expect_success ROOT,BPF,XMLLINT 'both are well-formed XML' '
	xmllint --noout out/cpu/b6000/latest.svg &&
	xmllint --noout out/cpu/b6000/last-hour.svg
'

test_expect_success ROOT,BPF 'their root frames add up to the folded totals' '
	newest=$(ls out/cpu/b6000/*.folded | tail -1) &&
	n=$(folded_sum "." <"$newest") &&
	test "$(svg_total out/cpu/b6000/latest.svg)" = "$n" &&
	echo "$n 1180.00" >expect &&
	svg_roots out/cpu/b6000/latest.svg >actual &&
	test_cmp expect actual &&
	all=$(folded_sum "." <burn.folded) &&
	echo "$all 1180.00" >expect &&
	svg_roots out/cpu/b6000/last-hour.svg >actual &&
	test_cmp expect actual &&
	grep ">b6000: cpu, [0-9,]* samples*, 20[0-9-]* [0-9:]*-[0-9:]* UTC</text>" \
	    out/cpu/b6000/latest.svg
'

test_expect_success ROOT,BPF 'a running daemon draws the flame graphs after each round' '
	printf "[daemon]\ncollect_interval = 1\n[profile]\nsample_rate = 499\n" \
	    >running.conf &&
	daemon_start -v -c running.conf -o run &&
	./b6000 -t 3 >burn2.out &&
	drawn="^sinks: flame graphs drawn, [1-9][0-9]* latest.svg, [1-9]" &&
	daemon_wait_log_count "$drawn" 2 &&
	# After the round that wrote the profiles, not in it.
	grep -E "^round [0-9]+: |$drawn" "$DAEMON_LOG" | head -n 1 >first &&
	grep "^round " first &&
	test_path_is_file run/cpu/b6000/latest.svg &&
	test_path_is_file run/cpu/b6000/last-hour.svg &&
	grep "</svg>" run/cpu/b6000/last-hour.svg &&
	! grep "stopping" "$DAEMON_LOG" &&
	daemon_stop &&
	# The round at stop draws its hour too, before the daemon exits:
	# the graph holds every round.
	all=$(cat run/cpu/b6000/*.folded | folded_sum .) &&
	echo "last-hour.svg $(svg_total run/cpu/b6000/last-hour.svg)," \
	    "folded $all" &&
	test "$(svg_total run/cpu/b6000/last-hour.svg)" = "$all"
'

test_expect_success ROOT,BPF 'svg_hour_bytes bounds the sums of last-hour.svg' '
	# Nine minutes of the hour before, 500 stacks of their own each:
	# some 0.5 MB of sums, under the default bound, over 64 KiB.
	now=$(date +%s) &&
	for b in hour_default hour_small; do
		mkdir -p $b/cpu/b6000 &&
		for m in 1 2 3 4 5 6 7 8 9; do
			t=$((now - m * 60)) &&
			f=$b/cpu/b6000/$(date -u -d @$t +%Y%m%dT%H%M%SZ).folded &&
			awk -v m=$m "BEGIN { for (i = 0; i < 500; i++)
			    printf \"b6000;planted_%d;leaf_%d_%d 1\\n\", m, m, i }" \
			    >"$f" &&
			touch -d @$t "$f" || return 1
		done || return 1
	done &&
	printf "[daemon]\ncollect_interval = 1\n[profile]\nsample_rate = 499\n" \
	    >hour_default.conf &&
	cp hour_default.conf hour_small.conf &&
	printf "[output]\nsvg_hour_bytes = 65536\n" >>hour_small.conf &&
	for b in hour_default hour_small; do
		daemon_start -c $b.conf -o $b &&
		./b6000 -t 2 >burn3.out &&
		daemon_stop || return 1
	done &&
	grep -o "b6000: cpu, last [^,]*," hour_default/cpu/b6000/last-hour.svg \
	    >default.title &&
	grep -o "b6000: cpu, last [^,]*," hour_small/cpu/b6000/last-hour.svg \
	    >small.title &&
	cat default.title small.title &&
	grep "last hour," default.title &&
	grep "last [0-9]* min (memory bound)," small.title &&
	grep "<title>planted_9 (" hour_default/cpu/b6000/last-hour.svg &&
	! grep "<title>planted_9 (" hour_small/cpu/b6000/last-hour.svg
'

test_expect_success ROOT,BPF,CHROMIUM 'the hot function shows in Chromium' '
	cp out/cpu/b6000/latest.svg latest.svg &&
	chromium_run latest.svg --screenshot="$PWD/daemon.png" \
	    --window-size=1200,800 &&
	test -s daemon.png &&
	chromium_run latest.svg --dump-dom >dom &&
	grep "^<svg [^>]* data-fg=\"ready\"" dom &&
	grep "<title>burn_a ([0-9]* samples, [0-9.]*%)</title>$LABEL>burn_a<" \
	    dom
'

test_done
