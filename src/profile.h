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

struct profile;

struct profile	*profile_create(enum profile_type, uint64_t period_ns,
		    int64_t time_ns, int64_t duration_ns);
void		 profile_free(struct profile *);
enum profile_type profile_type(const struct profile *);
const char	*profile_type_name(enum profile_type);	/* "cpu"/"offcpu" */

void		 profile_label_set(struct profile *, const char *,
		    const char *);
const char	*profile_label_get(const struct profile *, const char *);

/* Add value to the stack frames[0] (root) .. frames[n - 1] (leaf). */
void		 profile_add(struct profile *, const char *const *, size_t,
		    uint64_t);
uint64_t	 profile_total(const struct profile *);
size_t		 profile_nstacks(const struct profile *);

#endif
