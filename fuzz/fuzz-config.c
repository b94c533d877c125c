/*
 * The configuration file: ini syntax, every key's value, target
 * sections, and the dump of what was read, which must load again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"
#include "config.h"

static char	 fuzz_path[4096], fuzz_path2[4096];

void
fuzz_setup(void)
{
	snprintf(fuzz_path, sizeof(fuzz_path), "%s/ebpfspy.conf",
	    fuzz_tmpdir());
	snprintf(fuzz_path2, sizeof(fuzz_path2), "%s/dumped.conf",
	    fuzz_tmpdir());
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct config_errors	 errs = { NULL, 0 };
	struct config		*conf, *again, *old;
	char			*buf = NULL;
	size_t			 blen = 0;
	FILE			*f;

	if (fuzz_write_file(fuzz_path, data, len) == -1)
		abort();
	conf = config_load(fuzz_path, 0, &errs);
	config_errors_clear(&errs);
	if (conf == NULL)
		return 0;

	/* What -n -v prints is a config file that gives the same. */
	if ((f = open_memstream(&buf, &blen)) == NULL)
		abort();
	config_dump(conf, f);
	fclose(f);
	if (fuzz_write_file(fuzz_path2, buf, blen) == -1)
		abort();
	free(buf);
	if ((again = config_load(fuzz_path2, 0, &errs)) == NULL) {
		fprintf(stdout, "the dump does not load: %s\n",
		    errs.n > 0 ? errs.v[0] : "?");
		abort();
	}
	config_errors_clear(&errs);

	/* A reload from the defaults keeps what needs a restart. */
	old = config_defaults();
	config_keep_restart(old, again);
	config_free(old);
	config_free(again);
	config_free(conf);
	return 0;
}
