/*
 * Unwind tables in the BPF maps of the walker (bpf/unwind.bpf.h).
 *
 * A file mapped executable by a sampled process gets a record, keyed by
 * its device, inode, size and modification time, and an id: its slot in
 * uw_files.  A vDSO's record is keyed by its image, bytes compared
 * (src/unwind/unwind_maps_source.c); a file with no CFI of its own keeps its
 * debug file open until its table is built from the .debug_frame
 * there.  The id stays while the record does, so a process's mappings
 * (uw_procs) name files by id whether their tables are loaded or not;
 * the walker finds nrows 0 in a slot without a table and steps by frame
 * pointer.  A table that is the same rows as one loaded borrows its rows
 * (src/unwind/unwind_maps_share.c).  Tables are built by
 * src/unwind/unwind_table.c in slices from an idle watcher, so a large
 * file never holds the loop for more than a slice; then their rows and
 * pages are copied into the mmapped arrays, and the file's slot is
 * published, nrows last.
 *
 * Room in the arrays is handed out in extents.  When a table does not
 * fit, whole tables are evicted, least recently used first (BPF stamps
 * unwind_file.hit with the second of its last walk): first those no
 * live process maps, then those not walked for UNWIND_MAPS_HOT seconds;
 * a table walked since by a live process is never evicted, and the new
 * one is counted full instead, so that tables in use never chase each
 * other out.  A table may take half of the room at most.  An
 * evicted table's slot is cleared at once, but its room is reused only
 * after UNWIND_MAPS_GRACE_NS: a walk that read the slot before it was
 * cleared (a few microseconds) may still be reading its rows.
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "config/config.h"
#include "elf/elf.h"
#include "util/log.h"
#include "proc/procmaps.h"
#include "session/session_unwind.h"
#include "unwind_maps.h"
#include "unwind_maps_int.h"
#include "unwind_maps_source.h"
#include "unwind_maps_space.h"
#include "unwind_table.h"
#include "util/hash.h"
#include "util/clock.h"
#include "util/xmalloc.h"

static size_t
unwind_maps_key_hash(const struct unwind_maps_key *k)
{
	uint64_t	 h;

	h = k->ino * 0x9e3779b97f4a7c15ULL ^ k->dev ^
	    (uint64_t)k->size * 31 ^ (uint64_t)k->mtime_nsec ^ k->img_hash;
	h ^= h >> 29;
	return h % UNWIND_MAPS_BUCKETS;
}

/* The record of a key; of a vDSO's, the one of the same bytes. */
static struct unwind_maps_file *
unwind_maps_file_find(struct unwind_maps *um, const struct unwind_maps_key *k,
    const uint8_t *img)
{
	struct unwind_maps_file	*f;

	for (f = um->buckets[unwind_maps_key_hash(k)]; f != NULL;
	    f = f->hnext) {
		if (memcmp(&f->key, k, sizeof(*k)) != 0)
			continue;
		if (img == NULL || (f->img != NULL &&
		    memcmp(f->img, img, f->img_len) == 0))
			return f;
	}
	return NULL;
}

/* The clock of unwind_file.hit: BPF's, CLOCK_MONOTONIC, in ~seconds. */
uint32_t
unwind_maps_now(void)
{
	return (uint64_t)clock_ns(CLOCK_MONOTONIC) >> UNWIND_HIT_SHIFT;
}

/* The file's slot, published: nrows last, cleared first. */
void
unwind_maps_slot_publish(struct unwind_maps *um, struct unwind_maps_file *f,
    uint64_t pc_base, uint64_t pc_end)
{
	struct unwind_file	*s = &um->slots[f->id];

	__atomic_store_n(&s->nrows, 0, __ATOMIC_RELEASE);
	s->row_base = f->row_base;
	s->page_base = f->page_base;
	s->npages = f->npages;
	s->pc_base = pc_base;
	s->pc_end = pc_end;
	s->hit = unwind_maps_now();
	/* The walker's cached rows of the slot's last table miss now. */
	if (++um->gen == 0)
		um->gen = 1;
	__atomic_store_n(&s->gen, um->gen, __ATOMIC_RELEASE);
	__atomic_store_n(&s->nrows, f->nrows, __ATOMIC_RELEASE);
}

static void
unwind_maps_table_drop(struct unwind_maps *um, struct unwind_maps_file *f)
{
	if (f->state == UNWIND_MAPS_SHARED) {
		unwind_maps_share_drop(um, f);
		return;
	}
	if (f->state != UNWIND_MAPS_LOADED)
		return;
	/* Its borrowers' slots go first, their walks in the same grace. */
	unwind_maps_share_drop(um, f);
	__atomic_store_n(&um->slots[f->id].nrows, 0, __ATOMIC_RELEASE);
	unwind_maps_space_free_later(&um->rowspace, f->row_base, f->nrows);
	unwind_maps_space_free_later(&um->pagespace, f->page_base,
	    f->npages);
	um->st.tables--;
	um->st.rows -= f->nrows;
	um->st.pages -= f->npages;
	f->nrows = f->npages = 0;
	f->state = UNWIND_MAPS_NONE;
}

