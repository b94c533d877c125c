/*
 * Readers of /proc/PID.  Every read is bounded by the caller's buffer:
 * a process controls its comm and cmdline and can make them anything.
 */
#include <sys/types.h>

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc.h"

/* Read /proc/PID/name into buf, NUL-terminated; length or -1. */
ssize_t
proc_read_file(pid_t pid, const char *name, char *buf, size_t len)
{
	char	 path[64];
	ssize_t	 n, total = 0;
	int	 fd;

	if (len == 0)
		return -1;
	snprintf(path, sizeof(path), "/proc/%d/%s", (int)pid, name);
	if ((fd = open(path, O_RDONLY | O_CLOEXEC)) == -1)
		return -1;
	while ((size_t)total < len - 1) {
		n = read(fd, buf + total, len - 1 - total);
		if (n == -1) {
			if (errno == EINTR)
				continue;
			close(fd);
			return -1;
		}
		if (n == 0)
			break;
		total += n;
	}
	close(fd);
	buf[total] = '\0';
	return total;
}

int
proc_exists(pid_t pid)
{
	if (pid <= 0)
		return 0;
	return kill(pid, 0) == 0 || errno == EPERM;
}

int
proc_comm(pid_t pid, char *buf, size_t len)
{
	ssize_t	 n;

	if ((n = proc_read_file(pid, "comm", buf, len)) <= 0)
		return -1;
	if (buf[n - 1] == '\n')
		buf[n - 1] = '\0';
	return 0;
}

/*
 * The fields of /proc/PID/stat the daemon uses: the parent (field 4) and
 * whether it is a kernel thread (PF_KTHREAD in field 9).
 */
int
proc_stat(pid_t pid, struct proc_stat *st)
{
	char		 buf[1024], *p, *end;
	unsigned long	 flags;
	long		 ppid;
	int		 i;

	memset(st, 0, sizeof(*st));
	if (proc_read_file(pid, "stat", buf, sizeof(buf)) <= 0)
		return -1;
	/* comm is in parentheses and may hold anything: skip to its end. */
	if ((p = strrchr(buf, ')')) == NULL || p[1] != ' ')
		return -1;
	p += 2;				/* field 3, the state */
	if ((p = strchr(p, ' ')) == NULL)
		return -1;
	ppid = strtol(p + 1, &end, 10);
	if (end == p + 1 || ppid < 0 || ppid > 4194304)
		return -1;
	/* p is at the space before field 4: on to the one before 9. */
	for (i = 4; i < 9 && p != NULL; i++)
		p = strchr(p + 1, ' ');
	if (p == NULL)
		return -1;
	flags = strtoul(p + 1, NULL, 10);
	st->ppid = ppid;
	st->kthread = (flags & 0x00200000) != 0;
	return 0;
}
