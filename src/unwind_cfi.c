/*
 * A small DWARF call frame information reader for x86_64: the framing
 * of .eh_frame and .debug_frame entries, CIEs with their augmentations,
 * FDEs, encoded pointers, and the CFA program, run into the rows of
 * bpf/unwind.h.  Only what a walker needs is tracked: the CFA, where
 * rbp is saved and where the return address is.  Expressions are not
 * evaluated: the three that Debian's files contain (the PLT's, the
 * signal trampoline's, OpenSSL's realigned stack) are recognised by
 * their bytes, anything else makes the row UNWIND_INVALID.
 *
 * The input is untrusted: every read is checked against the end of its
 * entry, the program only moves forward and remember_state is bounded,
 * so a hostile section costs at most one pass over its bytes.
 */
#include <stdint.h>
#include <string.h>

#include "unwind_cfi.h"

#define CFI_REG_RBP	6
#define CFI_REG_RSP	7
#define CFI_REG_RA	16
#define CFI_STACK_MAX	16		/* remember_state nesting */
#define CFI_DONE	(-3)		/* advanced past the FDE's end */

/* How a register is found (struct unwind_cfi_rule.how). */
enum {
	CFI_R_SAME = 0,		/* unchanged: same value, or no rule */
	CFI_R_UNDEF,		/* DW_CFA_undefined */
	CFI_R_OFFSET,		/* saved at CFA + off */
	CFI_R_OTHER,		/* a rule the rows cannot say */
};

/* What the CFA is (struct unwind_cfi_state.cfa_how). */
enum {
	CFI_CFA_NONE = 0,	/* no rule yet */
	CFI_CFA_REG,		/* cfa_reg + cfa_off */
	CFI_CFA_PLT,
	CFI_CFA_DEREF,		/* *(rsp + deref_off) + 8 */
	CFI_CFA_SIGNAL,		/* *(rsp + 160): __restore_rt's ucontext */
	CFI_CFA_UNKNOWN,
};

struct unwind_cfi_vm {
	const struct unwind_cfi_sec	*sec;
	const struct unwind_cfi_cie	*cie;
	struct unwind_cfi_state		 st;
	struct unwind_cfi_state		 stack[CFI_STACK_MAX];
	size_t				 depth;
	uint64_t			 loc;
	uint64_t			 end;
	int				 in_cie;
	unwind_cfi_emit_cb		 cb;
	void				*arg;
	size_t				*expr_unknown;
};

/* A LEB128 number; sgn: sign-extend it. */
static int
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

static int
unwind_cfi_uleb(const uint8_t **pp, const uint8_t *end, uint64_t *v)
{
	return unwind_cfi_leb(pp, end, v, 0);
}

