/*
 * Becoming a daemon: fork, with the parent staying until the child says
 * it is ready or has failed, printing on the terminal what the child
 * reports meanwhile, so that whoever started us (an init script,
 * systemd Type=forking) learns the outcome and its reason from us, not
 * from a syslog that may not be there.  And the pidfile, locked from
 * start to exit.
 */
#include <sys/wait.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "sink/sink_file.h"
#include "ebpfspyd.h"
#include "util/lockfile.h"
#include "util/log.h"
#include "util/xmalloc.h"

/*
 * The parent of a daemon that is starting: print what the child reports
 * (its warnings, and why it failed, as "-message" lines) until it says
 * it is ready ("R") or exits.  Its read blocks on purpose: it has
 * nothing else to do.
 */
static void __attribute__((noreturn))
ebpfspyd_daemon_wait(struct ebpfspyd *d, pid_t pid, int fd)
{
	FILE	*f;
	char	*line = NULL;
	size_t	 size = 0;
	ssize_t	 len;
	int	 status, said = 0;

	if ((f = fdopen(fd, "r")) == NULL) {
		fprintf(stderr, "ebpfspyd: fdopen: %s\n", strerror(errno));
		_exit(1);
	}
	while ((len = getline(&line, &size, f)) != -1) {
		if (len > 0 && line[len - 1] == '\n')
			line[--len] = '\0';
		if (strcmp(line, EBPFSPYD_READY) == 0)
			_exit(0);
		if (*line == '-') {
			fprintf(stderr, "ebpfspyd: %s\n", line + 1);
			said = 1;
		}
	}
	if (waitpid(pid, &status, 0) == pid && WIFSIGNALED(status))
		fprintf(stderr, "ebpfspyd: killed by signal %d before it was "
		    "ready\n", WTERMSIG(status));
	else if (!said)
		fprintf(stderr, "ebpfspyd: failed to start, see the system "
		    "log\n");
	/* The child locked it, and never wrote it: not a stale one. */
	if (d->pidfile != NULL) {
		(void)unlink(d->pidfile);
		(void)unlink(d->pidlock);
	}
	_exit(1);
}

/*
 * Fork; the parent stays until the child reports that it is ready, so
 * that whoever started us (an init script, systemd Type=forking) learns
 * the outcome from the exit status, and why it failed on its terminal.
 */
void
ebpfspyd_daemon_fork(struct ebpfspyd *d)
{
	pid_t	 pid;
	int	 fds[2], fd;

	if (pipe2(fds, O_CLOEXEC) == -1)
		fatal("pipe2");
	if ((pid = fork()) == -1)
		fatal("fork");
	if (pid != 0) {
		close(fds[1]);
		ebpfspyd_daemon_wait(d, pid, fds[0]);
	}

	close(fds[0]);
	if (fcntl(fds[1], F_SETFL, O_NONBLOCK) == -1)
		fatal("fcntl");
	d->ready_fd = fds[1];
	log_startfd(d->ready_fd);
	if (setsid() == -1)
		fatal("setsid");
	if (chdir("/") == -1)
		fatal("chdir /");
	if ((fd = open("/dev/null", O_RDWR | O_CLOEXEC)) == -1)
		fatal("open /dev/null");
	if (dup2(fd, STDIN_FILENO) == -1 || dup2(fd, STDOUT_FILENO) == -1 ||
	    dup2(fd, STDERR_FILENO) == -1)
		fatal("dup2");
	if (fd > STDERR_FILENO)
		close(fd);
}

/*
 * The pidfile is locked from start to exit, before anything is loaded:
 * a second ebpfspyd given the same pidfile stops here with a message
 * instead of replacing the file and removing it when it exits.  What is
 * locked is pidfile.lock, not the pidfile: the pidfile is for everyone
 * to read, and whoever can read a file can flock() it -- any user could
 * hold the lock a crashed daemon left, and stop every start.  flock:
 * the lock goes with the open file, so the daemonized child keeps the
 * parent's.
 */