/*
 * Which of two tables to evict first; a is not evicted at all.  The
 * processes of the files that share a table count as its own.
 */
int
unwind_maps_evict_before(struct unwind_maps *um, struct unwind_maps_file *a,
    struct unwind_maps_file *b)
{
	uint32_t	 ua = unwind_maps_share_used(um, a);
	size_t		 ra = unwind_maps_share_refs(a), rb;

	if (ra != 0 && ua + UNWIND_MAPS_HOT >= unwind_maps_now())
		return 0;		/* in use */
	if (b == NULL)
		return 1;
	rb = unwind_maps_share_refs(b);
	if ((ra == 0) != (rb == 0))
		return ra == 0;
	return ua < unwind_maps_share_used(um, b);
}

/*
 * Evict the loaded table used least recently, but not keep: -1 when
 * none may be.
 */
int
unwind_maps_evict_one(struct unwind_maps *um, struct unwind_maps_file *keep)
{
	struct unwind_maps_file	*f, *victim = NULL;
	size_t			 i;

	for (i = 0; i < um->nslots; i++) {
		if ((f = um->byid[i]) == NULL || f == keep ||
		    f->state != UNWIND_MAPS_LOADED)
			continue;
		if (unwind_maps_evict_before(um, f, victim))
			victim = f;
	}
	if (victim == NULL)
		return -1;
	log_debug("unwind: evict the table of file %" PRIu32 " (%" PRIu32
	    " rows)", victim->id, victim->nrows);
	unwind_maps_table_drop(um, victim);
	um->st.evictions++;
	return 0;
}

void
unwind_maps_file_stop_build(struct unwind_maps_file *f)
{
	unwind_table_builder_free(f->b);
	f->b = NULL;
	free(f->src_path);
	f->src_path = NULL;
	f->src.path = NULL;
}

/* Out of the build queue, wherever it is. */
void
unwind_maps_dequeue(struct unwind_maps *um, struct unwind_maps_file *f)
{
	struct unwind_maps_file	**pp;

	for (pp = &um->qhead; *pp != NULL; pp = &(*pp)->qnext) {
		if (*pp == f) {
			*pp = f->qnext;
			um->st.queued--;
			break;
		}
	}
	f->qnext = NULL;
	um->qtail = NULL;
	for (pp = &um->qhead; *pp != NULL; pp = &(*pp)->qnext)
		um->qtail = *pp;
}

void
unwind_maps_file_free(struct unwind_maps *um, struct unwind_maps_file *f)
{
	struct unwind_maps_file	**pp;

	unwind_maps_table_drop(um, f);
	unwind_maps_file_stop_build(f);
	for (pp = &um->buckets[unwind_maps_key_hash(&f->key)]; *pp != NULL;
	    pp = &(*pp)->hnext) {
		if (*pp == f) {
			*pp = f->hnext;
			break;
		}
	}
	unwind_maps_dequeue(um, f);
	um->byid[f->id] = NULL;
	um->st.files--;
	um->st.vdso -= f->img != NULL;
	free(f->segs);
	free(f->img);
	free(f);
}

/* A free slot id; a record of no process and no use may give its own. */
static int64_t
unwind_maps_id_alloc(struct unwind_maps *um)
{
	struct unwind_maps_file	*f, *victim = NULL;
	size_t			 i;

	for (i = 0; i < um->nslots; i++) {
		if (um->byid[i] == NULL)
			return i;
	}
	for (i = 0; i < um->nslots; i++) {
		f = um->byid[i];
		if (unwind_maps_share_refs(f) != 0 ||
		    f->state == UNWIND_MAPS_QUEUED)
			continue;
		if (victim == NULL || f->used < victim->used)
			victim = f;
	}
	if (victim == NULL)
		return -1;
	i = victim->id;
	if (victim->state == UNWIND_MAPS_LOADED)
		um->st.evictions++;
	unwind_maps_file_free(um, victim);
	return i;
}

/*
 * Newest first: the files of the process sampled now are built before
 * those of processes sampled before, which have waited a while anyway;
 * a file half built stays half built until its turn comes again
 * (src/unwind/unwind_maps_build.c bounds how many are).  The queue is bounded:
 * past UNWIND_MAPS_QUEUE_MAX a file is refused, counted, and queued
 * again when a process maps it after UNWIND_MAPS_RETRY.
 */
