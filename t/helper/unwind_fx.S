/*
 * Hand-made .eh_frame for t/unit/t-unwind_table.c: what compilers seldom
 * emit but the format allows, compared row by row with readelf.  Built
 * with cc -nostdlib -static -no-pie (absolute FDE pointers need a fixed
 * address); ld cannot index these encodings, so there is no
 * .eh_frame_hdr and the section is walked.  With -DFX64, only entries
 * with 64-bit lengths, which readelf does not read as the LSB says.
 */
	.text
	.globl	_start
_start:
f1:	.fill	64, 1, 0x90
f2:	.fill	64, 1, 0x90
f3:	.fill	64, 1, 0x90
f4:	.fill	64, 1, 0x90
f5:	.fill	64, 1, 0x90
f6:	.fill	32, 1, 0x90
	.fill	32, 1, 0x90
f7:	.fill	64, 1, 0x90

	.data
pers:	.quad	0
lsda:	.quad	0

	.section .eh_frame, "a", @progbits
	.p2align 3
#ifdef FX64
/* CIE 4 and its FDE: 64-bit DWARF lengths (the CIE id and pointer stay
   4 bytes in .eh_frame), FDE pointers udata8.  readelf reads them as
   .debug_frame's 8 bytes: not compared with readelf. */
cie4:	.long	0xffffffff
	.quad	cie4_end - cie4_id
cie4_id: .long	0
	.byte	1
	.asciz	"zR"
	.uleb128 1
	.sleb128 -8
	.byte	16
	.uleb128 1
	.byte	0x04
	.byte	0x0c, 7, 8
	.byte	0x90, 1
	.balign	8, 0
cie4_end:

fde5:	.long	0xffffffff
	.quad	fde5_end - fde5_id
fde5_id: .long	fde5_id - cie4
	.quad	f5
	.quad	64
	.uleb128 0
	.byte	0x42
	.byte	0x0e, 32
	.byte	0x86, 4
	.balign	8, 0
fde5_end:

#else
/* CIE 1: version 1, "zR", FDE pointers udata4 absolute */
cie1:	.long	cie1_end - cie1_id
cie1_id: .long	0
	.byte	1
	.asciz	"zR"
	.uleb128 1
	.sleb128 -8
	.byte	16
	.uleb128 1
	.byte	0x03
	.byte	0x0c, 7, 8		/* def_cfa rsp 8 */
	.byte	0x90, 1			/* offset rip cfa-8 */
	.balign	8, 0
cie1_end:

/* f1: advance, advance_loc4, def_cfa_register, set_loc, remember and
   restore_state, same_value, GNU_args_size, val_offset, restore_extended */
fde1:	.long	fde1_end - fde1_id
fde1_id: .long	fde1_id - cie1
	.long	f1
	.long	64
	.uleb128 0
	.byte	0x41			/* advance 1 */
	.byte	0x0e, 16		/* def_cfa_offset 16 */
	.byte	0x86, 2			/* rbp at cfa-16 */
	.byte	0x04			/* advance_loc4 3 */
	.long	3
	.byte	0x0d, 6			/* def_cfa_register rbp */
	.byte	0x01			/* set_loc f1+20 */
	.long	f1 + 20
	.byte	0x0a			/* remember_state */
	.byte	0x08, 6			/* same_value rbp */
	.byte	0x0c, 7, 8		/* def_cfa rsp 8 */
	.byte	0x42			/* advance 2 */
	.byte	0x0b			/* restore_state */
	.byte	0x43
	.byte	0x2e, 16		/* GNU_args_size 16 */
	.byte	0x14, 6, 2		/* val_offset rbp: not a saved rbp */
	.byte	0x44
	.byte	0x06, 6			/* restore_extended rbp */
	.byte	0x02, 5			/* advance_loc1 5 */
	.byte	0x07, 6			/* undefined rbp */
	.byte	0x03			/* advance_loc2 6 */
	.short	6
	.byte	0x09, 6, 3		/* register rbp in rbx */
	.balign	8, 0
fde1_end:

/* f2: expressions: the PLT's, a deref, an expression for rbp, one we do
   not follow, then DW_CFA_undefined rip */
