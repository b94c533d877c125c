/*
 * CFI out of a file for the unwind table builder: a debug file's
 * .debug_frame, inflated when it is compressed (SHF_COMPRESSED, zlib),
 * as Debian's debug files have it.  Nothing larger than the caller's
 * limit is read or inflated.
 */
#include <sys/types.h>

#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "elf/elf.h"
#include "unwind_table_int.h"
#include "util/xmalloc.h"

/*
 * A compressed section (SHF_COMPRESSED, zlib), as debug files have
 * theirs, inflated; nothing larger than max either way.
 */
static uint8_t *
unwind_table_file_inflate(struct elf_file *ef, const struct elf_file_scn *sc,
    size_t max, size_t *len)
{
	Elf64_Chdr	 ch;
	z_stream	 zs;
	uint8_t		*in, *out = NULL;
	int		 r;

	if (sc->size < sizeof(ch) || sc->size > max)
		return NULL;
	in = xmalloc(sc->size);
	if (elf_file_read(ef, in, sc->size, sc->offset) == -1)
		goto done;
	memcpy(&ch, in, sizeof(ch));
	if (ch.ch_type != ELFCOMPRESS_ZLIB || ch.ch_size == 0 ||
	    ch.ch_size > max || sc->size - sizeof(ch) > UINT32_MAX ||
	    ch.ch_size > UINT32_MAX)
		goto done;
	out = xmalloc(ch.ch_size);
	memset(&zs, 0, sizeof(zs));
	if (inflateInit(&zs) != Z_OK) {
		free(out);
		out = NULL;
		goto done;
	}
	zs.next_in = in + sizeof(ch);
	zs.avail_in = sc->size - sizeof(ch);
	zs.next_out = out;
	zs.avail_out = ch.ch_size;
	r = inflate(&zs, Z_FINISH);
	inflateEnd(&zs);
	if (r != Z_STREAM_END || zs.total_out != ch.ch_size) {
		free(out);
		out = NULL;
		goto done;
	}
	*len = ch.ch_size;
done:
	free(in);
	return out;
}

/* The .debug_frame of ef, copied (inflated); NULL if it has none. */
uint8_t *
unwind_table_file_debug_frame(struct elf_file *ef, size_t max, size_t *len,
    int *too_big)
{
	struct elf_file_scn	 sc;

	if (ef == NULL || elf_section_find(ef, ".debug_frame", &sc) == -1 ||
	    sc.type == SHT_NOBITS || sc.size == 0)
		return NULL;
	if (sc.size > max) {
		*too_big = 1;
		return NULL;
	}
	if (sc.flags & SHF_COMPRESSED)
		return unwind_table_file_inflate(ef, &sc, max, len);
	*len = sc.size;
	return elf_section_data(ef, &sc, max);
}
