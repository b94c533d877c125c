/*
 * The CFA program of a CIE or an FDE, run into the rows of bpf/unwind.h.
 * Only what a walker needs is tracked: the CFA, where the frame pointer
 * (rbp, arm64's x29) is saved and where the return address is, in the
 * registers of the file's architecture (struct unwind_cfi_regs).
 * Expressions are not evaluated: the three that Debian's x86_64 files
 * contain (the PLT's, the signal trampoline's, OpenSSL's realigned
 * stack) are recognised by their bytes, anything else makes the row
 * UNWIND_INVALID.  arm64's return address may stay in x30: the row says
 * where it is (UNWIND_RA_*).
 *
 * The program is untrusted: every operand is checked against its end,
 * the location only moves forward and remember_state is bounded, so a
 * program costs at most one pass over its bytes.
 */
#include <stdint.h>
#include <string.h>

#include "bpf/arch.h"
#include "unwind_cfi.h"

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

const struct unwind_cfi_regs unwind_cfi_regs_x86_64 = {
	ARCH_X86_64_DWARF_FP, ARCH_X86_64_DWARF_SP, ARCH_X86_64_DWARF_RA, 0
};
const struct unwind_cfi_regs unwind_cfi_regs_arm64 = {
	ARCH_ARM64_DWARF_FP, ARCH_ARM64_DWARF_SP, ARCH_ARM64_DWARF_RA, 1
};

struct unwind_cfi_run_vm {
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

static struct unwind_cfi_rule *
unwind_cfi_run_rule(struct unwind_cfi_run_vm *vm, uint64_t reg)
{
	if (reg == vm->sec->regs->fp)
		return &vm->st.rbp;
	if (reg == vm->cie->ra_reg)
		return &vm->st.ra;
	return NULL;
}

static void
unwind_cfi_run_set(struct unwind_cfi_run_vm *vm, uint64_t reg, uint8_t how,
    int64_t off)
{
	struct unwind_cfi_rule	*r;

	if ((r = unwind_cfi_run_rule(vm, reg)) != NULL) {
		r->how = how;
		r->off = off;
	}
}

static int
unwind_cfi_run_restore(struct unwind_cfi_run_vm *vm, uint64_t reg)
{
	struct unwind_cfi_rule	*r;

	if (vm->in_cie)
		return UNWIND_TABLE_ERR_OP;
	if ((r = unwind_cfi_run_rule(vm, reg)) != NULL)
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
unwind_cfi_run_expr(const uint8_t *p, size_t len, uint16_t *off)
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
	    p >= end || *p++ != 0x06)			/* DW_OP_deref */
		return CFI_CFA_UNKNOWN;
	if (p == end)
		return n == 160 ? CFI_CFA_SIGNAL : CFI_CFA_UNKNOWN;
	/* N < 0 too: SHA-512's AVX2 loop keeps rsp at -8 below its own. */
	if (*p++ != 0x23 ||				/* DW_OP_plus_uconst */
	    unwind_cfi_uleb(&p, end, &add) == -1 || p != end || add != 8 ||
	    n < INT16_MIN || n > INT16_MAX)
		return CFI_CFA_UNKNOWN;
	*off = (uint16_t)(int16_t)n;
	return CFI_CFA_DEREF;
}

/* A save at CFA + off as a slot of 8 bytes, or 0 when it is none. */
static int8_t
unwind_cfi_run_slot(int64_t off)
{
	if (off != 0 && off % 8 == 0 && off / 8 >= INT8_MIN &&
	    off / 8 <= INT8_MAX)
		return (int8_t)(off / 8);
	return 0;
}

/*
 * Where the return address is (UNWIND_RA_*), or -1.  x86_64's is at
 * CFA - 8, always.  arm64's is in x30 until saved, then at CFA - 8 (a
 * 16-byte frame record at the CFA), or beside the saved x29 (a larger
 * frame), or alone (no frame pointer).
 */
static int
unwind_cfi_run_ra(const struct unwind_cfi_run_vm *vm)
{
	const struct unwind_cfi_state	*st = &vm->st;

	if (st->ra.how == CFI_R_OFFSET && st->ra.off == -8)
		return UNWIND_RA_CFA8;
	if (!vm->sec->regs->arm64)
		return -1;
	if (st->ra.how == CFI_R_SAME)
		return UNWIND_RA_LR;
	if (st->ra.how != CFI_R_OFFSET ||
	    unwind_cfi_run_slot(st->ra.off) == 0)
		return -1;
	if (st->rbp.how == CFI_R_OFFSET && st->rbp.off + 8 == st->ra.off)
		return UNWIND_RA_FP;
	if (st->rbp.how == CFI_R_SAME || st->rbp.how == CFI_R_UNDEF)
		return UNWIND_RA_SLOT;
	return -1;
}

