/*
 * Replay a fuzz harness without libFuzzer: under `make check' (any
 * compiler) fuzz/replay-NAME feeds LLVMFuzzerTestOneInput every file of
 * fuzz/corpus/NAME and fuzz/regress/NAME, one TAP line each, so that a
 * crash input once found stays a test.  With arguments, it replays
 * those files or directories instead (to look at one input under gdb).
 */
#include <sys/stat.h>

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fuzz.h"

static int	 ntests;

static uint8_t *
replay_slurp(const char *path, size_t *lenp)
{
	FILE	*f;
	uint8_t	*buf = NULL;
	size_t	 len = 0, cap = 0, n;

	if ((f = fopen(path, "r")) == NULL)
		return NULL;
	for (;;) {
		if (cap - len < 4096) {
			cap = cap == 0 ? 65536 : cap * 2;
			if ((buf = realloc(buf, cap)) == NULL)
				abort();
		}
		if ((n = fread(buf + len, 1, cap - len, f)) == 0)
			break;
		len += n;
	}
	fclose(f);
	*lenp = len;
	return buf;
}

static void
replay_file(const char *path, const char *label)
{
	uint8_t	*buf, *copy;
	size_t	 len;

	if ((buf = replay_slurp(path, &len)) == NULL) {
		printf("not ok %d - %s: %s\n", ++ntests, label,
		    strerror(errno));
		return;
	}
	/* An exact-size copy, so that ASan sees a read past its end. */
	if ((copy = malloc(len > 0 ? len : 1)) == NULL)
		abort();
	memcpy(copy, buf, len);
	free(buf);
	fflush(stdout);
	LLVMFuzzerTestOneInput(copy, len);
	free(copy);
	printf("ok %d - %s (%zu bytes)\n", ++ntests, label, len);
	fflush(stdout);
}

static int
replay_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Every file of dir, in name order; 0 if there is no such directory. */
static void
replay_dir(const char *dir, const char *label)
{
	struct dirent	 *de;
	DIR		 *d;
	char		**names = NULL, path[PATH_MAX], lab[PATH_MAX];
	size_t		  n = 0, i;

	if ((d = opendir(dir)) == NULL)
		return;
	while ((de = readdir(d)) != NULL) {
		if (de->d_name[0] == '.')
			continue;
		if ((names = realloc(names, (n + 1) * sizeof(*names))) ==
		    NULL || (names[n] = strdup(de->d_name)) == NULL)
			abort();
		n++;
	}
	closedir(d);
	qsort(names, n, sizeof(*names), replay_cmp);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		snprintf(lab, sizeof(lab), "%s/%s", label, names[i]);
		replay_file(path, lab);
		free(names[i]);
	}
	free(names);
}

static void
replay_arg(const char *arg)
{
	struct stat	 sb;

	if (stat(arg, &sb) == 0 && S_ISDIR(sb.st_mode))
		replay_dir(arg, arg);
	else
		replay_file(arg, arg);
}

int
main(int argc, char *argv[])
{
	const char	*name, *src;
	char		 dir[PATH_MAX], label[PATH_MAX];
	int		 i, before;

	LLVMFuzzerInitialize(&argc, &argv);
	if (argc > 1) {
		for (i = 1; i < argc; i++)
			replay_arg(argv[i]);
		printf("1..%d\n", ntests);
		return 0;
	}

	/* fuzz/replay-NAME replays fuzz/{corpus,regress}/NAME. */
	if ((name = strrchr(argv[0], '/')) != NULL)
		name++;
	else
		name = argv[0];
	if (strncmp(name, "replay-", 7) != 0) {
		fprintf(stderr, "%s: expected to be called replay-NAME\n",
		    argv[0]);
		return 1;
	}
	name += 7;
	if ((src = getenv("EBPFSPY_SOURCE_DIR")) == NULL)
		src = ".";
	snprintf(dir, sizeof(dir), "%s/fuzz/corpus/%s", src, name);
	snprintf(label, sizeof(label), "corpus/%s", name);
	replay_dir(dir, label);
	before = ntests;
	snprintf(dir, sizeof(dir), "%s/fuzz/regress/%s", src, name);
	snprintf(label, sizeof(label), "regress/%s", name);
	replay_dir(dir, label);
	if (before == 0)
		printf("not ok %d - no seed corpus in %s/fuzz/corpus/%s\n",
		    ++ntests, src, name);
	printf("1..%d\n", ntests);
	return 0;
}
