/*
 * C++ and Rust names, demangled by libiberty, the demangler of binutils
 * and gcc: cplus_demangle_v3 for the Itanium C++ ABI (_Z...) and
 * rust_demangle for Rust's legacy (_ZN...17h<hash>E) and v0 (_R...)
 * manglings, tried first since legacy Rust names are also valid C++
 * names -- what libiberty's cplus_demangle does with DMGL_AUTO.  We call
 * the two directly: cplus_demangle would drag in the D demangler and
 * with it libiberty's xmalloc, whose names collide with ours.
 *
 * demangle = full is what c++filt prints ("void ns::f<int>(int)",
 * "test::foo"); simplified drops parameters, the return type and
 * template and generic arguments ("ns::f"), so that one function is one
 * frame however it is instantiated.
 *
 * Demangling happens when a frame is named, not when a table is loaded:
 * a profile names a few hundred functions of a library of thousands.
 * Each table keeps what it demangled in a cache: one slot per symbol and
 * one growing block of names.
 *
 * A crafted name is cheap to write and dear to demangle: substitutions
 * (S_, T_, Rust's backrefs) refer to earlier parts, so nesting them
 * doubles the output per level -- 185 bytes of C++ print 570 MB, 229 of
 * Rust v0 200 MB -- and a pack expansion (Dp) walks the whole doubled
 * tree before it prints a byte.  libiberty's recursion limit bounds its
 * stack, not that.  So a name is demangled through the callback
 * interface, whose C++ half allocates nothing (its tables are arrays on
 * the stack, sized by the name), into a fixed buffer: at
 * DEMANGLE_OUT_MAX bytes the callback jumps out, and a timer on the
 * thread's CPU time (DEMANGLE_CPU_USEC) jumps out of the C++
 * demangler wherever it is.  Rust's demangler allocates (punycode), so
 * it gets no timer: its work goes with what it prints, which the
 * callback bounds.  A name over a bound stays mangled and is counted
 * (symstats_refuse), as are names too long to be real.
 */
#include <sys/types.h>

#include <errno.h>
#include <setjmp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/*
 * libiberty's demangle.h pulls in libiberty.h, whose xmalloc family
 * clashes with ours (xasprintf); the demangler needs none of it.
 */
#define LIBIBERTY_H
#include <libiberty/demangle.h>
#undef LIBIBERTY_H

#include "config/config.h"
#include "demangle.h"
#include "symstats.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* Longer mangled names are left alone. */
#define DEMANGLE_IN_MAX		8192
#define DEMANGLE_OUT_MAX	16384
/* CPU time one C++ name may cost; real ones take microseconds. */
#define DEMANGLE_CPU_USEC	5000
/* Nesting of <> followed when simplifying. */
#define DEMANGLE_DEPTH_MAX	128

/* A slot: not demangled yet, the name as it is, or 2 + an offset. */
#define DEMANGLE_SLOT_UNKNOWN	0
#define DEMANGLE_SLOT_RAW	1

struct demangle_cache {
	uint32_t	*slot;
	size_t		 n;
	char		*buf;
	size_t		 len, cap;
	int		 mode;
};

/* A name that libiberty may demangle. */
int
demangle_is_mangled(const char *s)
{
	return (s[0] == '_' && (s[1] == 'Z' || s[1] == 'R')) ||
	    strncmp(s, "_GLOBAL_", 8) == 0;
}

static int
demangle_is_ident(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	    (c >= '0' && c <= '9') || c == '_' || c == '$' || c == ':' ||
	    c == '>' || c == ']' || c == '}';
}

/* The length of an operator with angle brackets at s, or 0. */
static size_t
demangle_operator(const char *s)
{
	static const char *const ops[] = { "<=>", "<<=", ">>=", "->*", "<<",
	    ">>", "<=", ">=", "->", "<", ">" };
	size_t	 i, n;

	for (i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		n = strlen(ops[i]);
		if (strncmp(s, ops[i], n) == 0)
			return n;
	}
	return 0;
}

/*
 * Drop template and generic arguments in place:
 * "std::vector<int, std::allocator<int> >::push_back" becomes
 * "std::vector::push_back", "core::ptr::drop_in_place::<T>"
 * "core::ptr::drop_in_place".  A '<' right after a name (or after "::",
 * Rust's turbofish) opens arguments; one that starts a name opens a Rust
 * qualified path, "<alloc::vec::Vec<T> as core::ops::Drop>::drop", kept
 * without its own arguments.  The <, > and - of operator names
 * (operator<<, operator->, operator<=>) are no brackets.
 */
