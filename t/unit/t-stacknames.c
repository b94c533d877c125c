/*
 * stacknames: interned names, named stacks kept by generation and id,
 * aged and bounded; resolve's generations change when a process's
 * mappings are read again (an exec), so its stacks are named anew.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/frametab.h"
#include "sym/resolve.h"
#include "config.h"
#include "round/stacknames.h"
#include "tap.h"
#include "util/xmalloc.h"

static int
same(const struct stacknames *sn, const uint32_t *ids, size_t n,
    const char *const *want)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (strcmp(stacknames_name(sn, ids[i]), want[i]) != 0)
			return 0;
	}
	return 1;
}

/* A stack is kept from its second put in a round or the next. */
static void
test_admission(void)
{
	struct stacknames	*sn;
	uint32_t		 ids[2], *many;
	size_t			 n, nextra;

	sn = stacknames_create(3, 1000);
	ids[0] = stacknames_intern(sn, "main");
	ids[1] = stacknames_intern(sn, "work");
	stacknames_put(sn, 1, 0x100, ids, 2, NULL, 0);
	stacknames_round_end(sn);
	stacknames_put(sn, 1, 0x100, ids, 2, NULL, 0);
	ok(stacknames_get(sn, 1, 0x100, &n, &nextra) != NULL && n == 2,
	    "put in a round and the next: kept");
	stacknames_put(sn, 1, 0x200, ids, 2, NULL, 0);
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	stacknames_put(sn, 1, 0x200, ids, 2, NULL, 0);
	ok(stacknames_get(sn, 1, 0x200, &n, &nextra) == NULL,
	    "put two rounds apart: not kept");
	stacknames_put(sn, 2, 0x300, ids, 2, NULL, 0);
	stacknames_put(sn, 3, 0x300, ids, 2, NULL, 0);
	ok(stacknames_get(sn, 3, 0x300, &n, &nextra) == NULL,
	    "the same id under another generation is another stack");
	many = xcalloc(70000, sizeof(*many));
	stacknames_put(sn, 1, 0x400, many, 70000, NULL, 0);
	stacknames_put(sn, 1, 0x400, many, 70000, NULL, 0);
	ok(stacknames_get(sn, 1, 0x400, &n, &nextra) == NULL,
	    "a list of more than 65535 ids: not kept");
	free(many);
	stacknames_free(sn);
}

/*
 * Aging deletes in place, shifting entries back: with entries put and
 * used at random over rounds, every one kept is found, none dropped is.
 */
static void
test_aging_random(void)
{
	struct stacknames	*sn;
	static uint64_t		 used[20000];
	uint64_t		 x = 88172645463325252ULL, round = 1;
	uint32_t		 id = 7, flags;
	size_t			 i, n, r, bad = 0;

	/* Kept one round: each round drops what it did not use. */
	sn = stacknames_create(1, 1000000);
	for (r = 0; r < 8; r++) {
		for (i = 0; i < 20000; i++) {
			x ^= x << 13;
			x ^= x >> 7;
			x ^= x << 17;
			if (x % 3 != 0)
				continue;
			if (stacknames_frame_get(sn, 1, 0x1000 + i * 64, &n,
			    &flags) == NULL)
				stacknames_frame_put(sn, 1, 0x1000 + i * 64,
				    &id, 1, (uint32_t)i);
			used[i] = round;
		}
		stacknames_round_end(sn);
		round++;
		for (i = 0; i < 20000; i++) {
			/* Kept: used in the round that was aged. */
			int want = used[i] != 0 && used[i] == round - 1;
			const uint32_t *got = stacknames_frame_get(sn, 1,
			    0x1000 + i * 64, &n, &flags);

			if (want != (got != NULL) ||
			    (got != NULL && flags != i))
				bad++;
			if (got != NULL)
				used[i] = round;
		}
		stacknames_round_end(sn);
		round++;
	}
	is_int(bad, 0, "random puts and uses over 16 rounds: all as aged");
	stacknames_free(sn);
}

