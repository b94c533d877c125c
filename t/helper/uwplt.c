/*
 * libuwplt.so: the shared library of t/helper/uwlibs, built as Debian
 * builds (-O2 -g -fPIC, no frame pointers).  lw_mix calls lw_step, an
 * exported (so interposable) function of its own, through the
 * library's own PLT: a second, lazily bound, PLT between the
 * executable's and the code.
 */
unsigned long	lw_step(unsigned long);
unsigned long	lw_mix(unsigned long, int);

__attribute__((noinline)) unsigned long
lw_step(unsigned long x)
{
	return x * 6364136223846793005UL + 1442695040888963407UL;
}

__attribute__((noinline)) unsigned long
lw_mix(unsigned long x, int n)
{
	int	 i;

	for (i = 0; i < n; i++)
		x = lw_step(x) ^ (x >> 7);
	/* Used after the calls: no tail call. */
	return x + 1;
}
