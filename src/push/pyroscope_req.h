#ifndef EBPFSPY_PYROSCOPE_REQ_H
#define EBPFSPY_PYROSCOPE_REQ_H

#include <sys/queue.h>

#include <stddef.h>
#include <stdint.h>

/*
 * The requests of the Pyroscope sink, built from a round's profiles: the
 * target (what follows the server's base URL: a path and a query) and
 * the body.  Internal to pyroscope.c; the unit tests use it too.
 */

struct pprof_buf;
struct profile;

#define PYROSCOPE_PUSH_PATH	"/push.v1.PusherService/Push"
#define PYROSCOPE_INGEST_PATH	"/ingest"

struct pyroscope_req {
	TAILQ_ENTRY(pyroscope_req)	 entry;
	uint64_t			 seq;
	char				*target;
	unsigned char			*body;	/* NULL: only in the spool */
	size_t				 len;
	uint32_t			 nprofiles;
	int64_t				 time;	/* of the profile, s; 0: ? */
	char				*series; /* its labels; NULL: ? */
	void				*xfer;	/* in flight */
	int				 spooled;
};
TAILQ_HEAD(pyroscope_reqs, pyroscope_req);

/* [pyroscope] label.NAME = VALUE: labels added to every series. */
struct pyroscope_globals {
	char		**names;
	char		**values;
	size_t		 n;
};

void	 pyroscope_req_free(struct pyroscope_req *);
/*
 * Append the Push API requests of a round to q: one request per profile,
 * holding its one series, so that a retry repeats nothing the server
 * took already.  The global labels (may be NULL) go into every series.
 * Returns the number of profiles that could not be encoded (logged).
 */
size_t	 pyroscope_req_push(struct pyroscope_reqs *, struct profile *const *,
	    size_t, const struct pyroscope_globals *);
/* The same for /ingest: one request per profile. */
size_t	 pyroscope_req_ingest(struct pyroscope_reqs *,
	    struct profile *const *, size_t, int64_t, int64_t, long long,
	    const struct pyroscope_globals *);
/*
 * Both with the profiles' pprof encodings made already (once a round
 * for every sink), a buf NULL where encoding failed.
 */
size_t	 pyroscope_req_push_enc(struct pyroscope_reqs *,
	    struct profile *const *, const struct pprof_buf *, size_t,
	    const struct pyroscope_globals *);
size_t	 pyroscope_req_ingest_enc(struct pyroscope_reqs *,
	    struct profile *const *, const struct pprof_buf *, size_t, int64_t,
	    int64_t, long long, const struct pyroscope_globals *);
/* Is the target the Push API's (else /ingest)? */
int	 pyroscope_req_is_push(const char *);

/*
 * The labels of a profile's series, sorted by name: __name__ (process_cpu
 * or offcpu), service_name (never empty), the profile's others, then the
 * global labels the profile does not have, each name made a valid
 * Prometheus label name, values valid UTF-8 of bounded length; names
 * beginning with "__", duplicates and empty values are left out.  Returns
 * the number of pairs; names[i] and values[i] are the caller's to free
 * (pyroscope_req_labels_free).
 */
size_t	 pyroscope_req_labels(const struct profile *,
	    const struct pyroscope_globals *, char ***, char ***);
void	 pyroscope_req_labels_free(char **, char **, size_t);

#endif