/* Frames: names (an inlined chain too) and flags by (gen, address). */
static void
test_frames(void)
{
	struct stacknames	*sn;
	struct stacknames_stats	 st;
	const uint32_t		*got;
	uint32_t		 ids[16], flags;
	size_t			 n, i;
	char			 name[32];

	sn = stacknames_create(3, 1000);
	ids[0] = stacknames_intern(sn, "main");
	ok(stacknames_frame_get(sn, 5, 0x401000, &n, &flags) == NULL,
	    "frame: not kept yet");
	stacknames_frame_put(sn, 5, 0x401000, ids, 1, 0x80000000U);
	got = stacknames_frame_get(sn, 5, 0x401000, &n, &flags);
	ok(got != NULL && n == 1 && got[0] == ids[0] && flags == 0x80000000U,
	    "frame kept from its first put, with its flags");
	ok(stacknames_frame_get(sn, 6, 0x401000, &n, &flags) == NULL,
	    "another generation (an exec, a new mapping): not found");
	ok(stacknames_frame_get(sn, 5, 0x401001, &n, &flags) == NULL,
	    "another address: not found");
	stacknames_frame_put(sn, 5, 0, ids, 1, 0);
	ok(stacknames_frame_get(sn, 5, 0, &n, &flags) == NULL,
	    "address 0: never kept");

	for (i = 0; i < 5; i++) {
		snprintf(name, sizeof(name), "inlined%zu", i);
		ids[i] = stacknames_intern(sn, name);
	}
	stacknames_frame_put(sn, 5, 0x402000, ids, 5, 0x12);
	got = stacknames_frame_get(sn, 5, 0x402000, &n, &flags);
	ok(got != NULL && n == 5 && memcmp(got, ids, 5 * sizeof(*ids)) == 0 &&
	    flags == 0x12, "a chain of inlined names, in order, and flags");

	/* Many frames; half used each round: the others go, in place. */
	stacknames_configure(sn, 3, 100000);
	for (i = 0; i < 6000; i++)
		stacknames_frame_put(sn, 9, 0x500000 + 16 * i, ids, 1 + i % 3,
		    i);
	stacknames_round_end(sn);
	for (i = 0; i < 6000; i += 2)
		(void)stacknames_frame_get(sn, 9, 0x500000 + 16 * i, &n, &flags);
	/* Put in round 1, used in 2: at the end of round 4, 1 is too old. */
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	for (i = 0; i < 6000; i++) {
		got = stacknames_frame_get(sn, 9, 0x500000 + 16 * i, &n,
		    &flags);
		if (i % 2 == 0 && (got == NULL || n != 1 + i % 3 ||
		    flags != i || memcmp(got, ids, n * sizeof(*ids)) != 0))
			break;
		if (i % 2 == 1 && got != NULL)
			break;
	}
	is_int(i, 6000, "aged: the used frames kept and found, the others gone");
	stacknames_stats(sn, &st);
	is_int(st.frames, 3000, "3000 frames kept");
	ok(st.frame_hits > 0 && st.frame_misses > 0, "frame hits and misses");
	for (i = 0; i < 4; i++)
		stacknames_round_end(sn);
	stacknames_stats(sn, &st);
	is_int(st.frames, 0, "unused three rounds after this one: all gone");
	is_int(st.cleared, 0, "aged, not cleared");

	/* Past the bound: frames, stacks and names go. */
	stacknames_configure(sn, 3, 1000);
	for (i = 0; i < 1001; i++)
		stacknames_frame_put(sn, 9, 0x600000 + i, ids, 1, 0);
	stacknames_round_end(sn);
	stacknames_stats(sn, &st);
	ok(st.frames == 0 && st.names == 0 && st.cleared == 1,
	    "over max frames: everything cleared");
	stacknames_free(sn);
}

/*
 * Programs that come and go leave their names behind: once the names
 * doubled, those no stack or frame kept uses are dropped, and the ids
 * kept are renumbered to the same names.
 */
static int
same_loc(const struct stacknames *sn, const uint32_t *ids, size_t n,
    const char *const *want)
{
	size_t	 i;

	for (i = 0; i < n; i++) {
		if (strcmp(stacknames_loc_name(sn, ids[i]), want[i]) != 0)
			return 0;
	}
	return 1;
}

