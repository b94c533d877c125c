/*
 * V8 (Node.js) processes: found by the v8dbg_ symbols of their
 * executable or libnode, described to the BPF walker (v8_info: where
 * the embedded builtins are, the frame and object layout), refused with
 * a reason when the layout cannot be trusted -- then profiled natively,
 * with the perf map of node --perf-basic-prof where it writes one.
 */
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/types.h>

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "bpf/profile.h"
#include "config/config.h"
#include "elf/elf_lookup.h"
#include "proc/proc_root.h"
#include "proc/procmaps.h"
#include "session/session.h"
#include "util/log.h"
#include "util/xmalloc.h"
#include "v8_int.h"

#define V8_LOADS_MAX	16
#define V8_USER_MAX	0x00ffffffffffffffULL

/* Where the builtins are: V8's own record of its embedded blob. */
static const char *const v8_blob_names[] = {
	"_ZN2v88internal12_GLOBAL__N_127current_embedded_blob_code_E",
	"_ZN2v88internal12_GLOBAL__N_132current_embedded_blob_code_size_E",
};

struct v8 *
v8_create(struct session *session, const struct config *conf)
{
	struct v8	*v;

	v = xcalloc(1, sizeof(*v));
	v->session = session;
	TAILQ_INIT(&v->procs);
	v8_configure(v, conf);
	return v;
}

void
v8_free(struct v8 *v)
{
	struct v8_proc	*vp;

	if (v == NULL)
		return;
	while ((vp = TAILQ_FIRST(&v->procs)) != NULL)
		v8_proc_close(v, vp);
	free(v);
}

void
v8_configure(struct v8 *v, const struct config *conf)
{
	v->enabled = conf == NULL || conf->v8_enabled;
}

static void
v8_refuse(struct v8 *v, pid_t pid, enum v8_refusal why, const char *file)
{
	v->st.refused[why]++;
	log_debug("pid %d: V8 in %s not walked: %s", (int)pid, file,
	    v8_refusal_name(why));
}

/* Where the process loaded the file of e; -1 if no segment holds it. */
static int
v8_bias(struct elf_lookup *pe, const struct procmaps_entry *e,
    uint64_t *bias)
{
	uint64_t	 off[V8_LOADS_MAX], va[V8_LOADS_MAX], len[V8_LOADS_MAX];
	size_t		 i, n;

	n = elf_lookup_loads(pe, off, va, len, V8_LOADS_MAX);
	for (i = 0; i < n; i++) {
		if (e->offset < off[i] || e->offset - off[i] >= len[i])
			continue;
		*bias = e->start - (va[i] + (e->offset - off[i]));
		return 0;
	}
	return -1;
}

/*
 * The builtins' code, read from V8's variables in the process; the
 * whole address space when they cannot be read (a stripped libnode, V8
 * not started yet): the walker's type checks still hold.
 */
static void
v8_builtins(pid_t pid, struct elf_lookup *pe, uint64_t bias,
    struct profile_v8_info *vi)
{
	uint64_t	 addr[2], code = 0;
	uint32_t	 size = 0;

	vi->builtins_lo = 0;
	vi->builtins_hi = V8_USER_MAX;
	if (elf_lookup_symbols(pe, v8_blob_names, addr, 2, 1) != 2 ||
	    proc_root_read_mem(pid, addr[0] + bias, &code, sizeof(code)) ==
	    -1 || proc_root_read_mem(pid, addr[1] + bias, &size,
	    sizeof(size)) == -1 || code == 0 || size == 0 ||
	    code > V8_USER_MAX - size || code < bias)
		return;
	/* In the file: node maps them again elsewhere once started. */
	vi->builtins_lo = code - bias;
	vi->builtins_hi = code - bias + size;
}

static void
v8_info_fill(const struct v8_layout *l, struct profile_v8_info *vi)
{
	vi->type_func_lo = l->type_func;
	/* JSFunction's kinds: the 15 types from JS_FUNCTION_TYPE on. */
	vi->type_func_hi = l->type_func + 14;
	vi->type_sfi = l->type_sfi;
	vi->type_code = l->type_code;
	vi->type_bytecode = l->type_bytecode;
	vi->map = l->map;
	vi->map_type = l->map_type;
	vi->func_shared = l->func_shared;
	vi->func_code = l->func_code;
	vi->code_start = l->code_start;
	vi->code_inline = l->code_inline;
	vi->fp_function = l->fp_function;
	vi->fp_bytecode_array = l->fp_bytecode_array;
	vi->fp_bytecode_offset = l->fp_bytecode_offset;
	vi->fp_context = l->fp_context;
}

/* Is the file of e the executable, or a libnode? */
static int
v8_is_candidate(const struct procmaps_entry *e, const struct stat *exe)
{
	if (e->kind != PROCMAPS_FILE)
		return 0;
	if (exe != NULL && e->inode == exe->st_ino &&
	    makedev(e->dev_major, e->dev_minor) == exe->st_dev)
		return 1;
	return strncmp(procmaps_basename(e), "libnode", 7) == 0;
}

