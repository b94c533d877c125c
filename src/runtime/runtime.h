#ifndef EBPFSPY_RUNTIME_H
#define EBPFSPY_RUNTIME_H

/*
 * Runtime plug-ins: what the daemon keeps per process, made from the
 * process's maps -- a language runtime the BPF walker can walk (CPython,
 * HotSpot, V8) or a table the native walker needs (the
 * unwind tables).  Each is a table of hooks; the process table
 * (round/pids.c) keeps a slot per runtime per process and calls them at
 * the times below, and the round (round/collect_stack.c) names the
 * frames of a runtime's walker through them.
 *
 * How a runtime plugs in:
 *   1. a folder of its own (src/java/), in the README's floor list and
 *      t/helper/layout.py's ORDER after runtime/, that exports a
 *      const struct runtime_ops;
 *   2. its open() detects it from the maps (libjvm.so, a library with
 *      v8dbg_ symbols) and returns its state for the process, or NULL;
 *   3. one row in ebpfspyd.c's ebpfspyd_runtimes[].
 * Nothing in pids, collect or the daemon's loop changes.
 *
 * The hooks, and when pids calls them (NULL hooks are skipped; self is
 * what create returned, and may be NULL; st a process's state):
 *   create     at start-up, in the table's order
 *   configure  new config (reload): 1 if every process's state must be
 *              made again from its maps (closed, opened), else 0
 *   open       its maps read at its first sample since its exec: its
 *              state, or NULL when it does not run the runtime; with
 *              *pending set, maybe later (a library not mapped yet):
 *              BPF is asked for its next samples and open called again
 *   again      its maps read again (why: enum runtime_again); st may be
 *              NULL; returns its state, the same or a new one
 *   forget     it exited: what BPF walks it with may go now; returns
 *              what names its last samples (NULL: nothing kept)
 *   close      its state goes: it exec'd, was forgotten, or configure
 *              asked for it
 *   stack_seen a new stack of the runtime's own walker was stored
 *              (PROFILE_EVENT_PYSTACK): 1 if its symbols need reading
 *   round_end  the round's samples are named
 *   log_state  SIGUSR1: a line of its state
 *   free       at exit, after every state is closed
 * A runtime whose process is walked by a walker of its own gives its
 * BPF pid type (pid_type, while its state is open) and names the
 * stacks that walker stores (stack_names, native_above); one whose
 * frames the native walk records (V8) names them among the native
 * frames (stack_merge).
 */
#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct config;
struct ev_loop;
struct procmaps;
struct session;

/* Why a process's maps were read again. */
enum runtime_again {
	RUNTIME_AGAIN_SAMPLED,		/* runs its own code now, or pending */
	RUNTIME_AGAIN_WALKER,		/* the walker met an unknown mapping */
};

/* What a runtime is made with. */
struct runtime_env {
	struct ev_loop		*loop;
	struct session		*session;
	const struct config	*conf;
};

/* A frame a runtime names: what it is, for pprof. */
struct runtime_where {
	const char	*func;		/* the function, with its class */
	const char	*file;
	int		 line;		/* 0: not in the names */
};

typedef void (*runtime_frame_cb)(const char *, const struct runtime_where *,
    void *);
/* A native frame of the user stack, by index (0: the innermost). */
typedef void (*runtime_native_cb)(size_t, void *);

struct runtime_ops {
	const char	 *name;
	int		  pid_type;	/* enum profile_pid_type; 0: native */
	void		*(*create)(const struct runtime_env *);
	void		 (*free)(void *);
	int		 (*configure)(void *, const struct config *);
	void		*(*open)(void *, pid_t, const struct procmaps *, int *);
	void		*(*again)(void *, void *, pid_t,
			    const struct procmaps *, enum runtime_again);
	void		*(*forget)(void *, void *);
	void		 (*close)(void *, void *);
	int		 (*stack_seen)(void *, void *, uint64_t, uint64_t);
	void		 (*round_end)(void *);
	void		 (*log_state)(void *);
	/*
	 * A stack of its walker, outermost first, to the callback (NULL
	 * where: a frame of no details); -1 if it is no longer kept.
	 */
	int		 (*stack_names)(void *, void *, uint64_t,
			    runtime_frame_cb, void *);
	/* Native frames, leaf first, that ran above the runtime's. */
	size_t		 (*native_above)(void *, void *, const uint64_t *,
			    size_t);
	/*
	 * A runtime whose frames are native frames too (V8): the user
	 * stack of n frames, outermost first, each frame to the native
	 * callback unless the runtime names it (the frame callback); -1
	 * if its stack of records is no longer kept.
	 */
	int		 (*stack_merge)(void *, void *, uint64_t, size_t,
			    runtime_native_cb, runtime_frame_cb, void *);
};

#define RUNTIME_MAX	8

/* The runtimes the daemon registered, in order. */
struct runtimes;

/* A process's state of one runtime, for naming its frames. */
struct runtime_proc {
	const struct runtime_ops *ops;
	void			*self;
	void			*st;
};

struct runtimes	*runtimes_create(const struct runtime_ops *const *, size_t,
		    const struct runtime_env *);
void		 runtimes_free(struct runtimes *);
size_t		 runtimes_count(const struct runtimes *);
const struct runtime_ops *runtimes_ops(const struct runtimes *, size_t);
void		*runtimes_self(const struct runtimes *, size_t);
/* What create made of these hooks; NULL if not registered. */
void		*runtimes_find(const struct runtimes *,
		    const struct runtime_ops *);
/* Is type the BPF pid type of a registered runtime? */
int		 runtimes_is_pid_type(const struct runtimes *, int);

int		 runtime_stack_names(const struct runtime_proc *, uint64_t,
		    runtime_frame_cb, void *);
size_t		 runtime_native_above(const struct runtime_proc *,
		    const uint64_t *, size_t);
int		 runtime_stack_merge(const struct runtime_proc *, uint64_t,
		    size_t, runtime_native_cb, runtime_frame_cb, void *);

#endif
