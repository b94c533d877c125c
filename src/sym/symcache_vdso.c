/*
 * vDSOs.  A process's vDSO is the kernel's image for its ABI: read from
 * its memory and compared with ours, which serves when they are the
 * same (the usual case); another (a process of another ABI) is loaded
 * from the process's memory and cached by its bytes, kept with it (a
 * process can write its own vDSO: its claimed build id proves nothing).
 * When the process's memory cannot be read (it exited, no ptrace
 * access), a vDSO of our size is taken for ours.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "symcache.h"
#include "symcache_int.h"
#include "symfile.h"
#include "util/hash.h"
#include "util/xmalloc.h"

/* Our own vDSO, loaded once from our memory. */
static void
symcache_vdso_self(struct symcache *c)
{
	struct symcache_file	*f;
	const uint8_t		*img;
	size_t			 len;

	c->vdso_tried = 1;
	if ((len = procmaps_vdso_self(&img)) == 0)
		return;
	f = symcache_file_new();
	f->vdso = 1;
	if (symfile_load_mem(&f->sf, (void *)img, len) == 0) {
		c->vdso = f;
		c->vdso_img = img;
		c->vdso_size = len;
	} else
		symcache_file_free(f);
}

/*
 * A process's vDSO: ours if its image is the same (or, when its memory
 * cannot be read, of the same size), else read from its memory and
 * cached by its bytes.  NULL if there is none we can read.
 */
struct symcache_file *
symcache_vdso_get(struct symcache *c, pid_t pid,
    const struct procmaps_entry *me)
{
	struct symcache_alias	*a;
	struct symcache_file	*f;
	struct symcache_key	 k;
	uint64_t		 size = me->end - me->start;
	void			*buf;

	if (!c->vdso_tried)
		symcache_vdso_self(c);
	if (size == 0 || size > PROCMAPS_VDSO_MAX)
		return NULL;
	buf = xmalloc(size);
	if (proc_root_read_mem(pid, me->start, buf, size) == -1) {
		free(buf);
		if (c->vdso == NULL || size != c->vdso_size)
			return NULL;
		c->vdso->refs++;
		return c->vdso;
	}
	if (c->vdso != NULL && size == c->vdso_size &&
	    memcmp(buf, c->vdso_img, size) == 0) {
		free(buf);
		c->vdso->refs++;
		return c->vdso;
	}
	/* Another image: by its bytes, never by the build id it claims. */
	memset(&k, 0, sizeof(k));
	k.kind = SYMCACHE_KEY_VDSO;
	k.size = size;
	k.ctx[0] = hash_bytes(buf, size);	/* a hint: bytes compared */
	if ((a = symcache_index_alias_find(c, &k)) != NULL &&
	    a->file->img_len == size && memcmp(a->file->img, buf, size) == 0) {
		free(buf);
		c->hits++;
		return symcache_ref(c, a->file);
	}
	f = symcache_file_new();
	if (symfile_load_mem(&f->sf, buf, size) == -1) {
		free(buf);
		return f;
	}
	c->misses++;
	if (a != NULL) {
		/* Another image of the same hash: not cached. */
		free(buf);
		return f;
	}
	f->img = buf;
	f->img_len = size;
	symcache_insert(c, f, &k);
	return f;
}
