#ifndef EBPFSPY_EBPFSPYD_H
#define EBPFSPY_EBPFSPYD_H

#include <stdint.h>
#include <time.h>

#include <ev.h>

struct collect;
struct config;
struct pids;
struct unwind_maps;
struct reload;
struct resolve;
struct runtimes;
struct metrics;
struct session;
struct sinks;
struct watch;

/* The daemon's state; one of it, owned by ebpfspyd.c. */
struct ebpfspyd {
	struct ev_loop		*loop;
	struct config		*conf;		/* in force */
	char			*conf_path;	/* absolute: we chdir("/") */
	int			 conf_missing_ok; /* default path, no -c */
	char			*opt_outdir;	/* -o overrides [output] dir */
	char			*opt_logfile;	/* -l overrides [daemon] log_file */
	char			*pidfile;	/* -p, absolute; NULL: none */
	int			 pidfile_fd;	/* -1: none */
	char			*pidlock;	/* pidfile.lock */
	int			 pidlock_fd;	/* locked; -1: none */
	int			 outdir_fd;	/* its lock; -1: none */
	int			 ready_fd;	/* to the waiting parent; -1 */
	long long		 run_seconds;	/* -t; 0: until a signal */
	struct session		*session;
	struct pids		*pids;
	struct runtimes		*runtimes;	/* runtime/runtime.h */
	struct unwind_maps	*unwind;	/* of them, for /metrics */
	struct resolve		*resolve;
	struct debuginfod	*debuginfod;	/* missing debug files */
	struct collect		*collect;
	struct sinks		*sinks;
	struct metrics		*metrics;
	struct watch		*watch;
	struct reload		*reload;
	int			 signal_fd;
	ev_io			 signal_io;
	int			 timer_fd;
	ev_io			 timer_io;
	ev_timer		 run_timer;	/* -t */
	int64_t			 started;	/* CLOCK_MONOTONIC, ns */
	uint64_t		 rounds;
	uint64_t		 round_failures;
	uint64_t		 reloads;
	uint64_t		 reload_failures;
	int			 exiting;
	/* Totals at the last round's line, which says what it added. */
	uint64_t		 said_samples;
	uint64_t		 said_offcpu_ns;
	uint64_t		 said_lost;
	uint64_t		 said_profiles;
};

int	ebpfspyd_main(int, char **);
/* Re-arm the round timer after collect_interval changed; 0 or -1. */
int	ebpfspyd_timer_set(struct ebpfspyd *);

/*
 * ebpfspyd_say.c: the state on SIGUSR1, the line of a round, and at
 * exit where the profiles are.
 */
void	ebpfspyd_log_state(struct ebpfspyd *);
void	ebpfspyd_round_log(struct ebpfspyd *);
void	ebpfspyd_summary(struct ebpfspyd *);
/*
 * Start-up checks (ebpfspyd_check.c): fatal when the daemon cannot
 * work, a warning naming what it will miss when it can.
 */
void	ebpfspyd_check_nofile(void);
void	ebpfspyd_check_btf(void);
void	ebpfspyd_check_caps(const struct config *);
void	ebpfspyd_check_dirs(const struct config *);
/* Apply the command line's overrides (-o) to a freshly loaded config. */
void	ebpfspyd_conf_override(struct ebpfspyd *, struct config *);
const char *ebpfspyd_log_path(struct ebpfspyd *, const struct config *);
/*
 * ebpfspyd_reload.c: reload now (0, or -1 with the previous
 * configuration still in force), or ask for one soon; the callbacks
 * reload.c and watch.c are given.
 */
int	ebpfspyd_reload(struct ebpfspyd *);
void	ebpfspyd_reload_ask(struct ebpfspyd *);
void	ebpfspyd_reload_ask_cb(void *);
void	ebpfspyd_reload_cb(void *);

#define EBPFSPYD_READY	"R"	/* child to parent: startup done */
/*
 * ebpfspyd_daemon.c: detach, with the parent waiting to print how the
 * start went; the pidfile, locked from start to exit.
 */
void	ebpfspyd_daemon_fork(struct ebpfspyd *);
void	ebpfspyd_daemon_pidfile_lock(struct ebpfspyd *);
void	ebpfspyd_daemon_pidfile_write(struct ebpfspyd *);
void	ebpfspyd_daemon_pidfile_remove(struct ebpfspyd *);
/*
 * One daemon an output directory: lock conf's (0, or -1 after logging),
 * then hold the lock, letting the previous one go.
 */
int	ebpfspyd_daemon_outdir_lock(struct ebpfspyd *, const struct config *,
	    int *);
void	ebpfspyd_daemon_outdir_hold(struct ebpfspyd *, int);

#endif
