#!/bin/sh
test_description='kernel frames: named with collect_kernel, absent without'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-daemon.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-profile.sh"

KERNEL_RE='(entry_SYSCALL_64_after_hwframe|do_syscall_64|__x64_sys_getppid|__do_sys_getppid|asm_sysvec|syscall_exit_to_user_mode)'

test_expect_success ROOT,BPF 'collect_kernel on: kernel frames above sys_loop' '
	mkworkload burn b3001 &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3001 -m syscall -c 2 >burn.out &&
	daemon_stop &&
	folded cpu b3001 >on.folded &&
	all=$(folded_sum ";main;work;sys_loop" <on.folded) &&
	kern=$(folded_sum ";main;work;sys_loop;.*$KERNEL_RE" <on.folded) &&
	echo "sys_loop $all, with kernel frames $kern" &&
	test "$all" -ge 100 &&
	test "$kern" -ge $((all / 4)) &&
	grep -E -q ";main;work;sys_loop;entry_SYSCALL_64_after_hwframe;do_syscall_64" on.folded
'

test_expect_success ROOT,BPF 'collect_kernel off: no kernel frame at all' '
	rm -rf out &&
	profile_config <<-\EOF &&
	[profile]
	sample_rate = 499
	collect_kernel = no
	EOF
	daemon_start -c ebpfspy.conf -o out &&
	./b3001 -m syscall -c 2 >burn.out &&
	daemon_stop &&
	folded cpu b3001 >off.folded &&
	all=$(folded_sum ";main;work;sys_loop" <off.folded) &&
	test "$all" -ge 100 &&
	! grep -E "$KERNEL_RE" off.folded
'

test_done
