/*
 * The BPF session: the skeleton of bpf/profile.bpf.c from open to
 * destroy, the per-CPU perf events that drive on-CPU sampling, when
 * the sched_switch program of off-CPU profiling (session_offcpu.c)
 * comes and goes, and the ring buffers of native stacks and of process
 * events joined to the loop.
 *
 * The session is the daemon's only caller of libbpf: session_maps.c
 * reads and writes the maps for the others (counts, pid config, Python,
 * thread names), session_stacks.c keeps the native stacks its ring
 * brings.  libbpf's -errno returns are turned into -1 and errno where
 * libbpf is called.
 *
 * An event is handed on only once the rings are read: an event that
 * names a stack (SAMPLED, PYSTACK) is sent after the stack, but both
 * can come while a consume is past the stack ring, so the stack ring is
 * read again before the events go.  No ring is read from inside another
 * ring's callback.
 */
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <sys/types.h>

#include <linux/perf_event.h>

#include <errno.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <ev.h>

#include "bpf/profile.skel.h"
#include "config/config.h"
#include "util/log.h"
#include "session.h"
#include "session_int.h"
#include "session_ops.h"
#include "session_unwind.h"
#include "util/xmalloc.h"

/* Events handed on at a time, at most. */
#define SESSION_EVENTS_BATCH	1024

static void	 session_bpf_close(struct session *);
static struct session_change *session_bpf_prepare(struct session *,
		    const struct config *);
static void	 session_bpf_commit(struct session *, struct session_change *);
static void	 session_bpf_abort(struct session *, struct session_change *);
static void	 session_bpf_drain_events(struct session *);
static const struct session_ops session_bpf_ops;

static int
session_libbpf_print(enum libbpf_print_level level, const char *fmt,
    va_list ap)
{
	if (level == LIBBPF_DEBUG && log_getverbose() < 2)
		return 0;
	if (level != LIBBPF_WARN && log_getverbose() < 1)
		return 0;
	vlog(level == LIBBPF_WARN ? 4 : 7, fmt, ap);
	return 0;
}

/* Parse /sys/devices/system/cpu/online ("0-3,5,7-8"). */
static int *
session_online_cpus(int *n)
{
	FILE	*f;
	char	 buf[4096], *p, *end;
	int	*cpus = NULL, a, b, i;

	*n = 0;
	if ((f = fopen("/sys/devices/system/cpu/online", "re")) == NULL) {
		log_warn("open /sys/devices/system/cpu/online");
		return NULL;
	}
	if (fgets(buf, sizeof(buf), f) == NULL) {
		fclose(f);
		return NULL;
	}
	fclose(f);
	for (p = buf; *p != '\0' && *p != '\n';) {
		a = strtol(p, &end, 10);
		if (end == p || a < 0 || a > 65535)
			break;
		b = a;
		if (*end == '-') {
			p = end + 1;
			b = strtol(p, &end, 10);
			if (end == p || b < a || b > 65535)
				break;
		}
		for (i = a; i <= b; i++) {
			cpus = xreallocarray(cpus, *n + 1, sizeof(*cpus));
			cpus[(*n)++] = i;
		}
		p = end;
		if (*p == ',')
			p++;
	}
	return cpus;
}

static void
session_cpus_close(struct session_cpu *cpus, int n)
{
	int	 i;

	if (cpus == NULL)
		return;
	for (i = 0; i < n; i++) {
		if (cpus[i].link != -1)
			close(cpus[i].link);
		if (cpus[i].fd != -1)
			close(cpus[i].fd);
	}
	free(cpus);
}

/*
 * One software cpu-clock event per online CPU, in frequency mode, the
 * on-CPU program linked to each, all disabled: nothing is sampled at
 * the new rate until session_cpus_enable(), so a reload that fails
 * later changes nothing.  The link is made here, not by
 * bpf_program__attach_perf_event(), which enables the event at once.
 */
