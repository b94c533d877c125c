#ifndef EBPFSPY_RELABEL_H
#define EBPFSPY_RELABEL_H

/* Bounds of a list of label names or renames: see relabel.c. */
#define RELABEL_MAX		64
#define RELABEL_NAME_MAX	128

struct target_labels;

/* For the config tables: NULL if the list is good, else a message. */
const char	*relabel_check_names(const char *);
const char	*relabel_check_renames(const char *);
/* Apply one set of rules (any may be NULL or ""): see relabel.c. */
void		 relabel_apply(struct target_labels *, const char *,
		    const char *, const char *);

#endif
