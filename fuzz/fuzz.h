/*
 * What the fuzz harnesses share: each fuzz/fuzz-<name>.c defines
 * LLVMFuzzerTestOneInput (and may define fuzz_setup, called once from
 * LLVMFuzzerInitialize, which fuzz_lib.c defines), and is
 * linked either with libFuzzer (clang -fsanitize=fuzzer, `make fuzz')
 * or with fuzz/replay.c, which feeds it the seed corpus and the kept
 * crash inputs under `make check'.
 */
#ifndef EBPFSPY_FUZZ_H
#define EBPFSPY_FUZZ_H

#include <stddef.h>
#include <stdint.h>

int	LLVMFuzzerTestOneInput(const uint8_t *, size_t);
int	LLVMFuzzerInitialize(int *, char ***);

/* A harness's own setup, if it has one: called once, first. */
void	fuzz_setup(void) __attribute__((weak));
/* A private directory, made once and removed at exit. */
const char *fuzz_tmpdir(void);
/* Remove everything under dir (not dir itself). */
void	fuzz_empty_dir(const char *);
/* An anonymous file holding data, at offset 0; -1 on failure. */
int	fuzz_memfd(const void *, size_t);
/* Write a file; 0 or -1. */
int	fuzz_write_file(const char *, const void *, size_t);

/* A section of a made-up ELF file (fuzz_elf_make). */
struct fuzz_elf_scn {
	const char	*name;
	uint32_t	 type;		/* SHT_* */
	uint64_t	 flags;		/* SHF_* */
	uint64_t	 addr;
	const void	*data;
	size_t		 size;
	uint32_t	 link;
	uint64_t	 entsize;
};

/*
 * A little-endian ELF64 ET_DYN file holding these sections, and one
 * PT_LOAD segment covering the file; free() it.
 */
uint8_t	*fuzz_elf_make(const struct fuzz_elf_scn *, size_t, size_t *);

#endif
