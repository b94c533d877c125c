/*
 * Demangling: C++ and Rust (legacy and v0) names in the three modes,
 * template and generic arguments dropped around operators and Rust's
 * qualified paths, hostile names, the per-table cache and its memory,
 * a live change of mode, and programs built here with g++ and rustc
 * named through resolve_file, checked against c++filt.  Names whose
 * output doubles with each level of substitutions are demangled in a
 * child, timed and measured: kept mangled, counted, within bounds.
 */
#include <sys/types.h>
#include <sys/resource.h>
#include <sys/time.h>
#include <sys/wait.h>

#include <limits.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "sym/demangle.h"
#include "sym/resolve.h"
#include "sym/symstats.h"
#include "config.h"

#include "tap.h"
#include "symfix.h"

#define NONE	CONFIG_DEMANGLE_NONE
#define SIMPLE	CONFIG_DEMANGLE_SIMPLIFIED
#define FULL	CONFIG_DEMANGLE_FULL

static char	dir[FX_DIR_MAX];

static const char *
fpath(const char *name)
{
	static char	 buf[4][FX_DIR_MAX + 64];
	static int	 i;

	i = (i + 1) % 4;
	snprintf(buf[i], sizeof(buf[i]), "%s/%s", dir, name);
	return buf[i];
}

static struct config *
mkconf(int mode)
{
	struct config	*conf;

	conf = config_defaults();
	conf->demangle = mode;
	conf->unknown_symbol_module_offset = 0;
	return conf;
}

static struct resolve *
mkresolve(int mode)
{
	struct config	*conf;
	struct resolve	*r;

	conf = mkconf(mode);
	r = resolve_create(conf);
	config_free(conf);
	return r;
}

/* demangle_name, with the name itself when it stays as it is. */
static const char *
dm(const char *s, int mode)
{
	static char	 buf[4][4096];
	static int	 i;
	char		*d;

	i = (i + 1) % 4;
	if ((d = demangle_name(s, mode)) == NULL)
		snprintf(buf[i], sizeof(buf[i]), "%s", s);
	else {
		snprintf(buf[i], sizeof(buf[i]), "%s", d);
		free(d);
	}
	return buf[i];
}

static const struct {
	const char	*mangled, *simplified, *full;
} names[] = {
	{ "_ZN2fx5twiceIiEET_RKSt6vectorIS1_SaIS1_EE", "fx::twice",
	    "int fx::twice<int>(std::vector<int, std::allocator<int> > "
	    "const&)" },
	{ "_ZNK2fx3BoxIlE3getEi", "fx::Box::get",
	    "fx::Box<long>::get(int) const" },
	{ "_ZNSt7__cxx1112basic_stringIcSt11char_traitsIcESaIcEE6appendEPKc",
	    "std::__cxx11::basic_string::append",
	    "std::__cxx11::basic_string<char, std::char_traits<char>, "
	    "std::allocator<char> >::append(char const*)" },
	{ "_ZlsRSoRK1A", "operator<<",
	    "operator<<(std::ostream&, A const&)" },
	{ "_ZStlsISt11char_traitsIcEERSt13basic_ostreamIcT_ES5_PKc",
	    "std::operator<<",
	    "std::basic_ostream<char, std::char_traits<char> >& "
	    "std::operator<< <std::char_traits<char> >(std::basic_ostream"
	    "<char, std::char_traits<char> >&, char const*)" },
	{ "_ZN1AptEv", "A::operator->", "A::operator->()" },
	{ "_ZN1AssERKS_", "A::operator<=>", "A::operator<=>(A const&)" },
	{ "_ZltRK1AS1_", "operator<", "operator<(A const&, A const&)" },
	{ "_ZZ4mainENKUliE_clEi", "main::{lambda(int)#1}::operator()",
	    "main::{lambda(int)#1}::operator()(int) const" },
	{ "_ZN12_GLOBAL__N_13fooEv", "(anonymous namespace)::foo",
	    "(anonymous namespace)::foo()" },
	{ "_Z3foov.cold", "foo", "foo() [clone .cold]" },
	{ "_ZN4test3foo17h0123456789abcdefE", "test::foo", "test::foo" },
	{ "_ZN70_$LT$alloc..vec..Vec$LT$T$C$A$GT$$u20$as$u20$core..ops.."
	    "drop..Drop$GT$4drop17h1234567812345678E",
	    "<alloc::vec::Vec as core::ops::drop::Drop>::drop",
	    "<alloc::vec::Vec<T,A> as core::ops::drop::Drop>::drop" },
	{ "_RNvMCs6GmmlP4bgsG_1rINtB2_1WmE3getB2_", "<r::W>::get",
	    "<r::W<u32>>::get" },
	{ "_RINvNtCs1234_4core3ptr13drop_in_placeNtNtCs5678_5alloc6string"
	    "6StringEB4_", "core::ptr::drop_in_place",
	    "core::ptr::drop_in_place::<alloc::string::String>" },
	{ "main", "main", "main" },
	{ "_Zxyz", "_Zxyz", "_Zxyz" },
	{ "_R", "_R", "_R" },
	{ "_", "_", "_" },
};

