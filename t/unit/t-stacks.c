/*
 * stacks: the daemon's copies of stacks.  Native stacks come from the
 * stack ring (stacks_add()); a map of stacks (Python's) is read through
 * the ops its owner gives, here a map of our own that counts the calls.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "session/stacks.h"
#include "tap.h"

#define FAKE_MAX	16
#define FAKE_WORDS	4

/* A BPF map of stacks: values of FAKE_WORDS words, w[0] the length. */
struct fake {
	uint64_t	 id[FAKE_MAX];
	uint64_t	 v[FAKE_MAX][FAKE_WORDS];
	size_t		 n;
	int		 lookups, deletes;
};

static int
fake_find(struct fake *f, uint64_t id)
{
	size_t	 i;

	for (i = 0; i < f->n; i++)
		if (f->id[i] == id)
			return i;
	return -1;
}

static void
fake_put(struct fake *f, uint64_t id, uint64_t a, uint64_t b)
{
	f->id[f->n] = id;
	f->v[f->n][0] = 2;
	f->v[f->n][1] = a;
	f->v[f->n][2] = b;
	f->v[f->n][3] = 0xdead;		/* past the length: not kept */
	f->n++;
}

static int
fake_lookup(void *arg, uint64_t id, uint64_t *buf)
{
	struct fake	*f = arg;
	int		 i;

	f->lookups++;
	if ((i = fake_find(f, id)) == -1)
		return -1;
	memcpy(buf, f->v[i], sizeof(f->v[i]));
	return 0;
}

static size_t
fake_delete(void *arg, const uint64_t *ids, size_t n)
{
	struct fake	*f = arg;
	size_t		 i, deleted = 0;
	int		 j;

	for (i = 0; i < n; i++) {
		f->deletes++;
		if ((j = fake_find(f, ids[i])) == -1)
			continue;
		f->n--;
		f->id[j] = f->id[f->n];
		memcpy(f->v[j], f->v[f->n], sizeof(f->v[j]));
		deleted++;
	}
	return deleted;
}

static int
fake_next_key(void *arg, const uint64_t *prev, uint64_t *next)
{
	struct fake	*f = arg;
	int		 i = 0;

	if (prev != NULL && (i = fake_find(f, *prev) + 1) == 0)
		return -1;
	if ((size_t)i >= f->n)
		return -1;
	*next = f->id[i];
	return 0;
}

static size_t
fake_len(const uint64_t *w, size_t nwords)
{
	return 1 + w[0] <= nwords ? 1 + w[0] : nwords;
}

static void
test_native(void)
{
	struct stacks		*s;
	struct stacks_stats	 st, before;
	const uint64_t		*ip;
	uint64_t		 f[3] = { 0x1000, 0x2000, 0x3000 }, g[10];
	size_t			 n, i, j, bad;

	s = stacks_create();
	stacks_add(s, 7, f, 3);
	ip = stacks_peek(s, 7, &n);
	ok(ip != NULL && n == 3 && ip[0] == 0x1000 && ip[2] == 0x3000,
	    "a stack of the ring is held");
	stacks_add(s, 0, f, 3);
	ok(stacks_peek(s, 0, &n) == NULL && n == 0, "id 0 is no stack");
	ok(stacks_get(s, 8, &n) == NULL && n == 0, "an id not sent: NULL");
	stacks_stats(s, &st);
	is_int(st.lost, 1, "and counted lost");

	/* Not counted: kept through the end of the next round. */
	stacks_round_end(s);
	ok(stacks_peek(s, 7, &n) != NULL, "uncounted, kept one round end");
	stacks_round_end(s);
	ok(stacks_peek(s, 7, &n) == NULL, "and gone at the next");

	/* Counted: kept through the end of the round after. */
	stacks_add(s, 9, f, 2);
	ok(stacks_get(s, 9, &n) != NULL && n == 2, "a counted stack");
	stacks_round_end(s);
	stacks_round_end(s);
	ok(stacks_peek(s, 9, &n) != NULL, "kept through the round after");
	stacks_round_end(s);
	ok(stacks_peek(s, 9, &n) == NULL, "then forgotten");

	/* Thousands come and go: the arena is compacted, frames intact. */
	for (i = 1; i <= 5000; i++) {
		for (j = 0; j < 10; j++)
			g[j] = i * 100 + j;
		stacks_add(s, i, g, 10);
	}
	stacks_stats(s, &before);
	stacks_round_end(s);
	stacks_round_end(s);
	for (i = 5001; i <= 5100; i++) {
		for (j = 0; j < 10; j++)
			g[j] = i * 100 + j;
		stacks_add(s, i, g, 10);
		(void)stacks_get(s, i, &n);
	}
	stacks_round_end(s);
	stacks_stats(s, &st);
	is_int(st.entries, 100, "the 5000 are forgotten, 100 counted kept");
	for (i = 5001, bad = 0; i <= 5100; i++) {
		if ((ip = stacks_peek(s, i, &n)) == NULL || n != 10) {
			bad++;
			continue;
		}
		for (j = 0; j < 10; j++)
			if (ip[j] != i * 100 + j)
				bad++;
	}
	is_int(bad, 0, "their frames survive the compaction");
	ok(st.bytes + 5000 * 10 * sizeof(uint64_t) / 2 < before.bytes,
	    "the arena shrank (%zu bytes, %zu before)", st.bytes,
	    before.bytes);
	stacks_free(s);
	stacks_free(NULL);
}

