/*
 * An off-CPU workload built as Debian builds (gcc -O2 -g, no frame
 * pointers) that blocks through libc's own nanosleep() and read(),
 * which keep no frame pointers either: a frame-pointer walk from the
 * kernel entry loses the function that waited.
 *
 *   fplesswait [-gr] [-m split|hold|pingpong] [-t seconds] [-l loops]
 *
 * split:    thread sleep_main -> sleep_phase -> sleep_wait -> nanosleep
 *           (10 ms a time); thread read_main -> read_phase -> read_wait
 *           -> read of a pipe that main -> feed_phase writes after each
 *           feed_wait -> nanosleep (5 ms).  At exit each wait function
 *           prints the time it measured itself blocked and its waits:
 *           "blocked <function> <ns> <waits>".
 * hold:     the same threads, each blocked once: sleep_wait for -t
 *           seconds, read_wait until main writes, -t seconds later.
 * pingpong: main -> pp_ping and a child process pp_child -> pp_echo
 *           send a byte to each other through two pipes, -l times
 *           (read_byte -> read, write_byte -> write): two blocking
 *           context switches a loop.  Prints "usecs/op <us>" (wall
 *           time per loop) and "cpu-usecs/op <us>" (user and system
 *           time of both processes per loop).
 *
 * The threads are named fw-sleep and fw-read.  Prints "ready <pid>" when
 * it starts; with -g it then waits for SIGUSR1 (main -> go_wait ->
 * sigwait) before it starts the threads.  With -r it runs SCHED_FIFO:
 * no other task preempts it between its clock reads and its waits, so
 * the time it measures is the time it was off the CPU, which a loaded
 * machine would otherwise inflate by the preemptions in between.
 * Functions are noinline and use
 * what their calls return, so that none is inlined or left by a tail
 * call: each is a frame.
 */
#include <sys/resource.h>
#include <sys/wait.h>

#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int		 pipefd[2];
static long long	 end_ns;
static long		 sleep_ms = 10, feed_ms = 5;
static int		 hold;

static long long
now_ns(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void
report(const char *fn, long long ns, long n)
{
	printf("blocked %s %lld %ld\n", fn, ns, n);
}

/* Blocks in nanosleep for ms: the time it measured. */
__attribute__((noinline)) long long
sleep_wait(long ms)
{
	struct timespec	 ts = { ms / 1000, (ms % 1000) * 1000000L };
	long long	 t = now_ns();

	nanosleep(&ts, NULL);
	return now_ns() - t;
}

__attribute__((noinline)) long long
sleep_phase(long *n)
{
	long long	 blocked = 0;

	while (now_ns() < end_ns) {
		blocked += sleep_wait(sleep_ms);
		(*n)++;
	}
	return blocked;
}

__attribute__((noinline)) void *
sleep_main(void *arg)
{
	long long	 blocked;
	long		 n = 0;

	pthread_setname_np(pthread_self(), "fw-sleep");
	blocked = sleep_phase(&n);
	report("sleep_wait", blocked, n);
	return arg;
}

/* Blocks in read of the pipe: the time it measured, or -1 at its end. */
__attribute__((noinline)) long long
read_wait(char *c)
{
	long long	 t = now_ns();

	if (read(pipefd[0], c, 1) != 1)
		return -1;
	return now_ns() - t;
}

__attribute__((noinline)) long long
read_phase(long *n)
{
	long long	 t, blocked = 0;
	char		 c = 0;

	while (c != 'q' && (t = read_wait(&c)) >= 0) {
		blocked += t;
		(*n)++;
	}
	return blocked;
}

__attribute__((noinline)) void *
read_main(void *arg)
{
	long long	 blocked;
	long		 n = 0;

	pthread_setname_np(pthread_self(), "fw-read");
	blocked = read_phase(&n);
	report("read_wait", blocked, n);
	return arg;
}

__attribute__((noinline)) long long
feed_wait(long ms)
{
	return sleep_wait(ms) + 1;
}

__attribute__((noinline)) long long
feed_phase(long *n)
{
	long long	 blocked = 0;

	while (now_ns() < end_ns) {
		blocked += feed_wait(feed_ms) - 1;
		(*n)++;
		if (!hold && write(pipefd[1], "x", 1) != 1)
			break;
	}
	if (write(pipefd[1], "q", 1) != 1)
		return -1;
	return blocked;
}

__attribute__((noinline)) int
read_byte(int fd)
{
	unsigned char	 c;

	if (read(fd, &c, 1) != 1)
		return -1;
	return c;
}

__attribute__((noinline)) int
write_byte(int fd, int c)
{
	unsigned char	 b = c;

	if (write(fd, &b, 1) != 1)
		return -1;
	return 0;
}

/* The child's end: a byte back for each byte, until 0. */
__attribute__((noinline)) int
pp_echo(int in, int out)
{
	int	 c;

	while ((c = read_byte(in)) > 0)
		if (write_byte(out, c) == -1)
			return -1;
	return c;
}

__attribute__((noinline)) int
pp_child(int in, int out)
{
	return pp_echo(in, out) == 0 ? 0 : 1;
}

__attribute__((noinline)) long
pp_ping(int out, int in, long loops)
{
	long	 i;

	for (i = 0; i < loops; i++)
		if (write_byte(out, 1) == -1 || read_byte(in) != 1)
			break;
	write_byte(out, 0);
	return i;
}

/* SIGUSR1 blocked before "ready" is printed: it is waited for, not fatal. */
static void
go_arm(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGUSR1);
	sigprocmask(SIG_BLOCK, set, NULL);
}

