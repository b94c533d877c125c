#ifndef EBPFSPY_FRAMETAB_H
#define EBPFSPY_FRAMETAB_H

#include <stddef.h>
#include <stdint.h>

/*
 * Locations: a frame's name as folded files and flame graphs show it,
 * with what pprof says of it besides: its function (name, name as the
 * file spells it, source file), its line, its address and the file
 * mapped there.  A location is a small dense id, the same for the same
 * name at the same address of the same mapping, in the same source file
 * (the first line given stays: a frame of no address, Python's, stands
 * for all of its function's in a file).  So pprof gets one Location per
 * address sampled, and go tool pprof -disasm and -list spread a
 * function's samples over its instructions and lines.  Names and
 * strings are ids of a table of names kept beside (a stacknames' or a
 * profile's).
 */

/* What a mapping's frames were given (Mapping.has_*). */
#define FRAMETAB_MAP_FUNCTIONS	0x01	/* names from its symbols */
#define FRAMETAB_MAP_FILENAMES	0x02	/* source files */
#define FRAMETAB_MAP_LINES	0x04	/* line numbers */

struct frametab_map {
	uint64_t	 start;		/* in the file's terms, as addresses */
	uint64_t	 limit;
	uint64_t	 offset;	/* in the file */
	uint32_t	 file;		/* name id of its path */
	uint32_t	 build_id;	/* name id of the hex, 0: none */
	uint32_t	 flags;		/* FRAMETAB_MAP_ */
};

/*
 * A frame that a function was inlined into at its address: the frame
 * after it in a stack (the inlined function, inner) is at the same
 * address, and both are one pprof Location, its Lines innermost first.
 */
#define FRAMETAB_FRAME_INLINES	0x01

/* Name ids: 0 for none (Function.name: the frame's, system: as func). */
struct frametab_frame {
	uint32_t	 func;		/* of Function.name */
	uint32_t	 system;	/* of Function.system_name */
	uint32_t	 file;		/* of the source file */
	uint32_t	 map;		/* frametab_map_add()'s, 0: none */
	int64_t		 line;		/* 0: none */
	uint64_t	 addr;		/* in the file's terms, 0: none */
	uint32_t	 flags;		/* FRAMETAB_FRAME_ */
};

struct frametab_loc {
	uint32_t		 name;
	struct frametab_frame	 f;
};

struct frametab;

struct frametab	*frametab_create(void);
void		 frametab_free(struct frametab *);
void		 frametab_clear(struct frametab *);
/* The location of a name with these details (NULL: none). */
uint32_t	 frametab_loc_add(struct frametab *, uint32_t,
		    const struct frametab_frame *);
/* A location, NULL for an id not given out. */
const struct frametab_loc *frametab_loc(const struct frametab *, uint32_t);
size_t		 frametab_nlocs(const struct frametab *);
/* A mapping's number (1..), the same for the same file and offset. */
uint32_t	 frametab_map_add(struct frametab *,
		    const struct frametab_map *);
const struct frametab_map *frametab_map(const struct frametab *, uint32_t);
size_t		 frametab_nmaps(const struct frametab *);
size_t		 frametab_bytes(const struct frametab *);

#endif
