#ifndef EBPFSPY_PROC_H
#define EBPFSPY_PROC_H

#include <sys/types.h>
#include <stddef.h>

/* Small readers of /proc/PID; all input is untrusted and bounded. */
struct proc_stat {
	pid_t	 ppid;		/* 0: none (pid 1, kernel threads' kthreadd) */
	int	 kthread;
};

int	proc_exists(pid_t);
int	proc_comm(pid_t, char *, size_t);
int	proc_stat(pid_t, struct proc_stat *);
ssize_t	proc_read_file(pid_t, const char *, char *, size_t);

#endif
