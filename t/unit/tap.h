/*
 * A tiny TAP producer for the C unit tests: ok(), is_int(), is_str(),
 * then done_testing() prints the plan and returns the exit status.
 */
#ifndef EBPFSPY_TAP_H
#define EBPFSPY_TAP_H

#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

static int tap_n, tap_failed;

#define ok(cond, ...)	tap_ok(!!(cond), __FILE__, __LINE__, __VA_ARGS__)

static inline int __attribute__((format(printf, 4, 5)))
tap_ok(int pass, const char *file, int line, const char *fmt, ...)
{
	va_list	 ap;

	tap_n++;
	printf("%sok %d - ", pass ? "" : "not ", tap_n);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	if (!pass) {
		tap_failed++;
		printf("#   Failed at %s line %d\n", file, line);
	}
	fflush(stdout);
	return pass;
}

#define is_int(got, want, ...) do {					\
	long long g_ = (long long)(got), w_ = (long long)(want);	\
	if (!ok(g_ == w_, __VA_ARGS__))					\
		printf("#          got: %lld\n#     expected: %lld\n",	\
		    g_, w_);						\
} while (0)

#define is_str(got, want, ...) do {					\
	const char *g_ = (got), *w_ = (want);				\
	if (!ok(g_ != NULL && w_ != NULL && strcmp(g_, w_) == 0,	\
	    __VA_ARGS__))						\
		printf("#          got: '%s'\n#     expected: '%s'\n",	\
		    g_ ? g_ : "(null)", w_ ? w_ : "(null)");		\
} while (0)

static inline void
diag(const char *msg)
{
	printf("# %s\n", msg);
}

static inline int
done_testing(void)
{
	printf("1..%d\n", tap_n);
	return tap_failed ? 1 : 0;
}

#endif
