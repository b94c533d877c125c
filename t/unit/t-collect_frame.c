/*
 * collect_frame: a frame's names are kept under (generation, address),
 * so a known frame is not named again; a process's new mappings (exec,
 * a library mapped later) and a new read of kallsyms make another
 * generation; names that may change within one are never kept.
 */
#include <sys/mman.h>
#include <sys/types.h>

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "profile/frametab.h"
#include "round/collect_frame.h"
#include "sym/resolve.h"
#include "config.h"
#include "round/stacknames.h"
#include "tap.h"

int	cf_target(int);

/* The start of our mapping of addr, from /proc/self/maps; 0 if none. */
static uint64_t
mstart(uint64_t addr)
{
	FILE			*f;
	unsigned long long	 s, e;
	char			 line[512];
	uint64_t		 r = 0;

	if ((f = fopen("/proc/self/maps", "r")) == NULL)
		return 0;
	while (fgets(line, sizeof(line), f) != NULL)
		if (sscanf(line, "%llx-%llx", &s, &e) == 2 && s <= addr &&
		    addr < e)
			r = s;
	fclose(f);
	return r;
}

__attribute__((noinline)) int
cf_target(int x)
{
	return x * 3 + 1;
}

/* A kernel text address kallsyms names, or 0 when it hides them. */
static uint64_t
kernel_addr(void)
{
	FILE			*f;
	char			 line[512], type;
	unsigned long long	 a;
	uint64_t		 found = 0;

	if ((f = fopen("/proc/kallsyms", "r")) == NULL)
		return 0;
	while (found == 0 && fgets(line, sizeof(line), f) != NULL) {
		if (sscanf(line, "%llx %c", &a, &type) == 2 && a != 0 &&
		    (type == 'T' || type == 't') && strstr(line, "[") == NULL)
			found = a + 1;
	}
	fclose(f);
	return found;
}

