/*
 * jvmnames: name a live JVM's compiled code with src/jvm/, no BPF.
 * Prints a line per CodeBlob of its code cache:
 *   <code begin> <code size> <kind> <name>\t<file>\t<line>\t<inlined>
 * where an nmethod's name is its Method's "pkg.Class.method", its line
 * that of its first PcDesc after the entry, and inlined the scope chain
 * there, innermost first; a stub's name is the blob's.  With -i, each
 * nmethod is followed by every distinct chain its pcs have, as a leaf
 * pc, in lines "I <code begin> <chain>".  -d prints the JVM's tables
 * instead; -p makes the JVM write its perf map (jcmd Compiler.perfmap
 * over the attach protocol, src/jvm/jvm_attach.c) first.  Exit 3 (and
 * "refused <reason>") for a JVM src/jvm refuses, 1 when the pid is no
 * JVM, 5 when the perf map could not be asked for, 6 (and "not yet")
 * for a JVM still starting, its tables not filled in yet.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "jvm/jvm.h"
#include "jvm/jvm_attach.h"
#include "jvm/jvm_structs.h"
#include "jvm/jvm_sym.h"
#include "proc/procmaps.h"

static const char *const kinds[] = {
	"nmethod", "native", "interpreter", "stub"
};

static int inlined;

/* Every distinct scope chain of an nmethod's pcs, as leaf pcs. */
static void
blob_chains(struct jvm_proc *jp, const struct jvm_blob *b, uint32_t id)
{
	struct jvm_frame	 f[JVM_SYM_INLINE_MAX];
	char			 chain[4096], last[4096] = "";
	uint64_t		 pc;
	size_t			 o;
	int			 n, i;

	for (pc = b->code_begin; pc < b->code_end; pc++) {
		n = jvm_sym_compiled(jp->sym, b->addr, id,
		    (uint32_t)(pc - b->addr), 1, f, JVM_SYM_INLINE_MAX);
		for (i = 0, o = 0; i < n && o < sizeof(chain); i++)
			o += snprintf(chain + o, sizeof(chain) - o, "%s%s:%d",
			    i > 0 ? ";" : "", f[i].func, f[i].line);
		if (n <= 0 || strcmp(chain, last) == 0)
			continue;
		printf("I %#llx %s\n", (unsigned long long)b->code_begin,
		    chain);
		strcpy(last, chain);
	}
}

static void
blob_cb(const struct jvm_blob *b, void *arg)
{
	struct jvm_proc		*jp = arg;
	struct jvm_frame	 f[JVM_SYM_INLINE_MAX];
	const struct jvm_method	*m;
	uint64_t		 method;
	uint32_t		 id;
	int			 n, i;

	printf("%#llx %#llx %s ", (unsigned long long)b->code_begin,
	    (unsigned long long)(b->code_end - b->code_begin),
	    kinds[b->kind]);
	if (b->kind != JVM_BLOB_NMETHOD && b->kind != JVM_BLOB_NATIVE) {
		printf("%s\t-\t-1\t-\n", b->name);
		return;
	}
	if (jvm_sym_nmethod_id(jp->sym, b->addr, &method, &id) == -1 ||
	    (m = jvm_sym_method(jp->sym, method, 0)) == NULL) {
		printf("[unknown]\t-\t-1\t-\n");
		return;
	}
	n = jvm_sym_compiled(jp->sym, b->addr, id,
	    (uint32_t)(b->code_begin - b->addr), 1, f, JVM_SYM_INLINE_MAX);
	printf("%s\t%s\t%d\t", m->func, m->file != NULL ? m->file : "-",
	    n > 0 ? f[0].line : -1);
	for (i = 0; i < n; i++)
		printf("%s%s:%d@%d", i > 0 ? ";" : "", f[i].func, f[i].line,
		    f[i].bci);
	printf("%s\n", n > 0 ? "" : "-");
	if (inlined && b->kind == JVM_BLOB_NMETHOD)
		blob_chains(jp, b, id);
}

int
main(int argc, char **argv)
{
	struct procmaps		*maps;
	struct jvm_proc		*jp;
	struct timespec		 ts = { 0, 10 * 1000 * 1000 };
	const char		*missing;
	int			 why, dump = 0, perfmap = 0, tries, c;
	pid_t			 pid;

	while ((c = getopt(argc, argv, "dip")) != -1) {
		if (c == 'd')
			dump = 1;
		else if (c == 'i')
			inlined = 1;
		else if (c == 'p')
			perfmap = 1;
		else
			return 2;
	}
	argc -= optind;
	argv += optind - 1;
	if (argc != 1) {
		fprintf(stderr, "usage: jvmnames [-dip] pid\n");
		return 2;
	}
	pid = atoi(argv[1]);
	if ((maps = procmaps_read(pid)) == NULL)
		return 1;
	if ((jp = jvm_proc_open(pid, maps, &why, &missing)) == NULL) {
		if (why == -1)
			return 1;
		if (why == JVM_NOT_YET) {
			printf("not yet: the JVM is starting\n");
			return 6;
		}
		printf("refused %s%s%s\n", jvm_refusal_name(why),
		    missing != NULL ? " " : "", missing != NULL ? missing : "");
		return 3;
	}
	if (dump) {
		jvm_structs_dump(jp->structs, stdout);
		return 0;
	}
	/* A JVM busy on both CPUs (-Xint, under CI load) answers late. */
	if (perfmap && jvm_attach_jcmd(pid, "Compiler.perfmap", NULL, 0,
	    30000) == -1) {
		printf("no perf map\n");
		return 5;
	}
	/* A JVM just started has no code heaps yet. */
	for (tries = 0; jvm_proc_codecache(jp) == -1 && tries < 500; tries++)
		nanosleep(&ts, NULL);
	if (!jp->cc_ok) {
		printf("no code cache\n");
		return 4;
	}
	printf("# JDK %d, %zu code heaps\n", jp->lay.major, jp->cc.nheaps);
	jvm_codecache_each(&jp->mem, &jp->lay, &jp->cc, blob_cb, jp);
	jvm_proc_close(jp);
	procmaps_free(maps);
	return 0;
}
