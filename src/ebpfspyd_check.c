/*
 * What ebpfspyd checks before it loads anything, so that a start that
 * cannot work stops at once with the reason, and a start that works
 * with less than it could says what it will miss: the kernel's version
 * and BTF, the capabilities it holds, and the directories it writes.
 */
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include <linux/capability.h>

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "config.h"
#include "ebpfspyd.h"
#include "util/log.h"
#include "sink/sink_file.h"
#include "util/xmalloc.h"

#ifndef CAP_PERFMON
#define CAP_PERFMON		38
#endif
#ifndef CAP_BPF
#define CAP_BPF			39
#endif
#ifndef CAP_CHECKPOINT_RESTORE
#define CAP_CHECKPOINT_RESTORE	40
#endif

#define EBPFSPYD_BTF		"/sys/kernel/btf/vmlinux"
/*
 * The soft limit on descriptors raised to the hard one: the default
 * 1,024 is the BPF session's, the listeners' and a round's files of
 * many processes at once, and four processes mapping crafted files
 * took the daemon to 1,020 of them.  What the hard limit allows is
 * ours to use; a failure only leaves the soft limit where it was.
 */
void
ebpfspyd_check_nofile(void)
{
	struct rlimit	 rl;

	if (getrlimit(RLIMIT_NOFILE, &rl) == -1 || rl.rlim_cur >= rl.rlim_max)
		return;
	rl.rlim_cur = rl.rlim_max;
	if (setrlimit(RLIMIT_NOFILE, &rl) == -1)
		log_warn("setrlimit RLIMIT_NOFILE");
}

void
ebpfspyd_check_btf(void)
{
	struct stat	 sb;

	if (stat(EBPFSPYD_BTF, &sb) == 0)
		return;
	fatalx("no kernel BTF: %s: %s (a kernel built with "
	    "CONFIG_DEBUG_INFO_BTF=y is needed)", EBPFSPYD_BTF,
	    strerror(errno));
}

static int
ebpfspyd_cap_has(const struct __user_cap_data_struct *data, int cap)
{
	return (data[cap / 32].effective & (1U << (cap % 32))) != 0;
}

/*
 * Without CAP_BPF and CAP_PERFMON (or CAP_SYS_ADMIN, which holds both)
 * nothing loads.  Each of the others names frames that stay unnamed
 * without it; measured in README, "Least privilege".
 */
void
ebpfspyd_check_caps(const struct config *conf)
{
	static const struct {
		int		 cap;
		int		 alt;	/* or this one; -1: none */
		const char	*name;
		const char	*cost;
	} opt[] = {
		{ CAP_SYS_PTRACE, -1, "CAP_SYS_PTRACE",
		  "frames of other users' and of privileged processes stay "
		  "unnamed" },
		{ CAP_DAC_READ_SEARCH, CAP_DAC_OVERRIDE, "CAP_DAC_READ_SEARCH",
		  "frames of programs in directories only their owner reads "
		  "stay unnamed" },
		{ CAP_CHECKPOINT_RESTORE, CAP_SYS_ADMIN,
		  "CAP_CHECKPOINT_RESTORE",
		  "frames of deleted or replaced executables and of memfd "
		  "code stay unnamed" },
		{ CAP_SYSLOG, -1, "CAP_SYSLOG",
		  "kernel frames are named only while kernel.kptr_restrict "
		  "is 0 and kernel.perf_event_paranoid is 1 or less" },
	};
	struct __user_cap_header_struct	 hdr;
	struct __user_cap_data_struct	 data[2];
	const char			*missing;
	size_t				 i;
	int				 admin;

	memset(&hdr, 0, sizeof(hdr));
	memset(data, 0, sizeof(data));
	hdr.version = _LINUX_CAPABILITY_VERSION_3;
	if (syscall(SYS_capget, &hdr, data) == -1) {
		log_warn("capget");
		return;
	}
	admin = ebpfspyd_cap_has(data, CAP_SYS_ADMIN);
	if (!admin && !ebpfspyd_cap_has(data, CAP_BPF))
		missing = ebpfspyd_cap_has(data, CAP_PERFMON) ? "CAP_BPF" :
		    "CAP_BPF and CAP_PERFMON";
	else if (!admin && !ebpfspyd_cap_has(data, CAP_PERFMON))
		missing = "CAP_PERFMON";
	else
		missing = NULL;
	if (missing != NULL)
		fatalx("needs root, or CAP_BPF and CAP_PERFMON (uid %ld, "
		    "without %s)", (long)geteuid(), missing);
	for (i = 0; i < sizeof(opt) / sizeof(opt[0]); i++) {
		if (ebpfspyd_cap_has(data, opt[i].cap) || (opt[i].alt != -1 &&
		    ebpfspyd_cap_has(data, opt[i].alt)))
			continue;
		if (opt[i].cap == CAP_SYSLOG && !conf->collect_kernel)
			continue;
		log_warnx("without %s: %s", opt[i].name, opt[i].cost);
	}
}

/*
 * A directory the daemon writes: made if missing, and written to once,
 * so that a directory it cannot use stops the start, not every round.
 */
static void
ebpfspyd_check_dir(const char *what, const char *path, mode_t mode)
{
	char	*tmp;
	int	 fd;

	/*
	 * Made with its own mode (the spool is private), parents 0750;
	 * sink_file_mkdirs() names the component that failed.
	 */
	if (mkdir(path, mode) == -1 && errno != EEXIST &&
	    (sink_file_mkdirs(path) == -1 || chmod(path, mode) == -1))
		fatalx("%s %s cannot be made", what, path);
	xasprintf(&tmp, "%s/.ebpfspyd-check.XXXXXX", path);
	if ((fd = mkstemp(tmp)) == -1)
		fatal("%s %s is not writable", what, path);
	close(fd);
	if (unlink(tmp) == -1)
		fatal("unlink %s", tmp);
	free(tmp);
}

/* The output directory, and the Pyroscope spool when there is a push. */
void
ebpfspyd_check_dirs(const struct config *conf)
{
	char	*spool;

	if (conf->output_dir != NULL && *conf->output_dir != '\0')
		ebpfspyd_check_dir("output directory", conf->output_dir,
		    0750);
	if (conf->pyroscope_url == NULL || *conf->pyroscope_url == '\0')
		return;
	if (conf->pyroscope_spool_dir != NULL &&
	    *conf->pyroscope_spool_dir != '\0')
		spool = xstrdup(conf->pyroscope_spool_dir);
	else if (conf->output_dir != NULL && *conf->output_dir != '\0')
		xasprintf(&spool, "%s/spool", conf->output_dir);
	else
		return;
	ebpfspyd_check_dir("spool directory", spool, 0700);
	free(spool);
}