static int
unwind_cfi_sleb(const uint8_t **pp, const uint8_t *end, int64_t *v)
{
	return unwind_cfi_leb(pp, end, (uint64_t *)v, 1);
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

static struct unwind_cfi_rule *
unwind_cfi_rule(struct unwind_cfi_vm *vm, uint64_t reg)
{
	if (reg == CFI_REG_RBP)
		return &vm->st.rbp;
	if (reg == vm->cie->ra_reg)
		return &vm->st.ra;
	return NULL;
}

static void
unwind_cfi_set(struct unwind_cfi_vm *vm, uint64_t reg, uint8_t how,
    int64_t off)
{
	struct unwind_cfi_rule	*r;

	if ((r = unwind_cfi_rule(vm, reg)) != NULL) {
		r->how = how;
		r->off = off;
	}
}

static int
unwind_cfi_restore(struct unwind_cfi_vm *vm, uint64_t reg)
{
	struct unwind_cfi_rule	*r;

	if (vm->in_cie)
		return UNWIND_TABLE_ERR_OP;
	if ((r = unwind_cfi_rule(vm, reg)) != NULL)
		*r = r == &vm->st.rbp ? vm->cie->init.rbp : vm->cie->init.ra;
	return UNWIND_CFI_OK;
}

/*
 * Recognise a CFA expression by its bytes.  The PLT's:
 *   breg7 8; breg16 0; lit15; and; lit11; ge; lit3; shl; plus
 * OpenSSL's realigned stack: breg7 N; deref; plus_uconst 8
 * and __restore_rt's: breg7 160; deref (uc_mcontext.rsp).
 */
static uint8_t
unwind_cfi_expr(const uint8_t *p, size_t len, uint16_t *off)
{
	static const uint8_t	 plt[] = { 0x77, 0x08, 0x80, 0x00, 0x3f,
				    0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22 };
	const uint8_t		*end = p + len;
	int64_t			 n;
	uint64_t		 add;

	if (len == sizeof(plt) && memcmp(p, plt, len) == 0)
		return CFI_CFA_PLT;
	if (p >= end || *p++ != 0x77 ||			/* DW_OP_breg7 */
	    unwind_cfi_sleb(&p, end, &n) == -1 ||
	    p >= end || *p++ != 0x06)				/* DW_OP_deref */
		return CFI_CFA_UNKNOWN;
	if (p == end)
		return n == 160 ? CFI_CFA_SIGNAL : CFI_CFA_UNKNOWN;
	if (*p++ != 0x23 ||				/* DW_OP_plus_uconst */
	    unwind_cfi_uleb(&p, end, &add) == -1 || p != end || add != 8 ||
	    n < 0 || n > UINT16_MAX)
		return CFI_CFA_UNKNOWN;
	*off = (uint16_t)n;
	return CFI_CFA_DEREF;
}

/* The row for the current state. */
static void
unwind_cfi_row(const struct unwind_cfi_vm *vm, struct unwind_row *r)
{
	const struct unwind_cfi_state	*st = &vm->st;
	int64_t				 o;

	memset(r, 0, sizeof(*r));
	r->kind = UNWIND_INVALID;
	if (st->ra.how == CFI_R_UNDEF) {
		r->kind = UNWIND_STOP;
		return;
	}
	if (vm->cie->signal || st->cfa_how == CFI_CFA_SIGNAL) {
		r->kind = UNWIND_SIGNAL;
		return;
	}
	if (vm->cie->ra_reg != CFI_REG_RA || st->ra.how != CFI_R_OFFSET ||
	    st->ra.off != -8)
		return;
	switch (st->cfa_how) {
	case CFI_CFA_REG:
		if (st->cfa_off < 0 || st->cfa_off > UINT16_MAX)
			return;
		if (st->cfa_reg == CFI_REG_RSP)
			r->kind = UNWIND_CFA_RSP;
		else if (st->cfa_reg == CFI_REG_RBP)
			r->kind = UNWIND_CFA_RBP;
		else
			return;
		r->cfa_off = (uint16_t)st->cfa_off;
		break;
	case CFI_CFA_PLT:
		r->kind = UNWIND_PLT;
		break;
	case CFI_CFA_DEREF:
		r->kind = UNWIND_DEREF;
		r->cfa_off = st->deref_off;
		break;
	default:
		return;
	}
	switch (st->rbp.how) {
	case CFI_R_SAME:
	case CFI_R_UNDEF:
		return;
	case CFI_R_OFFSET:
		o = st->rbp.off;
		if (o != 0 && o % 8 == 0 && o / 8 >= INT8_MIN &&
		    o / 8 <= INT8_MAX) {
			r->rbp_off = (int8_t)(o / 8);
			return;
		}
		break;
	}
	memset(r, 0, sizeof(*r));
	r->kind = UNWIND_INVALID;
}

/* The state so far covers [loc, loc + delta): emit it, move on. */
static int
unwind_cfi_advance(struct unwind_cfi_vm *vm, uint64_t delta)
{
	struct unwind_row	 r;

	if (vm->in_cie)
		return UNWIND_TABLE_ERR_OP;
	if (delta == 0)
		return UNWIND_CFI_OK;
	unwind_cfi_row(vm, &r);
	if (vm->cb(vm->arg, vm->loc, &r) == -1)
		return UNWIND_CFI_STOPPED;
	if (delta >= vm->end - vm->loc) {
		vm->loc = vm->end;
		return CFI_DONE;
	}
	vm->loc += delta;
	return UNWIND_CFI_OK;
}

#define CFI_ULEB(v) do {						\
	if (unwind_cfi_uleb(&p, end, (v)) == -1)			\
		return UNWIND_TABLE_ERR_TRUNCATED;			\
} while (0)
#define CFI_SLEB(v) do {						\
	if (unwind_cfi_sleb(&p, end, (v)) == -1)			\
		return UNWIND_TABLE_ERR_TRUNCATED;			\
} while (0)
#define CFI_NEED(n) do {						\
	if ((size_t)(end - p) < (n))					\
		return UNWIND_TABLE_ERR_TRUNCATED;			\
} while (0)

