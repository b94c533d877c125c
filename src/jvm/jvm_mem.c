/*
 * A JVM's memory, read with process_vm_readv(): the process can change
 * or free what it holds at any time, so a failed or short read is an
 * ordinary answer, counted, and never a crash.
 */
#include <sys/types.h>
#include <sys/uio.h>

#include <stdint.h>
#include <string.h>

#include "jvm_mem.h"

ssize_t
jvm_mem_read_some(struct jvm_mem *m, uint64_t addr, void *buf, size_t len)
{
	struct iovec	 local, remote;
	ssize_t		 n;

	m->reads++;
	if (addr == 0 || len == 0 || addr > UINT64_MAX - len) {
		m->failed++;
		return -1;
	}
	local.iov_base = buf;
	local.iov_len = len;
	remote.iov_base = (void *)(uintptr_t)addr;
	remote.iov_len = len;
	if ((n = process_vm_readv(m->pid, &local, 1, &remote, 1, 0)) <= 0) {
		m->failed++;
		return -1;
	}
	return n;
}

int
jvm_mem_read(struct jvm_mem *m, uint64_t addr, void *buf, size_t len)
{
	return jvm_mem_read_some(m, addr, buf, len) == (ssize_t)len ? 0 : -1;
}

int
jvm_mem_u8(struct jvm_mem *m, uint64_t addr, uint8_t *v)
{
	return jvm_mem_read(m, addr, v, sizeof(*v));
}

int
jvm_mem_u16(struct jvm_mem *m, uint64_t addr, uint16_t *v)
{
	return jvm_mem_read(m, addr, v, sizeof(*v));
}

int
jvm_mem_u32(struct jvm_mem *m, uint64_t addr, uint32_t *v)
{
	return jvm_mem_read(m, addr, v, sizeof(*v));
}

int
jvm_mem_u64(struct jvm_mem *m, uint64_t addr, uint64_t *v)
{
	return jvm_mem_read(m, addr, v, sizeof(*v));
}

/*
 * The names the tables hold are C identifiers, types and class names:
 * a string with a control byte, or none of its end within len, is not
 * one of them.  Read in pieces, so that a string near the end of a
 * mapping is still read.
 */
int
jvm_mem_cstr(struct jvm_mem *m, uint64_t addr, char *buf, size_t len)
{
	size_t	 o = 0, chunk, i;
	ssize_t	 n;

	if (len == 0)
		return -1;
	while (o < len - 1) {
		chunk = 64 - ((addr + o) & 63);
		if (chunk > len - 1 - o)
			chunk = len - 1 - o;
		if ((n = jvm_mem_read_some(m, addr + o, buf + o, chunk)) <= 0)
			return -1;
		for (i = o; i < o + (size_t)n; i++) {
			if (buf[i] == '\0')
				return 0;
			if ((unsigned char)buf[i] < 0x20 ||
			    (unsigned char)buf[i] == 0x7f)
				return -1;
		}
		o += n;
	}
	buf[len - 1] = '\0';
	return -1;
}
