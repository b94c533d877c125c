#ifndef EBPFSPY_V8_INT_H
#define EBPFSPY_V8_INT_H

#include <sys/queue.h>
#include <sys/types.h>

#include "runtime/rt_stacks.h"
#include "v8.h"

struct config;
struct procmaps;
struct session;

#define V8_NO_NAME	UINT32_MAX

/*
 * A frame record, named when its stack was first seen; its strings are
 * ids in vp->stacks.names.
 */
struct v8_frame {
	uint16_t	 index;		/* of its native frame */
	uint32_t	 name;		/* V8_NO_NAME: not named */
	uint32_t	 file;
};

struct v8_stack {
	uint64_t	 id;
	size_t		 n;
	struct v8_frame	*f;
};

struct v8_proc {
	TAILQ_ENTRY(v8_proc)	 entry;
	pid_t			 pid;
	struct v8_layout	 lay;
	struct v8_sym		*sym;
	struct rt_stacks	 stacks;	/* of struct v8_stack */
};

struct v8 {
	struct session		*session;
	int			 enabled;
	uint64_t		 serial;
	TAILQ_HEAD(, v8_proc)	 procs;
	struct v8_stats		 st;
};

struct v8	*v8_create(struct session *, const struct config *);
void		 v8_free(struct v8 *);
void		 v8_configure(struct v8 *, const struct config *);
struct v8_proc	*v8_proc_open(struct v8 *, pid_t, const struct procmaps *);
void		 v8_proc_close(struct v8 *, struct v8_proc *);
void		 v8_log_state(struct v8 *);

/* v8_stack.c */
int		 v8_stack_seen(struct v8 *, struct v8_proc *, uint64_t);
int		 v8_stack_merge(struct v8 *, struct v8_proc *, uint64_t,
		    size_t, runtime_native_cb, runtime_frame_cb, void *);
void		 v8_stacks_free(struct v8 *, struct v8_proc *);

#endif
