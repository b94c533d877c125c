/*
 * What identifies a file's unwind table, as the symbol cache keys its
 * symbols: the build id, else the inode with its size and mtime, never
 * the path; an image in memory with no build id (a vDSO) by its bytes.
 */
#include <sys/types.h>
#include <sys/stat.h>

#include <stdint.h>
#include <string.h>

#include "elf/elf.h"
#include "unwind_table.h"
#include "util/hash.h"

/*
 * A file's key, as the symbol cache keys its tables: the build id, else
 * the inode with its size and mtime (sb), never the path.
 */
int
unwind_table_key(struct elf_file *ef, const struct stat *sb,
    struct unwind_table_key *k)
{
	size_t	 n;

	memset(k, 0, sizeof(*k));
	if (ef != NULL && elf_file_build_id(ef, k->id, sizeof(k->id),
	    &n) == 0 && n > 0) {
		k->type = UNWIND_TABLE_KEY_BUILD_ID;
		k->len = (uint8_t)n;
		return 0;
	}
	if (sb == NULL)
		return -1;
	k->type = UNWIND_TABLE_KEY_INODE;
	k->dev = sb->st_dev;
	k->ino = sb->st_ino;
	k->size = sb->st_size;
	k->mtime_sec = sb->st_mtim.tv_sec;
	k->mtime_nsec = sb->st_mtim.tv_nsec;
	return 0;
}

/* The key of an ELF image in memory: its build id, else its bytes. */
void
unwind_table_key_mem(const void *buf, size_t len, struct unwind_table_key *k)
{
	struct elf_file	*ef;
	uint64_t	 h;

	ef = elf_file_open_mem(buf, len);
	if (ef != NULL && unwind_table_key(ef, NULL, k) == 0) {
		elf_file_close(ef);
		return;
	}
	elf_file_close(ef);
	memset(k, 0, sizeof(*k));
	k->type = UNWIND_TABLE_KEY_CONTENT;
	h = hash_bytes(buf, len);
	memcpy(k->id, &h, sizeof(h));
	k->len = sizeof(h);
	k->size = (int64_t)len;
}

uint64_t
unwind_table_key_hash(const struct unwind_table_key *k)
{
	uint64_t	 h;

	h = hash_pair(k->type, k->size);
	if (k->type == UNWIND_TABLE_KEY_INODE) {
		h = hash_pair(h, k->dev);
		h = hash_pair(h, k->ino);
		h = hash_pair(h, k->mtime_sec);
		return hash_pair(h, k->mtime_nsec);
	}
	return hash_pair(h, hash_bytes(k->id, k->len));
}

int
unwind_table_key_equal(const struct unwind_table_key *a,
    const struct unwind_table_key *b)
{
	if (a->type != b->type)
		return 0;
	if (a->type == UNWIND_TABLE_KEY_INODE)
		return a->dev == b->dev && a->ino == b->ino &&
		    a->size == b->size && a->mtime_sec == b->mtime_sec &&
		    a->mtime_nsec == b->mtime_nsec;
	return a->len == b->len && memcmp(a->id, b->id, a->len) == 0 &&
	    a->size == b->size;
}
