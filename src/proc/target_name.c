/*
 * The name of a process that no target, unit or container names: what
 * its program is, for the default target (target.c).  Pure: it is given
 * the comm and the command line, and reads nothing.
 *
 *   memfd:..., a helper that only waits or runs another program (sleep,
 *   timeout, nohup, env, ...)      -> no name: its parent's service
 *   a shell (sh, bash, ...)       -> the script it runs, else the first
 *                                    word of its -c command (unless a
 *                                    builtin), else itself
 *   an interpreter (python3, node, ruby, perl, php, java)
 *                                 -> its script, -m module or -jar file,
 *                                    else itself
 *   anything else                 -> its comm
 *
 * A script is named by its file's base name without the extension.
 * Every name is cleaned: '/', ':', white space and control characters
 * become '_' (they break a directory or a series), a leading '.' too,
 * and it is cut at TARGET_NAME_MAX bytes.  The command line is the
 * process's own to write: only its first TARGET_NAME_ARGS words are
 * looked at, and a name from it is cleaned like any other.
 */
#include <stdio.h>
#include <string.h>

#include "target.h"

#define TARGET_NAME_ARGS	32

/* Programs that wait, or run another program: never a service. */
static const char *const target_name_helpers[] = {
	"sleep", "timeout", "nohup", "env", "nice", "ionice", "setsid",
	"stdbuf", "flock", "xargs", "time", "chrt", "taskset", NULL
};

/* A -c command that starts with one of these names no program. */
static const char *const target_name_builtins[] = {
	"if", "while", "until", "for", "case", "{", "!", "cd", ":", ".",
	"true", "false", "echo", "printf", "set", "export", "source", "trap",
	"umask", "ulimit", "test", "[", "read", "wait", "eval", NULL
};

static const char *const target_name_shells[] = {
	"sh", "bash", "dash", "zsh", "fish", "ksh", "mksh", "ash", "csh",
	"tcsh", NULL
};

/*
 * An interpreter: the options that take the next word as their value,
 * the ones whose value names the program (-m module, -jar file), the
 * ones that say the program is on the command line (-c, -e), and whether
 * the first word left is a script file (else a Java class).
 */
struct target_name_interp {
	const char	*comm;		/* the comm, or its prefix with '*' */
	const char	*const *args;
	const char	*const *names;
	const char	*const *inline_code;
	int		 script;
};

static const char *const py_args[] = { "-W", "-X", NULL };
static const char *const py_names[] = { "-m", NULL };
static const char *const py_code[] = { "-c", NULL };
static const char *const node_args[] = { "-r", "--require", "--import",
	"--loader", "--experimental-loader", "-C", "--conditions",
	"--title", NULL };
static const char *const node_code[] = { "-e", "--eval", "-p", "--print",
	NULL };
static const char *const ruby_args[] = { "-I", "-r", "-C", "-E", NULL };
static const char *const ruby_code[] = { "-e", NULL };
static const char *const perl_args[] = { "-I", "-M", "-m", NULL };
static const char *const perl_code[] = { "-e", "-E", NULL };
static const char *const php_args[] = { "-d", "-c", "-z", NULL };
static const char *const php_names[] = { "-f", NULL };
static const char *const php_code[] = { "-r", NULL };
static const char *const java_args[] = { "-cp", "-classpath",
	"--class-path", "-p", "--module-path", "--add-modules",
	"--add-opens", "--add-exports", "--add-reads", NULL };
static const char *const java_names[] = { "-jar", "-m", "--module",
	NULL };
static const char *const none[] = { NULL };

static const struct target_name_interp target_name_interps[] = {
	{ "python*", py_args, py_names, py_code, 1 },
	{ "pypy*", py_args, py_names, py_code, 1 },
	{ "node", node_args, none, node_code, 1 },
	{ "nodejs", node_args, none, node_code, 1 },
	{ "ruby*", ruby_args, none, ruby_code, 1 },
	{ "perl*", perl_args, none, perl_code, 1 },
	{ "php*", php_args, php_names, php_code, 1 },
	{ "java", java_args, java_names, none, 0 },
	{ NULL, NULL, NULL, NULL, 0 }
};

static int
target_name_in(const char *s, const char *const *list)
{
	for (; *list != NULL; list++) {
		if (strcmp(s, *list) == 0)
			return 1;
	}
	return 0;
}

/* A login shell's comm may start with '-'. */
static int
target_name_is_shell(const char *comm)
{
	return target_name_in(comm + (*comm == '-'), target_name_shells);
}

static const struct target_name_interp *
target_name_interp(const char *comm)
{
	const struct target_name_interp	*in;
	size_t				 n;

	for (in = target_name_interps; in->comm != NULL; in++) {
		n = strlen(in->comm);
		if (in->comm[n - 1] == '*' ?
		    strncmp(comm, in->comm, n - 1) == 0 :
		    strcmp(comm, in->comm) == 0)
			return in;
	}
	return NULL;
}

int
target_name_wants_argv(const char *comm)
{
	return target_name_is_shell(comm) || target_name_interp(comm) != NULL;
}

/*
 * Copy n bytes of s to buf as a name: see above.  An empty result, or
 * one of dots only, is no name.
 */
void
target_name_clean(const char *s, size_t n, char *buf, size_t len)
{
	size_t	 i;

	if (len == 0)
		return;
	if (n > TARGET_NAME_MAX)
		n = TARGET_NAME_MAX;
	if (n > len - 1)
		n = len - 1;
	for (i = 0; i < n && s[i] != '\0'; i++) {
		if (s[i] == '/' || s[i] == ':' || s[i] == ' ' ||
		    (unsigned char)s[i] < 0x20 || s[i] == 0x7f)
			buf[i] = '_';
		else
			buf[i] = s[i];
	}
	buf[i] = '\0';
	if (buf[0] == '.')
		buf[0] = '_';
}

