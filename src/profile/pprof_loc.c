/*
 * The Locations and Functions of a pprof encoding.
 *
 * A stack that came by names only (a sum of other profiles, a test's)
 * has one Location per name, with the details that name was first
 * given (profile_frame()).  A stack that came with its locations has
 * one Location per address of a mapping: the frames of one address
 * (a function and those inlined into it there, FRAMETAB_FRAME_INLINES
 * on all but the innermost) are one Location whose Lines go innermost
 * first, as profile.proto has them; a Location is found by the
 * innermost of its frames, whose address names the others.  So go
 * tool pprof -disasm and -list spread a function's samples over its
 * instructions and lines, as perf annotate does.  One Function per
 * name, system name and source file (Python's lines of one function
 * share theirs).  Locations are numbered in order of first use.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "frametab.h"
#include "pprof_int.h"
#include "profile.h"
#include "util/xmalloc.h"

static uint64_t	pprof_function(struct pprof_enc *, uint32_t, uint32_t,
		    uint32_t);

/* 1 if location id of ft has the inlined function after it. */
static int
pprof_loc_inlines(const struct frametab *ft, uint32_t id)
{
	const struct frametab_loc	*l;

	return (l = frametab_loc(ft, id)) != NULL &&
	    (l->f.flags & FRAMETAB_FRAME_INLINES);
}

/*
 * The Function of a frame's details: one per (name, system name, file),
 * found through the first of its name's functions (ffirst, by name id)
 * and the next of the same name (fnext).
 */
static uint64_t
pprof_function(struct pprof_enc *e, uint32_t name, uint32_t sys,
    uint32_t file)
{
	Perftools__Profiles__Function	*f;
	uint32_t			 k;

	for (k = e->ffirst[name]; k != 0; k = e->fnext[k - 1]) {
		f = &e->funcs[k - 1];
		if (f->system_name == sys && f->filename == file)
			return f->id;
	}
	k = e->nfunc++;
	f = &e->funcs[k];
	perftools__profiles__function__init(f);
	f->id = k + 1;
	f->name = name;
	f->system_name = sys;
	f->filename = file;
	e->funcp[k] = f;
	e->fnext[k] = e->ffirst[name];
	e->ffirst[name] = k + 1;
	return f->id;
}

/* A new Location of what w says, of n lines: its id. */
static uint32_t
pprof_what_add(struct pprof_enc *e, const struct pprof_what *w, size_t n)
{
	if (e->nwhat == e->whatcap) {
		e->whatcap = e->whatcap ? e->whatcap * 2 : 256;
		e->what = xreallocarray(e->what, e->whatcap,
		    sizeof(*e->what));
	}
	e->what[e->nwhat++] = *w;
	e->nlines += n;
	return e->nwhat;
}

/* The Locations stack i uses that are not numbered yet. */
static void
pprof_stack_number(struct pprof_enc *e, const struct frametab *ft,
    size_t i)
{
	struct pprof_what	 w;
	const uint32_t		*ids, *locs;
	size_t			 n, j, k;

	ids = profile_stack(e->p, i, &n, NULL);
	if ((locs = profile_stack_locs(e->p, i)) == NULL) {
		memset(&w, 0, sizeof(w));
		for (j = 0; j < n; j++) {
			if (e->fid[ids[j]] != 0)
				continue;
			w.name = ids[j];
			e->fid[ids[j]] = pprof_what_add(e, &w, 1);
		}
		return;
	}
	for (j = 0; j < n; j = k + 1) {
		for (k = j; k + 1 < n && pprof_loc_inlines(ft, locs[k]); k++)
			;
		if (locs[k] >= frametab_nlocs(ft) || e->gid[locs[k]] != 0)
			continue;
		w.name = 0;
		w.stack = i;
		w.start = j;
		w.n = k - j + 1;
		e->gid[locs[k]] = pprof_what_add(e, &w, w.n);
	}
}