static struct session_cpu *
session_cpus_open(struct session *s, long long rate, int *n)
{
	struct perf_event_attr	 attr;
	struct session_cpu	*cpus;
	int			*online, nonline, i, fd, link, prog;

	if ((online = session_online_cpus(&nonline)) == NULL || nonline == 0) {
		free(online);
		log_warnx("no online CPUs found");
		return NULL;
	}
	cpus = xcalloc(nonline, sizeof(*cpus));
	for (i = 0; i < nonline; i++)
		cpus[i].fd = cpus[i].link = -1;
	memset(&attr, 0, sizeof(attr));
	attr.size = sizeof(attr);
	attr.type = PERF_TYPE_SOFTWARE;
	attr.config = PERF_COUNT_SW_CPU_CLOCK;
	attr.freq = 1;
	attr.sample_freq = rate;
	attr.disabled = 1;
	prog = bpf_program__fd(s->skel->progs.on_cpu_sample);
	for (i = 0; i < nonline; i++) {
		cpus[i].cpu = online[i];
		fd = syscall(__NR_perf_event_open, &attr, -1, online[i], -1,
		    PERF_FLAG_FD_CLOEXEC);
		if (fd == -1) {
			log_warn("perf_event_open cpu %d", online[i]);
			goto fail;
		}
		cpus[i].fd = fd;
		if ((link = bpf_link_create(prog, fd, BPF_PERF_EVENT,
		    NULL)) < 0) {
			errno = -link;
			log_warn("attach on-CPU sampling to cpu %d", online[i]);
			goto fail;
		}
		cpus[i].link = link;
	}
	free(online);
	*n = nonline;
	return cpus;

fail:
	session_cpus_close(cpus, nonline);
	free(online);
	return NULL;
}

/* The knobs BPF reads on every event. */
static void
session_set_knobs(struct session *s, const struct config *conf)
{
	s->skel->bss->collect_kthreads = conf->collect_kthreads;
	s->skel->bss->collect_idle = conf->collect_idle;
	/* Thread ids in the counts only when samples are labelled by them. */
	s->skel->bss->per_thread = conf->label_thread_name;
	s->skel->data->collect_user = conf->collect_user;
	s->skel->data->collect_kernel = conf->collect_kernel;
	s->skel->data->offcpu_states = conf->offcpu_states;
	s->skel->data->offcpu_min_ns = conf->offcpu_min_block_us * 1000ULL;
	s->skel->bss->offcpu_max_ns = conf->offcpu_max_block_us * 1000ULL;
	/* Python frames walked: bpf/pyperf.h. */
	s->skel->data->py_depth = conf->python_depth;
	/* Without targets_only, no exec waits for our answer. */
	s->skel->bss->exec_profiled = !conf->targets_only;
	session_unwind_knobs(s->skel, conf);
}

static void
session_rb_cb(EV_P_ ev_io *w, int revents)
{
	struct session	*s = w->data;

	session_bpf_drain_events(s);
}

/* An event: kept until the rings are read. */
static int
session_rb_sample(void *ctx, void *data, size_t len)
{
	struct session	*s = ctx;

	if (len < sizeof(struct profile_event))
		return 0;
	memcpy(&s->events[s->nevents++], data, sizeof(s->events[0]));
	if (s->nevents < SESSION_EVENTS_BATCH)
		return 0;
	/* Read, and stop the consume: these go first. */
	s->events_full = 1;
	return -ENOBUFS;
}

static void
session_bpf_drain_events(struct session *s)
{
	size_t	 i, n;
	int	 rv;

	do {
		s->events_full = 0;
		if ((rv = ring_buffer__consume(s->stack_rb)) < 0) {
			errno = -rv;
			log_warn("stack ring buffer");
		}
		if ((rv = ring_buffer__consume(s->rb)) < 0 &&
		    !s->events_full) {
			errno = -rv;
			log_warn("ring buffer");
		}
		/* The stacks of the events read, sent after the ring was. */
		if (s->nevents > 0 &&
		    (rv = ring_buffer__consume(s->stack_rb)) < 0) {
			errno = -rv;
			log_warn("stack ring buffer");
		}
		n = s->nevents;
		s->nevents = 0;
		for (i = 0; i < n; i++)
			s->cb(&s->events[i], s->cb_arg);
	} while (s->events_full);
}