static void
test_names(void)
{
	size_t	 i;

	for (i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		is_str(dm(names[i].mangled, NONE), names[i].mangled,
		    "none: %s", names[i].mangled);
		is_str(dm(names[i].mangled, SIMPLE), names[i].simplified,
		    "simplified: %s", names[i].mangled);
		is_str(dm(names[i].mangled, FULL), names[i].full,
		    "full: %s", names[i].mangled);
	}
}

static void
test_simplify(void)
{
	static const struct {
		const char	*in, *out;
	} t[] = {
		{ "a::b<int>::c", "a::b::c" },
		{ "a<b<c<d> > >::e<f>", "a::e" },
		{ "operator<", "operator<" },
		{ "ns::operator<< <char>", "ns::operator<<" },
		{ "ns::operator>>=", "ns::operator>>=" },
		{ "X<int>::operator-><Y>", "X::operator->" },
		{ "<T as Trait>::f", "<T as Trait>::f" },
		{ "<Vec<T> as Drop>::drop", "<Vec as Drop>::drop" },
		{ "<<A<x> as B>::C as D<y>>::e", "<<A as B>::C as D>::e" },
		{ "f::<T>", "f" },
		{ "a::<T>::b", "a::b" },
		{ "unbalanced>", "unbalanced>" },
		{ "unclosed<abc", "unclosed" },
		{ "", "" },
	};
	char	 buf[256], deep[1024];
	size_t	 i;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		snprintf(buf, sizeof(buf), "%s", t[i].in);
		demangle_simplify(buf);
		is_str(buf, t[i].out, "simplify '%s'", t[i].in);
	}
	/* Deeper than we follow: left as it is. */
	memset(deep, 0, sizeof(deep));
	for (i = 0; i < 300; i++)
		deep[i] = i < 1 ? 'f' : i < 150 ? '<' : '>';
	snprintf(buf, sizeof(buf), "%.255s", deep);
	demangle_simplify(deep);
	ok(strncmp(deep, buf, 255) == 0, "too deep: left as it is");
}

/* Names made to hurt: bounded time, bounded memory, never a crash. */
static void
test_hostile(void)
{
	char		*big, *d;
	size_t		 i, j, n = 0;
	unsigned int	 seed = 5;
	char		 s[64];
	static const char alphabet[] = "_ZRNIESt0123456789vicKPRT$.";

	big = malloc(100001);
	memcpy(big, "_ZN", 3);
	for (i = 3; i < 99990; i += 2)
		memcpy(big + i, "1a", 2);
	memcpy(big + i, "Ev", 3);
	ok(demangle_name(big, FULL) == NULL, "100 KB name: left as it is");
	/* Templates nested 3000 deep: libiberty's recursion limit. */
	strcpy(big, "_Z1fI");
	for (i = 0; i < 3000; i++)
		strcat(big, "1aI");
	for (i = 0; i < 3001; i++)
		strcat(big, "E");
	strcat(big, "vv");
	d = demangle_name(big, SIMPLE);
	ok(1, "3000 nested templates: answered (%s)", d == NULL ? "as is" :
	    "demangled");
	free(d);
	free(big);
	for (i = 0; i < 20000; i++) {
		s[0] = '_';
		s[1] = i % 2 ? 'Z' : 'R';
		for (j = 2; j < 2 + i % 60; j++)
			s[j] = alphabet[rand_r(&seed) % (sizeof(alphabet) - 1)];
		s[j] = '\0';
		if ((d = demangle_name(s, i % 3 == 0 ? FULL : SIMPLE)) != NULL)
			n++;
		free(d);
	}
	ok(1, "20000 random names: answered (%zu demangled)", n);
}