/* The V8 of the file of e: 1 and its layout, 0 if none, -1 refused. */
static int
v8_examine(struct v8 *v, pid_t pid, const struct procmaps_entry *e,
    struct v8_layout *l, struct profile_v8_info *vi)
{
	struct elf_lookup	*pe;
	struct stat		 sb;
	enum v8_refusal		 why;
	uint64_t		 bias;
	int			 fd, rc = 0;

	if ((fd = proc_root_open_map(pid, e->start, e->end, &sb)) == -1)
		return 0;
	if ((pe = elf_lookup_open(fd)) == NULL) {
		close(fd);
		return 0;
	}
	if (!v8_dbg_present(pe))
		goto done;
	rc = -1;
	if (v8_dbg_read(pe, l, &why) == -1 ||
	    (why = V8_REFUSE_LAYOUT, v8_bias(pe, e, &bias) == -1)) {
		v8_refuse(v, pid, why, procmaps_basename(e));
		goto done;
	}
	memset(vi, 0, sizeof(*vi));
	v8_info_fill(l, vi);
	v8_builtins(pid, pe, bias, vi);
	rc = 1;
done:
	elf_lookup_close(pe);
	close(fd);
	return rc;
}

struct v8_proc *
v8_proc_open(struct v8 *v, pid_t pid, const struct procmaps *maps)
{
	const struct procmaps_entry	*e;
	struct profile_v8_info		 vi;
	struct v8_layout		 lay;
	struct v8_proc			*vp;
	struct stat			 exe;
	char				 path[64];
	uint64_t			 ino = 0;
	size_t				 i;
	int				 have_exe, rc = 0;

	if (!v->enabled || pid <= 0 || maps == NULL)
		return NULL;
	snprintf(path, sizeof(path), "/proc/%d/exe", (int)pid);
	have_exe = stat(path, &exe) == 0;
	for (i = 0; i < maps->n && rc == 0; i++) {
		e = &maps->v[i];
		if (e->inode == ino || !v8_is_candidate(e, have_exe ? &exe :
		    NULL))
			continue;
		ino = e->inode;
		rc = v8_examine(v, pid, e, &lay, &vi);
	}
	if (rc != 1)
		return NULL;
#if !defined(__x86_64__)
	v8_refuse(v, pid, V8_REFUSE_ARCH, procmaps_basename(e));
	return NULL;
#endif
	vi.serial = ++v->serial;
	if (session_v8info_set(v->session, pid, &vi) == -1) {
		v8_refuse(v, pid, V8_REFUSE_BPF, procmaps_basename(e));
		return NULL;
	}
	vp = xcalloc(1, sizeof(*vp));
	vp->pid = pid;
	vp->lay = lay;
	vp->sym = v8_sym_create(pid, &vp->lay);
	TAILQ_INSERT_TAIL(&v->procs, vp, entry);
	v->st.procs++;
	v->st.found++;
	log_debug("pid %d: V8 in %s, builtins %#llx-%#llx", (int)pid,
	    procmaps_basename(e), (unsigned long long)vi.builtins_lo,
	    (unsigned long long)vi.builtins_hi);
	return vp;
}

void
v8_proc_close(struct v8 *v, struct v8_proc *vp)
{
	if (vp == NULL)
		return;
	(void)session_v8info_delete(v->session, vp->pid);
	v8_stacks_free(v, vp);
	v8_sym_free(vp->sym);
	TAILQ_REMOVE(&v->procs, vp, entry);
	v->st.procs--;
	free(vp);
}

void
v8_stats(struct v8 *v, struct v8_stats *st)
{
	*st = v->st;
}

void
v8_log_state(struct v8 *v)
{
	const struct v8_stats	*st = &v->st;
	char			 refused[256], unnamed[256];
	size_t			 len = 0, i;

	refused[0] = unnamed[0] = '\0';
	for (i = 0; i < V8_REFUSE_MAX; i++)
		len += snprintf(refused + len, len < sizeof(refused) ?
		    sizeof(refused) - len : 0, " %s %llu",
		    v8_refusal_name(i), (unsigned long long)st->refused[i]);
	len = 0;
	for (i = 0; i < V8_UNNAMED_MAX; i++)
		len += snprintf(unnamed + len, len < sizeof(unnamed) ?
		    sizeof(unnamed) - len : 0, " %s %llu",
		    v8_unnamed_name(i), (unsigned long long)st->unnamed[i]);
	log_info("v8: %s, %zu processes, %llu found, refused:%s; frames "
	    "named %llu, not named:%s; %llu stacks, %llu lost",
	    v->enabled ? "enabled" : "disabled", st->procs,
	    (unsigned long long)st->found, refused,
	    (unsigned long long)st->named, unnamed,
	    (unsigned long long)st->stacks, (unsigned long long)st->lost);
}