static struct profile_bpf *
session_load(const struct config *conf)
{
	struct profile_bpf	*skel;
	long			 rb;
	uint32_t		 seen;
	int			 err;

	if ((skel = profile_bpf__open()) == NULL) {
		log_warn("open BPF skeleton");
		return NULL;
	}
	bpf_map__set_max_entries(skel->maps.pid_config, conf->pid_map_entries);
	bpf_map__set_max_entries(skel->maps.counts, conf->counts_map_entries);
	/*
	 * Native stacks (bpf/profile.bpf.c): a table of the stacks sent
	 * this round, at most half full with as many, and a ring that
	 * holds as many of some 64 bytes (a few frames and the header;
	 * deep stacks are rare), or at least 64 KiB.
	 */
	for (seen = 1; seen < 2 * conf->stack_map_entries; seen <<= 1)
		;
	bpf_map__set_max_entries(skel->maps.stack_seen, seen);
	skel->rodata->stack_seen_mask = seen - 1;
	for (rb = 64 * 1024; rb < conf->stack_map_entries * 64; rb <<= 1)
		;
	bpf_map__set_max_entries(skel->maps.stack_rb, rb);
	bpf_map__set_max_entries(skel->maps.offcpu_start,
	    conf->offcpu_map_entries);
	bpf_map__set_max_entries(skel->maps.pystacks,
	    conf->python_stack_map_entries);
	/* A ring buffer is a power-of-two number of pages. */
	for (rb = 4096; rb < conf->ringbuf_kb * 1024; rb <<= 1)
		;
	bpf_map__set_max_entries(skel->maps.events, rb);
	session_unwind_size(skel, conf);
	/* Loaded when off-CPU comes on: session_offcpu.c. */
	bpf_program__set_autoload(skel->progs.offcpu_switch_btf, false);
	bpf_program__set_autoload(skel->progs.offcpu_switch_raw, false);
	if ((err = profile_bpf__load(skel)) != 0) {
		errno = -err;
		profile_bpf__destroy(skel);
		return NULL;
	}
	return skel;
}

struct session *
session_bpf_open(struct ev_loop *loop, const struct config *conf,
    session_event_cb cb, void *arg)
{
	struct session		*s;
	struct session_change	*c;
	long			 err;
	int			 n;

	libbpf_set_print(session_libbpf_print);
	if (session_kernel_check() == -1)
		return NULL;
	s = xcalloc(1, sizeof(*s));
	s->ops = &session_bpf_ops;
	s->loop = loop;
	s->cb = cb;
	s->cb_arg = arg;
	s->events = xcalloc(SESSION_EVENTS_BATCH, sizeof(*s->events));
	s->offcpu_fd = s->offcpu_link = -1;

	if ((s->skel = session_load(conf)) == NULL) {
		log_warn("load BPF programs");
		goto fail;
	}
	session_set_knobs(s, conf);
	if ((s->unwind = session_unwind_open(s->skel)) == NULL)
		goto fail;
	if ((n = libbpf_num_possible_cpus()) <= 0) {
		log_warnx("cannot count possible CPUs");
		goto fail;
	}
	s->npossible = n;

	session_stacks_open(s);
	/*
	 * Two rings, each its own ring_buffer and watcher: a consume reads
	 * the stack ring, then the events, then the stack ring again, so
	 * that an event that names a stack (SAMPLED, PYSTACK) is handed on
	 * after the stack, even when BPF wrote both while the consume was
	 * past the stack ring.  Each ring is mapped once: libbpf maps a
	 * ring's data twice over (for records that wrap), 4 MiB of RSS for
	 * a 2 MiB stack ring; a second ring_buffer of the same ring, as
	 * there was, mapped it again.
	 */
	s->stack_rb = ring_buffer__new(bpf_map__fd(s->skel->maps.stack_rb),
	    session_stacks_rb_cb, s, NULL);
	if ((err = libbpf_get_error(s->stack_rb)) != 0) {
		s->stack_rb = NULL;
		errno = -err;
		log_warn("stack ring buffer");
		goto fail;
	}
	s->rb = ring_buffer__new(bpf_map__fd(s->skel->maps.events),
	    session_rb_sample, s, NULL);
	if ((err = libbpf_get_error(s->rb)) != 0) {
		s->rb = NULL;
		errno = -err;
		log_warn("ring buffer");
		goto fail;
	}
	ev_io_init(&s->rb_ev, session_rb_cb, ring_buffer__epoll_fd(s->rb),
	    EV_READ);
	s->rb_ev.data = s;
	ev_io_start(loop, &s->rb_ev);
	ev_io_init(&s->stack_rb_ev, session_rb_cb,
	    ring_buffer__epoll_fd(s->stack_rb), EV_READ);
	s->stack_rb_ev.data = s;
	ev_io_start(loop, &s->stack_rb_ev);

	s->exec_link = bpf_program__attach(s->skel->progs.on_exec);
	if ((err = libbpf_get_error(s->exec_link)) != 0) {
		s->exec_link = NULL;
		errno = -err;
		log_warn("attach sched_process_exec");
		goto fail;
	}
	s->exit_link = bpf_program__attach(s->skel->progs.on_exit);
	if ((err = libbpf_get_error(s->exit_link)) != 0) {
		s->exit_link = NULL;
		errno = -err;
		log_warn("attach sched_process_exit");
		goto fail;
	}
	if ((c = session_bpf_prepare(s, conf)) == NULL)
		goto fail;
	session_bpf_commit(s, c);
	return s;

fail:
	session_bpf_close(s);
	return NULL;
}