static void
test_compact(void)
{
	struct stacknames		*sn;
	struct stacknames_stats		 st;
	struct frametab_frame		 f;
	struct frametab_map		 m;
	const struct frametab_loc	*l;
	const struct frametab_map	*lm;
	const uint32_t			*got;
	uint32_t			 ids[3], flags, x;
	const char			*want[3] = { "keep_main", "keep_a",
					    "keep_b" };
	char				 name[64];
	size_t				 i, n, nextra, names;

	sn = stacknames_create(2, 1000000);
	/* keep_main: a location with a mapping, a source file, a line. */
	memset(&m, 0, sizeof(m));
	m.file = stacknames_intern(sn, "/usr/bin/keep");
	m.build_id = stacknames_intern(sn, "abcdef");
	m.start = 0x1000;
	m.limit = 0x2000;
	memset(&f, 0, sizeof(f));
	f.map = frametab_map_add(stacknames_frames(sn), &m);
	f.file = stacknames_intern(sn, "keep.c");
	f.line = 42;
	f.addr = 0x1234;
	ids[0] = stacknames_loc(sn, want[0], &f);
	for (i = 1; i < 3; i++)
		ids[i] = stacknames_loc(sn, want[i], NULL);
	/* A stack (its extra a location) and a frame (its extra flags). */
	stacknames_put(sn, 1, 0x10, ids, 2, &ids[2], 1);
	stacknames_put(sn, 1, 0x10, ids, 2, &ids[2], 1);
	stacknames_frame_put(sn, 1, 0x20, &ids[1], 1, 0x7);
	/* 40,000 names of frames that go, a generation at a time. */
	for (i = 0; i < 40000; i++) {
		snprintf(name, sizeof(name), "gone_generation_%zu_function_"
		    "with_a_long_name", i);
		x = stacknames_loc(sn, name, NULL);
		stacknames_frame_put(sn, 2 + i / 1000, 0x1000 + i, &x, 1, 0);
		if (i % 1000 == 999) {
			(void)stacknames_get(sn, 1, 0x10, &n, &nextra);
			(void)stacknames_frame_get(sn, 1, 0x20, &n, &flags);
			stacknames_round_end(sn);
		}
	}
	stacknames_stats(sn, &st);
	ok(st.compacted > 0 && st.cleared == 0, "names compacted, not cleared");
	names = st.names;
	ok(names < 20000, "the names of frames gone are gone (%zu left)",
	    names);
	ok(frametab_nlocs(stacknames_frames(sn)) < 20000,
	    "and their locations (%zu left)",
	    frametab_nlocs(stacknames_frames(sn)));
	got = stacknames_get(sn, 1, 0x10, &n, &nextra);
	ok(got != NULL && n == 2 && nextra == 1 && same_loc(sn, got, 3, want),
	    "a stack kept has its names and its extra name");
	l = got != NULL ? frametab_loc(stacknames_frames(sn), got[0]) : NULL;
	lm = l != NULL ? frametab_map(stacknames_frames(sn), l->f.map) : NULL;
	ok(l != NULL && l->f.line == 42 && l->f.addr == 0x1234 &&
	    strcmp(stacknames_name(sn, l->f.file), "keep.c") == 0,
	    "its location keeps its source file, line and address");
	ok(lm != NULL && lm->start == 0x1000 && lm->limit == 0x2000 &&
	    strcmp(stacknames_name(sn, lm->file), "/usr/bin/keep") == 0 &&
	    strcmp(stacknames_name(sn, lm->build_id), "abcdef") == 0,
	    "and its mapping its path and build id");
	got = stacknames_frame_get(sn, 1, 0x20, &n, &flags);
	ok(got != NULL && n == 1 && flags == 0x7 && same_loc(sn, got, 1,
	    &want[1]), "a frame kept has its name, its flags unchanged");
	stacknames_free(sn);
}

/*
 * Locations pile up without new names: one function name in thousands
 * of mappings (a program run again and again, each its own copy) is a
 * location each, some 56 bytes, against one name.  Compaction counts
 * them with the names, or they are never given back.
 */
