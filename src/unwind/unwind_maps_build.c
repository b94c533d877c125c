/*
 * Building the tables of src/unwind/unwind_maps.c's queue, from its idle
 * watcher in slices of CPU time, and loading them into the arrays.
 *
 * Nothing of a queued build is held but where a process maps its file:
 * the file is opened again when its build begins, through
 * src/proc/proc_root.c, and closed once the builder has copied its CFI.
 * Builds begun hold that CFI and what they made of it; they are bounded
 * in bytes (UNWIND_MAPS_BUILD_BUDGETS), and each by what its file
 * holds on disk and the table budget, so that files that claim more
 * than they have cost neither memory nor time (refused, counted).
 */
#include <sys/stat.h>
#include <sys/types.h>

#include <errno.h>
#include <inttypes.h>
#include <stdint.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <ev.h>

#include "elf/elf.h"
#include "util/log.h"
#include "unwind_maps_int.h"
#include "unwind_maps_source.h"
#include "unwind_maps_space.h"
#include "unwind_table.h"
#include "util/clock.h"

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
	unwind_maps_dequeue(um, f);
	/* finish frees the builder. */
	t = f->b != NULL ? unwind_table_builder_finish(f->b, &ts) : NULL;
	f->b = NULL;
	unwind_maps_file_stop_build(f);
	if (t == NULL) {
		/*
		 * No usable CFI, over half of the room, or more CFI
		 * than the file holds or the budget allows (refused).
		 */
		f->state = UNWIND_MAPS_FAILED;
		if (!ts.too_big)
			um->slots[f->id].flags = UNWIND_FILE_NO_CFI;
		um->st.build_failed++;
		um->st.full += ts.too_big && !ts.over_input;
		um->st.refused += ts.over_input != 0;
		if (ts.over_input)
			log_debug("unwind: file %" PRIu32 " (%s): more CFI "
			    "than the file holds or the budget allows, "
			    "refused", f->id, f->src.path != NULL ?
			    f->src.path : "vdso");
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
	return clock_ns(CLOCK_PROCESS_CPUTIME_ID);
}

/*
 * A queued build begun: its file opened again, from where a process
 * maps it, as it was first (the same inode, size and time), with the
 * debug file of a file with no CFI of its own, and its builder made,
 * which copies the CFI: every file is closed again at once.  -1 when
 * the file cannot be had now; else 0, with no builder when it has no
 * CFI we can read.
 */
static int
unwind_maps_build_begin(struct unwind_maps *um, struct unwind_maps_file *f)
{
	struct unwind_table_limits	 lim = um->limits;
	struct elf_file			*elf = NULL, *delf = NULL;
	struct stat			 sb, dsb;
	int				 fd, dfd = -1;

	if (f->img != NULL) {
		f->b = unwind_table_builder_create_mem(f->img, f->img_len,
		    &lim);
		return 0;
	}
	if (f->src_path == NULL ||
	    (fd = unwind_maps_source_open(f->src_pid, &f->src, &sb)) == -1)
		return -1;
	if ((uint64_t)sb.st_dev != f->key.dev ||
	    (uint64_t)sb.st_ino != f->key.ino || sb.st_size != f->key.size ||
	    sb.st_mtim.tv_sec != f->key.mtime_sec ||
	    sb.st_mtim.tv_nsec != f->key.mtime_nsec) {
		close(fd);
		return -1;
	}
	if ((elf = elf_file_open(fd)) != NULL) {
		dfd = unwind_maps_source_debug(elf, f->src_pid, f->src.path,
		    &sb, um->debug_dirs);
		if (dfd != -1 && fstat(dfd, &dsb) == 0 &&
		    (delf = elf_file_open(dfd)) != NULL) {
			log_debug("unwind: file %" PRIu32 " (%s): CFI from "
			    "its debug file", f->id, f->src.path);
			unwind_table_limits_file(&lim, &dsb);
		} else
			unwind_table_limits_file(&lim, &sb);
		f->debug = delf != NULL;
		f->b = unwind_table_builder_create(elf, delf, &lim);
	}
	elf_file_close(delf);
	elf_file_close(elf);
	if (dfd != -1)
		close(dfd);
	close(fd);
	return 0;
}

/*
 * Its process gone (a short-lived one mapped the file first): begun
 * from another that maps it, a few tried.  0, or -1.
 */
static int
unwind_maps_build_other(struct unwind_maps *um, struct unwind_maps_file *f)
{
	pid_t	 pid;
	int	 n;

	if (f->src_path == NULL)
		return -1;
	for (n = 0; n < 4; n++) {
		/* The path as the first saw it; the mapping, the new one's. */
		if ((pid = unwind_maps_proc_other(um, f, f->src_pid,
		    &f->src)) == -1)
			return -1;
		f->src_pid = pid;
		if (unwind_maps_build_begin(um, f) == 0)
			return 0;
	}
	return -1;
}

/*
 * The build to run: the queue's head, newest first, the files of the
 * process sampled now (a program's first samples wait for its table).
 * When the builds begun hold UNWIND_MAPS_BUILD_BUDGETS times the table
 * budget, the oldest begun loses what it made, not its place: it begins
 * again when its turn comes.  Letting the head wait for it instead, or
 * setting back builds past a count of 4 begun, cost t3005 a sixth to a
 * third of its whole stacks on a busy machine (libc's build, the one
 * every stack needs, set back or behind others).
 */
static struct unwind_maps_file *
unwind_maps_build_next(struct unwind_maps *um)
{
	struct unwind_maps_file	*f, *oldest = NULL;
	size_t			 bytes = 0;

	if (um->qhead == NULL || um->qhead->b != NULL)
		return um->qhead;
	for (f = um->qhead; f != NULL; f = f->qnext) {
		if (f->b == NULL)
			continue;
		bytes += unwind_table_builder_bytes(f->b);
		oldest = f;
	}
	if (oldest != NULL &&
	    bytes >= UNWIND_MAPS_BUILD_BUDGETS * um->limits.max_input) {
		log_debug("unwind: file %" PRIu32 ": build set back, the "
		    "builds begun hold %zu bytes", oldest->id, bytes);
		unwind_table_builder_free(oldest->b);
		oldest->b = NULL;
	}
	return um->qhead;
}

/* Build, newest first, for a slice of CPU time. */
void
unwind_maps_build(struct unwind_maps *um, uint64_t slice)
{
	struct unwind_maps_file	*f;
	uint64_t		 start, now;
	int			 r;

	start = now = unwind_maps_cpu_ns();
	while (now - start < slice && (f = unwind_maps_build_next(um)) !=
	    NULL) {
		if (f->b == NULL) {
			if (unwind_maps_build_begin(um, f) == -1 &&
			    unwind_maps_build_other(um, f) == -1) {
				/*
				 * Its process gone, or the file changed:
				 * again as soon as a process maps it (not in
				 * UNWIND_MAPS_RETRY, which is for a table
				 * that did not fit).
				 */
				unwind_maps_dequeue(um, f);
				unwind_maps_file_stop_build(f);
				f->state = UNWIND_MAPS_NONE;
				f->retry = 0;
				continue;
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

void
unwind_maps_idle_cb(EV_P_ ev_idle *w, int revents)
{
	unwind_maps_build(w->data, UNWIND_MAPS_SLICE_NS);
}

