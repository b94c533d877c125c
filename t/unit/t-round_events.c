/*
 * The round over a null session: execs and exits in the order BPF
 * sends them, and a pid BPF holds pending until the daemon answers.
 */
#include "tap.h"
#include "roundfix.h"
#include "round/pids_int.h"

/*
 * An exec, its first sample, its samples, its exit, all before the
 * round drains, in the order BPF sends them: the samples are named
 * (its maps were read at its first sample), go to its target, and the
 * process is forgotten at this round's end.
 */
static void
test_exec_exit_before_drain(void)
{
	struct roundfix			 f;
	struct profile_pid_config	 cfg;
	char				*folded;
	pid_t				 kid;

	kid = roundfix_start(&f, "kid", "");
	roundfix_exec(&f, kid, "kidexec", 1, 7);
	roundfix_event(&f, PROFILE_EVENT_EXIT, kid, "kidexec", 2000000000, 0);
	is_int(collect_round(f.c, f.conf, 0), 0, "round");
	folded = roundfix_folded(&f, "cpu", "kid");
	roundfix_has(folded, "kidexec;round_caller;round_leaf_a 7\n",
	    "exec'd, counted, exited: named under its exec's comm, its "
	    "target's service");
	free(folded);
	is_int(pids_count(f.p, PIDS_DEAD), 0, "gone at the round's end");
	ok(session_pid_get(f.s, kid, &cfg) == -1, "its BPF entry is gone");
	roundfix_close(&f);
}

/*
 * An exit read after the drain: the process ran into the next round's
 * counts, which are still named by it; it goes at that round's end.
 */
static void
test_exit_after_drain(void)
{
	struct roundfix	 f;
	char		*folded;
	pid_t		 kid;

	kid = roundfix_start(&f, "kid2", "");
	roundfix_exec(&f, kid, "kid2", 1, 3);
	is_int(collect_round(f.c, f.conf, 0), 0, "round 1");
	/* Sampled after round 1's drain, then exited. */
	roundfix_count(&f, kid, PROFILE_KIND_CPU, 2, 5);
	roundfix_event(&f, PROFILE_EVENT_EXIT, kid, "kid2", 2000000000, 0);
	is_int(pids_count(f.p, PIDS_ALIVE) >= 1, 1, "alive between rounds");
	is_int(collect_round(f.c, f.conf, 0), 0, "round 2");
	folded = roundfix_folded(&f, "cpu", "kid2");
	roundfix_has(folded, "kid2;round_caller;round_leaf_a 3\n",
	    "round 1's samples named");
	roundfix_has(folded, "kid2;round_caller;round_leaf_b 5\n",
	    "round 2's, of a process that exited since, named too");
	free(folded);
	is_int(pids_count(f.p, PIDS_DEAD), 0, "forgotten after round 2");
	roundfix_close(&f);
}

/*
 * A first sample of a pid BPF did not know: its entry waits (PENDING)
 * until the daemon has looked at it; then it is profiled, and the time
 * it blocked while pending counts as its off-CPU time.
 */
static void
test_pending(void)
{
	struct roundfix			 f;
	struct profile_pid_config	 cfg;
	char				*folded;
	pid_t				 kid;

	kid = roundfix_start(&f, "kid3", "");
	roundfix_event(&f, PROFILE_EVENT_UNKNOWN_PID, kid, "t-round_events",
	    0, 0);
	ok(session_pid_get(f.s, kid, &cfg) == 0 &&
	    (cfg.flags & PROFILE_PID_F_PENDING) != 0, "BPF holds it pending");
	session_drain_events(f.s);
	ok(session_pid_get(f.s, kid, &cfg) == 0, "its entry is there");
	is_int(cfg.type, PROFILE_PID_FP, "answered: profiled");
	is_int(cfg.flags & PROFILE_PID_F_PENDING, 0, "not pending any more");
	roundfix_count(&f, kid, PROFILE_KIND_OFFCPU_PENDING, 1, 250000);
	roundfix_count(&f, kid, PROFILE_KIND_CPU, 2, 4);
	is_int(collect_round(f.c, f.conf, 0), 0, "round");
	folded = roundfix_folded(&f, "offcpu", "kid3");
	roundfix_has(folded,
	    "t-round_events;round_caller;round_leaf_a 250000\n",
	    "its wait while pending is off-CPU time");
	free(folded);
	folded = roundfix_folded(&f, "cpu", "kid3");
	roundfix_has(folded, "t-round_events;round_caller;round_leaf_b 4\n",
	    "its samples are on-CPU");
	free(folded);
	roundfix_close(&f);
}

/*
 * A process whose maps could not be read at its first sample has no
 * symbols; the next read, the unwinder's (a library mapped since),
 * opens them: else its runtimes, opened by that read, named their
 * frames and every native frame stayed [unknown] once it had exited.
 * That first read is made to fail by dropping what it opened.
 */
static void
test_asked_opens_symbols(void)
{
	struct roundfix		 f;
	struct pids_proc	*proc;
	char			*folded;
	pid_t			 kid;

	kid = roundfix_start(&f, "kid4", "");
	roundfix_exec(&f, kid, "kid4", 1, 6);
	session_drain_events(f.s);
	proc = pids_find(f.p, kid);
	if (!ok(proc != NULL && proc->loaded && proc->rp != NULL,
	    "its maps read at its first sample")) {
		roundfix_close(&f);
		return;
	}
	resolve_proc_close(f.r, proc->rp);
	proc->rp = NULL;
	roundfix_event(&f, PROFILE_EVENT_UNWIND_MAPS, kid, "kid4", 0, 0);
	session_drain_events(f.s);
	ok(pids_proc_resolve(proc) != NULL, "the unwinder's read opens them");
	/* Gone before the round names its samples. */
	kill(kid, SIGKILL);
	waitpid(kid, NULL, 0);
	f.nkids = 0;
	roundfix_event(&f, PROFILE_EVENT_EXIT, kid, "kid4", 2000000000, 0);
	is_int(collect_round(f.c, f.conf, 0), 0, "round");
	folded = roundfix_folded(&f, "cpu", "kid4");
	roundfix_has(folded, "kid4;round_caller;round_leaf_a 6\n",
	    "its frames named after its exit");
	free(folded);
	roundfix_close(&f);
}

int
main(void)
{
	test_exec_exit_before_drain();
	test_exit_after_drain();
	test_pending();
	test_asked_opens_symbols();
	return done_testing();
}