/* Substitution k of a C++ name: S_, S0_, ... S9_, SA_ ... (base 36). */
static void
cxx_seq(char *s, size_t len, size_t k)
{
	static const char	 d[] = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char			 b[16];
	size_t			 n = sizeof(b);

	if (k == 0) {
		snprintf(s, len, "S_");
		return;
	}
	k--;
	b[--n] = '\0';
	do {
		b[--n] = d[k % 36];
		k /= 36;
	} while (k > 0);
	snprintf(s, len, "S%s_", b + n);
}

/*
 * f(X<X<...X<int, int>..., ...>): each level X<S, S> of the level
 * before, so the output doubles per level; with "Dp", a pack expansion
 * whose pack libiberty looks for through the whole doubled tree
 * before it prints anything.
 */
static void
cxx_deep(char *s, size_t len, size_t depth, int pack)
{
	char	 seq[16];
	size_t	 k;

	snprintf(s, len, "_Z1f%s1X", pack ? "Dp" : "");
	for (k = 1; k < depth; k++)
		strcat(s, "IS_");
	strcat(s, "IiiE");
	for (k = 1; k < depth; k++) {
		cxx_seq(seq, sizeof(seq), k);
		strcat(s, seq);
		strcat(s, "E");
	}
}

/* Rust v0 f::<(u8, u8), ((u8, u8), (u8, u8)), ...>: backrefs, doubling. */
static void
rust_deep(char *s, size_t len, size_t depth)
{
	static const char	 d[] = "0123456789abcdefghijklmnopqrstuvwxyz"
	    "ABCDEFGHIJKLMNOPQRSTUVWXYZ";
	char			 ref[16], b[16];
	size_t			 k, prev, off, n;

	snprintf(s, len, "_RINvC1a1f");
	prev = strlen(s) - 2;
	strcat(s, "ThhE");
	for (k = 1; k < depth; k++) {
		off = prev - 1;
		n = sizeof(b);
		b[--n] = '\0';
		do {
			b[--n] = d[off % 62];
			off /= 62;
		} while (off > 0);
		snprintf(ref, sizeof(ref), "B%s_", b + n);
		prev = strlen(s) - 2;
		strcat(s, "T");
		strcat(s, ref);
		strcat(s, ref);
		strcat(s, "E");
	}
	strcat(s, "E");
}

/*
 * Demangle s in a child, in both modes and through a table's cache,
 * bounded by an alarm: 0 if it stayed mangled and was counted each
 * time it was over the bounds; its CPU time and peak memory in
 * *cpu_ms, *rss_kb.
 */
