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

#endif
