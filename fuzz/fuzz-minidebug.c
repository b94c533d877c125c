/*
 * MiniDebugInfo: .gnu_debugdata, an xz stream holding an ELF file whose
 * .symtab names what .dynsym lacks.  The input's first byte chooses: even,
 * the rest is the section as found (the decoder's limits, damaged and
 * hostile streams); odd, the rest is the ELF file inside, compressed here
 * (so that the fuzzer reaches the file behind a valid stream).  Either
 * way it is put in a stripped ELF file that is loaded as the symbol
 * cache loads one.
 */
#include <lzma.h>
#include <stdlib.h>
#include <string.h>

#include "elf/debuginfo.h"
#include "elf/elf.h"
#include "fuzz.h"
#include "sym/symfile.h"
#include "elf/symtab.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t len)
{
	struct fuzz_elf_scn	 scn[1];
	lzma_options_lzma	 opt;
	lzma_filter		 filters[2];
	struct elf_file		*ef;
	struct symfile		 sf;
	struct symfile_ctx	 ctx;
	struct symfile_debug	 d;
	struct symfile_limits	 lim;
	uint8_t			*xz = NULL, *img;
	size_t			 xzlen, imglen, outlen, i;
	void			*out;

	if (len < 1)
		return 0;
	if (data[0] & 1) {
		xzlen = lzma_stream_buffer_bound(len - 1);
		if ((xz = malloc(xzlen)) == NULL)
			abort();
		/* The smallest dictionary: fast, and enough for small inputs. */
		if (lzma_lzma_preset(&opt, 0))
			abort();
		opt.dict_size = LZMA_DICT_SIZE_MIN;
		filters[0].id = LZMA_FILTER_LZMA2;
		filters[0].options = &opt;
		filters[1].id = LZMA_VLI_UNKNOWN;
		outlen = 0;
		if (lzma_stream_buffer_encode(filters, LZMA_CHECK_CRC64, NULL,
		    data + 1, len - 1, xz, &outlen, xzlen) != LZMA_OK)
			abort();
		xzlen = outlen;
	}
	memset(scn, 0, sizeof(scn));
	scn[0].name = ".gnu_debugdata";
	scn[0].type = SHT_PROGBITS;
	scn[0].data = xz != NULL ? xz : data + 1;
	scn[0].size = xz != NULL ? xzlen : len - 1;
	img = fuzz_elf_make(scn, 1, &imglen);
	free(xz);

	if ((ef = elf_file_open_mem(img, imglen)) == NULL)
		abort();	/* what fuzz_elf_make makes is sound */
	if ((out = debuginfo_mini(ef, 16 << 20, &outlen)) != NULL)
		free(out);
	memset(&sf, 0, sizeof(sf));
	memset(&ctx, 0, sizeof(ctx));
	ctx.path = "/fuzz/minidebug";
	symfile_identify(&sf, ef);
	memset(&d, 0, sizeof(d));
	lim.max_symbols = 1 << 20;
	lim.max_names = 64 << 20;
	lim.max_debugdata = 16 << 20;
	symfile_load(&sf, ef, &d, &lim, ctx.path);
	if (sf.symtab != NULL)
		for (i = 0; i < sf.symtab->n; i++)
			(void)strlen(symtab_name(sf.symtab, &sf.symtab->v[i]));
	symfile_release(&sf);
	elf_file_close(ef);
	free(img);
	return 0;
}
