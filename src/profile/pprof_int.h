#ifndef EBPFSPY_PPROF_INT_H
#define EBPFSPY_PPROF_INT_H

#include <stddef.h>
#include <stdint.h>

#include "profile/profile.pb-c.h"

struct profile;

/* What a Location stands for: a name, or frames of a stack. */
struct pprof_what {
	uint32_t	 name;		/* by name (n == 0): its string id */
	size_t		 stack;		/* else frames start .. start + n - 1 */
	size_t		 start;		/* of that stack's locations */
	size_t		 n;
};

/* One encoding: the message and the arrays it points into. */
struct pprof_enc {
	const struct profile		 *p;
	Perftools__Profiles__Profile	  pb;
	Perftools__Profiles__ValueType	  vt, *vtp;

	uint32_t			 *fid;	/* string id -> location id */
	uint32_t			 *gid;	/* profile location -> ours */
	struct pprof_what		 *what;	/* location id - 1 -> what */
	size_t				  nwhat, whatcap, nlines;
	Perftools__Profiles__Function	 *funcs, **funcp;
	size_t				  nfunc;
	uint32_t			 *ffirst, *fnext;
	Perftools__Profiles__Mapping	 *maps, **mapp;
	size_t				 *mapid;	/* frametab's -> ours */
	Perftools__Profiles__Location	 *locs, **locp;
	Perftools__Profiles__Line	 *lines, **linep;
	Perftools__Profiles__Sample	 *samples, **samplep;
	Perftools__Profiles__Label	 *labels, **labelp, *tlabels;
	uint64_t			 *locids;
	int64_t				 *values, *comments;

	/* Strings appended after the profile's names, owned. */
	char				**extra;
	size_t				  nextra;
};

/* pprof_loc.c: Locations and Functions; a sample's location ids. */
void	 pprof_locations(struct pprof_enc *);
size_t	 pprof_sample_locs(struct pprof_enc *, size_t, uint64_t *);
void	 pprof_locations_clear(struct pprof_enc *);

#endif
