#ifndef EBPFSPY_CLOCK_H
#define EBPFSPY_CLOCK_H

#include <stdint.h>
#include <time.h>

/*
 * A clock read in nanoseconds: CLOCK_MONOTONIC (BPF's bpf_ktime_get_ns,
 * so times compare with the kernel's), CLOCK_REALTIME (ns since the
 * epoch, a profile's time) or CLOCK_PROCESS_CPUTIME_ID (the CPU a step
 * took).  int64_t holds 292 years of either.
 */
int64_t	 clock_ns(clockid_t);

#endif
