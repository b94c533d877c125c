/*
 * The debug files the symbol cache wants: the build ids of stripped
 * files it read without a debug file, for a fetcher (push/debuginfod.c)
 * to take; and the tables to read again once one was fetched.  Only
 * when a fetch directory is configured (debuginfod is on: its files are
 * looked for there as in debug_dirs); at most SYMCACHE_WANT_MAX wait.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "config/config.h"
#include "symcache.h"
#include "symcache_int.h"
#include "util/xmalloc.h"

#define SYMCACHE_WANT_MAX	1024

void
symcache_want_add(struct symcache *c, const struct symfile *sf)
{
	size_t	 i;

	if (c->fetch_dir == NULL || sf->build_id_len == 0 ||
	    c->nwant >= SYMCACHE_WANT_MAX)
		return;
	for (i = 0; i < c->nwant; i++) {
		if (c->want[i].len == sf->build_id_len &&
		    memcmp(c->want[i].id, sf->build_id, sf->build_id_len) == 0)
			return;
	}
	if (c->want == NULL)
		c->want = xcalloc(SYMCACHE_WANT_MAX, sizeof(*c->want));
	memcpy(c->want[c->nwant].id, sf->build_id, sf->build_id_len);
	c->want[c->nwant++].len = sf->build_id_len;
}

_Static_assert(SYMCACHE_BUILD_ID_MAX == ELF_FILE_BUILD_ID_MAX,
    "a build id of the symbol cache is one of an ELF file");

/* Up to max wanted build ids into ids, taken off the list. */
size_t
symcache_want_take(struct symcache *c, struct symcache_build_id *ids,
    size_t max)
{
	size_t	 n = 0;

	while (n < max && c->nwant > 0) {
		c->nwant--;
		memcpy(ids[n].id, c->want[c->nwant].id, c->want[c->nwant].len);
		ids[n++].len = c->want[c->nwant].len;
	}
	return n;
}

/*
 * A debug file for this build id is there now: the tables read without
 * it go, and are read again, with it, by the next frame that needs them.
 */
size_t
symcache_want_fetched(struct symcache *c, const uint8_t *id, size_t len)
{
	struct symcache_file	*f, *next;
	size_t			 n = 0;

	for (f = c->head; f != NULL; f = next) {
		next = f->next;
		if (f->sf.build_id_len == len &&
		    memcmp(f->sf.build_id, id, len) == 0) {
			symcache_evict(c, f);
			n++;
		}
	}
	return n;
}

/*
 * Where debuginfod's files go, when it is on ([symbols] debuginfod_urls,
 * else $DEBUGINFOD_URLS): debuginfod_cache, else .debuginfod in the
 * output directory.  NULL: off.
 */
char *
symcache_fetch_dir(const struct config *conf)
{
	const char	*urls = conf->debuginfod_urls;
	char		*dir;

	if (urls == NULL || *urls == '\0')
		urls = getenv("DEBUGINFOD_URLS");
	if (urls == NULL || urls[strspn(urls, " \t")] == '\0')
		return NULL;
	if (conf->debuginfod_cache != NULL && *conf->debuginfod_cache != '\0')
		return xstrdup(conf->debuginfod_cache);
	if (conf->output_dir == NULL || *conf->output_dir != '/')
		return NULL;
	xasprintf(&dir, "%s/.debuginfod", conf->output_dir);
	return dir;
}
