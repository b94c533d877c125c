/*
 * The runtime plug-in interface (src/runtime/runtime.h): a fake runtime
 * registered as the daemon registers Python's and the unwinder's, and
 * the process table (src/round/pids.c) driven by the events BPF sends.
 * Each hook must be called at its time: open at a process's first
 * sample, again at each later read of its maps, close at its exec,
 * forget at its exit and close when it is forgotten, configure at a
 * reload (and every process made again when it asks), the round's end
 * and SIGUSR1's state; and the BPF pid config pids writes says the
 * runtime's type while its state is open, and asks for samples while
 * it waits.  The BPF session's calls are replaced by ones that record
 * what pids writes: no BPF needed.
 */
#include <sys/types.h>
#include <sys/wait.h>

#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "config.h"
#include "proc/procmaps.h"
#include "round/pids.h"
#include "runtime/runtime.h"
#include "session/session.h"
#include "session/stacks.h"
#include "sym/resolve.h"
#include "tap.h"

static struct fake {
	int	 creates, frees, configures, opens, agains, forgets, closes;
	int	 seen, round_ends, log_states;
	int	 again_walker;		/* agains of RUNTIME_AGAIN_WALKER */
	int	 configure_ret;		/* what configure answers */
	int	 pending;		/* what open answers */
	pid_t	 open_pid;
	int	 open_maps;		/* open had the maps */
	int	 live;			/* states open */
	int	 self;
} fake;

static void *
fake_create(const struct runtime_env *env)
{
	fake.creates++;
	return &fake.self;
}

static void
fake_free(void *self)
{
	if (self == &fake.self)
		fake.frees++;
}

static int
fake_configure(void *self, const struct config *conf)
{
	fake.configures++;
	return fake.configure_ret;
}

static void *
fake_open(void *self, pid_t pid, const struct procmaps *maps, int *pending)
{
	fake.opens++;
	fake.open_pid = pid;
	fake.open_maps = maps != NULL && maps->n > 0;
	*pending = fake.pending;
	if (fake.pending)
		return NULL;
	fake.live++;
	return malloc(1);
}

static void *
fake_again(void *self, void *st, pid_t pid, const struct procmaps *maps,
    enum runtime_again why)
{
	fake.agains++;
	if (why == RUNTIME_AGAIN_WALKER)
		fake.again_walker++;
	return st;
}

/* Keeps its state: a runtime that names the last samples with it. */
static void *
fake_forget(void *self, void *st)
{
	fake.forgets++;
	return st;
}

static void
fake_close(void *self, void *st)
{
	if (st == NULL)
		return;
	fake.closes++;
	fake.live--;
	free(st);
}

static int
fake_stack_seen(void *self, void *st, uint64_t id, uint64_t ustack)
{
	fake.seen++;
	return 0;
}

static void
fake_round_end(void *self)
{
	fake.round_ends++;
}

static void
fake_log_state(void *self)
{
	fake.log_states++;
}

static const struct runtime_ops fake_runtime = {
	.name = "fake",
	.pid_type = PROFILE_PID_PYTHON,
	.create = fake_create,
	.free = fake_free,
	.configure = fake_configure,
	.open = fake_open,
	.again = fake_again,
	.forget = fake_forget,
	.close = fake_close,
	.stack_seen = fake_stack_seen,
	.round_end = fake_round_end,
	.log_state = fake_log_state,
};

static const struct runtime_ops *const table[] = { &fake_runtime };

/*
 * The BPF session's calls pids makes, linked in their place
 * (-Wl,--wrap, Makefile.am: the library's own are still linked, for
 * what else it pulls in).  The BPF pid map: the last config written.
 */
int	 __wrap_session_pid_set(struct session *, pid_t,
	    const struct profile_pid_config *);
int	 __wrap_session_pid_delete(struct session *, pid_t);
int	 __wrap_session_pid_get(struct session *, pid_t,
	    struct profile_pid_config *);
pid_t	*__wrap_session_pid_keys(struct session *, size_t *);
long long __wrap_session_map_entries(struct session *, enum session_map,
	    long long);
int	 __wrap_session_thread_comm(struct session *, pid_t, char *, size_t);
int	 __wrap_session_stack_lookup(struct session *, uint64_t,
	    struct profile_stack *);

static struct profile_pid_config last;
static pid_t last_pid;

int
__wrap_session_pid_set(struct session *s, pid_t pid,
    const struct profile_pid_config *cfg)
{
	last_pid = pid;
	last = *cfg;
	return 0;
}

int
__wrap_session_pid_delete(struct session *s, pid_t pid)
{
	errno = ENOENT;
	return -1;
}

int
__wrap_session_pid_get(struct session *s, pid_t pid,
    struct profile_pid_config *cfg)
{
	errno = ENOENT;
	return -1;
}

pid_t *
__wrap_session_pid_keys(struct session *s, size_t *n)
{
	*n = 0;
	return NULL;
}

long long
__wrap_session_map_entries(struct session *s, enum session_map which,
    long long max)
{
	return 0;
}

int
__wrap_session_thread_comm(struct session *s, pid_t tid, char *buf, size_t len)
{
	return -1;
}

int
__wrap_session_stack_lookup(struct session *s, uint64_t id,
    struct profile_stack *st)
{
	memset(st, 0, sizeof(*st));
	return -1;
}