static void
test_map(void)
{
	struct fake		 fake;
	struct stacks_map	 map = { fake_lookup, fake_delete,
				    fake_next_key, &fake };
	struct stacks		*s;
	struct stacks_stats	 st;
	const uint64_t		*w;
	size_t			 n, i;

	memset(&fake, 0, sizeof(fake));
	fake_put(&fake, 11, 0xa1, 0xa2);
	fake_put(&fake, 12, 0xb1, 0xb2);
	fake_put(&fake, 13, 0xc1, 0xc2);
	s = stacks_create_map(&map, FAKE_WORDS, fake_len);

	w = stacks_get(s, 11, &n);
	ok(w != NULL && n == 3 && w[1] == 0xa1 && w[2] == 0xa2,
	    "a miss reads the map, keeps the words len() says");
	is_int(fake.lookups, 1, "one lookup");
	w = stacks_get(s, 11, &n);
	is_int(fake.lookups, 1, "a hit reads nothing");
	ok(stacks_get(s, 99, &n) == NULL, "an id the map lacks: NULL");
	stacks_touch(s, 12);

	/* Sampled this round: stays in the map. */
	stacks_round_end(s);
	ok(fake_find(&fake, 11) >= 0 && fake_find(&fake, 12) >= 0,
	    "stacks sampled this round stay in the map");
	/* Not sampled: deleted from the map, the copy kept a round. */
	stacks_round_end(s);
	ok(fake_find(&fake, 11) == -1 && fake_find(&fake, 12) == -1,
	    "unsampled the next round: deleted, read or only touched");
	is_int(fake.lookups, 2, "the touched one was never read");
	ok(stacks_get(s, 11, &n) != NULL && fake.lookups == 2,
	    "the copy is kept one round more, for a racing sample");
	stacks_round_end(s);
	stacks_round_end(s);
	stacks_round_end(s);
	ok(stacks_get(s, 11, &n) == NULL && fake.lookups == 3,
	    "then forgotten: the map is asked again");

	/* 13 was never known: the sweep of every 10th round takes it. */
	stacks_stats(s, &st);
	is_int(st.swept, 0, "nothing swept before the 10th round");
	ok(fake_find(&fake, 13) >= 0, "13 still in the map");
	for (i = 5; i < 10; i++)
		stacks_round_end(s);
	stacks_stats(s, &st);
	ok(fake_find(&fake, 13) == -1, "swept at the 10th round");
	is_int(st.swept, 1, "counted swept");
	is_int(st.deleted, 2, "two deleted as unsampled");
	stacks_free(s);
}

int
main(void)
{
	test_native();
	test_map();
	return done_testing();
}