static void
unwind_maps_queue(struct unwind_maps *um, struct unwind_maps_file *f)
{
	if (um->st.queued >= UNWIND_MAPS_QUEUE_MAX) {
		unwind_maps_file_stop_build(f);
		f->state = UNWIND_MAPS_NONE;
		f->retry = unwind_maps_now() + UNWIND_MAPS_RETRY;
		um->st.refused++;
		return;
	}
	f->state = UNWIND_MAPS_QUEUED;
	f->qnext = um->qhead;
	um->qhead = f;
	if (um->qtail == NULL)
		um->qtail = f;
	um->st.queued++;
	ev_idle_start(um->loop, &um->idle);
}

/* A new record of key k in a free slot, not queued yet; or NULL. */
static struct unwind_maps_file *
unwind_maps_file_new(struct unwind_maps *um, const struct unwind_maps_key *k)
{
	struct unwind_maps_file	*f;
	int64_t			 id;

	if ((id = unwind_maps_id_alloc(um)) == -1)
		return NULL;
	f = xcalloc(1, sizeof(*f));
	f->key = *k;
	f->id = id;
	f->hnext = um->buckets[unwind_maps_key_hash(k)];
	um->buckets[unwind_maps_key_hash(k)] = f;
	um->byid[id] = f;
	um->st.files++;
	memset(&um->slots[id], 0, sizeof(um->slots[id]));
	return f;
}

/* A new record's build queued; none for a file we cannot map. */
static void
unwind_maps_file_start(struct unwind_maps *um, struct unwind_maps_file *f)
{
	if (f->segs == NULL) {
		f->state = UNWIND_MAPS_FAILED;
		um->slots[f->id].flags = UNWIND_FILE_NO_CFI;
		um->st.build_failed++;
		unwind_maps_file_stop_build(f);
	} else if (um->mode != CONFIG_UNWIND_FP)
		unwind_maps_queue(um, f);
	else
		unwind_maps_file_stop_build(f);
}

/* An evicted table, or one that did not fit: built again, when due. */
int
unwind_maps_file_due(struct unwind_maps *um, struct unwind_maps_file *f)
{
	return f->state == UNWIND_MAPS_NONE && um->mode != CONFIG_UNWIND_FP &&
	    unwind_maps_now() >= f->retry;
}

/* Where a process maps the file: its build opens it from there. */
static void
unwind_maps_file_src(struct unwind_maps_file *f, pid_t pid,
    const struct procmaps_entry *e)
{
	free(f->src_path);
	f->src_path = xstrdup(e->path);
	f->src = *e;
	f->src.path = f->src_path;
	f->src_pid = pid;
}

/* The record of a process's vDSO: by its image, bytes compared. */
static struct unwind_maps_file *
unwind_maps_vdso_get(struct unwind_maps *um, pid_t pid,
    const struct procmaps_entry *e)
{
	struct unwind_maps_file	*f;
	struct unwind_maps_key	 k;
	struct elf_file		*elf;
	uint8_t			*img;
	size_t			 len;

	if ((img = unwind_maps_source_vdso(pid, e, &len)) == NULL)
		return NULL;
	memset(&k, 0, sizeof(k));
	k.size = len;
	k.img_hash = hash_bytes(img, len) | 1;
	if ((f = unwind_maps_file_find(um, &k, img)) != NULL) {
		free(img);
		if (unwind_maps_file_due(um, f))
			unwind_maps_queue(um, f);
		return f;
	}
	if ((f = unwind_maps_file_new(um, &k)) == NULL) {
		free(img);
		return NULL;
	}
	f->img = img;
	f->img_len = len;
	um->st.vdso++;
	if ((elf = elf_file_open_mem(img, len)) != NULL) {
		f->segs = elf_file_segments(elf, &f->nsegs);
		elf_file_close(elf);
	}
	unwind_maps_file_start(um, f);
	return f;
}

/*
 * The record of a mapping's file, made on first sight: NULL when it
 * cannot be.  The file is opened to key it and read its segments, and
 * closed: its build opens it again.
 */
struct unwind_maps_file *
unwind_maps_file_get(struct unwind_maps *um, pid_t pid,
    const struct procmaps_entry *e)
{
	struct unwind_maps_file	*f;
	struct unwind_maps_key	 k;
	struct elf_file		*elf;
	struct stat		 sb;
	int			 fd;

	if (e->kind == PROCMAPS_SPECIAL && strcmp(e->path, "[vdso]") == 0)
		return unwind_maps_vdso_get(um, pid, e);
	if (e->kind != PROCMAPS_FILE)
		return NULL;
	if ((fd = unwind_maps_source_open(pid, e, &sb)) == -1)
		return NULL;
	memset(&k, 0, sizeof(k));
	k.dev = sb.st_dev;
	k.ino = sb.st_ino;
	k.size = sb.st_size;
	k.mtime_sec = sb.st_mtim.tv_sec;
	k.mtime_nsec = sb.st_mtim.tv_nsec;
	if ((f = unwind_maps_file_find(um, &k, NULL)) != NULL) {
		close(fd);
		if (unwind_maps_file_due(um, f)) {
			/* Evicted, or never built (unwind was fp): again. */
			unwind_maps_file_src(f, pid, e);
			unwind_maps_queue(um, f);
		}
		return f;
	}
	if ((f = unwind_maps_file_new(um, &k)) == NULL) {
		close(fd);
		return NULL;
	}
	if ((elf = elf_file_open(fd)) != NULL) {
		f->segs = elf_file_segments(elf, &f->nsegs);
		elf_file_close(elf);
	}
	close(fd);
	if (f->segs != NULL)
		unwind_maps_file_src(f, pid, e);
	unwind_maps_file_start(um, f);
	return f;
}

