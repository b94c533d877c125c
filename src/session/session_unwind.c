/*
 * The BPF maps of unwind tables (bpf/unwind.bpf.h): their sizes before
 * load, their knobs, and after load the three arrays mapped into the
 * daemon so that src/unwind/unwind_maps.c writes rows, pages and files with
 * no system call per row, and the hash of processes' mappings.
 */
#include <sys/mman.h>
#include <sys/types.h>

#include <errno.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include "bpf/profile.skel.h"
#include "config/config.h"
#include "util/log.h"
#include "session_int.h"
#include "session_unwind.h"
#include "util/xmalloc.h"

struct session_unwind_array {
	void		*p;
	size_t		 n;		/* entries */
	size_t		 len;		/* bytes mapped */
};

struct session_unwind {
	struct profile_bpf		*skel;
	int				 npossible;
	struct session_unwind_array	 rows;
	struct session_unwind_array	 pages;
	struct session_unwind_array	 files;
};

void
session_unwind_size(struct profile_bpf *skel, const struct config *conf)
{
	size_t	 rows, pages;

	rows = conf->unwind_table_bytes / sizeof(struct unwind_row);
	/*
	 * A page of 64 KiB of code holds some 1000 rows in libc and
	 * python3.11: one page per 64 rows leaves room for sparse files.
	 */
	pages = rows / 64;
	if (pages < 4096)
		pages = 4096;
	bpf_map__set_max_entries(skel->maps.uw_rows, rows);
	bpf_map__set_max_entries(skel->maps.uw_pages, pages);
	bpf_map__set_max_entries(skel->maps.uw_procs, conf->pid_map_entries);
}

void
session_unwind_knobs(struct profile_bpf *skel, const struct config *conf)
{
	skel->bss->unwind_mode = conf->unwind;
	skel->data->unwind_depth = conf->unwind_depth;
}

static int
session_unwind_mmap(struct bpf_map *map, struct session_unwind_array *a)
{
	long	 pg = sysconf(_SC_PAGESIZE);

	a->n = bpf_map__max_entries(map);
	a->len = (bpf_map__value_size(map) * a->n + pg - 1) / pg * pg;
	a->p = mmap(NULL, a->len, PROT_READ | PROT_WRITE, MAP_SHARED,
	    bpf_map__fd(map), 0);
	if (a->p == MAP_FAILED) {
		a->p = NULL;
		log_warn("mmap BPF map %s", bpf_map__name(map));
		return -1;
	}
	return 0;
}

static void
session_unwind_munmap(struct session_unwind_array *a)
{
	if (a->p != NULL)
		munmap(a->p, a->len);
	a->p = NULL;
}

struct session_unwind *
session_unwind_open(struct profile_bpf *skel)
{
	struct session_unwind	*su;

	su = xcalloc(1, sizeof(*su));
	su->skel = skel;
	if ((su->npossible = libbpf_num_possible_cpus()) <= 0) {
		log_warnx("cannot count possible CPUs");
		goto fail;
	}
	if (session_unwind_mmap(skel->maps.uw_rows, &su->rows) == -1 ||
	    session_unwind_mmap(skel->maps.uw_pages, &su->pages) == -1 ||
	    session_unwind_mmap(skel->maps.uw_files, &su->files) == -1)
		goto fail;
	return su;

fail:
	session_unwind_close(su);
	return NULL;
}

void
session_unwind_close(struct session_unwind *su)
{
	if (su == NULL)
		return;
	session_unwind_munmap(&su->rows);
	session_unwind_munmap(&su->pages);
	session_unwind_munmap(&su->files);
	free(su);
}

struct unwind_row *
session_unwind_rows(struct session_unwind *su, size_t *n)
{
	*n = su->rows.n;
	return su->rows.p;
}

struct unwind_page *
session_unwind_pages(struct session_unwind *su, size_t *n)
{
	*n = su->pages.n;
	return su->pages.p;
}

struct unwind_file *
session_unwind_files(struct session_unwind *su, size_t *n)
{
	*n = su->files.n;
	return su->files.p;
}

int
session_unwind_proc_set(struct session_unwind *su, pid_t pid,
    const struct unwind_proc *up)
{
	__u32	 key = pid;

	if (bpf_map_update_elem(bpf_map__fd(su->skel->maps.uw_procs), &key,
	    up, BPF_ANY) != 0)
		return -1;
	return 0;
}

int
session_unwind_proc_delete(struct session_unwind *su, pid_t pid)
{
	__u32	 key = pid;

	if (bpf_map_delete_elem(bpf_map__fd(su->skel->maps.uw_procs),
	    &key) != 0)
		return -1;
	return 0;
}

size_t
session_unwind_procs_max(struct session_unwind *su)
{
	return bpf_map__max_entries(su->skel->maps.uw_procs);
}

void
session_unwind_stats(struct session_unwind *su, uint64_t *stats)
{
	session_maps_percpu_sum(bpf_map__fd(su->skel->maps.uw_stats),
	    su->npossible, stats, UNWIND_STAT_MAX);
}

const char *
session_unwind_stat_name(int stat)
{
	static const char *const names[UNWIND_STAT_MAX] = {
		[UNWIND_STAT_WALKS] = "unwind_walks",
		[UNWIND_STAT_COMPLETE] = "unwind_complete",
		[UNWIND_STAT_DEPTH] = "unwind_depth",
		[UNWIND_STAT_READ_FAULT] = "unwind_read_fault",
		[UNWIND_STAT_BAD_FRAME] = "unwind_bad_frame",
		[UNWIND_STAT_NO_RULE] = "unwind_no_rule",
		[UNWIND_STAT_NO_PROC] = "unwind_no_proc",
		[UNWIND_STAT_NO_TABLE] = "unwind_no_table",
		[UNWIND_STAT_NO_MAPPING] = "unwind_no_mapping",
		[UNWIND_STAT_INVALID] = "unwind_invalid",
		[UNWIND_STAT_FP_FALLBACK] = "unwind_fp_fallback",
		[UNWIND_STAT_FRAMES_TABLE] = "unwind_frames_table",
		[UNWIND_STAT_FRAMES_FP] = "unwind_frames_fp",
		[UNWIND_STAT_SIGNAL] = "unwind_signal",
		[UNWIND_STAT_USTACKS] = "unwind_ustacks",
		[UNWIND_STAT_USTACK_NS] = "unwind_ustack_ns",
		[UNWIND_STAT_TRUNCATED] = "unwind_truncated",
		[UNWIND_STAT_MAPS_ASKED] = "unwind_maps_asked",
		[UNWIND_STAT_RCACHE_HIT] = "unwind_row_cache_hits",
	};

	if (stat < 0 || stat >= UNWIND_STAT_MAX || names[stat] == NULL)
		return "?";
	return names[stat];
}