/* Multiply by the data alignment factor, wrapping rather than UB. */
static int64_t
unwind_cfi_scale(const struct unwind_cfi_vm *vm, int64_t v)
{
	return (int64_t)((uint64_t)v * (uint64_t)vm->cie->data_align);
}

/* Run the CFA program [p, end). */
static int
unwind_cfi_exec(struct unwind_cfi_vm *vm, const uint8_t *p,
    const uint8_t *end)
{
	struct unwind_cfi_state	*st = &vm->st;
	uint64_t		 reg, v, delta;
	int64_t			 sv;
	uint8_t			 op;
	int			 r;

	while (p < end) {
		op = *p++;
		delta = 0;
		switch (op & 0xc0) {
		case 0x40:		/* DW_CFA_advance_loc */
			delta = (op & 0x3f) * vm->cie->code_align;
			goto advance;
		case 0x80:		/* DW_CFA_offset */
			CFI_ULEB(&v);
			unwind_cfi_set(vm, op & 0x3f, CFI_R_OFFSET,
			    unwind_cfi_scale(vm, (int64_t)v));
			continue;
		case 0xc0:		/* DW_CFA_restore */
			if ((r = unwind_cfi_restore(vm, op & 0x3f)) !=
			    UNWIND_CFI_OK)
				return r;
			continue;
		}
		switch (op) {
		case 0x00:		/* DW_CFA_nop */
			continue;
		case 0x01:		/* DW_CFA_set_loc */
			if ((r = unwind_cfi_ptr(vm->sec, &p, end,
			    vm->cie->fde_enc, vm->cie->addr_size, 1, &v)) !=
			    UNWIND_CFI_OK)
				return r;
			if (v < vm->loc)
				return UNWIND_TABLE_ERR_OP;
			delta = v - vm->loc;
			goto advance;
		case 0x02:		/* DW_CFA_advance_loc1 */
			CFI_NEED(1);
			delta = *p++;
			break;
		case 0x03:		/* DW_CFA_advance_loc2 */
			CFI_NEED(2);
			delta = unwind_cfi_rd16(p);
			p += 2;
			break;
		case 0x04:		/* DW_CFA_advance_loc4 */
			CFI_NEED(4);
			delta = unwind_cfi_rd32(p);
			p += 4;
			break;
		case 0x1d:		/* DW_CFA_MIPS_advance_loc8 */
			CFI_NEED(8);
			delta = unwind_cfi_rd64(p);
			p += 8;
			break;
		case 0x05:		/* DW_CFA_offset_extended */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_set(vm, reg, CFI_R_OFFSET,
			    unwind_cfi_scale(vm, (int64_t)v));
			continue;
		case 0x11:		/* DW_CFA_offset_extended_sf */
			CFI_ULEB(&reg);
			CFI_SLEB(&sv);
			unwind_cfi_set(vm, reg, CFI_R_OFFSET,
			    unwind_cfi_scale(vm, sv));
			continue;
		case 0x2f:		/* DW_CFA_GNU_negative_offset_extended */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_set(vm, reg, CFI_R_OFFSET,
			    -unwind_cfi_scale(vm, (int64_t)v));
			continue;
		case 0x06:		/* DW_CFA_restore_extended */
			CFI_ULEB(&reg);
			if ((r = unwind_cfi_restore(vm, reg)) != UNWIND_CFI_OK)
				return r;
			continue;
		case 0x07:		/* DW_CFA_undefined */
			CFI_ULEB(&reg);
			unwind_cfi_set(vm, reg, CFI_R_UNDEF, 0);
			continue;
		case 0x08:		/* DW_CFA_same_value */
			CFI_ULEB(&reg);
			unwind_cfi_set(vm, reg, CFI_R_SAME, 0);
			continue;
		case 0x09:		/* DW_CFA_register */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x14:		/* DW_CFA_val_offset */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x15:		/* DW_CFA_val_offset_sf */
			CFI_ULEB(&reg);
			CFI_SLEB(&sv);
			unwind_cfi_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x10:		/* DW_CFA_expression */
		case 0x16:		/* DW_CFA_val_expression */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			CFI_NEED(v);
			p += v;
			unwind_cfi_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x0a:		/* DW_CFA_remember_state */
			if (vm->depth == CFI_STACK_MAX)
				return UNWIND_TABLE_ERR_STATE;
			vm->stack[vm->depth++] = *st;
			continue;
		case 0x0b:		/* DW_CFA_restore_state */
			if (vm->depth == 0)
				return UNWIND_TABLE_ERR_STATE;
			*st = vm->stack[--vm->depth];
			continue;
		case 0x0c:		/* DW_CFA_def_cfa */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			st->cfa_how = CFI_CFA_REG;
			st->cfa_reg = reg;
			st->cfa_off = (int64_t)v;
			continue;
		case 0x12:		/* DW_CFA_def_cfa_sf */
			CFI_ULEB(&reg);
			CFI_SLEB(&sv);
			st->cfa_how = CFI_CFA_REG;
			st->cfa_reg = reg;
			st->cfa_off = unwind_cfi_scale(vm, sv);
			continue;
		case 0x0d:		/* DW_CFA_def_cfa_register */
			CFI_ULEB(&reg);
			st->cfa_how = CFI_CFA_REG;
			st->cfa_reg = reg;
			continue;
		case 0x0e:		/* DW_CFA_def_cfa_offset */
			CFI_ULEB(&v);
			st->cfa_off = (int64_t)v;
			continue;
		case 0x13:		/* DW_CFA_def_cfa_offset_sf */
			CFI_SLEB(&sv);
			st->cfa_off = unwind_cfi_scale(vm, sv);
			continue;
		case 0x0f:		/* DW_CFA_def_cfa_expression */
			CFI_ULEB(&v);
			CFI_NEED(v);
			st->cfa_how = unwind_cfi_expr(p, v, &st->deref_off);
			if (st->cfa_how == CFI_CFA_UNKNOWN)
				(*vm->expr_unknown)++;
			p += v;
			continue;
		case 0x2e:		/* DW_CFA_GNU_args_size */
			CFI_ULEB(&v);
			continue;
		default:
			return UNWIND_TABLE_ERR_OP;
		}
advance:
		if ((r = unwind_cfi_advance(vm, delta)) != UNWIND_CFI_OK)
			return r;
	}
	return UNWIND_CFI_OK;
}

