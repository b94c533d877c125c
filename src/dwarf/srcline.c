/*
 * src/dwarf/ gives native code its source lines and inlined functions
 * from DWARF, through elfutils' libdw (the same source as the libelf
 * src/elf/ reads files with): for an address, the chain of functions
 * inlined there, innermost first, each with its file and line, as
 * addr2line -i prints them.  DWARF 4 and 5, compressed sections (zlib,
 * zstd where libelf was built with it, as Debian's is) and a dwz
 * supplementary file (.gnu_debugaltlink, found by the caller) are
 * libdw's.
 *
 * A file's DWARF is read when an address of it is first looked up,
 * not when its symbols are: libdw reads the debug sections (and
 * decompresses them) when it opens a file, and then srcline_index.c
 * reads each unit's header.  The DIEs and the line table of a unit are
 * read when an address in it is first asked for (srcline_chain.c).
 *
 * Bounds.  Memory: a file whose debug sections (decompressed) pass
 * max_bytes ([symbols] dwarf_bytes) is refused before they are read;
 * one that grows over it as its units' line tables are read is closed
 * and read again on demand (the units used lately only).  Time: the
 * lookups of a round may take SRCLINE_ROUND_NS together; past that a
 * lookup answers SRCLINE_LATER and the caller names the frame without
 * lines this round, and again next round.  A file's first lookup can
 * still take longer than that alone (libdw reads the sections in one
 * go; bench/README has the figures), and spends the round's time.  Each
 * refusal is counted (srcline_stats: SIGUSR1's state and /metrics).
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <elfutils/libdw.h>

#include "elf/elf.h"
#include "srcline.h"
#include "srcline_int.h"
#include "util/log.h"
#include "util/xmalloc.h"

/* DWARF lookups of one round, all files together: 5 ms of CPU. */
#define SRCLINE_ROUND_NS	5000000ULL
/* Bytes of the index a range takes, for the bound on ranges. */
#define SRCLINE_RANGE_BYTES	(sizeof(struct srcline_range))

#define SRCLINE_CLOSED		0
#define SRCLINE_OPEN		1
#define SRCLINE_REFUSED		2

struct srcline {
	int			 fd, altfd;	/* -1: in memory, or none */
	const void		*mem, *altmem;
	size_t			 len, altlen;
	struct elf_file		*ef, *altef;
	Dwarf			*dbg, *alt;
	struct srcline_index	 ix;
	size_t			 max;		/* bytes; 0: no bound */
	size_t			 bytes;
	int			 state;
	char			*name;
};

static struct srcline_stats	 srcline_st;
static uint64_t			 srcline_round_ns = SRCLINE_ROUND_NS;
static uint64_t			 srcline_spent_ns;

static uint64_t
srcline_now(void)
{
	struct timespec	 ts;

	/*
	 * The CPU the lookups take, not the wall clock: on a loaded host
	 * the loop's time slices would count against them.
	 */
	clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
	return (uint64_t)ts.tv_sec * 1000000000ULL + ts.tv_nsec;
}

/*
 * The DWARF of the file on fd (and of its dwz supplementary file on
 * altfd, -1: none), read on demand, within max bytes (0: no bound);
 * name is for logs.  Takes the descriptors.
 */
struct srcline *
srcline_create(int fd, int altfd, size_t max, const char *name)
{
	struct srcline	*s;

	s = xcalloc(1, sizeof(*s));
	s->fd = fd;
	s->altfd = altfd;
	s->max = max;
	s->name = xstrdup(name != NULL ? name : "?");
	return s;
}

/* The same for images in memory, the caller's until srcline_free. */
struct srcline *
srcline_create_mem(const void *mem, size_t len, const void *altmem,
    size_t altlen, size_t max)
{
	struct srcline	*s;

	s = srcline_create(-1, -1, max, "(memory)");
	s->mem = mem;
	s->len = len;
	s->altmem = altmem;
	s->altlen = altlen;
	return s;
}

static void
srcline_unload(struct srcline *s)
{
	if (s->state == SRCLINE_OPEN) {
		srcline_st.nfiles--;
		srcline_st.bytes -= s->bytes;
	}
	srcline_index_free(&s->ix);
	if (s->dbg != NULL)
		dwarf_end(s->dbg);
	if (s->alt != NULL)
		dwarf_end(s->alt);
	s->dbg = s->alt = NULL;
	elf_file_close(s->ef);
	elf_file_close(s->altef);
	s->ef = s->altef = NULL;
	s->bytes = 0;
	if (s->state == SRCLINE_OPEN)
		s->state = SRCLINE_CLOSED;
}

/* A file's ELF; a dwz supplementary file's (rel) is ET_REL. */
static struct elf_file *
srcline_elf(int fd, const void *mem, size_t len, int rel)
{
	if (fd != -1)
		return elf_file_open_rel(fd, rel);
	if (mem != NULL)
		return elf_file_open_mem_rel(mem, len, rel);
	return NULL;
}

