#ifndef EBPFSPY_SINK_FILE_H
#define EBPFSPY_SINK_FILE_H

#include <sys/stat.h>

#include <stdint.h>
#include <stdio.h>
#include <time.h>

struct config;
struct pprof_buf;
struct profile;

/*
 * Write one profile under the output directory:
 * <dir>/<type>/<service_name>/<UTC time>.pb.gz and, when configured,
 * .folded beside it.  Each file is written to a temporary name and
 * renamed into place.  Returns 0, or -1 after logging.
 */
int	sink_file_write(const struct config *, const struct profile *,
	    time_t);
/*
 * The same, telling the path of the .folded file it wrote (allocated,
 * NULL when none) and that file's stat as written: its inode, size and
 * mtime are the same under its final name.
 */
int	sink_file_write_folded(const struct config *,
	    const struct profile *, time_t, char **, struct stat *);
/*
 * The same with the profile's pprof encoding made already (once a
 * round for every sink: src/sink/sinks.c); its buf NULL if that failed.
 */
int	sink_file_write_enc(const struct config *, const struct profile *,
	    const struct pprof_buf *, time_t, char **, struct stat *);

/*
 * Lock dir (made already) against a second ebpfspyd: the lock's fd, to
 * keep open as long as the directory is ours; held itself when held
 * (an fd or -1) is that directory's lock already.  -1 with errno set,
 * as lockfile_open() sets it.
 */
int	sink_file_lock(const char *, int);

/*
 * Shared with the flame graphs and retention, which write and sweep the
 * same directories.  sink_file_service() returns the path component a
 * service name is stored under (allocated).  sink_file_mkdirs() is
 * mkdir -p, 0750.  sink_file_atomic() writes dir/name, 0640, through the
 * callback, via the temporary file dir/.name.XXXXXX renamed into place,
 * and stats it into the struct stat unless that is NULL.  Those two return 0, or -1
 * after logging.
 */
char	*sink_file_service(const char *);
int	 sink_file_mkdirs(const char *);
int	 sink_file_atomic(const char *, const char *,
	    int (*)(FILE *, const void *), const void *, struct stat *);
/*
 * The output directory's disk: the writes failed for want of space
 * since start, and whether the last write failed so (util/diskfull.c).
 */
uint64_t sink_file_disk_full_writes(void);
int	 sink_file_disk_is_full(void);

#endif
