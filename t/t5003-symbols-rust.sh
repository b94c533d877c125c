#!/bin/sh
test_description='Rust names, legacy and v0 mangling

A Rust workload (the crate is r5003) spends its time in burn_rust and
in a method of a generic type, W<u32>::get; built with the legacy and
with the v0 symbol mangling, both are named without hashes or generic
arguments (demangle = simplified, the default).'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

test_lazy_prereq RUSTC 'rustc --version'

test_expect_success RUSTC 'Rust workloads' '
	cat >r5003.rs <<-\EOF &&
	#[inline(never)]
	fn burn_rust(n: u64) -> u64 {
	    let mut s = 0u64;
	    for i in 0..n {
	        s = std::hint::black_box(s.wrapping_mul(3).wrapping_add(i));
	    }
	    s
	}

	struct W<T> {
	    v: T,
	}

	impl<T: Copy + Into<u64>> W<T> {
	    #[inline(never)]
	    fn get(&self, n: u64) -> u64 {
	        let mut s = self.v.into();
	        for i in 0..n {
	            s = std::hint::black_box(s ^ i.wrapping_mul(5));
	        }
	        s
	    }
	}

	// The CPU time used so far, from /proc/self/stat (utime + stime,
	// in ticks of 1/100 s): a busy machine still gets the samples.
	fn cpu() -> f64 {
	    let st = std::fs::read_to_string("/proc/self/stat").unwrap();
	    let f: Vec<&str> = st.rsplit(") ").next().unwrap()
	        .split_whitespace().collect();
	    let t: u64 = f[11].parse::<u64>().unwrap()
	        + f[12].parse::<u64>().unwrap();
	    t as f64 / 100.0
	}

	fn main() {
	    let secs: f64 = std::env::args().nth(1).unwrap().parse().unwrap();
	    println!("ready {}", std::process::id());
	    let w = W { v: 3u32 };
	    let mut s = 0u64;
	    while cpu() < secs {
	        s = s.wrapping_add(burn_rust(1_000_000) + w.get(1_000_000));
	    }
	    std::process::exit((s & 0) as i32);
	}
	EOF
	rustc -C force-frame-pointers=yes -C opt-level=1 -o r5003 r5003.rs &&
	rustc -C force-frame-pointers=yes -C opt-level=1 \
	    -C symbol-mangling-version=v0 -o v5003 r5003.rs &&
	nm r5003 | grep -q "_ZN5r50039burn_rust17h" &&
	nm v5003 | grep -q "_RNvCs.*_5r50039burn_rust"
'

test_expect_success ROOT,BPF,RUSTC 'profile them' '
	profile_config </dev/null &&
	daemon_start -c ebpfspy.conf -o out &&
	{ ./v5003 2 >v.out & pv=$!; } &&
	./r5003 2 >r.out &&
	wait $pv &&
	daemon_stop
'

# check SERVICE GET: samples in burn_rust and in W::get (named GET).
check () {
	folded cpu "$1" >"$1.folded" &&
	all=$(folded_sum "^$1;" <"$1.folded") &&
	burn=$(folded_sum ";r5003::burn_rust\$" <"$1.folded") &&
	get=$(folded_sum ";$2\$" <"$1.folded") &&
	echo "$1: $burn in burn_rust, $get in $2, of $all" &&
	test "$all" -ge 50 &&
	test "$burn" -gt 0 && test "$get" -gt 0 &&
	test $((burn + get)) -ge $((all * 80 / 100)) &&
	! grep -E "17h[0-9a-f]{16}|_ZN|_R[A-Z]" "$1.folded"
}

test_expect_success ROOT,BPF,RUSTC 'legacy mangling: named, no hashes' '
	check r5003 "r5003::W::get"
'

test_expect_success ROOT,BPF,RUSTC 'v0 mangling: named, no generic arguments' '
	check v5003 "<r5003::W>::get"
'

test_done
