/*
 * The DWARF call frame information reader behind the unwind tables:
 * entries of .eh_frame and .debug_frame, CIEs, FDEs, encoded pointers
 * (unwind_cfi.c), and the CFA program run into rows of bpf/unwind.h
 * (unwind_cfi_run.c).  Only src/unwind_*.c include it.
 */
#ifndef EBPFSPY_UNWIND_CFI_H
#define EBPFSPY_UNWIND_CFI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "unwind_table.h"

/* Results besides enum unwind_table_err. */
#define UNWIND_CFI_OK		(-1)	/* no error */
#define UNWIND_CFI_STOPPED	(-2)	/* the emit callback said stop */

#define DW_EH_PE_absptr		0x00
#define DW_EH_PE_udata4		0x03
#define DW_EH_PE_sdata4		0x0b
#define DW_EH_PE_pcrel		0x10
#define DW_EH_PE_datarel	0x30
#define DW_EH_PE_indirect	0x80
#define DW_EH_PE_omit		0xff

/*
 * The DWARF registers the rows follow, by the file's architecture
 * (bpf/arch.h): the file's, not the host's, so that a table of an
 * aarch64 file is built, and tested, on x86_64.
 */
struct unwind_cfi_regs {
	uint64_t	 fp;
	uint64_t	 sp;
	uint64_t	 ra;
	int		 arm64;		/* x30 may stay unsaved; no x86
					   expressions to recognise */
};

extern const struct unwind_cfi_regs unwind_cfi_regs_x86_64;
extern const struct unwind_cfi_regs unwind_cfi_regs_arm64;

/* A section of CFI in memory. */
struct unwind_cfi_sec {
	const struct unwind_cfi_regs *regs;
	const uint8_t	*data;
	size_t		 size;
	uint64_t	 vaddr;		/* of data[0], for pcrel */
	uint64_t	 datarel;	/* base of datarel: .eh_frame_hdr */
	int		 has_datarel;
	int		 is_eh;		/* .eh_frame, else .debug_frame */
};

/* One entry's framing: a CIE or an FDE. */
struct unwind_cfi_entry {
	uint64_t	 next;		/* offset of the next entry */
	uint64_t	 cie_off;	/* an FDE's CIE */
	int		 is_cie;
	int		 is_end;	/* zero terminator */
	const uint8_t	*body;		/* after the CIE id / pointer */
	const uint8_t	*end;
};

/* Where a register is, as far as the rows need it. */
struct unwind_cfi_rule {
	uint8_t		 how;		/* UNWIND_CFI_R_* */
	int64_t		 off;
};

struct unwind_cfi_state {
	uint8_t		 cfa_how;	/* CFI_CFA_* in unwind_cfi.c */
	uint16_t	 deref_off;	/* CFI_CFA_DEREF's rsp offset, s16 */
	uint64_t	 cfa_reg;
	int64_t		 cfa_off;
	struct unwind_cfi_rule rbp;	/* the frame pointer: rbp, x29 */
	struct unwind_cfi_rule ra;
};

struct unwind_cfi_cie {
	uint64_t	 off;		/* in its section; ~0: slot unused */
	uint64_t	 code_align;
	int64_t		 data_align;
	uint64_t	 ra_reg;
	uint8_t		 fde_enc;
	uint8_t		 addr_size;
	int		 aug_z;
	int		 signal;
	const uint8_t	*ins;
	const uint8_t	*ins_end;
	struct unwind_cfi_state init;	/* after the initial instructions */
};

struct unwind_cfi_fde {
	uint64_t	 start;
	uint64_t	 end;
	const uint8_t	*ins;
	const uint8_t	*ins_end;
};

/* Unaligned reads, in the file's (native) byte order. */
static inline uint16_t
unwind_cfi_rd16(const uint8_t *p)
{
	uint16_t	 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint32_t
unwind_cfi_rd32(const uint8_t *p)
{
	uint32_t	 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

static inline uint64_t
unwind_cfi_rd64(const uint8_t *p)
{
	uint64_t	 v;

	memcpy(&v, p, sizeof(v));
	return v;
}

int		 unwind_cfi_leb(const uint8_t **, const uint8_t *, uint64_t *,
		    int);

static inline int
unwind_cfi_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	return unwind_cfi_leb(pp, end, v, 0);
}

static inline int
unwind_cfi_sleb(const uint8_t **pp, const uint8_t *end, int64_t *v)
{
	return unwind_cfi_leb(pp, end, (uint64_t *)v, 1);
}

/* Called with each row of an FDE, pcs increasing; -1 stops the run. */
typedef int	(*unwind_cfi_emit_cb)(void *, uint64_t,
		    const struct unwind_row *);

int		 unwind_cfi_entry(const struct unwind_cfi_sec *, uint64_t,
		    struct unwind_cfi_entry *);
int		 unwind_cfi_cie(const struct unwind_cfi_sec *, uint64_t,
		    struct unwind_cfi_cie *);
int		 unwind_cfi_fde(const struct unwind_cfi_sec *,
		    const struct unwind_cfi_entry *,
		    const struct unwind_cfi_cie *, struct unwind_cfi_fde *);
int		 unwind_cfi_ptr(const struct unwind_cfi_sec *,
		    const uint8_t **, const uint8_t *, uint8_t, uint8_t, int,
		    uint64_t *);
int		 unwind_cfi_run(const struct unwind_cfi_sec *,
		    const struct unwind_cfi_cie *,
		    const struct unwind_cfi_fde *, unwind_cfi_emit_cb, void *,
		    size_t *);
int		 unwind_cfi_run_init(const struct unwind_cfi_sec *,
		    struct unwind_cfi_cie *);

#endif
