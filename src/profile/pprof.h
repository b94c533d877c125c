#ifndef EBPFSPY_PPROF_H
#define EBPFSPY_PPROF_H

#include <stddef.h>

struct profile;

/*
 * Encode a profile as gzipped pprof (github.com/google/pprof,
 * proto/profile.proto).  On success *buf is the caller's to free.
 * Returns 0, or -1 after logging, with *buf NULL.
 */
int	pprof_encode(const struct profile *, unsigned char **, size_t *);

/* A profile encoded, once a round for every sink: buf NULL if failed. */
struct pprof_buf {
	unsigned char	*buf;
	size_t		 len;
};
/* Encode n profiles: n buffers, the caller's to pprof_bufs_free(). */
struct pprof_buf *pprof_encode_all(struct profile *const *, size_t);
void	pprof_bufs_free(struct pprof_buf *, size_t);

#endif