static void
test_compact_locations(void)
{
	struct stacknames	*sn;
	struct stacknames_stats	 st;
	struct frametab_frame	 f;
	struct frametab_map	 m;
	uint32_t		 x, flags;
	const uint32_t		*got;
	size_t			 i, n, peak = 0;

	sn = stacknames_create(2, 1000000);
	x = stacknames_loc(sn, "kept", NULL);
	stacknames_frame_put(sn, 1, 0x20, &x, 1, 0x3);
	memset(&m, 0, sizeof(m));
	m.file = stacknames_intern(sn, "/tmp/copy");
	memset(&f, 0, sizeof(f));
	for (i = 0; i < 60000; i++) {
		m.start = 0x10000 * (i + 1);
		m.limit = m.start + 0x1000;
		m.offset = m.start;
		f.map = frametab_map_add(stacknames_frames(sn), &m);
		x = stacknames_loc(sn, "main", &f);
		stacknames_frame_put(sn, 2 + i / 1000, 0x1000 + i, &x, 1, 0);
		if (i % 1000 == 999) {
			(void)stacknames_frame_get(sn, 1, 0x20, &n, &flags);
			stacknames_round_end(sn);
			stacknames_stats(sn, &st);
			if (st.bytes > peak)
				peak = st.bytes;
		}
	}
	stacknames_stats(sn, &st);
	ok(st.compacted > 0 && st.cleared == 0 &&
	    frametab_nlocs(stacknames_frames(sn)) < 20000,
	    "locations of one name in 60,000 mappings compacted (%zu left)",
	    frametab_nlocs(stacknames_frames(sn)));
	ok(peak < 4 * 1024 * 1024, "the names' tables peaked at %zu KiB",
	    peak >> 10);
	got = stacknames_frame_get(sn, 1, 0x20, &n, &flags);
	ok(got != NULL && n == 1 && flags == 0x3 &&
	    strcmp(stacknames_loc_name(sn, got[0]), "kept") == 0,
	    "a frame kept keeps its name");
	stacknames_free(sn);
}

