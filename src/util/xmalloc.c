/* Allocation that cannot fail: running out of memory is fatal. */
#include <errno.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "log.h"
#include "xmalloc.h"

#define XMALLOC_MMAP_MIN	(256 * 1024)	/* bytes: a block mapped */
#define XMALLOC_TRIM_MIN	(1024 * 1024)	/* free at the top: given back */

void *
xmalloc(size_t size)
{
	void	*p;

	if (size == 0)
		fatalx("xmalloc: zero size");
	if ((p = malloc(size)) == NULL)
		fatal("xmalloc: allocating %zu bytes", size);
	return p;
}

void *
xcalloc(size_t nmemb, size_t size)
{
	void	*p;

	if (nmemb == 0 || size == 0)
		fatalx("xcalloc: zero size");
	if ((p = calloc(nmemb, size)) == NULL)
		fatal("xcalloc: allocating %zu * %zu bytes", nmemb, size);
	return p;
}

void *
xreallocarray(void *ptr, size_t nmemb, size_t size)
{
	void	*p;

	if (nmemb == 0 || size == 0)
		fatalx("xreallocarray: zero size");
	if (SIZE_MAX / nmemb < size)
		fatalx("xreallocarray: %zu * %zu overflows", nmemb, size);
	if ((p = realloc(ptr, nmemb * size)) == NULL)
		fatal("xreallocarray: allocating %zu * %zu bytes", nmemb, size);
	return p;
}

char *
xstrdup(const char *s)
{
	char	*p;

	if ((p = strdup(s)) == NULL)
		fatal("xstrdup");
	return p;
}

char *
xstrndup(const char *s, size_t n)
{
	char	*p;

	if ((p = strndup(s, n)) == NULL)
		fatal("xstrndup");
	return p;
}

int
xasprintf(char **ret, const char *fmt, ...)
{
	va_list	 ap;
	int	 i;

	va_start(ap, fmt);
	i = vasprintf(ret, fmt, ap);
	va_end(ap);
	if (i < 0 || *ret == NULL)
		fatal("xasprintf");
	return i;
}

/*
 * Set malloc's thresholds once, at start.  glibc raises its mmap
 * threshold to the size of each mapped block freed, up to 32 MiB: after
 * the first large table freed (a symbol table, a profile's stacks), all
 * the large blocks came from the heap, where a table built every round
 * or a sum that grows leaves holes that live blocks above keep from the
 * kernel.  A fixed threshold keeps blocks of XMALLOC_MMAP_MIN and more
 * mapped, given back whole when freed; the heap's top is given back
 * past XMALLOC_TRIM_MIN free.
 */
void
xmalloc_init(void)
{
#ifdef __GLIBC__
	mallopt(M_MMAP_THRESHOLD, XMALLOC_MMAP_MIN);
	mallopt(M_TRIM_THRESHOLD, XMALLOC_TRIM_MIN);
#endif
}

/*
 * Return the heap's free pages to the kernel when they are worth it: a
 * round frees what it built, and tables dropped from the caches leave
 * holes under live allocations that free() never gives back.  Only when
 * at least min bytes are free, a quarter of those in use: a trim walks
 * the heap, and the pages it returns fault back in, zeroed, when as
 * much is allocated again.  1 if it trimmed.
 */
int
xmalloc_trim(size_t min)
{
	struct xmalloc_stats	 st;

	if (xmalloc_stats(&st) == 0 && (st.free < min ||
	    st.free < st.in_use / 4))
		return 0;
#ifdef __GLIBC__
	malloc_trim(0);
	return 1;
#else
	return 0;
#endif
}

int
xmalloc_stats(struct xmalloc_stats *st)
{
#if defined(__GLIBC__) && (__GLIBC__ > 2 || __GLIBC_MINOR__ >= 33)
	struct mallinfo2	 mi;

	mi = mallinfo2();
	st->in_use = mi.uordblks;
	st->free = mi.fordblks;
	st->arena = mi.arena;
	st->top = mi.keepcost;
	st->mapped = mi.hblkhd;
	st->nmapped = mi.hblks;
	return 0;
#else
	memset(st, 0, sizeof(*st));
	return -1;
#endif
}

/* For SIGUSR1: the heap as malloc sees it. */
void
xmalloc_log_state(void)
{
	struct xmalloc_stats	 st;

	if (xmalloc_stats(&st) == -1)
		return;
	log_info("heap: %zu KiB in use, %zu KiB free in an arena of %zu KiB "
	    "(%zu KiB at its top), %zu KiB mapped in %zu blocks",
	    st.in_use >> 10, st.free >> 10, st.arena >> 10, st.top >> 10,
	    st.mapped >> 10, st.nmapped);
}
