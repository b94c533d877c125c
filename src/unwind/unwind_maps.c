/*
 * Unwind tables in the BPF maps of the walker (bpf/unwind.bpf.h).
 *
 * A file mapped executable by a sampled process gets a record, keyed by
 * its device, inode, size and modification time, and an id: its slot in
 * uw_files.  A vDSO's record is keyed by its image, bytes compared
 * (src/unwind_maps_source.c); a file with no CFI of its own keeps its
 * debug file open until its table is built from the .debug_frame
 * there.  The id stays while the record does, so a process's mappings
 * (uw_procs) name files by id whether their tables are loaded or not;
 * the walker finds nrows 0 in a slot without a table and steps by frame
 * pointer.  A table that is the same rows as one loaded borrows its rows
 * (src/unwind_maps_share.c).  Tables are built by src/unwind_table.c in slices
 * from an idle watcher, so a large file never holds the loop for more
 * than a slice; then their rows and pages are copied into the mmapped
 * arrays, and the file's slot is published, nrows last.
 *
 * Room in the arrays is handed out in extents.  When a table does not
 * fit, whole tables are evicted, least recently used first (BPF stamps
 * unwind_file.hit with the second of its last walk): first those no
 * live process maps, then those not walked for UNWIND_MAPS_HOT seconds;
 * a table walked since by a live process is never evicted, and the new
 * one is counted full instead, so that tables in use never chase each
 * other out.  A table may take a quarter of the room at most.  An
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

#include "config.h"
#include "sym/elf.h"
#include "util/log.h"
#include "proc/procmaps.h"
#include "session/session_unwind.h"
#include "unwind_maps.h"
#include "unwind_maps_int.h"
#include "unwind_maps_source.h"
#include "unwind_maps_space.h"
#include "unwind_table.h"
#include "util/hash.h"
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
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (ts.tv_sec * 1000000000ULL + ts.tv_nsec) >> UNWIND_HIT_SHIFT;
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
static int
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
static int
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

static void
unwind_maps_file_stop_build(struct unwind_maps_file *f)
{
	unwind_table_builder_free(f->b);
	f->b = NULL;
	elf_file_close(f->elf);
	f->elf = NULL;
	elf_file_close(f->delf);
	f->delf = NULL;
	if (f->fd != -1)
		close(f->fd);
	f->fd = -1;
	if (f->dfd != -1)
		close(f->dfd);
	f->dfd = -1;
}

static void
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
	for (pp = &um->qhead; *pp != NULL; pp = &(*pp)->qnext) {
		if (*pp == f) {
			*pp = f->qnext;
			break;
		}
	}
	um->qtail = NULL;
	for (pp = &um->qhead; *pp != NULL; pp = &(*pp)->qnext)
		um->qtail = *pp;
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
 * a file half built stays half built until its turn comes again.
 */