/* Read the file's DWARF: 0, or -1 with s refused for good. */
static int
srcline_load(struct srcline *s)
{
	uint64_t	 need;

	if ((s->ef = srcline_elf(s->fd, s->mem, s->len, 0)) == NULL)
		goto bad;
	s->altef = srcline_elf(s->altfd, s->altmem, s->altlen, 1);
	need = elf_file_debug_bytes(s->ef) +
	    (s->altef != NULL ? elf_file_debug_bytes(s->altef) : 0);
	if (s->max > 0 && need > s->max) {
		log_warnx("%s: DWARF of %llu bytes, over dwarf_bytes (%zu): "
		    "refused", s->name, (unsigned long long)need, s->max);
		srcline_st.refused_bytes++;
		goto refused;
	}
	if ((s->dbg = dwarf_begin_elf(elf_file_libelf(s->ef), DWARF_C_READ,
	    NULL)) == NULL)
		goto bad;
	if (s->altef != NULL && (s->alt = dwarf_begin_elf(
	    elf_file_libelf(s->altef), DWARF_C_READ, NULL)) != NULL)
		dwarf_setalt(s->dbg, s->alt);
	if (srcline_index_build(&s->ix, s->dbg, s->max > 0 ?
	    s->max / 4 / SRCLINE_RANGE_BYTES : SIZE_MAX) == -1)
		goto bad;
	s->bytes = need + srcline_index_bytes(&s->ix);
	s->state = SRCLINE_OPEN;
	srcline_st.opened++;
	srcline_st.nfiles++;
	srcline_st.bytes += s->bytes;
	return 0;
bad:
	log_debug("%s: no DWARF we can read: %s", s->name, dwarf_errmsg(-1));
	srcline_st.refused_bad++;
refused:
	srcline_unload(s);
	s->state = SRCLINE_REFUSED;
	return -1;
}

/*
 * The inline chain at the ELF virtual address addr into out, innermost
 * first: how many frames, SRCLINE_NONE, or SRCLINE_LATER when the
 * round's time for DWARF is spent.  Strings valid until the next call.
 */
int
srcline_lookup(struct srcline *s, uint64_t addr, struct srcline_frame *out,
    size_t max)
{
	struct srcline_unit	*u;
	Dwarf_Die		 cudie;
	uint64_t		 t0;
	size_t			 more;
	int			 n = SRCLINE_NONE;

	if (s == NULL || s->state == SRCLINE_REFUSED || max == 0)
		return SRCLINE_NONE;
	if (srcline_spent_ns >= srcline_round_ns) {
		srcline_st.deferred++;
		return SRCLINE_LATER;
	}
	t0 = srcline_now();
	if (s->state == SRCLINE_OPEN && s->max > 0 && s->bytes > s->max) {
		/* Grown over its bound: the units used from now on only. */
		srcline_st.dropped++;
		srcline_unload(s);
	}
	if (s->state == SRCLINE_CLOSED) {
		if (srcline_load(s) == -1)
			goto done;
	}
	srcline_st.lookups++;
	if ((u = srcline_index_find(&s->ix, addr)) == NULL ||
	    dwarf_offdie(s->dbg, u->off, &cudie) == NULL)
		goto done;
	if (!u->scanned) {
		srcline_scope_build(u, &cudie, s->max > 0 ? s->max / 4 /
		    sizeof(*u->scopes) : SIZE_MAX);
		more = srcline_chain_line_bytes(&cudie) +
		    srcline_scope_bytes(u);
		s->bytes += more;
		srcline_st.bytes += more;
	}
	n = srcline_chain(s->dbg, &cudie, u, addr, out, max);
done:
	t0 = srcline_now() - t0;
	srcline_spent_ns += t0;
	if (t0 > SRCLINE_ROUND_NS / 5)
		log_debug("%s: DWARF lookup of 0x%llx took %.1f ms", s->name,
		    (unsigned long long)addr, t0 / 1e6);
	return n;
}

size_t
srcline_bytes(const struct srcline *s)
{
	return s != NULL ? s->bytes : 0;
}

void
srcline_free(struct srcline *s)
{
	if (s == NULL)
		return;
	srcline_unload(s);
	if (s->fd != -1)
		close(s->fd);
	if (s->altfd != -1)
		close(s->altfd);
	free(s->name);
	free(s);
}

/* The time the lookups of a round may take, ns; 0: the default. */
void
srcline_budget(uint64_t ns)
{
	srcline_round_ns = ns > 0 ? ns : SRCLINE_ROUND_NS;
}

void
srcline_round_begin(void)
{
	srcline_spent_ns = 0;
}

void
srcline_stats(struct srcline_stats *st)
{
	*st = srcline_st;
}

void
srcline_log_state(void)
{
	log_info("dwarf: %llu files open, %llu bytes; %llu read, %llu "
	    "lookups, %llu put off to a later round; refused: %llu over "
	    "dwarf_bytes, %llu unreadable; %llu dropped, grown over it",
	    (unsigned long long)srcline_st.nfiles,
	    (unsigned long long)srcline_st.bytes,
	    (unsigned long long)srcline_st.opened,
	    (unsigned long long)srcline_st.lookups,
	    (unsigned long long)srcline_st.deferred,
	    (unsigned long long)srcline_st.refused_bytes,
	    (unsigned long long)srcline_st.refused_bad,
	    (unsigned long long)srcline_st.dropped);
}
