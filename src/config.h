/*
 * The parser of the configuration (config.c) and the list of its tables
 * (config_keys.c).  What a config is -- struct config and the tables'
 * types -- is config/config.h, the contract the subsystems read.
 */
#ifndef EBPFSPY_CONFIG_H
#define EBPFSPY_CONFIG_H

#include <stddef.h>
#include <stdio.h>

#include "config/config.h"

/*
 * Errors of one parse, each "file:line: [section] key: message": the
 * first CONFIG_ERRORS_MAX (config.c), then "file: and N more errors".
 */
struct config_errors {
	char	**v;
	size_t	  n;
};

/*
 * Every key, in the order of the dump: key 0 .. config_nkeys() - 1.
 * config_keys.c puts the sections in order; each is a table, the
 * section's subsystem's where its keys need checks of their own.
 */
size_t		 config_nkeys(void);
const struct config_key *config_key_at(size_t);
/* The tables of sections and prefixed keys; NULL past the last. */
const struct config_section *config_section_at(size_t);
/* A misspelt name's nearest known one (config_suggest.c), or NULL. */
const char	*config_suggest_key(const char *, const char *);
const char	*config_suggest_section(const char *, char *, size_t);
const char	*config_suggest_home(const char *, const char *);

struct config	*config_defaults(void);
struct config	*config_load(const char *, int, struct config_errors *);
void		 config_free(struct config *);
void		 config_errors_clear(struct config_errors *);
void		 config_dump(const struct config *, FILE *);
int		 config_key_equal(const struct config_key *,
		    const struct config *, const struct config *);
int		 config_keep_restart(const struct config *, struct config *);
const struct config_key *config_key_find(const char *, const char *);

#endif
