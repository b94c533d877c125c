#ifndef EBPFSPY_PERFMAP_H
#define EBPFSPY_PERFMAP_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>
#include <time.h>

struct perfmap;

/* Whose perf map: noted while the process lives. */
struct perfmap_proc {
	pid_t		 pid;
	long		 nspid;		/* in its pid namespace */
	long		 ruid, euid;
	int		 host;		/* shares our mount and pids */
	time_t		 start;		/* when it started */
};

struct perfmap	*perfmap_parse(const char *, size_t);
int		 perfmap_proc_read(struct perfmap_proc *, pid_t,
		    unsigned long long);
int		 perfmap_update(struct perfmap **,
		    const struct perfmap_proc *, int);
void		 perfmap_free(struct perfmap *);
const char	*perfmap_lookup(const struct perfmap *, uint64_t);
size_t		 perfmap_count(const struct perfmap *);
size_t		 perfmap_bytes(const struct perfmap *);
size_t		 perfmap_skipped(const struct perfmap *);

#endif
