#ifndef EBPFSPY_COLLECT_STACK_H
#define EBPFSPY_COLLECT_STACK_H

#include <stddef.h>
#include <stdint.h>

struct collect_stack;
struct pids_proc;
struct profile_key;
struct resolve;
struct session;
struct stacknames;
struct symstats;

/*
 * The names of a count's stack, as location ids of a stacknames kept
 * across rounds (stacknames_loc()): the process's comm, its user frames
 * (a runtime's, as Python's, or native), its kernel frames.  User frames
 * are counted per service in the symstats given.
 */
struct collect_stack *collect_stack_create(struct session *,
		    struct resolve *, struct symstats *);
void		 collect_stack_free(struct collect_stack *);
/* A round starts: names for at most this many stacks are kept. */
void		 collect_stack_round_start(struct collect_stack *, size_t);
void		 collect_stack_round_end(struct collect_stack *);
/*
 * The stack of a count, outermost first: *n ids of
 * collect_stack_names(), valid until the next call.
 */
const uint32_t	*collect_stack_name(struct collect_stack *,
		    struct pids_proc *, const struct profile_key *, size_t *);
struct stacknames *collect_stack_names(struct collect_stack *);
/* Stacks (native or Python) a count named that were not held. */
uint64_t	 collect_stack_lost(struct collect_stack *);

#endif
