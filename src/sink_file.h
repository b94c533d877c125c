#ifndef EBPFSPY_SINK_FILE_H
#define EBPFSPY_SINK_FILE_H

#include <time.h>

struct config;
struct profile;

/*
 * Write one profile under the output directory:
 * <dir>/<type>/<service_name>/<UTC time>.pb.gz and, when configured,
 * .folded beside it.  Each file is written to a temporary name and
 * renamed into place.  Returns 0, or -1 after logging.
 */
int	sink_file_write(const struct config *, const struct profile *,
	    time_t);

#endif
