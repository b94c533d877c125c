#ifndef EBPFSPY_PYTHON_H
#define EBPFSPY_PYTHON_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "runtime/runtime.h"

struct config;
struct procmaps;
struct python;
struct python_proc;
struct session;

/* Versions with an offsets table: 3.8 to 3.13. */
#define PYTHON_MINOR_FIRST	8
#define PYTHON_MINOR_LAST	13
#define PYTHON_NVERSIONS	(PYTHON_MINOR_LAST - PYTHON_MINOR_FIRST + 1)

/* Why an interpreter is not walked (its process is profiled natively). */
enum python_refusal {
	PYTHON_REFUSE_VERSION,		/* no offsets for this version */
	PYTHON_REFUSE_NO_VERSION,	/* the version cannot be told */
	PYTHON_REFUSE_FREE_THREADED,	/* 3.13t: another object layout */
	PYTHON_REFUSE_LAYOUT,		/* _Py_DebugOffsets disagree */
	PYTHON_REFUSE_LIBC,		/* not glibc: another TSD layout */
	PYTHON_REFUSE_ARCH,		/* the walker is x86_64 only */
	PYTHON_REFUSE_BPF,		/* the BPF py_info map is full */
	PYTHON_REFUSE_MAX
};

struct python_stats {
	uint64_t	found[PYTHON_NVERSIONS];	/* by 3.minor */
	uint64_t	refused[PYTHON_REFUSE_MAX];
	size_t		procs;		/* processes walked */
	uint64_t	frames;		/* Python frames named */
	uint64_t	unnamed;	/* frames whose code object was lost */
	uint64_t	reads;		/* code objects read */
	uint64_t	read_failed;	/* reads that failed */
	uint64_t	stale;		/* code objects replaced */
	size_t		codes;		/* code objects cached */
};

struct python	*python_create(struct session *, const struct config *);
void		 python_free(struct python *);
void		 python_configure(struct python *, const struct config *);
int		 python_is_enabled(const struct python *);

/*
 * Is pid, whose maps are given (NULL: gone), a CPython interpreter the
 * walker can walk?  Then its
 * interpreter is described to BPF and a python_proc returned.  NULL
 * when it is not Python, when it is refused (counted; the process is
 * profiled natively), or -- *pending set -- when its executable links
 * libpython and the loader has not mapped it yet: ask again later.
 */
struct python_proc *python_proc_open(struct python *, pid_t,
		    const struct procmaps *, int *);
void		 python_proc_close(struct python *, struct python_proc *);
/*
 * A new stack of the process, and the native stack of its sample: read
 * its code objects while the process lives.  1 if its maps were read
 * again too (a library may have been loaded).
 */
int		 python_proc_stack_seen(struct python *,
		    struct python_proc *, uint64_t, uint64_t);
/*
 * The process's maps, read again by another (the unwinder asked): a
 * copy replaces those python_proc_native_above looks in.
 */
void		 python_proc_maps_update(struct python_proc *,
		    const struct procmaps *);
/*
 * How many native frames, leaf first, run above the interpreter: C
 * extensions, libc, up to the first frame in the interpreter or in no
 * known mapping.
 */
size_t		 python_proc_native_above(struct python *,
		    struct python_proc *, const uint64_t *, size_t);

/*
 * A stack as stacks.c keeps it (the BPF value's words): its frames,
 * innermost first, and flags; -1 if the words are short.
 */
int		 python_stack_frames(const uint64_t *, size_t,
		    const struct profile_py_frame **, size_t *, uint32_t *);
/* The words of a BPF value worth keeping (stacks.c's length). */
size_t		 python_stack_words(const uint64_t *, size_t);

/*
 * The name of a frame, "qualname (file:line)" as configured.  Never
 * NULL; valid until the next call.  What it is: NULL when it names no
 * code object.
 */
const char	*python_frame_name(struct python *, struct python_proc *,
		    const struct profile_py_frame *);
/* func: the qualname, with its class; file: co_filename. */
const struct runtime_where *python_frame_where(const struct python *);

/*
 * The names of a stack of the Python stacks map, outermost first, to
 * the callback, with what they are; -1 if the map no longer holds it.
 */
int		 python_stack_names(struct python *, struct python_proc *,
		    uint64_t, runtime_frame_cb, void *);

void		 python_round_end(struct python *);
void		 python_stats(struct python *, struct python_stats *);
void		 python_log_state(struct python *);
/* "3.8" .. "3.13" by index of found[]; reasons by enum python_refusal. */
const char	*python_version_name(int);
const char	*python_refusal_name(int);

/* The Python runtime plug-in (python_runtime.c, runtime/runtime.h). */
extern const struct runtime_ops python_runtime;

#endif
