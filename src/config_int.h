/*
 * The insides of the parser shared by config.c (the file) and
 * config_value.c (the values).
 */
#ifndef EBPFSPY_CONFIG_INT_H
#define EBPFSPY_CONFIG_INT_H

#include <stddef.h>

/* The longest line, and so value, read: inih's buffer (config.c). */
#define CONFIG_LINE_MAX		4096

struct config;
struct config_key;

/* Set one key from its text; NULL, or a message (perhaps in buf). */
const char	*config_set(struct config *, const struct config_key *,
		    const char *, char *, size_t);

#endif