static void
unwind_maps_queue(struct unwind_maps *um, struct unwind_maps_file *f)
{
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
	f->fd = f->dfd = -1;
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
static int
unwind_maps_file_due(struct unwind_maps *um, struct unwind_maps_file *f)
{
	return f->state == UNWIND_MAPS_NONE && um->mode != CONFIG_UNWIND_FP &&
	    unwind_maps_now() >= f->retry;
}

/*
 * The debug file with the .debug_frame of a file that has no CFI of its
 * own, opened for its build (f->dfd).
 */
static void
unwind_maps_file_debug(struct unwind_maps *um, struct unwind_maps_file *f,
    struct elf_file *elf, pid_t pid, const char *path, const struct stat *sb)
{
	if (f->dfd != -1)
		close(f->dfd);
	f->dfd = unwind_maps_source_debug(elf, pid, path, sb, um->debug_dirs);
	f->debug = f->dfd != -1;
	if (f->debug)
		log_debug("unwind: file %" PRIu32 " (%s): CFI from its debug "
		    "file", f->id, path);
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
 * The record of a mapping's file, made on first sight with the file
 * opened for its build: NULL when it cannot be.
 */
static struct unwind_maps_file *
unwind_maps_file_get(struct unwind_maps *um, pid_t pid,
    const struct procmaps_entry *e)
{
	struct unwind_maps_file	*f;
	struct unwind_maps_key	 k;
	struct elf_file		*elf;
	struct stat		 sb;
	char			 path[PATH_MAX];
	int			 fd;

	if (e->kind == PROCMAPS_SPECIAL && strcmp(e->path, "[vdso]") == 0)
		return unwind_maps_vdso_get(um, pid, e);
	if (e->kind != PROCMAPS_FILE)
		return NULL;
	/* The very file mapped, even deleted or in another namespace. */
	snprintf(path, sizeof(path), "/proc/%d/map_files/%" PRIx64 "-%"
	    PRIx64, (int)pid, e->start, e->end);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1) {
		snprintf(path, sizeof(path), "/proc/%d/root%s", (int)pid,
		    e->path);
		if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
			return NULL;
	}
	if (fstat(fd, &sb) == -1 || !S_ISREG(sb.st_mode) ||
	    sb.st_ino != e->inode) {
		close(fd);
		return NULL;
	}
	memset(&k, 0, sizeof(k));
	k.dev = sb.st_dev;
	k.ino = sb.st_ino;
	k.size = sb.st_size;
	k.mtime_sec = sb.st_mtim.tv_sec;
	k.mtime_nsec = sb.st_mtim.tv_nsec;
	if ((f = unwind_maps_file_find(um, &k, NULL)) != NULL) {
		if (unwind_maps_file_due(um, f)) {
			/*
			 * Evicted, or never built (unwind was fp): build
			 * it again, from its debug file if it has no CFI.
			 */
			f->fd = fd;
			if ((elf = elf_file_open(fd)) != NULL) {
				unwind_maps_file_debug(um, f, elf, pid,
				    e->path, &sb);
				elf_file_close(elf);
			}
			unwind_maps_queue(um, f);
		} else
			close(fd);
		return f;
	}
	if ((f = unwind_maps_file_new(um, &k)) == NULL) {
		close(fd);
		return NULL;
	}
	f->fd = fd;
	if ((elf = elf_file_open(fd)) != NULL) {
		f->segs = elf_file_segments(elf, &f->nsegs);
		if (f->segs != NULL && um->mode != CONFIG_UNWIND_FP)
			unwind_maps_file_debug(um, f, elf, pid, e->path, &sb);
		elf_file_close(elf);
	}
	unwind_maps_file_start(um, f);
	return f;
}

/* --- building ----------------------------------------------------- */

/*
 * Wait out the grace of evicted room, once for all the tables evicted
 * to make room for one.  A millisecond of the loop, at an eviction.
 */
static void
unwind_maps_grace(void)
{
	struct timespec	 ts = { 0, UNWIND_MAPS_GRACE_NS };

	while (nanosleep(&ts, &ts) == -1 && errno == EINTR)
		;
}

static size_t
unwind_maps_space_room(const struct unwind_maps_space *sp)
{
	size_t	 i, n = 0;

	for (i = 0; i < sp->nfree; i++)
		n += sp->free[i].len;
	for (i = 0; i < sp->nlater; i++)
		n += sp->later[i].len;
	return n;
}

/*
 * Evict tables until there is room for nrows and npages, fragments
 * aside (at least one is evicted): 0, or -1 when not enough may be.
 */
static int
unwind_maps_evict_enough(struct unwind_maps *um, struct unwind_maps_file *f,
    size_t nrows, size_t npages)
{
	struct unwind_maps_file	*g;
	size_t			 i, r, p;

	/* Evict nothing for a table that would not fit anyway. */
	r = unwind_maps_space_room(&um->rowspace);
	p = unwind_maps_space_room(&um->pagespace);
	for (i = 0; i < um->nslots; i++) {
		if ((g = um->byid[i]) == NULL || g == f ||
		    g->state != UNWIND_MAPS_LOADED ||
		    !unwind_maps_evict_before(um, g, NULL))
			continue;
		r += g->nrows;
		p += g->npages;
	}
	if (r < nrows || p < npages)
		return -1;
	if (unwind_maps_evict_one(um, f) == -1)
		return -1;
	while (unwind_maps_space_room(&um->rowspace) < nrows ||
	    unwind_maps_space_room(&um->pagespace) < npages) {
		if (unwind_maps_evict_one(um, f) == -1)
			return -1;
	}
	return 0;
}

/* Copy a built table into the arrays, making room: 0 or -1. */
static int
unwind_maps_load(struct unwind_maps *um, struct unwind_maps_file *f,
    struct unwind_table *t)
{
	const struct unwind_row		*rows;
	const struct unwind_page	*pages;
	size_t				 nrows, npages;
	int64_t				 rb, pb;

	rows = unwind_table_rows(t, &nrows);
	pages = unwind_table_pages(t, &npages);
	log_debug("unwind: file %" PRIu32 ": %zu rows, %zu pages, "
	    "[%#" PRIx64 ", %#" PRIx64 ")", f->id, nrows, npages,
	    unwind_table_pc_base(t), unwind_table_pc_end(t));
	if (nrows == 0 || npages == 0 || nrows > um->rowspace.size ||
	    npages > um->pagespace.size) {
		um->st.full += nrows != 0;
		return -1;
	}
	for (;;) {
		rb = unwind_maps_space_alloc(&um->rowspace, nrows);
		pb = rb == -1 ? -1 :
		    unwind_maps_space_alloc(&um->pagespace, npages);
		if (rb != -1 && pb != -1)
			break;
		if (rb != -1)
			unwind_maps_space_put(&um->rowspace, rb, nrows);
		/* Room evicted before: usable after the grace. */
		if (um->rowspace.nlater + um->pagespace.nlater > 0) {
			unwind_maps_grace();
			unwind_maps_space_reclaim(&um->rowspace);
			unwind_maps_space_reclaim(&um->pagespace);
			continue;
		}
		if (unwind_maps_evict_enough(um, f, nrows, npages) == -1) {
			um->st.full++;
			return -1;
		}
	}
	memcpy(&um->rows[rb], rows, nrows * sizeof(*rows));
	memcpy(&um->pages[pb], pages, npages * sizeof(*pages));
	f->row_base = rb;
	f->nrows = nrows;
	f->page_base = pb;
	f->npages = npages;
	f->used = unwind_maps_now();
	f->state = UNWIND_MAPS_LOADED;
	unwind_maps_slot_publish(um, f, unwind_table_pc_base(t),
	    unwind_table_pc_end(t));
	um->st.tables++;
	um->st.rows += nrows;
	um->st.pages += npages;
	return 0;
}

static void
unwind_maps_build_done(struct unwind_maps *um, struct unwind_maps_file *f)
{
	struct unwind_table_stats	 ts;
	struct unwind_table		*t;

	memset(&ts, 0, sizeof(ts));
	um->qhead = f->qnext;
	if (um->qhead == NULL)
		um->qtail = NULL;
	um->st.queued--;
	/* finish frees the builder. */
	t = f->b != NULL ? unwind_table_builder_finish(f->b, &ts) : NULL;
	f->b = NULL;
	unwind_maps_file_stop_build(f);
	if (t == NULL) {
		/* No usable CFI, or over a quarter of the room. */
		f->state = UNWIND_MAPS_FAILED;
		if (!ts.too_big)
			um->slots[f->id].flags = UNWIND_FILE_NO_CFI;
		um->st.build_failed++;
		um->st.full += ts.too_big != 0;
	} else if (unwind_maps_share(um, f, t) == 0 ||
	    unwind_maps_load(um, f, t) == 0) {
		um->st.builds++;
		um->st.builds_debug += f->debug;
	} else {
		/* No room now: again when a process maps it, later. */
		f->state = UNWIND_MAPS_NONE;
		f->retry = unwind_maps_now() + UNWIND_MAPS_RETRY;
	}
	unwind_table_free(t);
}

static uint64_t
unwind_maps_cpu_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/* Build from the queue's head for a slice of CPU time. */
static void
unwind_maps_build(struct unwind_maps *um, uint64_t slice)
{
	struct unwind_maps_file	*f;
	uint64_t		 start, now;
	int			 r;

	start = now = unwind_maps_cpu_ns();
	while ((f = um->qhead) != NULL && now - start < slice) {
		if (f->b == NULL) {
			if (f->img != NULL)
				f->b = unwind_table_builder_create_mem(f->img,
				    f->img_len, &um->limits);
			else if ((f->elf = elf_file_open(f->fd)) != NULL) {
				if (f->dfd != -1)
					f->delf = elf_file_open(f->dfd);
				f->b = unwind_table_builder_create(f->elf,
				    f->delf, &um->limits);
			}
			if (f->b == NULL) {
				unwind_maps_build_done(um, f);
				continue;
			}
		}
		/* 1 while there is more to do. */
		r = unwind_table_builder_step(f->b, UNWIND_MAPS_STEP);
		if (r != 1)
			unwind_maps_build_done(um, f);
		now = unwind_maps_cpu_ns();
	}
	um->st.build_ns += now - start;
	if (um->qhead == NULL)
		ev_idle_stop(um->loop, &um->idle);
}

static void
unwind_maps_idle_cb(EV_P_ ev_idle *w, int revents)
{
	unwind_maps_build(w->data, UNWIND_MAPS_SLICE_NS);
}

/* --- processes ---------------------------------------------------- */

static void
unwind_maps_proc_unref(struct unwind_maps *um, struct unwind_maps_proc *up)
{
	size_t	 i;

	for (i = 0; i < up->nfiles; i++)
		up->files[i]->refs--;
	free(up->files);
	free(up->at);
	up->files = NULL;
	up->at = NULL;
	up->nfiles = 0;
}

/*
 * The file the process mapped at e when its maps were read last (old
 * of them, sorted by start; *j the next to look at), if it is still
 * there and needs no build: read again, the maps cost no open of the
 * files they had already.
 */
static struct unwind_maps_file *
unwind_maps_proc_had(struct unwind_maps *um, struct unwind_maps_proc *up,
    size_t old, size_t *j, const struct procmaps_entry *e)
{
	const struct unwind_maps_at	*a;
	struct unwind_maps_file		*f;

	while (*j < old && up->at[*j].start < e->start)
		(*j)++;
	if (*j >= old)
		return NULL;
	a = &up->at[*j];
	f = up->files[*j];
	if (a->start != e->start || a->end != e->end ||
	    a->offset != e->offset || a->inode != e->inode ||
	    a->dev_major != e->dev_major || a->dev_minor != e->dev_minor ||
	    unwind_maps_file_due(um, f))
		return NULL;
	return f;
}

static void
unwind_maps_proc_add(struct unwind_maps_proc *up, struct unwind_maps_file *f,
    const struct procmaps_entry *e)
{
	struct unwind_maps_at	*a;

	up->files = xreallocarray(up->files, up->nfiles + 1,
	    sizeof(*up->files));
	up->at = xreallocarray(up->at, up->nfiles + 1, sizeof(*up->at));
	up->files[up->nfiles] = f;
	a = &up->at[up->nfiles++];
	a->start = e->start;
	a->end = e->end;
	a->offset = e->offset;
	a->inode = e->inode;
	a->dev_major = e->dev_major;
	a->dev_minor = e->dev_minor;
}

static struct unwind_maps_proc *
unwind_maps_proc_current(struct unwind_maps *um, pid_t pid)
{
	struct unwind_maps_proc	*up;

	for (up = um->procs[pid % UNWIND_MAPS_BUCKETS]; up != NULL;
	    up = up->pnext) {
		if (up->pid == pid)
			return up;
	}
	return NULL;
}

/* No handle holds the pid's entry any more. */
static void
unwind_maps_proc_unlink(struct unwind_maps *um, pid_t pid)
{
	struct unwind_maps_proc	**pp;

	for (pp = &um->procs[pid % UNWIND_MAPS_BUCKETS]; *pp != NULL;
	    pp = &(*pp)->pnext) {
		if ((*pp)->pid == pid) {
			*pp = (*pp)->pnext;
			um->st.procs--;
			return;
		}
	}
}

/*
 * When the walker may ask for the maps again.  At once after a read of
 * our own; after an answer to it, one tick (a library it found may
 * load others), twice as long each time an answer finds no new mapping
 * (what the walker met was no code): a garbage pc costs a read of the
 * maps every few seconds at most.
 */
static void
unwind_maps_proc_ask(struct unwind_maps_proc *up, struct unwind_proc *v)
{
	struct timespec	 ts;
	uint32_t	 tick;

	if (!up->asked)
		v->asked = 0;
	else {
		if (v->n != up->nmaps || up->backoff == 0)
			up->backoff = 1;
		else if (up->backoff < UNWIND_MAPS_ASK_MAX)
			up->backoff *= 2;
		clock_gettime(CLOCK_MONOTONIC, &ts);
		tick = (ts.tv_sec * 1000000000ULL + ts.tv_nsec) >>
		    UNWIND_ASK_SHIFT;
		v->asked = tick + up->backoff;
	}
	up->asked = 0;
	up->nmaps = v->n;
}

/*
 * Free the records no process has mapped for UNWIND_MAPS_IDLE that hold
 * no table of their own: a copy's, borrowing another's rows, or one
 * whose table was evicted.  Each new copy of a program (a container's
 * layer, a file copied and run) is a record: a workload that runs new
 * copies all day kept one each until the 4,096 slots were all taken,
 * some 400 bytes each, 1.4 MB in an hour of bench/soak.sh.  A loaded
 * table stays cached without processes (its rows are what a build
 * costs); a copy mapped again within the minute keeps its record, later
 * it is built again to find the table it shares.  Once a minute at
 * most, from the reads of maps.
 */
static void
unwind_maps_sweep(struct unwind_maps *um)
{
	struct unwind_maps_file	*f;
	uint32_t		 now = unwind_maps_now();
	size_t			 i;

	if (now - um->swept < UNWIND_MAPS_IDLE)
		return;
	um->swept = now;
	for (i = 0; i < um->nslots; i++) {
		if ((f = um->byid[i]) == NULL || f->refs != 0 ||
		    (f->state != UNWIND_MAPS_SHARED &&
		    f->state != UNWIND_MAPS_NONE) ||
		    now - f->used < UNWIND_MAPS_IDLE)
			continue;
		unwind_maps_file_free(um, f);
		um->st.idle_freed++;
	}
}

struct unwind_maps_proc *
unwind_maps_proc(struct unwind_maps *um, struct unwind_maps_proc *up,
    pid_t pid, const struct procmaps *maps)
{
	const struct procmaps_entry	*e;
	struct unwind_maps_file		*f;
	struct unwind_mapping		*m;
	struct unwind_proc		*v;
	uint64_t			 vaddr;
	size_t				 i, j = 0, old, queued, nfiles = 0;
	size_t				 left = 0;

	if (um == NULL || maps == NULL || pid <= 0)
		return up;
	if (up == NULL) {
		up = xcalloc(1, sizeof(*up));
		up->pid = pid;
	}
	/* The pid's entry is this process's from now on. */
	if (unwind_maps_proc_current(um, pid) != up) {
		unwind_maps_proc_unlink(um, pid);
		up->pnext = um->procs[pid % UNWIND_MAPS_BUCKETS];
		um->procs[pid % UNWIND_MAPS_BUCKETS] = up;
		um->st.procs++;
	}
	/* The new references first: a file mapped still keeps its record. */
	queued = um->st.queued;
	old = up->nfiles;
	v = xcalloc(1, sizeof(*v));
	for (i = 0; i < maps->n; i++)
		left += maps->v[i].kind != PROCMAPS_ANON;
	for (i = 0; i < maps->n; i++) {
		e = &maps->v[i];
		if (v->n == UNWIND_PROC_MAPS) {
			um->st.proc_maps_over++;
			break;
		}
		if (e->kind == PROCMAPS_ANON) {
			/*
			 * JIT code: known, stepped by frame pointer; in the
			 * room the files leave.
			 */
			if (v->n + left >= UNWIND_PROC_MAPS) {
				um->st.proc_maps_over++;
				continue;
			}
			m = &v->m[v->n++];
			m->start = e->start;
			m->end = e->end;
			m->file_id = UNWIND_NO_FILE;
			continue;
		}
		left--;
		if ((f = unwind_maps_proc_had(um, up, old, &j, e)) == NULL)
			f = unwind_maps_file_get(um, pid, e);
		if (f == NULL || f->segs == NULL ||
		    elf_file_offset_to_vaddr(f->segs, f->nsegs, e->offset,
		    &vaddr) == -1)
			continue;
		f->refs++;
		f->used = unwind_maps_now();
		m = &v->m[v->n++];
		m->start = e->start;
		m->end = e->end;
		m->bias = e->start - vaddr;
		m->file_id = f->id;
		unwind_maps_proc_add(up, f, e);
		nfiles++;
	}
	/* Drop the old ones (none: files may be NULL, nothing to move). */
	if (old > 0) {
		for (i = 0; i < old; i++)
			up->files[i]->refs--;
		memmove(up->files, up->files + old,
		    nfiles * sizeof(*up->files));
		memmove(up->at, up->at + old, nfiles * sizeof(*up->at));
	}
	up->nfiles = nfiles;
	unwind_maps_proc_ask(up, v);
	if (session_unwind_proc_set(um->su, pid, v) == -1) {
		if (um->st.proc_errors++ == 0)
			log_warn("pid %d: write unwind mappings", (int)pid);
	}
	free(v);
	/*
	 * Its samples are dropped until its config is written, after
	 * this: when it brought new files (first in the queue), a slice
	 * now, and a small program's table is there for the first of them.
	 * Processes of known files cost no building here.
	 */
	if (um->st.queued > queued)
		unwind_maps_build(um, UNWIND_MAPS_SLICE_NS);
	unwind_maps_sweep(um);
	return up;
}

void
unwind_maps_proc_asked(struct unwind_maps_proc *up)
{
	if (up != NULL)
		up->asked = 1;
}

void
unwind_maps_proc_close(struct unwind_maps *um, struct unwind_maps_proc *up)
{
	if (um == NULL || up == NULL)
		return;
	/* A pid reused: the new process's entry stays. */
	if (unwind_maps_proc_current(um, up->pid) == up) {
		unwind_maps_proc_unlink(um, up->pid);
		session_unwind_proc_delete(um->su, up->pid);
	}
	unwind_maps_proc_unref(um, up);
	free(up);
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
	um->limits.max_rows = nrows / 4;
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
	    PRIu64 " evictions, %" PRIu64 " full, %" PRIu64 " idle "
	    "records freed",
	    st.files, st.tables, st.queued, st.shared, st.rows, st.rows_max,
	    st.pages,
	    st.pages_max, st.bytes, st.procs, st.builds,
	    st.build_ns / 1000000, st.builds_debug, st.vdso, st.build_failed,
	    st.evictions, st.full, st.idle_freed);
	session_unwind_stats(um->su, s);
	for (i = 0; i < UNWIND_STAT_MAX && len < sizeof(buf); i++)
		len += snprintf(buf + len, sizeof(buf) - len, "%s%s %" PRIu64,
		    i == 0 ? "" : ", ", session_unwind_stat_name(i), s[i]);
	log_info("unwind: %s", buf);
}