/* The row for the current state. */
static void
unwind_cfi_run_row(const struct unwind_cfi_run_vm *vm, struct unwind_row *r)
{
	const struct unwind_cfi_state	*st = &vm->st;
	const struct unwind_cfi_regs	*regs = vm->sec->regs;
	int				 ra;

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
	if (vm->cie->ra_reg != regs->ra || (ra = unwind_cfi_run_ra(vm)) == -1)
		return;
	switch (st->cfa_how) {
	case CFI_CFA_REG:
		if (st->cfa_off < 0 || st->cfa_off > UINT16_MAX)
			return;
		if (st->cfa_reg == regs->sp)
			r->kind = UNWIND_CFA_RSP;
		else if (st->cfa_reg == regs->fp)
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
	r->kind |= ra;
	if (ra == UNWIND_RA_SLOT) {
		r->rbp_off = unwind_cfi_run_slot(st->ra.off);
		return;
	}
	switch (st->rbp.how) {
	case CFI_R_SAME:
	case CFI_R_UNDEF:
		return;
	case CFI_R_OFFSET:
		if ((r->rbp_off = unwind_cfi_run_slot(st->rbp.off)) != 0)
			return;
		break;
	}
	memset(r, 0, sizeof(*r));
	r->kind = UNWIND_INVALID;
}

/* The state so far covers [loc, loc + delta): emit it, move on. */
static int
unwind_cfi_run_advance(struct unwind_cfi_run_vm *vm, uint64_t delta)
{
	struct unwind_row	 r;

	if (vm->in_cie)
		return UNWIND_TABLE_ERR_OP;
	if (delta == 0)
		return UNWIND_CFI_OK;
	unwind_cfi_run_row(vm, &r);
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
unwind_cfi_run_scale(const struct unwind_cfi_run_vm *vm, int64_t v)
{
	return (int64_t)((uint64_t)v * (uint64_t)vm->cie->data_align);
}

/* Run the CFA program [p, end). */
static int
unwind_cfi_run_exec(struct unwind_cfi_run_vm *vm, const uint8_t *p,
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
			unwind_cfi_run_set(vm, op & 0x3f, CFI_R_OFFSET,
			    unwind_cfi_run_scale(vm, (int64_t)v));
			continue;
		case 0xc0:		/* DW_CFA_restore */
			if ((r = unwind_cfi_run_restore(vm, op & 0x3f)) !=
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
			unwind_cfi_run_set(vm, reg, CFI_R_OFFSET,
			    unwind_cfi_run_scale(vm, (int64_t)v));
			continue;
		case 0x11:		/* DW_CFA_offset_extended_sf */
			CFI_ULEB(&reg);
			CFI_SLEB(&sv);
			unwind_cfi_run_set(vm, reg, CFI_R_OFFSET,
			    unwind_cfi_run_scale(vm, sv));
			continue;
		case 0x2f:	/* DW_CFA_GNU_negative_offset_extended */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_run_set(vm, reg, CFI_R_OFFSET,
			    -unwind_cfi_run_scale(vm, (int64_t)v));
			continue;
		case 0x06:		/* DW_CFA_restore_extended */
			CFI_ULEB(&reg);
			if ((r = unwind_cfi_run_restore(vm, reg)) !=
			    UNWIND_CFI_OK)
				return r;
			continue;
		case 0x07:		/* DW_CFA_undefined */
			CFI_ULEB(&reg);
			unwind_cfi_run_set(vm, reg, CFI_R_UNDEF, 0);
			continue;
		case 0x08:		/* DW_CFA_same_value */
			CFI_ULEB(&reg);
			unwind_cfi_run_set(vm, reg, CFI_R_SAME, 0);
			continue;
		case 0x09:		/* DW_CFA_register */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_run_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x14:		/* DW_CFA_val_offset */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			unwind_cfi_run_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x15:		/* DW_CFA_val_offset_sf */
			CFI_ULEB(&reg);
			CFI_SLEB(&sv);
			unwind_cfi_run_set(vm, reg, CFI_R_OTHER, 0);
			continue;
		case 0x10:		/* DW_CFA_expression */
		case 0x16:		/* DW_CFA_val_expression */
			CFI_ULEB(&reg);
			CFI_ULEB(&v);
			CFI_NEED(v);
			p += v;
			unwind_cfi_run_set(vm, reg, CFI_R_OTHER, 0);
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
			st->cfa_off = unwind_cfi_run_scale(vm, sv);
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
			st->cfa_off = unwind_cfi_run_scale(vm, sv);
			continue;
		case 0x0f:		/* DW_CFA_def_cfa_expression */
			CFI_ULEB(&v);
			CFI_NEED(v);
			st->cfa_how = vm->sec->regs->arm64 ? CFI_CFA_UNKNOWN :
			    unwind_cfi_run_expr(p, v, &st->deref_off);
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
		/*
		 * The advance_loc1/2/4 deltas are in code alignment units,
		 * as advance_loc's: 1 on x86_64, 4 on arm64.
		 */
		delta *= vm->cie->code_align;
advance:
		if ((r = unwind_cfi_run_advance(vm, delta)) != UNWIND_CFI_OK)
			return r;
	}
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
	struct unwind_cfi_run_vm	 vm;
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
	r = unwind_cfi_run_exec(&vm, f->ins, f->ins_end);
	if (r == CFI_DONE || r == UNWIND_CFI_STOPPED)
		return r == CFI_DONE ? UNWIND_CFI_OK : r;
	if (r == UNWIND_CFI_OK)
		unwind_cfi_run_row(&vm, &row);
	else {
		memset(&row, 0, sizeof(row));
		row.kind = UNWIND_INVALID;
	}
	if (cb(arg, vm.loc, &row) == -1)
		return UNWIND_CFI_STOPPED;
	return r;
}

/* A CIE's initial instructions: the state each of its FDEs starts from. */
int
unwind_cfi_run_init(const struct unwind_cfi_sec *s, struct unwind_cfi_cie *c)
{
	struct unwind_cfi_run_vm	 vm;
	size_t			 unknown = 0;
	int			 r;

	memset(&vm, 0, sizeof(vm));
	vm.sec = s;
	vm.cie = c;
	vm.in_cie = 1;
	vm.expr_unknown = &unknown;
	if ((r = unwind_cfi_run_exec(&vm, c->ins, c->ins_end)) != UNWIND_CFI_OK)
		return r;
	c->init = vm.st;
	return UNWIND_CFI_OK;
}
