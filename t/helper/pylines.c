/*
 * pylines: check src/python/pysym.c's line table decoders against CPython.
 * Reads what t/helper/pylines.py prints; prints how many instructions
 * were checked and the first mismatches; exits 1 on any mismatch.
 */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "python/pysym.h"

static int
hexval(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

int
main(void)
{
	static char	 line[1 << 20];
	static uint8_t	 table[1 << 19];
	char		 kind[16], *hex;
	size_t		 len = 0, i, checked = 0, bad = 0, codes = 0;
	int		 first = 0, addr, want, got, k = -1;

	while (fgets(line, sizeof(line), stdin) != NULL) {
		if (line[0] == 'C') {
			if (sscanf(line, "C %15s %d", kind, &first) != 2)
				return 2;
			k = strcmp(kind, "lnotab") == 0 ? PYSYM_LNOTAB :
			    strcmp(kind, "linetable") == 0 ? PYSYM_LINETABLE :
			    PYSYM_LOCATIONS;
			hex = strrchr(line, ' ') + 1;
			for (len = 0; hexval(hex[0]) >= 0 &&
			    hexval(hex[1]) >= 0 && len < sizeof(table); len++) {
				table[len] = hexval(hex[0]) << 4 |
				    hexval(hex[1]);
				hex += 2;
			}
			codes++;
			continue;
		}
		if (sscanf(line, "A %d %d", &addr, &want) != 2 || k == -1)
			return 2;
		if (k == PYSYM_LNOTAB)
			got = pysym_line_lnotab(table, len, first, addr);
		else if (k == PYSYM_LINETABLE)
			got = pysym_line_linetable(table, len, first, addr);
		else
			got = pysym_line_locations(table, len, first, addr);
		checked++;
		if (got != want && bad++ < 10) {
			printf("mismatch: %s first %d addr %d: want %d, "
			    "got %d; table", kind, first, addr, want, got);
			for (i = 0; i < len && i < 64; i++)
				printf(" %02x", table[i]);
			printf("\n");
		}
	}
	printf("%zu code objects, %zu instructions checked, %zu "
	    "mismatched\n", codes, checked, bad);
	return bad != 0 || checked == 0;
}
