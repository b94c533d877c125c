/*
 * uwremap: a process that maps a file, then replaces the file's path
 * with a FIFO or a symbolic link and moves the end of its mapping to
 * and fro, so that a daemon that read its maps finds no map_files entry
 * of the range it read (t/t8100-unwind-hostile-paths.sh).
 *
 *	uwremap fifo FILE SECONDS
 *	uwremap link FILE SECONDS TARGET
 *	uwremap keep SECONDS FILE...
 *
 * FILE, of two pages at least, is mapped executable; it is unlinked
 * and a FIFO, or a link to TARGET, takes its path.  Then, for SECONDS,
 * children are forked one after the other, each toggling for 200 ms:
 * each is a new process whose maps the daemon reads at its first
 * sample.  "ready PID" on stdout once the path is replaced.
 *
 * keep: each FILE is mapped executable, two pages, and kept mapped
 * while the process spins for SECONDS (t/t8101-unwind-sparse-files.sh).
 */
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static double
uwremap_now(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

/* The second page unmapped and mapped again, for secs. */
static void
uwremap_toggle(int fd, char *base, long page, double secs)
{
	double	 end = uwremap_now() + secs;
	int	 i;

	while (uwremap_now() < end) {
		for (i = 0; i < 64; i++) {
			munmap(base + page, page);
			if (mmap(base + page, page, PROT_READ | PROT_EXEC,
			    MAP_PRIVATE | MAP_FIXED, fd, page) == MAP_FAILED) {
				perror("mmap");
				_exit(1);
			}
		}
	}
}

/* Map each file, spin, exit. */
static int
uwremap_keep(int argc, char **argv, long page)
{
	volatile unsigned long	 n = 0;
	double			 end;
	int			 i, fd;

	for (i = 3; i < argc; i++) {
		if ((fd = open(argv[i], O_RDONLY | O_CLOEXEC)) == -1 ||
		    mmap(NULL, 2 * page, PROT_READ | PROT_EXEC, MAP_PRIVATE,
		    fd, 0) == MAP_FAILED) {
			perror(argv[i]);
			return 1;
		}
		close(fd);
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end = uwremap_now() + atof(argv[2]);
	while (uwremap_now() < end)
		n++;
	return 0;
}

int
main(int argc, char **argv)
{
	double	 end;
	long	 page = sysconf(_SC_PAGESIZE);
	pid_t	 pid;
	char	*base;
	int	 fd, link;

	if (argc >= 4 && strcmp(argv[1], "keep") == 0)
		return uwremap_keep(argc, argv, page);
	if (argc < 4 || (link = strcmp(argv[1], "link") == 0) != (argc == 5) ||
	    (!link && strcmp(argv[1], "fifo") != 0)) {
		fprintf(stderr, "usage: uwremap fifo|link FILE SECONDS "
		    "[TARGET]\n       uwremap keep SECONDS FILE...\n");
		return 2;
	}
	if ((fd = open(argv[2], O_RDONLY | O_CLOEXEC)) == -1) {
		perror(argv[2]);
		return 1;
	}
	base = mmap(NULL, 2 * page, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd, 0);
	if (base == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	if (unlink(argv[2]) == -1 ||
	    (link ? symlink(argv[4], argv[2]) : mkfifo(argv[2], 0600)) == -1) {
		perror(argv[2]);
		return 1;
	}
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	end = uwremap_now() + atof(argv[3]);
	while (uwremap_now() < end) {
		if ((pid = fork()) == -1) {
			perror("fork");
			return 1;
		}
		if (pid == 0) {
			uwremap_toggle(fd, base, page, 0.2);
			_exit(0);
		}
		waitpid(pid, NULL, 0);
	}
	return 0;
}