int
main(void)
{
	const char		*a[] = { "app", "main", "work", "burn_a" };
	const char		*b[] = { "app", "main", "other_program" };
	struct stacknames	*sn;
	struct stacknames_stats	 st;
	struct resolve		*r;
	struct resolve_proc	*rp;
	struct config		*conf;
	const uint32_t		*got;
	uint32_t		 ids[8], unk[1], big[64];
	uint64_t		 gen1, gen2, kgen;
	size_t			 n, nextra, i;
	char			 name[32];

	test_admission();
	test_compact();
	test_compact_locations();
	test_frames();
	test_aging_random();

	sn = stacknames_create(3, 1000);
	ids[0] = stacknames_intern(sn, "main");
	ok(stacknames_intern(sn, "main") == ids[0], "a name interned once");
	ok(stacknames_intern(sn, "work") != ids[0], "another name, another id");
	ok(strcmp(stacknames_name(sn, ids[0]), "main") == 0, "id names it");
	ok(strcmp(stacknames_name(sn, 123456), "") == 0,
	    "an id past the end is the empty name");

	for (i = 0; i < 4; i++)
		ids[i] = stacknames_intern(sn, a[i]);
	unk[0] = ids[3];
	ok(stacknames_get(sn, 7, 0xabc, &n, &nextra) == NULL,
	    "not kept yet");
	stacknames_put(sn, 7, 0xabc, ids, 4, unk, 1);
	ok(stacknames_get(sn, 7, 0xabc, &n, &nextra) == NULL,
	    "put once: not kept (most stacks are never seen again)");
	stacknames_put(sn, 7, 0xabc, ids, 4, unk, 1);
	got = stacknames_get(sn, 7, 0xabc, &n, &nextra);
	ok(got != NULL && n == 4 && same(sn, got, n, a), "kept: its names");
	ok(got != NULL && nextra == 1 && got[4] == ids[3],
	    "and the extra ids after them");
	ok(stacknames_get(sn, 8, 0xabc, &n, &nextra) == NULL,
	    "same id, another generation: not kept");
	ok(stacknames_get(sn, 7, 0xabd, &n, &nextra) == NULL,
	    "another id: not kept");
	ok(stacknames_get(sn, 7, 0, &n, &nextra) == NULL, "id 0: never");

	/* Aging: kept while used, dropped after 3 unused rounds. */
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	ok(stacknames_get(sn, 7, 0xabc, &n, &nextra) != NULL,
	    "two rounds unused: kept (and used in this one)");
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	stacknames_round_end(sn);
	ok(stacknames_get(sn, 7, 0xabc, &n, &nextra) == NULL,
	    "three rounds unused after this one: dropped");
	ok(strcmp(stacknames_name(sn, ids[3]), "burn_a") == 0,
	    "names outlive the stacks that held them");

	/* Many stacks: the table grows, every one is found. */
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		big[0] = stacknames_intern(sn, name);
		stacknames_put(sn, i % 3, 0x1000 + i, big, 1, NULL, 0);
		stacknames_put(sn, i % 3, 0x1000 + i, big, 1, NULL, 0);
	}
	for (i = 0; i < 5000; i++) {
		snprintf(name, sizeof(name), "f%zu", i);
		got = stacknames_get(sn, i % 3, 0x1000 + i, &n, &nextra);
		if (got == NULL || n != 1 || nextra != 0 ||
		    strcmp(stacknames_name(sn, got[0]), name) != 0)
			break;
	}
	is_int(i, 5000, "5000 stacks kept and found");

	/* Over the bound: all dropped, names too. */
	stacknames_round_end(sn);
	stacknames_stats(sn, &st);
	is_int(st.stacks, 0, "over max stacks: cleared");
	is_int(st.names, 0, "names cleared with them");
	is_int(st.cleared, 1, "counted");
	ok(stacknames_get(sn, 0, 0x1000, &n, &nextra) == NULL,
	    "nothing found after the clear");

	/* Putting the same key again replaces it. */
	for (i = 0; i < 3; i++)
		ids[i] = stacknames_intern(sn, b[i]);
	stacknames_put(sn, 1, 0x42, ids, 2, NULL, 0);
	stacknames_put(sn, 1, 0x42, ids, 2, NULL, 0);
	got = stacknames_get(sn, 1, 0x42, &n, &nextra);
	ok(got != NULL && n == 2, "put twice: kept");
	stacknames_put(sn, 1, 0x42, ids, 3, NULL, 0);
	got = stacknames_get(sn, 1, 0x42, &n, &nextra);
	ok(got != NULL && n == 3 && same(sn, got, n, b), "replaced");
	stacknames_stats(sn, &st);
	is_int(st.stacks, 1, "one stack");
	stacknames_clear(sn);
	ok(stacknames_get(sn, 1, 0x42, &n, &nextra) == NULL, "clear");
	stacknames_free(sn);
	stacknames_free(NULL);
	ok(1, "stacknames_free(NULL) is a no-op");

	/*
	 * A process that execs has its maps read again: a new generation,
	 * so the names of its old program are not found for its stacks.
	 */
	conf = config_defaults();
	r = resolve_create(conf);
	ok(resolve_proc_gen(NULL) == 0, "no process: generation 0");
	rp = resolve_proc_open(r, getpid());
	ok(rp != NULL, "our own process opened");
	gen1 = resolve_proc_gen(rp);
	ok(gen1 != 0, "a generation");
	sn = stacknames_create(3, 1000);
	for (i = 0; i < 4; i++)
		ids[i] = stacknames_intern(sn, a[i]);
	stacknames_put(sn, gen1, 0xabc, ids, 4, NULL, 0);
	stacknames_put(sn, gen1, 0xabc, ids, 4, NULL, 0);
	ok(stacknames_get(sn, gen1, 0xabc, &n, &nextra) != NULL,
	    "kept under the process's generation");
	resolve_proc_refresh(r, rp);		/* what an exec does */
	gen2 = resolve_proc_gen(rp);
	ok(gen2 != gen1, "exec: another generation");
	ok(stacknames_get(sn, gen2, 0xabc, &n, &nextra) == NULL,
	    "exec: the old program's names are not found");
	resolve_proc_close(r, rp);
	rp = resolve_proc_open(r, getpid());
	ok(rp != NULL && resolve_proc_gen(rp) != gen1 &&
	    resolve_proc_gen(rp) != gen2,
	    "a process opened again (a pid reused): another generation");
	resolve_proc_close(r, rp);

	kgen = resolve_kernel_gen(r);
	(void)resolve_kernel(r, 0xffffffff81000000ULL);
	ok(resolve_kernel_gen(r) != kgen, "kallsyms read: another generation");
	i = resolve_epoch(r);
	resolve_configure(r, conf);
	ok(resolve_epoch(r) != i, "reconfigured: another epoch");
	n = resolve_unstable(r);
	(void)resolve_user(r, NULL, 0x1234);
	ok(resolve_unstable(r) == n + 1,
	    "a frame of no process: a name that may change");
	stacknames_free(sn);
	resolve_free(r);
	config_free(conf);
	return done_testing();
}