fde2:	.long	fde2_end - fde2_id
fde2_id: .long	fde2_id - cie1
	.long	f2
	.long	64
	.uleb128 0
	.byte	0x0f, 11, 0x77, 8, 0x80, 0, 0x3f, 0x1a, 0x3b, 0x2a, 0x33, 0x24, 0x22
	.byte	0x44
	.byte	0x0f, 5, 0x77, 16, 0x06, 0x23, 8	/* *(rsp+16)+8 */
	.byte	0x86, 3			/* rbp at cfa-24 */
	.byte	0x44
	.byte	0x10, 6, 2, 0x77, 8	/* expression rbp */
	.byte	0x44
	.byte	0x0c, 7, 24		/* def_cfa rsp 24 */
	.byte	0xc6			/* restore rbp */
	.byte	0x44
	.byte	0x0f, 5, 0x77, 16, 0x06, 0x23, 64	/* *(rsp+16)+64 */
	.byte	0x44
	.byte	0x16, 6, 2, 0x77, 8	/* val_expression rbp */
	.byte	0x0c, 7, 8
	.byte	0x44
	.byte	0x07, 16		/* undefined rip */
	.byte	0x44
	.byte	0x0c, 10, 8		/* def_cfa r10 8 */
	.byte	0x08, 16		/* same_value rip */
	.byte	0x44
	.byte	0x0c, 7, 8
	.byte	0x90, 1
	.byte	0x12, 7, 0x7e		/* def_cfa_sf rsp -2: 16 */
	.byte	0x44
	.byte	0x13, 0x7d		/* def_cfa_offset_sf -3: 24 */
	.balign	8, 0
fde2_end:

/* CIE 2: version 3, "zPLR": personality (indirect pcrel sdata4), LSDA,
   FDE pointers sdata8 absolute; ra as a ULEB */
cie2:	.long	cie2_end - cie2_id
cie2_id: .long	0
	.byte	3
	.asciz	"zPLR"
	.uleb128 1
	.sleb128 -8
	.uleb128 16
	.uleb128 7
	.byte	0x9b
	.long	pers - .
	.byte	0x04
	.byte	0x0c
	.byte	0x0c, 7, 8
	.byte	0x90, 1
	.balign	8, 0
cie2_end:

fde3:	.long	fde3_end - fde3_id
fde3_id: .long	fde3_id - cie2
	.quad	f3
	.quad	64
	.uleb128 8
	.quad	lsda
	.byte	0x41
	.byte	0x0e, 16
	.byte	0x11, 6, 0x7e		/* offset_extended_sf rbp 2: cfa-16 */
	.byte	0x41
	.byte	0x2f, 6, 1		/* GNU_negative_offset_extended rbp 1 */
	.byte	0x41
	.byte	0x05, 6, 3		/* offset_extended rbp 3 */
	.balign	8, 0
fde3_end:

/* CIE 3: "zRS", FDE pointers pcrel sdata8: a signal frame */
cie3:	.long	cie3_end - cie3_id
cie3_id: .long	0
	.byte	1
	.asciz	"zRS"
	.uleb128 1
	.sleb128 -8
	.byte	16
	.uleb128 1
	.byte	0x1c
	.balign	8, 0
cie3_end:

fde4:	.long	fde4_end - fde4_id
fde4_id: .long	fde4_id - cie3
	.quad	f4 - .
	.quad	64
	.uleb128 0
	.byte	0x0f, 4, 0x77, 0xa0, 0x01, 0x06	/* *(rsp+160) */
	.byte	0x10, 16, 3, 0x77, 0xa8, 0x01
	.balign	8, 0
fde4_end:

/* f6: an FDE over the first half only, then f7 with an FDE starting
   inside f6's: cut short (libgcc takes the later start) */
fde6:	.long	fde6_end - fde6_id
fde6_id: .long	fde6_id - cie1
	.long	f6
	.long	96
	.uleb128 0
	.byte	0x41
	.byte	0x0e, 16
	.byte	0x7f			/* advance 63 */
	.byte	0x0e, 24
	.balign	8, 0
fde6_end:
fde7:	.long	fde7_end - fde7_id
fde7_id: .long	fde7_id - cie1
	.long	f6 + 32
	.long	16
	.uleb128 0
	.byte	0x41
	.byte	0x0e, 40
	.balign	8, 0
fde7_end:
#endif
	.long	0
