#ifndef EBPFSPY_SPOOL_FILE_H
#define EBPFSPY_SPOOL_FILE_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

/* The files of the spool: internal to spool.c. */

struct iovec;

#define SPOOL_MAGIC		"EBSPOOL2"
#define SPOOL_MAGIC_V1		"EBSPOOL1"	/* read, never written */
#define SPOOL_HDR		32
#define SPOOL_TARGET_MAX	(256 * 1024)
#define SPOOL_BODY_MAX		(1ULL << 30)
#define SPOOL_NAME_LEN		20	/* 16 hex digits + ".req" */

void		 spool_file_le32(unsigned char *, uint32_t);
uint32_t	 spool_file_get32(const unsigned char *);
uint64_t	 spool_file_get64(const unsigned char *);
/* "<seq>.req", or ".<seq>.tmp" while it is written. */
void		 spool_file_name(char *, size_t, uint64_t, int);
/* "<16 lowercase hex digits>.req" -> seq; -1: not ours. */
int		 spool_file_parse_name(const char *, uint64_t *);
/* A header against the size of its file; 0 if it is sound. */
int		 spool_file_check_header(const unsigned char *, uint64_t,
		    uint32_t *, uint64_t *);
/* mkdir -p, the last one mode 0700. */
int		 spool_file_mkdirs(const char *);
int		 spool_file_write_all(int, struct iovec *, int);
int		 spool_file_pread_all(int, void *, size_t, off_t);

#endif