static void
session_bpf_close(struct session *s)
{
	if (s == NULL)
		return;
	session_cpus_close(s->cpus, s->ncpus);
	session_offcpu_close(s);
	bpf_link__destroy(s->exec_link);
	bpf_link__destroy(s->exit_link);
	if (s->rb != NULL) {
		ev_io_stop(s->loop, &s->rb_ev);
		ring_buffer__free(s->rb);
	}
	if (s->stack_rb != NULL) {
		ev_io_stop(s->loop, &s->stack_rb_ev);
		ring_buffer__free(s->stack_rb);
	}
	session_unwind_close(s->unwind);
	profile_bpf__destroy(s->skel);
	session_stacks_close(s);
	session_maps_close(s);
	free(s->events);
	free(s);
}

/*
 * A reload in two steps, so that a refused one leaves the kernel as it
 * was: session_prepare() does all that can fail -- opens the perf
 * events of a new rate, disabled, and attaches the off-CPU program if
 * it comes on -- and session_commit() only switches: it enables the new
 * events, closes the old, detaches what goes and writes the knobs.
 * Were the knobs or the rate changed before a step that then failed,
 * BPF would sample at a rate the rounds do not weight samples by
 * (collect_profs.c), until the next good reload.
 */
struct session_change {
	const struct config	*conf;
	struct session_cpu	*cpus;		/* new, disabled; or NULL */
	int			 ncpus;
	int			 cpus_off;	/* the old go, none new */
	int			 offcpu_on;	/* attached by prepare */
};

static void
session_cpus_enable(struct session_cpu *cpus, int n)
{
	int	 i;

	/* An event of ours, disabled: enabling it has no way to fail. */
	for (i = 0; i < n; i++) {
		if (ioctl(cpus[i].fd, PERF_EVENT_IOC_ENABLE, 0) == -1)
			log_warn("enable on-CPU sampling on cpu %d",
			    cpus[i].cpu);
	}
}

