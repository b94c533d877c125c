#ifndef EBPFSPY_JVM_MEM_H
#define EBPFSPY_JVM_MEM_H

#include <sys/types.h>

#include <stddef.h>
#include <stdint.h>

/*
 * Reads of a JVM's memory with process_vm_readv(): untrusted bytes at
 * any address, every length bounded by the caller.  0 / -1.
 */
struct jvm_mem {
	pid_t		 pid;
	uint64_t	 reads;		/* calls */
	uint64_t	 failed;
};

int	 jvm_mem_read(struct jvm_mem *, uint64_t, void *, size_t);
/* As many bytes as can be read, up to len: the count, -1 if none. */
ssize_t	 jvm_mem_read_some(struct jvm_mem *, uint64_t, void *, size_t);
int	 jvm_mem_u8(struct jvm_mem *, uint64_t, uint8_t *);
int	 jvm_mem_u16(struct jvm_mem *, uint64_t, uint16_t *);
int	 jvm_mem_u32(struct jvm_mem *, uint64_t, uint32_t *);
int	 jvm_mem_u64(struct jvm_mem *, uint64_t, uint64_t *);
/* A NUL-terminated C string of at most len - 1 bytes, printable only. */
int	 jvm_mem_cstr(struct jvm_mem *, uint64_t, char *, size_t);

#endif
