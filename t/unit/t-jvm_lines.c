/*
 * src/jvm/jvm_lines.c: UNSIGNED5 in both encodings, line tables and
 * scopes from the bytes JDK 17.0.15 and Temurin 25.0.3 held for
 * t/helper/JvmWork.java here (copied out of the live JVMs), PcDesc
 * choice, and garbage that must end in -1, never a wrong answer.
 */
#include <stddef.h>
#include <stdint.h>

#include "jvm/jvm_lines.h"
#include "tap.h"

/* Captured: JvmWork.fib (lines 9, 10, 11 at bci 0, 5, 7). */
static const uint8_t fib17[] = { 0xff, 0x00, 0x12, 0x29, 0x11, 0x00 };
static const uint8_t fib25[] = { 0xff, 0x01, 0x13, 0x29, 0x11, 0x00 };
/* sumSquares: 19@0, 20@2, 21@9, 20@22 (a negative delta), 22@28. */
static const uint8_t sum17[] = {
	0xff, 0x00, 0x26, 0x11, 0x39, 0xff, 0x1a, 0x01, 0x32, 0x00
};
static const uint8_t sum25[] = {
	0xff, 0x01, 0x27, 0x11, 0x39, 0xff, 0x1b, 0x02, 0x32, 0x00
};

static void
test_unsigned5(void)
{
	/* 1000: 192 + (808 & 63), then 808 >> 6; JDK 20 adds 1 to each. */
	const uint8_t	 old[] = { 232, 12 }, new[] = { 233, 13 };
	const uint8_t	 zero[] = { 0 }, cut[] = { 232 };
	const uint8_t	 five[] = { 192, 192, 192, 192, 192, 192 };
	uint32_t	 v;
	int32_t		 s;
	size_t		 pos;

	pos = 0;
	ok(jvm_lines_unsigned5(old, sizeof(old), &pos, 0, &v) == 0 &&
	    v == 1000 && pos == 2, "UNSIGNED5 1000, before JDK 20");
	pos = 0;
	ok(jvm_lines_unsigned5(new, sizeof(new), &pos, 1, &v) == 0 &&
	    v == 1000 && pos == 2, "UNSIGNED5 1000, JDK 20 and later");
	pos = 0;
	ok(jvm_lines_unsigned5(old, sizeof(old), &pos, 1, &v) == 0 &&
	    v != 1000, "the old bytes read as the new are another number");
	pos = 0;
	is_int(jvm_lines_unsigned5(zero, 1, &pos, 1, &v), -1,
	    "a zero byte is no JDK 20 number");
	pos = 0;
	is_int(jvm_lines_unsigned5(cut, 1, &pos, 0, &v), -1,
	    "a number cut short");
	pos = 0;
	ok(jvm_lines_unsigned5(five, sizeof(five), &pos, 0, &v) == 0 &&
	    pos == 5, "at most five bytes");
	pos = 0;
	ok(jvm_lines_signed5((const uint8_t []){ 3 }, 1, &pos, 0, &s) == 0 &&
	    s == -2, "zigzag: 3 is -2");
}

static void
test_lines(void)
{
	is_int(jvm_lines_table_len(fib17, sizeof(fib17), 0), 6,
	    "fib's table, JDK 17: 6 bytes with its end");
	is_int(jvm_lines_line(fib17, sizeof(fib17), 0, 0), 9, "fib@0 line 9");
	is_int(jvm_lines_line(fib17, sizeof(fib17), 0, 5), 10,
	    "fib@5 line 10");
	is_int(jvm_lines_line(fib17, sizeof(fib17), 0, 10), 11,
	    "fib@10 (the recursive call) line 11");
	is_int(jvm_lines_line(fib25, sizeof(fib25), 1, 10), 11,
	    "fib@10 line 11, JDK 25's encoding");
	is_int(jvm_lines_line(sum17, sizeof(sum17), 0, 25), 20,
	    "sumSquares@25: the greatest bci at or below, 22, line 20");
	is_int(jvm_lines_line(sum25, sizeof(sum25), 1, 30), 22,
	    "sumSquares@30, JDK 25: line 22");
	is_int(jvm_lines_line(sum25, sizeof(sum25), 1, 12), 21,
	    "sumSquares@12, JDK 25: line 21");
	ok(jvm_lines_line(sum25, sizeof(sum25), 0, 30) != 22,
	    "JDK 25's table read without the shift is wrong: why it is told");
	is_int(jvm_lines_table_len(fib17, 4, 0), 0, "a table with no end");
	is_int(jvm_lines_table_len((const uint8_t []){ 0xff, 0xff }, 2, 0), 0,
	    "a table cut in an entry");
}

static void
test_pcdesc(void)
{
	/* As C2's sumSquares had them: the entry, then two. */
	const struct jvm_pcdesc pd[] = {
		{ -1, 0 }, { 0x1ea, 10 }, { 0x279, 20 }
	};

	is_int(jvm_lines_pcdesc(pd, 3, 0x1ea, 0), 1,
	    "a return address: its own PcDesc");
	is_int(jvm_lines_pcdesc(pd, 3, 0x1ea, 1), 2,
	    "a leaf pc on a PcDesc: the next (they mark the end)");
	is_int(jvm_lines_pcdesc(pd, 3, 0x100, 1), 1,
	    "a leaf pc: the first after it");
	is_int(jvm_lines_pcdesc(pd, 3, 0x279, 1), -1, "past the last: none");
	is_int(jvm_lines_pcdesc(pd, 0, 0, 1), -1, "no PcDescs: none");
}

static void
test_scopes(void)
{
	/*
	 * square@2 inlined into sumSquares@14: the caller's scope first
	 * (at 1: no caller, method 2, bci 14), then the callee's (at 4:
	 * caller at 1, method 1, bci 2); offset 0 is the null scope.
	 */
	const uint8_t	 d17[] = { 0, 0, 2, 15, 1, 1, 3 };
	const uint8_t	 d25[] = { 1, 1, 3, 16, 2, 2, 4 };
	const uint8_t	 fwd[] = { 0, 9, 1, 1 };
	struct jvm_scope sc;

	ok(jvm_lines_scope(d17, sizeof(d17), 4, 0, &sc) == 0 &&
	    sc.next == 1 && sc.method == 1 && sc.bci == 2,
	    "the inlined scope: square@2, its caller at 1");
	ok(jvm_lines_scope(d17, sizeof(d17), 1, 0, &sc) == 0 &&
	    sc.next == 0 && sc.method == 2 && sc.bci == 14,
	    "its caller: sumSquares@14, outermost");
	ok(jvm_lines_scope(d25, sizeof(d25), 4, 1, &sc) == 0 &&
	    sc.next == 1 && sc.method == 1 && sc.bci == 2,
	    "the same in JDK 20's encoding");
	is_int(jvm_lines_scope(d17, sizeof(d17), 0, 0, &sc), -1,
	    "offset 0: no scope");
	is_int(jvm_lines_scope(d17, sizeof(d17), 7, 0, &sc), -1,
	    "past the data: no scope");
	is_int(jvm_lines_scope(fwd, sizeof(fwd), 1, 0, &sc), -1,
	    "a caller after its callee: a loop, refused");
}

int
main(void)
{
	test_unsigned5();
	test_lines();
	test_pcdesc();
	test_scopes();
	return done_testing();
}