int
main(void)
{
	struct config		*conf;
	struct resolve		*r;
	struct resolve_proc	*rp;
	struct stacknames	*sn;
	struct resolve_stats	 st;
	const uint32_t		*ids;
	uint32_t		 scratch[COLLECT_FRAME_INLINE_MAX], flags, id;
	const struct frametab_loc *loc;
	const struct frametab_map *fm;
	uint64_t		 a, gen, gen2, frames, kaddr;
	size_t			 n, i;
	void			*m;
	int			 fd;

	ok(collect_frame_is_bpf("bpf_trace_run2"), "bpf_trace_run: bpf");
	ok(collect_frame_is_bpf("__bpf_trace_sched_switch"),
	    "__bpf_trace_: bpf");
	ok(collect_frame_is_bpf("bpf_prog_6deef7357e7b4530_on_cpu [bpf]"),
	    "a BPF program: bpf");
	ok(!collect_frame_is_bpf("schedule"), "schedule: not bpf");

	conf = config_defaults();
	conf->unknown_symbol_module_offset = 1;
	conf->unknown_symbol_address = 0;
	r = resolve_create(conf);
	sn = stacknames_create(3, 100000);
	rp = resolve_proc_open(r, getpid());
	ok(rp != NULL, "our own process opened");
	gen = collect_frame_gen(r, rp, 1);

	a = (uintptr_t)&cf_target + 1;
	ids = collect_frame_name(sn, r, rp, 1, a, &n, &flags, scratch);
	ok(n == 1 && strcmp(stacknames_loc_name(sn, ids[0]), "cf_target") ==
	    0 && flags == 0, "a function of ours: its name, known");
	id = ids[0];
	loc = frametab_loc(stacknames_frames(sn), id);
	fm = loc != NULL ? frametab_map(stacknames_frames(sn), loc->f.map) :
	    NULL;
	ok(fm != NULL && strstr(stacknames_name(sn, fm->file),
	    "t-collect_frame") != NULL && (fm->flags &
	    FRAMETAB_MAP_FUNCTIONS) && fm->start <= loc->f.addr &&
	    loc->f.addr < fm->limit && loc->f.addr != a &&
	    loc->f.addr - fm->start == a - mstart(a),
	    "its location: our file's mapping, the address in the file");

	ok(loc != NULL && strcmp(stacknames_name(sn, loc->f.system),
	    "cf_target") == 0, "the symbol as the file spells it");
	ok(stacknames_frame_get(sn, gen, a, &n, &flags) != NULL,
	    "kept under the process's generation and the address");
	resolve_stats(r, &st);
	frames = st.frames;
	ids = collect_frame_name(sn, r, rp, 1, a, &n, &flags, scratch);
	resolve_stats(r, &st);
	ok(n == 1 && ids[0] == id && st.frames == frames,
	    "named again from what was kept, without resolve");

	/* An address in no mapping: a library may come; not kept. */
	ids = collect_frame_name(sn, r, rp, 1, 0x10, &n, &flags, scratch);
	ok(n == 1 && strcmp(stacknames_loc_name(sn, ids[0]), "[unknown]") ==
	    0 && (flags & COLLECT_FRAME_UNKNOWN(0)), "no mapping: [unknown]");
	ok(stacknames_frame_get(sn, collect_frame_gen(r, rp, 1), 0x10, &n,
	    &flags) == NULL, "a name that may change is not kept");

	/* A file mapped since: the maps are read again, a generation. */
	resolve_round_end(r);
	stacknames_round_end(sn);
	gen = collect_frame_gen(r, rp, 1);
	if ((fd = open("/proc/self/exe", O_RDONLY)) == -1 ||
	    (m = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE, fd,
	    0)) == MAP_FAILED) {
		ok(0, "map our executable again");
		return done_testing();
	}
	close(fd);
	a = (uintptr_t)m + 0x10;
	ids = collect_frame_name(sn, r, rp, 1, a, &n, &flags, scratch);
	gen2 = collect_frame_gen(r, rp, 1);
	ok(gen2 != gen, "a new mapping: another generation");
	ok(n == 1 && strstr(stacknames_loc_name(sn, ids[0]),
	    "t-collect_frame") != NULL, "named in the new mapping");
	ok(stacknames_frame_get(sn, gen2, a, &n, &flags) != NULL,
	    "kept under the new generation");
	ok(stacknames_frame_get(sn, gen2, (uintptr_t)&cf_target + 1, &n,
	    &flags) == NULL, "what the old generation kept is not found");
	munmap(m, 4096);

	/* An exec: the maps read again. */
	resolve_proc_refresh(r, rp);
	ok(collect_frame_gen(r, rp, 1) != gen2, "exec: another generation");
	ok(stacknames_frame_get(sn, collect_frame_gen(r, rp, 1), a, &n,
	    &flags) == NULL, "exec: the old program's frames are not found");

	/* The kernel. */
	gen = collect_frame_gen(r, NULL, 0);
	ids = collect_frame_name(sn, r, NULL, 0, 0x10, &n, &flags, scratch);
	ok(n == 1 && stacknames_frame_get(sn, collect_frame_gen(r, NULL, 0),
	    0x10, &n, &flags) == NULL,
	    "a kernel address kallsyms does not know: not kept");
	ok(collect_frame_gen(r, NULL, 0) != gen, "kallsyms read: generation");
	kaddr = kernel_addr();
	if (kaddr == 0)
		ok(1, "# SKIP kallsyms hides its addresses");
	else {
		ids = collect_frame_name(sn, r, NULL, 0, kaddr, &n, &flags,
		    scratch);
		ok(stacknames_frame_get(sn, collect_frame_gen(r, NULL, 0),
		    kaddr, &n, &flags) != NULL, "a kernel symbol: kept");
	}
	/* Some rounds later an unknown address reads kallsyms again. */
	gen = collect_frame_gen(r, NULL, 0);
	for (i = 0; i < 10; i++)
		resolve_round_end(r);
	(void)collect_frame_name(sn, r, NULL, 0, 0x20, &n, &flags, scratch);
	ok(collect_frame_gen(r, NULL, 0) != gen,
	    "kallsyms read again: another generation");
	if (kaddr != 0)
		ok(stacknames_frame_get(sn, collect_frame_gen(r, NULL, 0),
		    kaddr, &n, &flags) == NULL,
		    "the kernel frames of the old read are not found");

	resolve_proc_close(r, rp);
	stacknames_free(sn);
	resolve_free(r);
	config_free(conf);
	return done_testing();
}