__attribute__((noinline)) int
go_wait(sigset_t *set)
{
	int	 sig = 0;

	printf("waiting for SIGUSR1\n");
	if (sigwait(set, &sig) != 0)
		return -1;
	return sig;
}

static double
tv_us(struct timeval *tv)
{
	return tv->tv_sec * 1e6 + tv->tv_usec;
}

static int
pingpong(long loops)
{
	struct rusage	 self, child;
	int		 to[2], from[2], status;
	long long	 t;
	long		 done;
	pid_t		 pid;

	if (pipe(to) == -1 || pipe(from) == -1)
		return 1;
	if ((pid = fork()) == -1)
		return 1;
	if (pid == 0) {
		close(to[1]);
		close(from[0]);
		_exit(pp_child(to[0], from[1]));
	}
	close(to[0]);
	close(from[1]);
	t = now_ns();
	done = pp_ping(to[1], from[0], loops);
	t = now_ns() - t;
	if (waitpid(pid, &status, 0) == -1 || done != loops)
		return 1;
	getrusage(RUSAGE_SELF, &self);
	getrusage(RUSAGE_CHILDREN, &child);
	printf("usecs/op %.3f\n", t / 1e3 / loops);
	printf("cpu-usecs/op %.3f\n", (tv_us(&self.ru_utime) +
	    tv_us(&self.ru_stime) + tv_us(&child.ru_utime) +
	    tv_us(&child.ru_stime)) / loops);
	return !WIFEXITED(status) || WEXITSTATUS(status) != 0;
}

static void
usage(void)
{
	fprintf(stderr, "usage: fplesswait [-gr] [-m split|hold|pingpong] "
	    "[-t seconds] [-l loops]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	struct sched_param	 sp = { 1 };
	sigset_t		 goset;
	const char		*mode = "split";
	pthread_t		 ts, tr;
	double			 secs = 5;
	long			 loops = 100000, n = 0;
	long long		 fed;
	int			 ch, go = 0;

	while ((ch = getopt(argc, argv, "grm:t:l:")) != -1) {
		switch (ch) {
		case 'g':
			go = 1;
			break;
		case 'r':
			if (sched_setscheduler(0, SCHED_FIFO, &sp) == -1) {
				perror("sched_setscheduler");
				return 1;
			}
			break;
		case 'm':
			mode = optarg;
			break;
		case 't':
			secs = atof(optarg);
			break;
		case 'l':
			loops = atol(optarg);
			break;
		default:
			usage();
		}
	}
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (go)
		go_arm(&goset);
	printf("ready %d\n", (int)getpid());
	if (go && go_wait(&goset) == -1)
		return 1;
	if (strcmp(mode, "pingpong") == 0)
		return pingpong(loops);
	if (strcmp(mode, "hold") == 0) {
		hold = 1;
		sleep_ms = secs * 1000;
		feed_ms = sleep_ms + 100;
	} else if (strcmp(mode, "split") != 0)
		usage();
	end_ns = now_ns() + (long long)(secs * 1e9);
	if (pipe(pipefd) == -1 ||
	    pthread_create(&ts, NULL, sleep_main, NULL) != 0 ||
	    pthread_create(&tr, NULL, read_main, NULL) != 0)
		return 1;
	fed = feed_phase(&n);
	pthread_join(ts, NULL);
	pthread_join(tr, NULL);
	report("feed_wait", fed, n);
	return 0;
}
