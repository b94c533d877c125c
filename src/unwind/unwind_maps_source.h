#ifndef EBPFSPY_UNWIND_MAPS_SOURCE_H
#define EBPFSPY_UNWIND_MAPS_SOURCE_H

#include <sys/types.h>
#include <sys/stat.h>

#include <stddef.h>
#include <stdint.h>

struct elf_file;
struct procmaps_entry;

/*
 * Where the CFI of a mapping comes from when it is not the .eh_frame of
 * the file mapped (src/unwind/unwind_maps.c): the vDSO's image, and the debug
 * file of a file that has neither .eh_frame nor .debug_frame.
 */
int		 unwind_maps_source_open(pid_t,
		    const struct procmaps_entry *, struct stat *);
uint8_t		*unwind_maps_source_vdso(pid_t,
		    const struct procmaps_entry *, size_t *);
int		 unwind_maps_source_debug(struct elf_file *, pid_t,
		    const char *, const struct stat *, const char *);

#endif
