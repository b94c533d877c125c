#ifndef EBPFSPY_XMALLOC_H
#define EBPFSPY_XMALLOC_H

#include <stddef.h>

void	*xmalloc(size_t);
void	*xcalloc(size_t, size_t);
void	*xreallocarray(void *, size_t, size_t);
char	*xstrdup(const char *);
char	*xstrndup(const char *, size_t);
/* malloc's thresholds, once at start. */
void	 xmalloc_init(void);
/* Give free heap pages back if at least that many bytes are free. */
int	 xmalloc_trim(size_t);
void	 xmalloc_log_state(void);
/* The heap as malloc sees it; -1 where the C library does not say. */
struct xmalloc_stats {
	size_t	 in_use;	/* allocated from the arena */
	size_t	 free;		/* free in it */
	size_t	 arena;
	size_t	 top;		/* free at its top, trimmable */
	size_t	 mapped;	/* blocks mapped on their own */
	size_t	 nmapped;
};
int	 xmalloc_stats(struct xmalloc_stats *);
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
