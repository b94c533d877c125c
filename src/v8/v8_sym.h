#ifndef EBPFSPY_V8_SYM_H
#define EBPFSPY_V8_SYM_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

struct v8_layout;
struct v8_sym;

/* Why a recorded frame got no name. */
enum v8_unnamed {
	V8_UNNAMED_READ,		/* the process's memory: unreadable */
	V8_UNNAMED_TYPE,		/* not a SharedFunctionInfo (moved) */
	V8_UNNAMED_STRING,		/* a name of a kind not read */
	V8_UNNAMED_MAX
};

/* A function as named: the name, its script's, and where it starts. */
struct v8_func {
	const char	*name;		/* "fib", "(anonymous)" */
	const char	*file;		/* the script's name, or "" */
};

/*
 * The SharedFunctionInfos of one process, read with process_vm_readv()
 * and cached by address; an entry serves only while the SFI at that
 * address still points to the same name and script (a moved or reused
 * object is read again, never given another's name).
 */
struct v8_sym	*v8_sym_create(pid_t, const struct v8_layout *);
void		 v8_sym_free(struct v8_sym *);
/* The function of the SFI at addr; -1 and why when it has none. */
int		 v8_sym_func(struct v8_sym *, uint64_t, struct v8_func *,
		    enum v8_unnamed *);
const char	*v8_unnamed_name(int);
/* Strings and functions kept. */
size_t		 v8_sym_count(const struct v8_sym *);

/* The decoders, exposed for the unit tests. */
/* A String's characters, one-byte or two-byte as ASCII, bounded. */
size_t		 v8_sym_chars(const uint8_t *, size_t, int, char *,
		    size_t);
/*
 * The name a ScopeInfo holds: its slots (tagged words after the map),
 * and a predicate saying which slots are non-empty strings: the index
 * of the first such at or after first_vars + 2 * ncontextlocals, -1.
 */
int		 v8_sym_scope_name(const uint64_t *, size_t, int, int,
		    int (*)(uint64_t, void *), void *);

#endif