/* --- the whole ---------------------------------------------------- */

struct unwind_maps *
unwind_maps_create(struct ev_loop *loop, struct session_unwind *su,
    const struct config *conf)
{
	struct unwind_maps	*um;
	size_t			 nrows, npages;

	um = xcalloc(1, sizeof(*um));
	um->loop = loop;
	um->su = su;
	um->mode = conf->unwind;
	um->debug_dirs = conf->debug_dirs != NULL ?
	    xstrdup(conf->debug_dirs) : NULL;
	um->rows = session_unwind_rows(su, &nrows);
	um->pages = session_unwind_pages(su, &npages);
	um->slots = session_unwind_files(su, &um->nslots);
	if (nrows > UINT32_MAX)
		nrows = UINT32_MAX;
	unwind_maps_space_init(&um->rowspace, nrows);
	unwind_maps_space_init(&um->pagespace, npages);
	um->st.rows_max = nrows;
	/* Half: node 20's table (372000 rows) fits the default room. */
	um->limits.max_rows = nrows / 2;
	/* CFI larger than the whole budget would give no table. */
	um->limits.max_input = conf->unwind_table_bytes;
	um->st.pages_max = npages;
	um->byid = xcalloc(um->nslots, sizeof(*um->byid));
	ev_idle_init(&um->idle, unwind_maps_idle_cb);
	um->idle.data = um;
	return um;
}

void
unwind_maps_free(struct unwind_maps *um)
{
	size_t	 i;

	if (um == NULL)
		return;
	ev_idle_stop(um->loop, &um->idle);
	for (i = 0; i < um->nslots; i++) {
		if (um->byid[i] != NULL)
			unwind_maps_file_free(um, um->byid[i]);
	}
	free(um->byid);
	free(um->debug_dirs);
	unwind_maps_space_clear(&um->rowspace);
	unwind_maps_space_clear(&um->pagespace);
	free(um);
}

/* unwind = fp: nothing more is built; what is loaded stays. */
void
unwind_maps_configure(struct unwind_maps *um, const struct config *conf)
{
	if (um == NULL)
		return;
	um->mode = conf->unwind;
	free(um->debug_dirs);
	um->debug_dirs = conf->debug_dirs != NULL ?
	    xstrdup(conf->debug_dirs) : NULL;
}

void
unwind_maps_stats(struct unwind_maps *um, struct unwind_maps_stats *st)
{
	*st = um->st;
	st->bytes = st->rows * sizeof(struct unwind_row) +
	    st->pages * sizeof(struct unwind_page);
}

void
unwind_maps_log_state(struct unwind_maps *um)
{
	struct unwind_maps_stats	 st;
	uint64_t			 s[UNWIND_STAT_MAX];
	char				 buf[1024];
	size_t				 len = 0;
	int				 i;

	if (um == NULL)
		return;
	unwind_maps_stats(um, &st);
	log_info("unwind: %zu files, %zu tables loaded (%zu queued, %zu "
	    "shared), "
	    "%zu/%zu rows, %zu/%zu pages, %zu bytes, %zu processes, "
	    "%" PRIu64 " built in %" PRIu64 " ms of CPU (%" PRIu64
	    " from debug files), %zu vdso, %" PRIu64 " without table, %"
	    PRIu64 " evictions, %" PRIu64 " full, %" PRIu64 " refused, %"
	    PRIu64 " idle records freed",
	    st.files, st.tables, st.queued, st.shared, st.rows, st.rows_max,
	    st.pages,
	    st.pages_max, st.bytes, st.procs, st.builds,
	    st.build_ns / 1000000, st.builds_debug, st.vdso, st.build_failed,
	    st.evictions, st.full, st.refused, st.idle_freed);
	session_unwind_stats(um->su, s);
	for (i = 0; i < UNWIND_STAT_MAX && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s %" PRIu64,
		    i == 0 ? "" : ", ", session_unwind_stat_name(i), s[i]);
	log_info("unwind: %s", buf);
}
