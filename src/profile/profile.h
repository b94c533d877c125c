#ifndef EBPFSPY_PROFILE_DATA_H
#define EBPFSPY_PROFILE_DATA_H

#include <stddef.h>
#include <stdint.h>

/*
 * One profile: one target, one kind (cpu or offcpu), one round.  Stacks
 * are interned: each distinct stack (root first) is stored once with its
 * summed value.  Frame names are interned in one string table whose ids
 * the pprof encoder uses as they are.
 */

enum profile_type {
	PROFILE_TYPE_CPU = 0,		/* value: samples */
	PROFILE_TYPE_OFFCPU = 1,	/* value: nanoseconds */
};

struct frametab;
struct frametab_frame;
struct intern;
struct profile;

struct profile	*profile_create(enum profile_type, uint64_t period_ns,
		    int64_t time_ns, int64_t duration_ns);
void		 profile_free(struct profile *);
enum profile_type profile_type(const struct profile *);
const char	*profile_type_name(enum profile_type);	/* "cpu"/"offcpu" */

void		 profile_label_set(struct profile *, const char *,
		    const char *);
const char	*profile_label_get(const struct profile *, const char *);

/*
 * Add value to the stack frames[0] (root) .. frames[n - 1] (leaf).  The
 * names are copied.  An empty stack (n == 0) is ignored.
 */
void		 profile_add(struct profile *, const char *const *, size_t,
		    uint64_t);
void		 profile_add_labels(struct profile *, const char *const *,
		    size_t, uint64_t, const char *const *, size_t);
/*
 * The same for a stack without labels (n > 0), returning the stack's
 * index; and taking a value back off a stack, for a sum that drops what
 * it added.  A stack taken to zero stays, with value 0.
 */
size_t		 profile_add_stack(struct profile *, const char *const *,
		    size_t, uint64_t);
void		 profile_stack_sub(struct profile *, size_t, uint64_t);
/*
 * The same, the frames as ids of names interned elsewhere, or of the
 * locations of a frametab (not NULL), with their pprof details: then
 * the same names at other addresses are another stack.
 */
void		 profile_add_ids(struct profile *, const struct intern *,
		    const struct frametab *, const uint32_t *, size_t,
		    uint64_t, const char *const *, size_t);
uint64_t	 profile_total(const struct profile *);
size_t		 profile_nstacks(const struct profile *);
size_t		 profile_bytes(const struct profile *);	/* held, about */

/*
 * Reading a profile back, for the writers.  String id 0 is always "";
 * ids below profile_nstrings() are valid.  Stacks are numbered in the
 * order they were first added; their frames are string ids, root first.
 */
uint64_t	 profile_period(const struct profile *);
int64_t		 profile_time(const struct profile *);
int64_t		 profile_duration(const struct profile *);
size_t		 profile_nstrings(const struct profile *);
const char	*profile_string(const struct profile *, uint32_t);
int		 profile_string_find(const struct profile *, const char *,
		    uint32_t *);
/* A name's id, interned if new; a stack added by such ids: its index. */
uint32_t	 profile_string_intern(struct profile *, const char *);
size_t		 profile_add_stack_ids(struct profile *, const uint32_t *,
		    size_t, uint64_t);
const uint32_t	*profile_stack(const struct profile *, size_t, size_t *,
		    uint64_t *);
size_t		 profile_nlabels(const struct profile *);
const uint32_t	*profile_stack_labels(const struct profile *, size_t,
		    size_t *);
/*
 * A stack's locations, one per frame, root first (NULL: added by names
 * only): ids of profile_frames(), whose names are string ids.
 */
const uint32_t	*profile_stack_locs(const struct profile *, size_t);
/* The pprof details of a frame by its string id, and the mappings. */
const struct frametab_frame *profile_frame(const struct profile *,
		    uint32_t);
const struct frametab *profile_frames(const struct profile *);
const char	*profile_label_name(const struct profile *, size_t);
const char	*profile_label_value(const struct profile *, size_t);

/*
 * Trimming (profile_trim.c): the stacks' indices, heaviest first (equal
 * ones in their order), allocated; a copy of the profile with the
 * stacks order[0 .. keep - 1] as they are and the rest merged into one
 * stack of the one frame named other: the same total.
 */
size_t		*profile_heaviest(const struct profile *);
struct profile	*profile_trim_copy(const struct profile *, const size_t *,
		    size_t, const char *);

#endif
