/*
 * The framing of DWARF call frame information (x86_64 and arm64 alike:
 * the registers are unwind_cfi_run.c's business): entries of
 * .eh_frame and .debug_frame, CIEs with their augmentations, FDEs and
 * encoded pointers.  unwind_cfi_run.c runs the programs they hold.
 *
 * The input is untrusted: every read is checked against the end of its
 * entry, so a hostile section costs at most one pass over its bytes.
 */
#include <stdint.h>
#include <string.h>

#include "unwind_cfi.h"

/* A LEB128 number; sgn: sign-extend it. */
int
unwind_cfi_leb(const uint8_t **pp, const uint8_t *end, uint64_t *v, int sgn)
{
	const uint8_t	*p = *pp;
	uint64_t	 r = 0;
	unsigned int	 shift = 0;
	uint8_t		 b;

	do {
		if (p >= end || shift > 63)
			return -1;
		b = *p++;
		r |= (uint64_t)(b & 0x7f) << shift;
		shift += 7;
	} while (b & 0x80);
	if (sgn && shift < 64 && (b & 0x40))
		r |= ~(uint64_t)0 << shift;
	*pp = p;
	*v = r;
	return 0;
}

/*
 * An encoded pointer (DW_EH_PE_*) at *pp, not past end.  With apply, the
 * pcrel and datarel bases are added; indirect pointers are not followed.
 */
int
unwind_cfi_ptr(const struct unwind_cfi_sec *s, const uint8_t **pp,
    const uint8_t *end, uint8_t enc, uint8_t addr_size, int apply,
    uint64_t *v)
{
	const uint8_t	*p = *pp;
	uint64_t	 x, base;
	int64_t		 sx;
	size_t		 n;
	int		 sgn = 0;

	if (enc == DW_EH_PE_omit)
		return UNWIND_TABLE_ERR_ENCODING;
	switch (enc & 0x0f) {
	case 0x00:			/* absptr */
		n = addr_size;
		break;
	case 0x01:			/* uleb128 */
		if (unwind_cfi_uleb(&p, end, &x) == -1)
			return UNWIND_TABLE_ERR_TRUNCATED;
		goto done;
	case 0x09:			/* sleb128 */
		if (unwind_cfi_sleb(&p, end, &sx) == -1)
			return UNWIND_TABLE_ERR_TRUNCATED;
		x = (uint64_t)sx;
		goto done;
	case 0x02:
	case 0x0a:
		n = 2;
		break;
	case 0x03:
	case 0x0b:
		n = 4;
		break;
	case 0x04:
	case 0x0c:
		n = 8;
		break;
	default:
		return UNWIND_TABLE_ERR_ENCODING;
	}
	sgn = (enc & 0x08) != 0;
	if (n != 2 && n != 4 && n != 8)
		return UNWIND_TABLE_ERR_ENCODING;
	if ((size_t)(end - p) < n)
		return UNWIND_TABLE_ERR_TRUNCATED;
	if (n == 2)
		x = sgn ? (uint64_t)(int16_t)unwind_cfi_rd16(p) :
		    unwind_cfi_rd16(p);
	else if (n == 4)
		x = sgn ? (uint64_t)(int32_t)unwind_cfi_rd32(p) :
		    unwind_cfi_rd32(p);
	else
		x = unwind_cfi_rd64(p);
	p += n;
done:
	if (apply) {
		if (enc & DW_EH_PE_indirect)
			return UNWIND_TABLE_ERR_ENCODING;
		switch (enc & 0x70) {
		case DW_EH_PE_absptr:
			base = 0;
			break;
		case DW_EH_PE_pcrel:
			base = s->vaddr + (uint64_t)(*pp - s->data);
			break;
		case DW_EH_PE_datarel:
			if (!s->has_datarel)
				return UNWIND_TABLE_ERR_ENCODING;
			base = s->datarel;
			break;
		default:
			return UNWIND_TABLE_ERR_ENCODING;
		}
		x += base;
	}
	*pp = p;
	*v = x;
	return UNWIND_CFI_OK;
}

/* The framing of the entry at off: its length, CIE id or CIE pointer. */
int
unwind_cfi_entry(const struct unwind_cfi_sec *s, uint64_t off,
    struct unwind_cfi_entry *e)
{
	const uint8_t	*p, *end = s->data + s->size;
	uint64_t	 len, id, idpos;
	size_t		 idsize = 4;

	memset(e, 0, sizeof(*e));
	if (off > s->size || s->size - off < 4)
		return UNWIND_TABLE_ERR_TRUNCATED;
	p = s->data + off;
	len = unwind_cfi_rd32(p);
	p += 4;
	if (len == 0) {
		e->is_end = 1;
		e->next = off + 4;
		return UNWIND_CFI_OK;
	}
	if (len == 0xffffffff) {	/* 64-bit DWARF */
		if (end - p < 8)
			return UNWIND_TABLE_ERR_TRUNCATED;
		len = unwind_cfi_rd64(p);
		p += 8;
		/* The CIE id and pointer stay 4 bytes in .eh_frame (LSB). */
		if (!s->is_eh)
			idsize = 8;
	}
	if (len > (uint64_t)(end - p) || len < idsize)
		return UNWIND_TABLE_ERR_TRUNCATED;
	e->end = p + len;
	e->next = (uint64_t)(e->end - s->data);
	idpos = (uint64_t)(p - s->data);
	id = idsize == 8 ? unwind_cfi_rd64(p) : unwind_cfi_rd32(p);
	p += idsize;
	if (s->is_eh) {
		/* An FDE's CIE pointer counts back from where it is. */
		if (id == 0)
			e->is_cie = 1;
		else if (id > idpos)
			return UNWIND_TABLE_ERR_CIE;
		else
			e->cie_off = idpos - id;
	} else {
		if (id == (idsize == 8 ? UINT64_MAX : 0xffffffff))
			e->is_cie = 1;
		else if (id >= s->size)
			return UNWIND_TABLE_ERR_CIE;
		else
			e->cie_off = id;
	}
	e->body = p;
	return UNWIND_CFI_OK;
}

