/*
 * Which mapped file is HotSpot: libjvm.so, by name (a JVM is always a
 * launcher that maps it), and where its self-description lies.  The
 * table symbols are in .dynsym, so a stripped libjvm has them too; a
 * file of that name without them (a fake, another VM) is refused by
 * the caller.  The file is read as the process sees it (its root), by
 * the mapping's map_files link, and only with the bounded ELF reader.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <stdint.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "elf/elf_lookup.h"
#include "jvm_file.h"

#define JVM_FILE_LOADS	16

static const struct procmaps_entry *
jvm_file_entry(const struct procmaps *maps)
{
	const struct procmaps_entry	*e;
	size_t				 i;

	for (i = 0; maps != NULL && i < maps->n; i++) {
		e = &maps->v[i];
		if (e->kind == PROCMAPS_FILE &&
		    strcmp(procmaps_basename(e), "libjvm.so") == 0)
			return e;
	}
	return NULL;
}

int
jvm_file_is_mapped(const struct procmaps *maps)
{
	return jvm_file_entry(maps) != NULL;
}

int
jvm_file_find(pid_t pid, const struct procmaps *maps, struct jvm_file *f,
    int *tables)
{
	const struct procmaps_entry	*e, *x;
	struct elf_lookup		*pe;
	struct stat			 sb;
	uint64_t			 off[JVM_FILE_LOADS];
	uint64_t			 vaddr[JVM_FILE_LOADS];
	uint64_t			 len[JVM_FILE_LOADS];
	size_t				 i, n;
	int				 fd, rc = -1;

	memset(f, 0, sizeof(*f));
	*tables = 0;
	if ((e = jvm_file_entry(maps)) == NULL)
		return -1;
	f->map = e;
	for (i = 0; i < maps->n; i++) {
		x = &maps->v[i];
		if (x->inode != e->inode || x->dev_major != e->dev_major ||
		    x->dev_minor != e->dev_minor)
			continue;
		if (f->lo == 0 || x->start < f->lo)
			f->lo = x->start;
		if (x->end > f->hi)
			f->hi = x->end;
	}
	if ((fd = proc_root_open_map(pid, e->start, e->end, &sb)) == -1)
		return -1;
	if ((pe = elf_lookup_open(fd)) == NULL)
		goto out;
	elf_lookup_symbols(pe, jvm_structs_symbols, f->addr, JVM_SYM_MAX, 0);
	for (i = 0; i < JVM_SYM_MAX; i++)
		if (f->addr[i] == 0 && i != JVM_SYM_S_TSTR) {
			*tables = 1;
			goto out;
		}
	n = elf_lookup_loads(pe, off, vaddr, len, JVM_FILE_LOADS);
	for (i = 0; i < n; i++) {
		if (e->offset < off[i] || e->offset - off[i] >= len[i])
			continue;
		f->bias = e->start - (vaddr[i] + (e->offset - off[i]));
		break;
	}
	if (i == n)
		goto out;
	for (i = 0; i < JVM_SYM_MAX; i++)
		if (f->addr[i] != 0)
			f->addr[i] += f->bias;
	rc = 0;
out:
	elf_lookup_close(pe);
	close(fd);
	return rc;
}
