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
int	 xasprintf(char **, const char *, ...)
	    __attribute__((format(printf, 2, 3)));

#endif
