#ifndef EBPFSPY_JVM_SYM_H
#define EBPFSPY_JVM_SYM_H

#include <stddef.h>
#include <stdint.h>

struct jvm_layout;
struct jvm_mem;
struct jvm_sym;

/* A Method, read once and kept while its ConstMethod is the same. */
struct jvm_method {
	uint64_t	 addr;
	uint64_t	 constmethod;	/* the check */
	char		*func;		/* "pkg.Class.method" */
	char		*file;		/* "Class.java"; NULL: none */
	uint8_t		*lines;		/* its line table, or NULL */
	size_t		 lines_len;
};

/* A frame named: innermost first when a compiled frame inlines. */
struct jvm_frame {
	const char	*func;
	const char	*file;		/* NULL: none */
	int		 line;		/* -1: none */
	int		 bci;		/* -1: none */
};

/* What could and could not be named, summed over a process's life. */
struct jvm_sym_stats {
	uint64_t	 methods;	/* Methods read */
	uint64_t	 nmethods;	/* nmethods read */
	uint64_t	 stale;		/* a check that failed: reused */
	uint64_t	 unnamed;	/* frames with no name */
	uint64_t	 reads_failed;
};

#define JVM_SYM_INLINE_MAX	64	/* frames one compiled frame gives */

struct jvm_sym	*jvm_sym_create(struct jvm_mem *, const struct jvm_layout *);
void		 jvm_sym_free(struct jvm_sym *);
void		 jvm_sym_stats(const struct jvm_sym *, struct jvm_sym_stats *);

/*
 * A Method: NULL if it cannot be read or -- check not 0 -- its
 * ConstMethod is no longer check (the Method was freed, its memory
 * reused).
 */
const struct jvm_method *jvm_sym_method(struct jvm_sym *, uint64_t,
		    uint64_t);
const struct jvm_method *jvm_sym_method_cached(struct jvm_sym *, uint64_t);
/* An interpreted frame: a Method, its check, its bci.  0 / -1. */
int		 jvm_sym_interpreted(struct jvm_sym *, uint64_t, uint64_t,
		    int, struct jvm_frame *);
/*
 * A compiled frame: the nmethod, its compile id (the check), the pc's
 * offset from the nmethod, leaf set for the sampled pc (a return
 * address otherwise).  The frames, innermost first, in f[max]: their
 * count, -1 if the nmethod is not that one any more.
 */
int		 jvm_sym_compiled(struct jvm_sym *, uint64_t, uint32_t,
		    uint32_t, int, struct jvm_frame *, size_t);
/* An nmethod's Method and compile id, read now: 0 / -1. */
int		 jvm_sym_nmethod_id(struct jvm_sym *, uint64_t, uint64_t *,
		    uint32_t *);

#endif
