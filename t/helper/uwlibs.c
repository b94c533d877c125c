/*
 * On-CPU workloads built as Debian builds (gcc -O2 -g, no frame
 * pointers, -z lazy), whose stacks go through what a frame-pointer
 * walk cannot: a signal frame, lazily bound PLT entries of a shared
 * library, and OpenSSL's hand-written assembly.
 *
 *   uwlibs -m signal|plt|crypto|sha256 [-n rounds]
 *
 * signal: main -> sig_spin, interrupted every 4 ms of CPU time by
 *         SIGPROF, whose handler on_tick -> tick_work burns about as
 *         long: handler <- __restore_rt <- sig_spin (or main) <- main.
 * plt:    main -> plt_loop -> lw_mix (libuwplt.so, through this
 *         program's PLT) -> lw_step (through the library's PLT): many
 *         samples land in the two PLT stubs.
 * crypto: main -> crypto_loop -> EVP_Digest (libcrypto.so.3, loaded
 *         with dlopen so that building needs no OpenSSL headers) ->
 *         ... -> SHA-256 and SHA-512 in turns, in assembly; SHA-512's
 *         (AVX2) realigns the stack, a CFA that is an expression.
 * sha256: the same, SHA-256 only (SHA-NI or AVX2, no realigned stack).
 *
 * No clock is read while working (the vDSO is not what is tested
 * here): each mode does -n rounds of fixed work, then prints "cpu <ns>".
 * Prints "ready <pid>" when it starts.  Functions are noinline and use
 * what their calls return, so each is a frame of its own.
 */
#include <sys/time.h>

#include <dlfcn.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define BUFSZ	(256 * 1024)

unsigned long	lw_mix(unsigned long, int);

/* libcrypto, as <openssl/evp.h> declares it. */
typedef const void *(*md_fn)(void);
typedef int (*digest_fn)(const void *, size_t, unsigned char *,
    unsigned int *, const void *, void *);

static volatile unsigned long	 sink;
static volatile unsigned long	 ticks;
static unsigned char		 buf[BUFSZ];

__attribute__((noinline)) static unsigned long
tick_work(unsigned long x)
{
	int	 i;

	for (i = 0; i < 2000000; i++)
		x = x * 6364136223846793005UL + 1;
	return x + 1;
}

static void
on_tick(int sig)
{
	sink = tick_work(sink + sig) + 1;
	ticks++;
}

__attribute__((noinline)) static unsigned long
sig_spin(unsigned long x)
{
	int	 i;

	for (i = 0; i < 100000; i++)
		x = x * 2862933555777941757UL + 3037000493UL;
	return x + 1;
}

__attribute__((noinline)) static unsigned long
plt_loop(unsigned long x)
{
	int	 i;

	for (i = 0; i < 1000; i++)
		x = lw_mix(x, 100) + 1;
	return x + 1;
}

__attribute__((noinline)) static unsigned long
crypto_loop(digest_fn digest, const void *md, unsigned long x)
{
	unsigned char	 out[64];
	unsigned int	 len = 0;

	buf[x % BUFSZ] ^= (unsigned char)x;
	if (digest(buf, sizeof(buf), out, &len, md, NULL) != 1) {
		fprintf(stderr, "uwlibs: EVP_Digest failed\n");
		exit(1);
	}
	return x + out[0] + len;
}

static double
cpu_s(void)
{
	struct timespec	 ts;

	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static void
usage(void)
{
	fprintf(stderr, "usage: uwlibs -m signal|plt|crypto|sha256 "
	    "[-n rounds]\n");
	exit(1);
}

int
main(int argc, char **argv)
{
	struct itimerval	 it;
	const char		*mode = NULL;
	int			 m;
	digest_fn		 digest = NULL;
	const void		*md[2] = { NULL, NULL };
	void			*h;
	double			 cpu0;
	unsigned long		 x = 1, i, n = 1000;
	int			 ch;

	while ((ch = getopt(argc, argv, "m:n:")) != -1) {
		switch (ch) {
		case 'm':
			mode = optarg;
			break;
		case 'n':
			n = strtoul(optarg, NULL, 10);
			break;
		default:
			usage();
		}
	}
	if (mode == NULL)
		usage();
	/* s, p, c, or 2 for sha256 */
	m = strcmp(mode, "sha256") == 0 ? '2' : *mode;
	if (strcmp(mode, "signal") == 0) {
		signal(SIGPROF, on_tick);
		memset(&it, 0, sizeof(it));
		it.it_interval.tv_usec = 4000;
		it.it_value.tv_usec = 4000;
		setitimer(ITIMER_PROF, &it, NULL);
	} else if (strcmp(mode, "crypto") == 0 || m == '2') {
		if ((h = dlopen("libcrypto.so.3", RTLD_NOW)) == NULL ||
		    (digest = (digest_fn)dlsym(h, "EVP_Digest")) == NULL ||
		    (md[0] = ((md_fn)dlsym(h, "EVP_sha256"))()) == NULL ||
		    (md[1] = ((md_fn)dlsym(h, "EVP_sha512"))()) == NULL) {
			fprintf(stderr, "uwlibs: libcrypto.so.3: %s\n",
			    dlerror());
			return 1;
		}
	} else if (strcmp(mode, "plt") != 0)
		usage();
	printf("ready %d\n", (int)getpid());
	fflush(stdout);
	cpu0 = cpu_s();
	for (i = 0; i < n; i++) {
		if (m == 's') {
			/* Until n handlers have run. */
			x = sig_spin(x);
			if (ticks < n)
				i = 0;
		} else if (m == 'p')
			x = plt_loop(x);
		else
			x = crypto_loop(digest, md[m == 'c' ? i & 1 : 0], x);
	}
	sink = x;
	printf("cpu %.0f\n", (cpu_s() - cpu0) * 1e9);
	return 0;
}
