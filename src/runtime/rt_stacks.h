#ifndef EBPFSPY_RT_STACKS_H
#define EBPFSPY_RT_STACKS_H

/*
 * A process's stacks of runtime frame records (bpf/rtframe.bpf.h),
 * each kept named by its id for as long as the process is, beside its
 * BPF copy: V8's and HotSpot's.  An entry is the runtime's own struct
 * whose first member is the uint64_t id (0: a free slot); clear frees
 * what an entry holds.  The entries' strings are ids in names, made by
 * the first add and freed with the entries: a recursion's thousands of
 * stacks hold the same few names.
 */
#include <stddef.h>
#include <stdint.h>

struct intern;
struct session;

struct rt_stacks {
	unsigned char	*v;		/* open addressing by id */
	size_t		 size;
	size_t		 n;
	size_t		 elsize;
	struct intern	*names;		/* of the entries' frames */
};

void	*rt_stacks_find(const struct rt_stacks *, uint64_t);
void	*rt_stacks_add(struct rt_stacks *, struct session *, uint64_t,
	    size_t, void (*)(void *));
void	 rt_stacks_free(struct rt_stacks *, struct session *,
	    void (*)(void *));

#endif