/* The CIE at off, with the state its initial instructions set. */
int
unwind_cfi_cie(const struct unwind_cfi_sec *s, uint64_t off,
    struct unwind_cfi_cie *c)
{
	struct unwind_cfi_entry	 e;
	struct unwind_cfi_vm	 vm;
	const uint8_t		*p, *end, *augend;
	const char		*aug, *a;
	uint64_t		 v;
	size_t			 unknown = 0;
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

	memset(&vm, 0, sizeof(vm));
	vm.sec = s;
	vm.cie = c;
	vm.in_cie = 1;
	vm.expr_unknown = &unknown;
	if ((r = unwind_cfi_exec(&vm, p, end)) != UNWIND_CFI_OK)
		return r;
	c->init = vm.st;
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

/*
 * Run an FDE's program: cb gets each row, pcs strictly increasing,
 * within [f->start, f->end).  A malformed program ends with an
 * UNWIND_INVALID row from where it broke, and its error is returned.
 */
int
unwind_cfi_run(const struct unwind_cfi_sec *s, const struct unwind_cfi_cie *c,
    const struct unwind_cfi_fde *f, unwind_cfi_emit_cb cb, void *arg,
    size_t *expr_unknown)
{
	struct unwind_cfi_vm	 vm;
	struct unwind_row	 row;
	int			 r;

	if (f->start >= f->end)
		return UNWIND_CFI_OK;
	vm.sec = s;
	vm.cie = c;
	vm.st = c->init;
	vm.depth = 0;
	vm.loc = f->start;
	vm.end = f->end;
	vm.in_cie = 0;
	vm.cb = cb;
	vm.arg = arg;
	vm.expr_unknown = expr_unknown;
	r = unwind_cfi_exec(&vm, f->ins, f->ins_end);
	if (r == CFI_DONE || r == UNWIND_CFI_STOPPED)
		return r == CFI_DONE ? UNWIND_CFI_OK : r;
	if (r == UNWIND_CFI_OK)
		unwind_cfi_row(&vm, &row);
	else {
		memset(&row, 0, sizeof(row));
		row.kind = UNWIND_INVALID;
	}
	if (cb(arg, vm.loc, &row) == -1)
		return UNWIND_CFI_STOPPED;
	return r;
}