static int
deep_child(const char *s, long *cpu_ms, long *rss_kb)
{
	struct demangle_cache	*dc = NULL;
	struct rusage		 ru;
	uint64_t		 before;
	pid_t			 pid;
	char			*d1, *d2;
	const char		*d3;
	int			 status;

	*cpu_ms = *rss_kb = -1;
	fflush(stdout);
	if ((pid = fork()) == -1)
		return -1;
	if (pid == 0) {
		alarm(60);
		before = symstats_refused(SYMSTATS_REFUSED_DEMANGLE);
		d1 = demangle_name(s, FULL);
		d2 = demangle_name(s, SIMPLE);
		d3 = demangle_cache_name(&dc, 1, 0, s, FULL);
		/* Simplified C++ prints no parameters: just "f". */
		_exit(d1 == NULL && (d2 == NULL || strcmp(d2, "f") == 0) &&
		    d3 == s && symstats_refused(SYMSTATS_REFUSED_DEMANGLE) ==
		    before + 2 + (d2 == NULL) ? 0 : 1);
	}
	if (wait4(pid, &status, 0, &ru) == -1)
		return -1;
	*cpu_ms = (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1000 +
	    (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1000;
	*rss_kb = ru.ru_maxrss;
	if (WIFSIGNALED(status))
		printf("# killed by signal %d\n", WTERMSIG(status));
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Names of a few hundred bytes that print hundreds of megabytes. */
static void
test_exponential(void)
{
	static const struct {
		const char	*what;
		int		 kind;	/* 0 C++, 1 C++ pack, 2 Rust v0 */
		size_t		 depth;
	} t[] = {
		{ "C++ X<S, S> 26 deep (570 MB)", 0, 26 },
		{ "C++ pack expansion 28 deep", 1, 28 },
		{ "Rust v0 backrefs 26 deep (800 MB)", 2, 26 },
	};
	char	 s[1024];
	long	 cpu, rss;
	size_t	 i;
	int	 r;

	for (i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (t[i].kind == 2)
			rust_deep(s, sizeof(s), t[i].depth);
		else
			cxx_deep(s, sizeof(s), t[i].depth, t[i].kind);
		r = deep_child(s, &cpu, &rss);
		printf("# %s: %zu bytes, %ld ms of CPU, peak RSS %ld KB\n",
		    t[i].what, strlen(s), cpu, rss);
		ok(r == 0, "%s: kept mangled, counted", t[i].what);
		ok(cpu < 1000, "%s: under 1 s of CPU for 3 tries", t[i].what);
		ok(rss < 64 * 1024, "%s: under 64 MB", t[i].what);
	}
}

/* The cache: demangled once, memory counted, reset by a new mode. */
static void
test_cache(void)
{
	struct demangle_cache	*dc = NULL;
	const char		*a, *b;
	size_t			 bytes;

	a = demangle_cache_name(&dc, 10, 3, "main", SIMPLE);
	ok(dc == NULL && strcmp(a, "main") == 0,
	    "plain names make no cache");
	a = demangle_cache_name(&dc, 10, 3, "_ZNK2fx3BoxIlE3getEi", SIMPLE);
	is_str(a, "fx::Box::get", "cache: demangled");
	bytes = demangle_cache_bytes(dc);
	ok(bytes >= 40, "cache: memory counted (%zu)", bytes);
	b = demangle_cache_name(&dc, 10, 3, "_ZNK2fx3BoxIlE3getEi", SIMPLE);
	ok(a == b && demangle_cache_bytes(dc) == bytes,
	    "cache: the second time from the cache");
	is_str(demangle_cache_name(&dc, 10, 4, "_Zbad", SIMPLE), "_Zbad",
	    "cache: undemangled names stay");
	is_str(demangle_cache_name(&dc, 10, 3, "_ZNK2fx3BoxIlE3getEi", FULL),
	    "fx::Box<long>::get(int) const", "cache: a new mode starts over");
	is_str(demangle_cache_name(&dc, 10, 99, "_ZNK2fx3BoxIlE3getEi", FULL),
	    "_ZNK2fx3BoxIlE3getEi", "cache: an index out of range: as is");
	is_str(demangle_cache_name(&dc, 10, 3, "_ZNK2fx3BoxIlE3getEi", NONE),
	    "_ZNK2fx3BoxIlE3getEi", "cache: none");
	demangle_cache_free(dc);
	demangle_cache_free(NULL);
}

static const char cxx_src[] =
    "#include <vector>\n"
    "namespace fx {\n"
    "template <typename T> struct Box {\n"
    "	T v;\n"
    "	__attribute__((noinline)) T get(int n) const\n"
    "	{ volatile T s = v; for (int i = 0; i < n; i++) s = s + v;"
    " return s; }\n"
    "};\n"
    "template <typename T> __attribute__((noinline)) T\n"
    "twice(const std::vector<T> &x)\n"
    "{ T s = T(); for (auto &e : x) s = s + e + e; return s; }\n"
    "}\n"
    "int main(int argc, char **)\n"
    "{ fx::Box<long> b{3}; std::vector<int> v(argc, 1);\n"
    "  return (int)(b.get(argc) + fx::twice(v)); }\n";

/*
 * The address of the first symbol whose name starts with prefix and
 * holds part, and what c++filt makes of it.
 */
static int
find_sym(const char *file, const char *prefix, const char *part,
    uint64_t *addr, char *filt, size_t len)
{
	char			 cmd[PATH_MAX + 128], line[4096], name[4096];
	unsigned long long	 a;
	FILE			*f;
	int			 found = 0;

	snprintf(cmd, sizeof(cmd), "nm --defined-only '%s'", fpath(file));
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	while (fgets(line, sizeof(line), f) != NULL)
		if (!found && sscanf(line, "%llx %*c %4095s", &a, name) == 2 &&
		    strncmp(name, prefix, strlen(prefix)) == 0 &&
		    strstr(name, part) != NULL) {
			*addr = a;
			found = 1;
		}
	pclose(f);
	if (!found)
		return -1;
	snprintf(cmd, sizeof(cmd), "c++filt '%s'", name);
	if ((f = popen(cmd, "r")) == NULL)
		return -1;
	if (fgets(filt, len, f) == NULL)
		filt[0] = '\0';
	filt[strcspn(filt, "\n")] = '\0';
	pclose(f);
	return 0;
}

static void
test_cxx(void)
{
	struct resolve		*r;
	struct resolve_stats	 st, st2;
	struct config		*conf;
	char			 filt[1024];
	uint64_t		 get, twice;

	if (fx_sh("g++ --version >/dev/null 2>&1") == -1) {
		printf("ok %d # SKIP no g++\n", ++tap_n);
		return;
	}
	if (fx_write(fpath("t.cc"), cxx_src, strlen(cxx_src)) == -1 ||
	    fx_sh("cd '%s' && g++ -O1 -o cxx t.cc && strip -o cxx.dyn "
	    "--strip-debug cxx", dir) == -1 ||
	    find_sym("cxx", "_ZNK2fx3BoxIlE3getEi", "", &get, filt,
	    sizeof(filt)) == -1 ||
	    find_sym("cxx", "_ZN2fx5twiceIiEE", "", &twice, filt,
	    sizeof(filt)) == -1) {
		ok(0, "g++ fixture built");
		return;
	}
	r = mkresolve(NONE);
	is_str(resolve_file(r, fpath("cxx"), get + 1), "_ZNK2fx3BoxIlE3getEi",
	    "g++: none: the symbol");
	resolve_free(r);

	r = mkresolve(SIMPLE);
	is_str(resolve_file(r, fpath("cxx"), get + 1), "fx::Box::get",
	    "g++: simplified: a class template's member");
	is_str(resolve_file(r, fpath("cxx"), twice + 1), "fx::twice",
	    "g++: simplified: a function template");
	resolve_stats(r, &st);
	resolve_free(r);

	r = mkresolve(FULL);
	is_str(resolve_file(r, fpath("cxx"), get + 1),
	    "fx::Box<long>::get(int) const", "g++: full: a member");
	is_str(resolve_file(r, fpath("cxx"), twice + 1), filt,
	    "g++: full: what c++filt prints");

	/* A live change of mode: the table stays, the names change. */
	resolve_stats(r, &st);
	conf = mkconf(SIMPLE);
	resolve_configure(r, conf);
	config_free(conf);
	is_str(resolve_file(r, fpath("cxx"), twice + 1), "fx::twice",
	    "g++: reconfigured to simplified");
	resolve_stats(r, &st2);
	is_int(st2.misses, st.misses, "reconfigured: the table was kept");
	ok(st2.file_bytes > 0, "demangled names counted (%zu bytes)",
	    st2.file_bytes);
	resolve_free(r);
}

static const char rust_src[] =
    "#[inline(never)]\n"
    "fn burn_rust(n: u64) -> u64 {\n"
    "    let mut s = 0u64;\n"
    "    for i in 0..n { s = s.wrapping_add(i * 7); }\n"
    "    s\n"
    "}\n"
    "struct W<T> { v: T }\n"
    "impl<T: Copy + Into<u64>> W<T> {\n"
    "    #[inline(never)]\n"
    "    fn get(&self, n: u64) -> u64 { burn_rust(n) + self.v.into() }\n"
    "}\n"
    "fn main() {\n"
    "    let w = W { v: 3u32 };\n"
    "    let n = std::env::args().count() as u64;\n"
    "    std::process::exit((w.get(n) + burn_rust(n) & 1) as i32);\n"
    "}\n";

static void
test_rust(void)
{
	struct resolve	*rs, *rf;
	char		 filt[1024];
	uint64_t	 a;

	if (fx_sh("rustc --version >/dev/null 2>&1") == -1) {
		printf("ok %d # SKIP no rustc\n", ++tap_n);
		return;
	}
	if (fx_write(fpath("w.rs"), rust_src, strlen(rust_src)) == -1 ||
	    fx_sh("cd '%s' && rustc -C force-frame-pointers=yes -g -o legacy "
	    "w.rs 2>/dev/null && rustc -C force-frame-pointers=yes -g "
	    "-C symbol-mangling-version=v0 -o v0 w.rs 2>/dev/null",
	    dir) == -1) {
		ok(0, "rustc fixtures built");
		return;
	}
	/* The crate is named after the source file: w. */
	rs = mkresolve(SIMPLE);
	rf = mkresolve(FULL);
	if (find_sym("legacy", "_ZN1w9burn_rust17h", "", &a, filt,
	    sizeof(filt)) == 0) {
		is_str(resolve_file(rs, fpath("legacy"), a + 1),
		    "w::burn_rust", "rustc legacy: simplified, no hash");
		is_str(resolve_file(rf, fpath("legacy"), a + 1),
		    "w::burn_rust", "rustc legacy: full");
	} else
		ok(0, "rustc legacy: burn_rust in nm");
	if (find_sym("legacy", "_ZN1w", "3get17h", &a, filt,
	    sizeof(filt)) == 0) {
		is_str(resolve_file(rs, fpath("legacy"), a + 1),
		    "w::W::get", "rustc legacy: simplified: generics dropped");
		is_str(resolve_file(rf, fpath("legacy"), a + 1),
		    "w::W<T>::get", "rustc legacy: full: generics");
	} else
		ok(0, "rustc legacy: W::get in nm");
	if (find_sym("v0", "_RNvCs", "1w9burn_rust", &a, filt,
	    sizeof(filt)) == 0)
		is_str(resolve_file(rs, fpath("v0"), a + 1), "w::burn_rust",
		    "rustc v0: simplified");
	else
		ok(0, "rustc v0: burn_rust in nm");
	if (find_sym("v0", "_RNvMCs", "1W", &a, filt, sizeof(filt)) == 0 &&
	    strstr(filt, "3get") == NULL) {
		is_str(resolve_file(rs, fpath("v0"), a + 1), "<w::W>::get",
		    "rustc v0: simplified: generic arguments dropped");
		is_str(resolve_file(rf, fpath("v0"), a + 1),
		    "<w::W<u32>>::get", "rustc v0: full");
	} else
		ok(0, "rustc v0: W::get in nm");
	resolve_free(rs);
	resolve_free(rf);
}

int
main(void)
{
	signal(SIGPIPE, SIG_IGN);
	test_names();
	test_simplify();
	test_hostile();
	test_exponential();
	test_cache();
	snprintf(dir, FX_DIR_MAX, "/tmp/ebpfspy-demangle.XXXXXX");
	if (mkdtemp(dir) == NULL) {
		ok(0, "temporary directory");
		return done_testing();
	}
	test_cxx();
	test_rust();
	fx_clean(dir);
	return done_testing();
}
