/*
 * HotSpot's attach protocol (Linux), as jcmd speaks it: a JVM opens
 * its attach socket, /tmp/.java_pid<pid>, when it gets a SIGQUIT while
 * a file .attach_pid<pid> is in its working directory (or /tmp); a
 * client then writes "1\0<command>\0<arg0>\0<arg1>\0<arg2>\0" and
 * reads the status ("0" is success) and the command's output.  Paths
 * are the process's (its root, its working directory, its pid in its
 * own namespace), so a JVM in a container is reached too.  The JVM
 * checks that the peer's uid is its own or root.
 *
 * Used by tests (the JVM's own perf map is their reference); the
 * daemon could refresh a perf map with it, opt-in.
 */
#include <sys/types.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jvm_attach.h"

#define JVM_ATTACH_STEP_MS	5
#define JVM_ATTACH_REPLY_MS	10000	/* a perf map of a big cache */

/* The pid the process has in its own namespace: NSpid's last. */
static pid_t
jvm_attach_nspid(pid_t pid)
{
	char	 path[64], line[256], *p;
	FILE	*f;
	pid_t	 ns = pid;

	snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
	if ((f = fopen(path, "r")) == NULL)
		return pid;
	while (fgets(line, sizeof(line), f) != NULL) {
		if (strncmp(line, "NSpid:", 6) != 0)
			continue;
		if ((p = strrchr(line, '\t')) != NULL ||
		    (p = strrchr(line, ' ')) != NULL)
			ns = atoi(p + 1);
		break;
	}
	fclose(f);
	return ns > 0 ? ns : pid;
}

static int
jvm_attach_connect(const char *path)
{
	struct sockaddr_un	 sun;
	int			 fd;

	memset(&sun, 0, sizeof(sun));
	sun.sun_family = AF_UNIX;
	if (strlen(path) >= sizeof(sun.sun_path))
		return -1;
	strcpy(sun.sun_path, path);
	if ((fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0)) == -1)
		return -1;
	if (connect(fd, (struct sockaddr *)&sun, sizeof(sun)) == -1) {
		close(fd);
		return -1;
	}
	return fd;
}

/* Ask the JVM to open its socket; wait for it. */
static int
jvm_attach_start(pid_t pid, pid_t ns, const char *sock, int timeout_ms)
{
	struct timespec	 ts = { 0, JVM_ATTACH_STEP_MS * 1000000L };
	char		 trigger[96];
	int		 fd, waited, rc = -1;

	snprintf(trigger, sizeof(trigger), "/proc/%d/cwd/.attach_pid%d",
	    (int)pid, (int)ns);
	if ((fd = open(trigger, O_WRONLY | O_CREAT | O_CLOEXEC, 0600)) ==
	    -1) {
		snprintf(trigger, sizeof(trigger),
		    "/proc/%d/root/tmp/.attach_pid%d", (int)pid, (int)ns);
		if ((fd = open(trigger, O_WRONLY | O_CREAT | O_CLOEXEC,
		    0600)) == -1)
			return -1;
	}
	close(fd);
	if (kill(pid, SIGQUIT) == -1)
		goto out;
	for (waited = 0; waited < timeout_ms; waited += JVM_ATTACH_STEP_MS) {
		if ((fd = jvm_attach_connect(sock)) != -1) {
			rc = fd;
			break;
		}
		nanosleep(&ts, NULL);
	}
out:
	unlink(trigger);
	return rc;
}

static int
jvm_attach_write(int fd, const char *buf, size_t len)
{
	ssize_t	 n;

	while (len > 0) {
		if ((n = write(fd, buf, len)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		buf += n;
		len -= n;
	}
	return 0;
}

/* The reply, to its end or len - 1 bytes: its length, -1 on error. */
static ssize_t
jvm_attach_read(int fd, char *buf, size_t len)
{
	struct pollfd	 pfd = { fd, POLLIN, 0 };
	size_t		 o = 0;
	ssize_t		 n;

	while (o < len - 1) {
		if (poll(&pfd, 1, JVM_ATTACH_REPLY_MS) <= 0)
			return -1;
		if ((n = read(fd, buf + o, len - 1 - o)) == -1) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (n == 0)
			break;
		o += n;
	}
	buf[o] = '\0';
	return o;
}

int
jvm_attach_jcmd(pid_t pid, const char *cmd, char *out, size_t len,
    int timeout_ms)
{
	char	 sock[96], req[512], reply[8192], *nl;
	size_t	 n;
	pid_t	 ns = jvm_attach_nspid(pid);
	int	 fd, rc = -1;

	if (out != NULL && len > 0)
		out[0] = '\0';
	snprintf(sock, sizeof(sock), "/proc/%d/root/tmp/.java_pid%d",
	    (int)pid, (int)ns);
	if ((fd = jvm_attach_connect(sock)) == -1 &&
	    (fd = jvm_attach_start(pid, ns, sock, timeout_ms)) == -1)
		return -1;
	/* "1", "jcmd", the command line, two empty arguments. */
	n = strlen(cmd);
	if (n + 12 > sizeof(req))
		goto out;
	memcpy(req, "1\0jcmd\0", 7);
	memcpy(req + 7, cmd, n + 1);
	memcpy(req + 7 + n + 1, "\0\0", 2);
	if (jvm_attach_write(fd, req, 7 + n + 3) == -1 ||
	    jvm_attach_read(fd, reply, sizeof(reply)) == -1)
		goto out;
	if (reply[0] != '0' || (reply[1] != '\n' && reply[1] != '\0'))
		goto out;
	if (out != NULL && len > 0 && (nl = strchr(reply, '\n')) != NULL)
		snprintf(out, len, "%s", nl + 1);
	rc = 0;
out:
	close(fd);
	return rc;
}