void
ebpfspyd_daemon_pidfile_lock(struct ebpfspyd *d)
{
	char	 buf[32];
	ssize_t	 n;
	int	 fd;

	xasprintf(&d->pidlock, "%s.lock", d->pidfile);
	if ((d->pidlock_fd = lockfile_open(AT_FDCWD, d->pidlock)) == -1) {
		if (errno == EPERM) {
			fprintf(stderr, "ebpfspyd: lock %s: not a file only uid "
			    "%ld may open\n", d->pidlock, (long)geteuid());
			exit(1);
		}
		if (errno != EWOULDBLOCK) {
			/* Its directory, most likely: name the pidfile. */
			fprintf(stderr, "ebpfspyd: pidfile %s: %s\n",
			    d->pidfile, strerror(errno));
			exit(1);
		}
		n = -1;
		if ((fd = open(d->pidfile, O_RDONLY | O_NOFOLLOW |
		    O_CLOEXEC)) != -1) {
			n = read(fd, buf, sizeof(buf) - 1);
			close(fd);
		}
		buf[n > 0 ? n : 0] = '\0';
		buf[strcspn(buf, "\n")] = '\0';
		fprintf(stderr, "ebpfspyd: another ebpfspyd is running "
		    "(pid %s, pidfile %s)\n", *buf != '\0' ? buf :
		    "not written yet", d->pidfile);
		exit(1);
	}
	/* Ours now: what a crashed daemon left in it is not a pid. */
	d->pidfile_fd = open(d->pidfile, O_RDWR | O_CREAT | O_TRUNC |
	    O_NOFOLLOW | O_CLOEXEC, 0644);
	if (d->pidfile_fd == -1) {
		fprintf(stderr, "ebpfspyd: pidfile %s: %s\n", d->pidfile,
		    strerror(errno));
		(void)unlink(d->pidlock);
		exit(1);
	}
}

/* Both files go before the lock does: see lockfile_open(). */
void
ebpfspyd_daemon_pidfile_remove(struct ebpfspyd *d)
{
	if (d->pidfile_fd == -1)
		return;
	if (unlink(d->pidfile) == -1)
		log_warn("unlink %s", d->pidfile);
	if (unlink(d->pidlock) == -1)
		log_warn("unlink %s", d->pidlock);
	close(d->pidfile_fd);
	close(d->pidlock_fd);
	d->pidfile_fd = d->pidlock_fd = -1;
}

/* Written in place once ready; the file was empty until then. */
void
ebpfspyd_daemon_pidfile_write(struct ebpfspyd *d)
{
	char	buf[32];
	int	len;

	len = snprintf(buf, sizeof(buf), "%ld\n", (long)getpid());
	if (ftruncate(d->pidfile_fd, 0) == -1 ||
	    pwrite(d->pidfile_fd, buf, len, 0) != len)
		fatal("pidfile %s", d->pidfile);
}

/*
 * The lock of conf's output directory, made if missing, in *fdp: d's
 * own when it is the directory d holds, -1 when conf has none.  0, or -1
 * after logging why.
 */
int
ebpfspyd_daemon_outdir_lock(struct ebpfspyd *d, const struct config *conf,
    int *fdp)
{
	const char	*dir = conf->output_dir;

	*fdp = -1;
	if (dir == NULL || *dir == '\0')
		return 0;
	if (sink_file_mkdirs(dir) == -1)
		return -1;
	if ((*fdp = sink_file_lock(dir, d->outdir_fd)) != -1)
		return 0;
	if (errno == EWOULDBLOCK)
		log_warnx("output directory %s: in use by another ebpfspyd",
		    dir);
	else if (errno == EPERM)
		log_warnx("output directory %s: its lock is not a file only "
		    "uid %ld may open", dir, (long)geteuid());
	else
		log_warn("output directory %s: lock", dir);
	return -1;
}

/* Hold fd as the output directory's lock; the previous one goes. */
void
ebpfspyd_daemon_outdir_hold(struct ebpfspyd *d, int fd)
{
	if (d->outdir_fd != -1 && d->outdir_fd != fd)
		close(d->outdir_fd);
	d->outdir_fd = fd;
}