/* A path's base name, without its extension if strip. */
static int
target_name_file(const char *path, int strip, char *buf, size_t len)
{
	const char	*base, *dot;
	size_t		 n;

	base = strrchr(path, '/');
	base = base != NULL ? base + 1 : path;
	n = strlen(base);
	/* A descriptor (bash /dev/fd/3) is no name. */
	if (strspn(base, "0123456789") == n)
		return -1;
	if (strip && (dot = strrchr(base, '.')) != NULL && dot != base)
		n = dot - base;
	target_name_clean(base, n, buf, len);
	return buf[0] != '\0' ? 0 : -1;
}

/*
 * The first word of a shell's -c command, past assignments and "exec":
 * the program it runs first.  None if the command starts with a
 * reserved word or a builtin.
 */
static int
target_name_command(const char *cmd, char *buf, size_t len)
{
	const char	*w, *seps = " \t\n;&|()<>\"'`";
	char		 word[256];
	size_t		 n;
	int		 redir;

	for (w = cmd;;) {
		n = strspn(w, seps);
		/* The file of a redirection: ">log ./x", "2>&1 ./x". */
		redir = memchr(w, '<', n) != NULL || memchr(w, '>', n) != NULL;
		w += n;
		if ((n = strcspn(w, seps)) == 0)
			return -1;
		if (n >= sizeof(word))
			n = sizeof(word) - 1;
		memcpy(word, w, n);
		word[n] = '\0';
		w += n;
		if (redir || ((*w == '<' || *w == '>') &&
		    strspn(word, "0123456789") == n))
			continue;
		if (target_name_in(word, target_name_builtins))
			return -1;
		if (strcmp(word, "exec") != 0 && strchr(word, '=') == NULL)
			return target_name_file(word, 1, buf, len);
	}
}

static int
target_name_shell(const char **av, int ac, char *buf, size_t len)
{
	int	 i, cmd = 0;

	for (i = 1; i < ac; i++) {
		if (strcmp(av[i], "--") == 0) {
			i++;
			break;
		}
		if ((av[i][0] != '-' && av[i][0] != '+') || av[i][1] == '\0')
			break;
		if (strcmp(av[i] + 1, "o") == 0)
			i++;
		else if (av[i][0] == '-' && av[i][1] != '-' &&
		    strchr(av[i], 'c') != NULL)
			cmd = 1;
	}
	if (i >= ac || strcmp(av[i], "-") == 0)
		return -1;
	if (cmd)
		return target_name_command(av[i], buf, len);
	return target_name_file(av[i], 1, buf, len);
}

/*
 * The value of -m or --module is a module, "http.server" or Java's
 * "app.core/app.Main", named by what comes before a '/'; the others
 * (-jar, -f) a file.
 */
static int
target_name_value(const char *opt, const char *val, char *buf, size_t len)
{
	if (strcmp(opt, "-m") != 0 && strcmp(opt, "--module") != 0)
		return target_name_file(val, 1, buf, len);
	target_name_clean(val, strcspn(val, "/"), buf, len);
	return buf[0] != '\0' ? 0 : -1;
}

static int
target_name_interpreted(const struct target_name_interp *in,
    const char **av, int ac, char *buf, size_t len)
{
	int	 i;

	for (i = 1; i < ac; i++) {
		if (strcmp(av[i], "--") == 0) {
			i++;
			break;
		}
		if (av[i][0] != '-' || av[i][1] == '\0')
			break;
		if (target_name_in(av[i], in->inline_code))
			return -1;
		if (target_name_in(av[i], in->names) && i + 1 < ac)
			return target_name_value(av[i], av[i + 1], buf, len);
		if (target_name_in(av[i], in->args))
			i++;
	}
	if (i >= ac || strcmp(av[i], "-") == 0)
		return -1;
	return target_name_file(av[i], in->script, buf, len);
}

/*
 * Name a process by its program: 0 and the name in buf, or -1 when it
 * belongs to its parent (see above).  argv is /proc/PID/cmdline, n bytes
 * of NUL-terminated words, or NULL.
 */
int
target_name_derive(const char *comm, const char *argv, size_t n, char *buf,
    size_t len)
{
	const struct target_name_interp	*in;
	const char			*av[TARGET_NAME_ARGS];
	size_t				 i;
	int				 ac = 0;

	if (strncmp(comm, "memfd:", 6) == 0 ||
	    target_name_in(comm, target_name_helpers))
		return -1;
	for (i = 0; argv != NULL && i < n && ac < TARGET_NAME_ARGS; ac++) {
		av[ac] = argv + i;
		i += strnlen(argv + i, n - i) + 1;
	}
	/* The last word may lack its NUL: not one of ours, then. */
	if (ac > 0 && i > n)
		ac--;
	if (target_name_is_shell(comm) &&
	    target_name_shell(av, ac, buf, len) == 0)
		return 0;
	if ((in = target_name_interp(comm)) != NULL &&
	    target_name_interpreted(in, av, ac, buf, len) == 0)
		return 0;
	if (*comm == '-' && target_name_is_shell(comm))
		comm++;
	target_name_clean(comm, strlen(comm), buf, len);
	return buf[0] != '\0' ? 0 : -1;
}