/* Line *ln and, with loc, the place of a frame of details fr. */
static void
pprof_line(struct pprof_enc *e, uint32_t name,
    const struct frametab_frame *fr, Perftools__Profiles__Line *ln,
    Perftools__Profiles__Location *loc)
{
	const struct frametab	*ft = profile_frames(e->p);
	uint32_t		 sys, file;

	if (fr != NULL && fr->func != 0)
		name = fr->func;
	sys = fr != NULL && fr->system != 0 ? fr->system : name;
	file = fr != NULL ? fr->file : 0;
	perftools__profiles__line__init(ln);
	ln->function_id = pprof_function(e, name, sys, file);
	ln->line = fr != NULL ? fr->line : 0;
	if (loc != NULL && fr != NULL && fr->map != 0 &&
	    fr->map <= frametab_nmaps(ft)) {
		loc->mapping_id = e->mapid[fr->map];
		loc->address = fr->addr;
	}
}

void
pprof_locations(struct pprof_enc *e)
{
	const struct frametab		*ft = profile_frames(e->p);
	const struct frametab_loc	*l;
	const struct pprof_what		*w;
	Perftools__Profiles__Location	*loc;
	const uint32_t			*locs;
	size_t				 nstr, i, m, nl = 0;

	nstr = profile_nstrings(e->p);
	e->fid = xcalloc(nstr, sizeof(*e->fid));
	e->gid = xcalloc(frametab_nlocs(ft) + 1, sizeof(*e->gid));
	for (i = 0; i < profile_nstacks(e->p); i++)
		pprof_stack_number(e, ft, i);

	/* + 1: xcalloc() refuses zero, and a profile may be empty. */
	e->funcs = xcalloc(e->nlines + 1, sizeof(*e->funcs));
	e->funcp = xcalloc(e->nlines + 1, sizeof(*e->funcp));
	e->ffirst = xcalloc(nstr, sizeof(*e->ffirst));
	e->fnext = xcalloc(e->nlines + 1, sizeof(*e->fnext));
	e->locs = xcalloc(e->nwhat + 1, sizeof(*e->locs));
	e->locp = xcalloc(e->nwhat + 1, sizeof(*e->locp));
	e->lines = xcalloc(e->nlines + 1, sizeof(*e->lines));
	e->linep = xcalloc(e->nlines + 1, sizeof(*e->linep));
	for (i = 0; i < e->nwhat; i++) {
		w = &e->what[i];
		loc = &e->locs[i];
		perftools__profiles__location__init(loc);
		loc->id = i + 1;
		loc->line = &e->linep[nl];
		if (w->n == 0) {
			pprof_line(e, w->name, profile_frame(e->p, w->name),
			    &e->lines[nl], loc);
			e->linep[nl] = &e->lines[nl];
			nl++;
			loc->n_line = 1;
			e->locp[i] = loc;
			continue;
		}
		/* Innermost first: its address is the Location's. */
		locs = profile_stack_locs(e->p, w->stack) + w->start;
		for (m = w->n; m-- > 0; nl++) {
			l = frametab_loc(ft, locs[m]);
			pprof_line(e, l->name, &l->f, &e->lines[nl],
			    m + 1 == w->n ? loc : NULL);
			e->linep[nl] = &e->lines[nl];
		}
		loc->n_line = w->n;
		e->locp[i] = loc;
	}
	e->pb.function = e->funcp;
	e->pb.n_function = e->nfunc;
	e->pb.location = e->locp;
	e->pb.n_location = e->nwhat;
}

/* Stack i's location ids into out, leaf first, as pprof has them. */
size_t
pprof_sample_locs(struct pprof_enc *e, size_t i, uint64_t *out)
{
	const struct frametab	*ft = profile_frames(e->p);
	const uint32_t		*ids, *locs;
	size_t			 n, j, k = 0;

	ids = profile_stack(e->p, i, &n, NULL);
	if ((locs = profile_stack_locs(e->p, i)) == NULL) {
		for (j = n; j-- > 0;)
			out[k++] = e->fid[ids[j]];
		return k;
	}
	/* A frame that inlines the next is in that one's Location. */
	for (j = n; j-- > 0;)
		if ((j + 1 == n || !pprof_loc_inlines(ft, locs[j])) &&
		    locs[j] < frametab_nlocs(ft))
			out[k++] = e->gid[locs[j]];
	return k;
}

void
pprof_locations_clear(struct pprof_enc *e)
{
	free(e->linep);
	free(e->lines);
	free(e->locp);
	free(e->locs);
	free(e->funcp);
	free(e->funcs);
	free(e->ffirst);
	free(e->fnext);
	free(e->what);
	free(e->gid);
	free(e->fid);
}