void
demangle_simplify(char *s)
{
	char		 keep[DEMANGLE_DEPTH_MAX];
	const char	*r = s;
	char		*w = s;
	size_t		 depth = 0, drop = 0, oplen;
	int		 force = 0;

	while (*r != '\0') {
		if (strncmp(r, "operator", 8) == 0 &&
		    (r == s || !demangle_is_ident(r[-1]) || r[-1] == ':') &&
		    (oplen = demangle_operator(r + 8)) > 0) {
			if (drop == 0) {
				memmove(w, r, 8 + oplen);
				w += 8 + oplen;
			}
			r += 8 + oplen;
			/* "operator<< <char>": the arguments of a template. */
			if (r[0] == ' ' && r[1] == '<') {
				r++;
				force = 1;
			}
			continue;
		}
		if (*r == '<') {
			if (depth == sizeof(keep))
				return;	/* too deep: left as it is */
			keep[depth] = !force && drop == 0 && (r == s ||
			    !demangle_is_ident(r[-1]));
			force = 0;
			if (!keep[depth])
				drop++;
			else
				*w++ = *r;
			depth++;
			r++;
			continue;
		}
		if (*r == '>' && depth > 0) {
			depth--;
			if (!keep[depth])
				drop--;
			else
				*w++ = *r;
			r++;
			continue;
		}
		if (drop == 0)
			*w++ = *r;
		r++;
	}
	/* "f::<T>" loses its "::", "a<T> " its space. */
	while (w > s && (w[-1] == ' ' || w[-1] == ':'))
		w--;
	*w = '\0';
	/* Rust's "foo::<T>::bar" becomes "foo::::bar": join the colons. */
	for (r = w = s; *r != '\0'; r++) {
		if (r[0] == ':' && r[1] == ':' && r[2] == ':' && r[3] == ':')
			r += 2;
		*w++ = *r;
	}
	*w = '\0';
}

/* One demangling: where its output goes, and the way out. */
struct demangle_run {
	sigjmp_buf	 jump;
	char		 buf[DEMANGLE_OUT_MAX + 1];
	size_t		 len;
};

/* The run the timer may end, and its thread; NULL when none is. */
static struct demangle_run *volatile demangle_running;
static volatile pid_t	 demangle_tid;

/* Called by libiberty with each piece of the name: no allocation here. */
static void
demangle_out_cb(const char *s, size_t len, void *arg)
{
	struct demangle_run	*run = arg;

	/* Rust's demangler says nothing, at times, as (NULL, 0). */
	if (len == 0)
		return;
	if (len > DEMANGLE_OUT_MAX - run->len)
		siglongjmp(run->jump, 1);
	memcpy(run->buf + run->len, s, len);
	run->len += len;
}

static void
demangle_timer_cb(int sig)
{
	struct demangle_run	*run = demangle_running;

	(void)sig;
	/* Only out of the demangler, on the thread it runs on. */
	if (run != NULL && gettid() == demangle_tid)
		siglongjmp(run->jump, 1);
}

/*
 * Arm (usec > 0) or disarm the timer on this thread's CPU time, which
 * signals this thread alone: libcurl's resolver may run threads of its
 * own, and no other thread may jump.  SIGVTALRM is the demangler's:
 * nothing else in the daemon uses it.
 */
static void
demangle_timer(long usec)
{
	static timer_t		 timer;
	struct sigaction	 sa;
	struct sigevent		 sev;
	struct itimerspec	 it;

	/* Made again in a child: fork does not copy a process's timers. */
	if (demangle_tid != gettid()) {
		memset(&sa, 0, sizeof(sa));
		sa.sa_handler = demangle_timer_cb;
		sigemptyset(&sa.sa_mask);
		if (sigaction(SIGVTALRM, &sa, NULL) == -1)
			fatal("sigaction SIGVTALRM");
		memset(&sev, 0, sizeof(sev));
		sev.sigev_notify = SIGEV_THREAD_ID;
		sev.sigev_signo = SIGVTALRM;
		sev._sigev_un._tid = demangle_tid = gettid();
		if (timer_create(CLOCK_THREAD_CPUTIME_ID, &sev, &timer) == -1)
			fatal("timer_create");
	}
	memset(&it, 0, sizeof(it));
	it.it_value.tv_nsec = usec * 1000;
	if (timer_settime(timer, 0, &it, NULL) == -1)
		fatal("timer_settime");
}

/*
 * Demangle s into run->buf within the bounds: 0, or -1 if it is no name
 * of ours (errno 0) or over a bound (E2BIG).
 */