static struct session_change *
session_bpf_prepare(struct session *s, const struct config *conf)
{
	struct session_change	*c;

	c = xcalloc(1, sizeof(*c));
	c->conf = conf;
	if (conf->cpu && (s->cpus == NULL || s->rate != conf->sample_rate)) {
		if ((c->cpus = session_cpus_open(s, conf->sample_rate,
		    &c->ncpus)) == NULL)
			goto fail;
	} else if (!conf->cpu && s->cpus != NULL)
		c->cpus_off = 1;
	/* Last: once attached, its program runs. */
	if (conf->offcpu && s->offcpu_link == -1) {
		if (session_offcpu_attach(s) == -1)
			goto fail;
		c->offcpu_on = 1;
	}
	return c;

fail:
	session_bpf_abort(s, c);
	return NULL;
}

static void
session_bpf_abort(struct session *s, struct session_change *c)
{
	if (c == NULL)
		return;
	session_cpus_close(c->cpus, c->ncpus);
	if (c->offcpu_on)
		session_offcpu_detach(s);
	free(c);
}

/*
 * Data already counted stays in the maps.  The new perf events are
 * enabled before the old ones close, so sampling never stops.
 */
static void
session_bpf_commit(struct session *s, struct session_change *c)
{
	const struct config	*conf = c->conf;

	session_set_knobs(s, conf);
	if (c->cpus != NULL) {
		session_cpus_enable(c->cpus, c->ncpus);
		session_cpus_close(s->cpus, s->ncpus);
		s->cpus = c->cpus;
		s->ncpus = c->ncpus;
		s->rate = conf->sample_rate;
	} else if (c->cpus_off) {
		session_cpus_close(s->cpus, s->ncpus);
		s->cpus = NULL;
		s->ncpus = 0;
	}
	if (!conf->offcpu)
		session_offcpu_detach(s);
	free(c);
}

static void
session_bpf_stats(struct session *s, uint64_t *stats)
{
	session_maps_percpu_sum(bpf_map__fd(s->skel->maps.stats), s->npossible,
	    stats, PROFILE_STAT_MAX);
}

static int
session_bpf_ncpus(struct session *s)
{
	return s->ncpus;
}

static int
session_bpf_cpu_attached(struct session *s)
{
	return s->cpus != NULL;
}

static int
session_bpf_offcpu_attached(struct session *s)
{
	return s->offcpu_link != -1;
}

static struct session_unwind *
session_bpf_unwind(struct session *s)
{
	return s->unwind;
}

static const struct session_ops session_bpf_ops = {
	.close = session_bpf_close,
	.prepare = session_bpf_prepare,
	.commit = session_bpf_commit,
	.abort = session_bpf_abort,
	.drain_events = session_bpf_drain_events,
	.pid_set = session_maps_pid_set,
	.pid_delete = session_maps_pid_delete,
	.pid_get = session_maps_pid_get,
	.pid_keys = session_maps_pid_keys,
	.unwind = session_bpf_unwind,
	.counts_drain = session_maps_counts_drain,
	.offcpu_inflight = session_maps_offcpu_inflight,
	.thread_comm = session_maps_thread_comm,
	.pyinfo_set = session_maps_pyinfo_set,
	.pyinfo_get = session_maps_pyinfo_get,
	.pyinfo_delete = session_maps_pyinfo_delete,
	.pystack_read = session_maps_pystack_read,
	.pystacks_map = session_stacks_pymap,
	.v8info_set = session_maps_v8info_set,
	.v8info_delete = session_maps_v8info_delete,
	.jvminfo_set = session_maps_jvminfo_set,
	.jvminfo_delete = session_maps_jvminfo_delete,
	.rtstack_read = session_maps_rtstack_read,
	.rtstack_delete = session_maps_rtstack_delete,
	.stack_gen_next = session_stacks_gen_next,
	.stack_get = session_stacks_get,
	.stack_touch = session_stacks_touch,
	.stack_lookup = session_stacks_lookup,
	.stacks_round_end = session_stacks_end_round,
	.stacks_stats = session_stacks_read_stats,
	.map_entries = session_maps_entries,
	.stats = session_bpf_stats,
	.ncpus = session_bpf_ncpus,
	.cpu_attached = session_bpf_cpu_attached,
	.offcpu_attached = session_bpf_offcpu_attached,
};