static void
send(struct pids *p, uint32_t type, pid_t pid, uint64_t arg, uint64_t arg2)
{
	struct profile_event	 ev;

	memset(&ev, 0, sizeof(ev));
	ev.type = type;
	ev.pid = pid;
	snprintf(ev.comm, sizeof(ev.comm), "t-runtime");
	ev.arg = arg;
	ev.arg2 = arg2;
	pids_event(p, &ev);
}

int
main(void)
{
	struct runtime_env	 env;
	struct config		*conf;
	struct session		*s = NULL;
	struct resolve		*r;
	struct runtimes		*rts;
	struct pids		*p;
	pid_t			 child;
	int			 status;

	conf = config_defaults();
	r = resolve_create(conf);
	env.loop = NULL;
	env.session = s;
	env.conf = conf;
	rts = runtimes_create(table, 1, &env);
	is_int(fake.creates, 1, "create: once, at registration");
	ok(runtimes_find(rts, &fake_runtime) == &fake.self,
	    "runtimes_find: what create made");
	p = pids_create(s, r, rts, conf);

	if ((child = fork()) == 0) {
		pause();
		_exit(0);
	}

	/* Its first sample: its maps read, the runtime opened. */
	send(p, PROFILE_EVENT_UNKNOWN_PID, child, 0, 0);
	is_int(fake.opens, 1, "open: at the first sample");
	is_int(fake.open_pid, child, "open: of that process");
	ok(fake.open_maps, "open: with its maps");
	is_int(last_pid, child, "its BPF config written");
	is_int(last.type, PROFILE_PID_PYTHON, "the runtime's BPF type");
	is_int(fake.agains, 0, "again: not yet");

	/* Sampled again, in its own code: its maps read again. */
	send(p, PROFILE_EVENT_SAMPLED, child, 0, 0);
	is_int(fake.agains, 1, "again: at a sample that reads its maps");
	is_int(fake.again_walker, 0, "again: not the walker's");
	send(p, PROFILE_EVENT_UNWIND_MAPS, child, 0, 0);
	is_int(fake.agains, 2, "again: when the walker asks");
	is_int(fake.again_walker, 1, "again: RUNTIME_AGAIN_WALKER");
	is_int(fake.opens, 1, "open: not again while its state is open");

	send(p, PROFILE_EVENT_PYSTACK, child, 1, 2);
	is_int(fake.seen, 1, "stack_seen: at a new stack of the walker");

	/* A reload. */
	fake.configure_ret = 0;
	pids_configure(p, conf);
	is_int(fake.configures, 1, "configure: at a reload");
	is_int(fake.opens, 1, "configure 0: states kept");
	is_int(fake.closes, 0, "configure 0: none closed");
	fake.configure_ret = 1;
	pids_configure(p, conf);
	is_int(fake.configures, 2, "configure: at each reload");
	is_int(fake.closes, 1, "configure 1: the state closed");
	is_int(fake.opens, 2, "configure 1: and opened again");

	/* An exec: the old image's state goes; the new one's at a sample. */
	send(p, PROFILE_EVENT_EXEC, child, 0, getpid());
	is_int(fake.closes, 2, "close: at an exec");
	is_int(fake.live, 0, "no state open after the exec");
	is_int(fake.opens, 2, "open: not at the exec itself");
	send(p, PROFILE_EVENT_SAMPLED, child, 0, 0);
	is_int(fake.opens, 3, "open: at the new image's first sample");

	/* A runtime that waits for a library: opened again when sampled. */
	fake.pending = 1;
	send(p, PROFILE_EVENT_EXEC, child, 0, getpid());
	send(p, PROFILE_EVENT_SAMPLED, child, 0, 0);
	is_int(fake.opens, 4, "open: pending");
	is_int(last.type, PROFILE_PID_FP, "pending: native meanwhile");
	ok(last.flags & PROFILE_PID_F_NOTIFY, "pending: BPF asks again");
	send(p, PROFILE_EVENT_SAMPLED, child, 0, 0);
	is_int(fake.opens, 5, "open: again at the next sample, pending");
	fake.pending = 0;
	send(p, PROFILE_EVENT_SAMPLED, child, 0, 0);
	is_int(fake.opens, 6, "open: again, and found");
	is_int(fake.live, 1, "one state open");
	is_int(last.type, PROFILE_PID_PYTHON, "found: the runtime's type");
	is_int(last.flags, 0, "found: BPF asks no more");
	send(p, PROFILE_EVENT_SAMPLED, child, 0, 0);
	is_int(fake.opens, 6, "open: no more once found");

	pids_log_state(p);
	is_int(fake.log_states, 1, "log_state: with the process table's");

	/* Its exit: forget, the state kept until it is forgotten. */
	kill(child, SIGKILL);
	waitpid(child, &status, 0);
	send(p, PROFILE_EVENT_EXIT, child, 1000, 0);
	is_int(fake.forgets, 1, "forget: at its exit");
	is_int(fake.live, 1, "forget: the state kept, for its samples");
	pids_round_end(p);
	is_int(fake.round_ends, 1, "round_end: at the round's end");
	is_int(fake.live, 0, "close: when the process is forgotten");
	is_int(fake.closes, 4, "close: each state made, once");

	pids_free(p);
	is_int(fake.frees, 0, "free: not by pids");
	runtimes_free(rts);
	is_int(fake.frees, 1, "free: by the registry");
	resolve_free(r);
	config_free(conf);
	return done_testing();
}