/* The CIE at off, with the state its initial instructions set. */
int
unwind_cfi_cie(const struct unwind_cfi_sec *s, uint64_t off,
    struct unwind_cfi_cie *c)
{
	struct unwind_cfi_entry	 e;
	const uint8_t		*p, *end, *augend;
	const char		*aug, *a;
	uint64_t		 v;
	uint8_t			 version, enc;
	int			 r;

	memset(c, 0, sizeof(*c));
	c->off = UINT64_MAX;
	if (unwind_cfi_entry(s, off, &e) != UNWIND_CFI_OK || e.is_end ||
	    !e.is_cie)
		return UNWIND_TABLE_ERR_CIE;
	p = e.body;
	end = e.end;
	if (p >= end)
		return UNWIND_TABLE_ERR_TRUNCATED;
	version = *p++;
	if (version != 1 && version != 3 && version != 4)
		return UNWIND_TABLE_ERR_ENCODING;
	aug = (const char *)p;
	if ((p = memchr(p, '\0', end - p)) == NULL)
		return UNWIND_TABLE_ERR_TRUNCATED;
	p++;
	c->addr_size = 8;
	if (version == 4) {
		if (end - p < 2)
			return UNWIND_TABLE_ERR_TRUNCATED;
		c->addr_size = p[0];
		if ((c->addr_size != 4 && c->addr_size != 8) || p[1] != 0)
			return UNWIND_TABLE_ERR_ENCODING;
		p += 2;
	}
	if (unwind_cfi_uleb(&p, end, &c->code_align) == -1 ||
	    unwind_cfi_sleb(&p, end, &c->data_align) == -1)
		return UNWIND_TABLE_ERR_TRUNCATED;
	if (version == 1) {
		if (p >= end)
			return UNWIND_TABLE_ERR_TRUNCATED;
		c->ra_reg = *p++;
	} else if (unwind_cfi_uleb(&p, end, &c->ra_reg) == -1)
		return UNWIND_TABLE_ERR_TRUNCATED;
	c->fde_enc = DW_EH_PE_absptr;
	if (aug[0] == 'z') {
		c->aug_z = 1;
		if (unwind_cfi_uleb(&p, end, &v) == -1 ||
		    v > (uint64_t)(end - p))
			return UNWIND_TABLE_ERR_TRUNCATED;
		augend = p + v;
		for (a = aug + 1; *a != '\0'; a++) {
			switch (*a) {
			case 'R':
			case 'L':
			case 'P':
				if (p >= augend)
					return UNWIND_TABLE_ERR_TRUNCATED;
				enc = *p++;
				if (*a == 'R')
					c->fde_enc = enc;
				else if (*a == 'P' && (r = unwind_cfi_ptr(s,
				    &p, augend, enc & 0x0f, c->addr_size, 0,
				    &v)) != UNWIND_CFI_OK)
					return r;
				continue;
			case 'S':
				c->signal = 1;
				continue;
			case 'B':		/* aarch64 b-key, MTE tags */
			case 'G':
				continue;
			}
			break;		/* unknown: its length skips its data */
		}
		p = augend;
	} else if (aug[0] != '\0')
		return UNWIND_TABLE_ERR_ENCODING;
	c->ins = p;
	c->ins_end = end;
	if ((r = unwind_cfi_run_init(s, c)) != UNWIND_CFI_OK)
		return r;
	c->off = off;
	return UNWIND_CFI_OK;
}

/* An FDE's address range and program; e is its framing, c its CIE. */
int
unwind_cfi_fde(const struct unwind_cfi_sec *s,
    const struct unwind_cfi_entry *e, const struct unwind_cfi_cie *c,
    struct unwind_cfi_fde *f)
{
	const uint8_t	*p = e->body;
	uint64_t	 start, range, v;
	int		 r;

	if ((r = unwind_cfi_ptr(s, &p, e->end, c->fde_enc, c->addr_size, 1,
	    &start)) != UNWIND_CFI_OK ||
	    (r = unwind_cfi_ptr(s, &p, e->end, c->fde_enc & 0x0f,
	    c->addr_size, 0, &range)) != UNWIND_CFI_OK)
		return r;
	if (c->aug_z) {
		if (unwind_cfi_uleb(&p, e->end, &v) == -1 ||
		    v > (uint64_t)(e->end - p))
			return UNWIND_TABLE_ERR_TRUNCATED;
		p += v;
	}
	if (range > UINT64_MAX - start)
		return UNWIND_TABLE_ERR_RANGE;
	f->start = start;
	f->end = start + range;
	f->ins = p;
	f->ins_end = e->end;
	return UNWIND_CFI_OK;
}