static int
demangle_bounded(const char *s, int opts, struct demangle_run *run)
{
	volatile int	 rust = 0;
	int		 ok;

	run->len = 0;
	if (sigsetjmp(run->jump, 1) != 0) {
		demangle_running = NULL;
		if (!rust)
			demangle_timer(0);
		errno = E2BIG;
		return -1;
	}
	rust = 1;
	ok = rust_demangle_callback(s, opts, demangle_out_cb, run);
	if (!ok) {
		run->len = 0;
		rust = 0;
		demangle_running = run;
		demangle_timer(DEMANGLE_CPU_USEC);
		ok = cplus_demangle_v3_callback(s, opts, demangle_out_cb, run);
		demangle_running = NULL;
		demangle_timer(0);
	}
	if (!ok) {
		errno = 0;
		return -1;
	}
	run->buf[run->len] = '\0';
	return 0;
}

/*
 * The demangled form of s for mode (enum config_demangle), malloc'd, or
 * NULL when it stays as it is (not mangled, not demangled, mode none,
 * or over the bounds: counted).
 */
char *
demangle_name(const char *s, int mode)
{
	static struct demangle_run	 run;
	int				 opts;

	if (mode == CONFIG_DEMANGLE_NONE || !demangle_is_mangled(s))
		return NULL;
	if (strnlen(s, DEMANGLE_IN_MAX + 1) > DEMANGLE_IN_MAX) {
		symstats_refuse(SYMSTATS_REFUSED_DEMANGLE);
		return NULL;
	}
	opts = DMGL_ANSI;
	if (mode == CONFIG_DEMANGLE_FULL)
		opts |= DMGL_PARAMS;
	if (demangle_bounded(s, opts, &run) == -1) {
		if (errno == E2BIG) {
			symstats_refuse(SYMSTATS_REFUSED_DEMANGLE);
			log_debug("demangle: %.64s...: over the bounds, kept "
			    "mangled", s);
		}
		return NULL;
	}
	if (mode == CONFIG_DEMANGLE_SIMPLIFIED)
		demangle_simplify(run.buf);
	if (run.buf[0] == '\0')
		return NULL;
	return xstrdup(run.buf);
}

/*
 * The name of symbol idx (of n in its table), raw as the table has it,
 * for mode: from the cache *dcp, demangled and added to it the first
 * time.  The cache is made at the first mangled name.  The name stays
 * valid until the next call.
 */
const char *
demangle_cache_name(struct demangle_cache **dcp, size_t n, size_t idx,
    const char *raw, int mode)
{
	struct demangle_cache	*dc = *dcp;
	uint32_t		*slot;
	char			*d;
	size_t			 len;

	if (mode == CONFIG_DEMANGLE_NONE || !demangle_is_mangled(raw) ||
	    idx >= n)
		return raw;
	if (dc == NULL || dc->n != n || dc->mode != mode) {
		demangle_cache_free(dc);
		dc = *dcp = xcalloc(1, sizeof(*dc));
		dc->slot = xcalloc(n, sizeof(*dc->slot));
		dc->n = n;
		dc->mode = mode;
	}
	slot = &dc->slot[idx];
	if (*slot == DEMANGLE_SLOT_RAW)
		return raw;
	if (*slot != DEMANGLE_SLOT_UNKNOWN)
		return dc->buf + (*slot - 2);
	if ((d = demangle_name(raw, mode)) == NULL) {
		*slot = DEMANGLE_SLOT_RAW;
		return raw;
	}
	len = strlen(d) + 1;
	if (dc->len + len > UINT32_MAX - 2) {
		free(d);
		*slot = DEMANGLE_SLOT_RAW;
		return raw;
	}
	if (dc->len + len > dc->cap) {
		while (dc->len + len > dc->cap)
			dc->cap = dc->cap ? dc->cap * 2 : 4096;
		dc->buf = xreallocarray(dc->buf, dc->cap, 1);
	}
	memcpy(dc->buf + dc->len, d, len);
	free(d);
	*slot = dc->len + 2;
	dc->len += len;
	return dc->buf + (*slot - 2);
}

size_t
demangle_cache_bytes(const struct demangle_cache *dc)
{
	if (dc == NULL)
		return 0;
	return sizeof(*dc) + dc->n * sizeof(*dc->slot) + dc->cap;
}

void
demangle_cache_free(struct demangle_cache *dc)
{
	if (dc == NULL)
		return;
	free(dc->slot);
	free(dc->buf);
	free(dc);
}
