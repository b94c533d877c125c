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
#ifdef __GLIBC__
#if __GLIBC__ > 2 || __GLIBC_MINOR__ >= 33
	struct mallinfo2	 mi;

	mi = mallinfo2();
	if (mi.fordblks < min || mi.fordblks < mi.uordblks / 4)
		return 0;
#endif
	malloc_trim(0);
	return 1;
#else
	return 0;
#endif
}
