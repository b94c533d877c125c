#ifndef EBPFSPY_SESSION_NULL_H
#define EBPFSPY_SESSION_NULL_H

#include <sys/types.h>
#include <stddef.h>
#include <stdint.h>

#include "bpf/profile.h"
#include "session.h"

/*
 * A session with no kernel side, for tests of the round: what it
 * drains is what the test fed it, and the pid config map is an array
 * the test can read back through session_pid_get().  As BPF does, an
 * unknown-pid or exec event makes the pid's entry, an exit deletes it.
 */
struct session	*session_null_create(const struct config *,
		    session_event_cb, void *);
/* An event, handed to the callback at the next drain. */
void		 session_null_event(struct session *,
		    const struct profile_event *);
/* A count, taken by the next counts drain. */
void		 session_null_count(struct session *,
		    const struct profile_key *, uint64_t);
/* A native stack, frames leaf first, as the stack ring brings one. */
void		 session_null_stack(struct session *, uint64_t,
		    const uint64_t *, size_t);
/* Whether the next prepares fail, as a refused attach does. */
void		 session_null_fail_prepare(struct session *, int);
/* The sample rate and off-CPU state the last commit put in force. */
long long	 session_null_rate(struct session *);

#endif
