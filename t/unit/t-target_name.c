/*
 * Names of processes no target, unit or container names: shells,
 * interpreters, helpers, memfd programs, cleaning, and the daemon.
 */
#include <stdio.h>
#include <string.h>

#include "config.h"
#include "proc/target.h"
#include "tap.h"

/*
 * The name target_name_derive gives comm with the command line words
 * (a "|"-separated list, made NUL-separated): "(parent)" for none.
 */
static const char *
name_of(const char *comm, const char *words)
{
	static char	 buf[TARGET_NAME_MAX + 1];
	char		 argv[512];
	size_t		 i, n = 0;

	if (words != NULL) {
		n = strlen(words) + 1;
		for (i = 0; i < n; i++)
			argv[i] = words[i] == '|' ? '\0' : words[i];
	}
	if (target_name_derive(comm, words != NULL ? argv : NULL, n, buf,
	    sizeof(buf)) == -1)
		return "(parent)";
	return buf;
}

static const char *
service_of(const struct config *conf, const char *comm, const char *words,
    int self)
{
	static char		 buf[256];
	struct target_facts	 f;
	struct target_labels	*l;
	char			 argv[512];
	size_t			 i;

	memset(&f, 0, sizeof(f));
	f.pid = 4242;
	f.comm = comm;
	f.self = self;
	if (words != NULL) {
		f.argvlen = strlen(words) + 1;
		for (i = 0; i < f.argvlen; i++)
			argv[i] = words[i] == '|' ? '\0' : words[i];
		f.argv = argv;
	}
	if ((l = target_labels(conf, &f)) == NULL)
		return "(none)";
	snprintf(buf, sizeof(buf), "%s%s", l->service,
	    l->source == TARGET_SOURCE_NONE ? " (parent)" : "");
	target_labels_free(l);
	return buf;
}

/* comm, command line words, the name, what it shows. */
static const struct {
	const char	*comm, *words, *want, *what;
} cases[] = {
	{ "burn", "./burn|-t|2",
	    "burn", "a program: its comm" },
	{ "burn", NULL,
	    "burn", "no command line: its comm" },
	{ "sh", "sh|./deploy.sh|prod",
	    "deploy", "a shell script: its base name without extension" },
	{ "bash", "/bin/bash|-e|-o|pipefail|/srv/job/run.sh",
	    "run", "shell options and -o's value are skipped" },
	{ "sh", "sh|-c|FOO=1 exec ./p4102 -x; true",
	    "p4102", "-c: the first word past assignments and exec" },
	{ "dash", "dash|-ec| make -j2 | tee log",
	    "make", "-c within combined options" },
	{ "bash", "-bash",
	    "bash", "a login shell without script: itself, no dash" },
	{ "-bash", "-bash",
	    "bash", "a '-' comm loses it" },
	{ "zsh", "zsh|-",
	    "zsh", "standard input: itself" },
	{ "sh", "sh|-c|;;",
	    "sh", "an empty -c command: itself" },
	{ "sh", "sh|-c|i=0; while test $i -lt 9; do i=$((i+1)); done",
	    "sh", "-c with a reserved word first: itself" },
	{ "bash", "bash|-c|cd /srv && ./server",
	    "bash", "-c with a builtin first: itself" },
	{ "sh", "sh|-c|2>&1 >log ./w4110 -t 1",
	    "w4110", "-c: redirections are no command" },
	{ "sh", "sh|-c|./w4110>w.out",
	    "w4110", "-c: a program written against its redirection" },
	{ "bash", "bash|/dev/fd/3",
	    "bash", "a script read from a descriptor: itself" },
	{ "p4101", "./p4101|-c|./s4101",
	    "p4101", "a shell under another name is no shell" },
	{ "python3", "python3|-u|/srv/mock_server.py|--port|80",
	    "mock_server", "python: its script" },
	{ "python3.11", "python3.11|-X|dev|-m|http.server",
	    "http.server", "python -m: its module, -X's value skipped" },
	{ "python3", "python3|-c|print(1)|x.py",
	    "python3", "python -c: itself" },
	{ "python3", "python3",
	    "python3", "a REPL: itself" },
	{ "node", "node|--require|ts-node/register|proxy.js",
	    "proxy", "node: its script past --require's value" },
	{ "node", "node|-e|1",
	    "node", "node -e: itself" },
	{ "java", "java|-Xmx1g|-cp|a.jar:b.jar|com.example.Main",
	    "com.example.Main", "java: its main class, -cp's value skipped" },
	{ "java", "java|-jar|/opt/app/shop-1.2.jar",
	    "shop-1.2", "java -jar: the jar's base name" },
	{ "java", "java|-m|app.core/app.Main",
	    "app.core", "java -m: the module" },
	{ "ruby", "ruby|-I|lib|-E|utf-8|bin/worker",
	    "worker", "ruby: its script past -I's and -E's values" },
	{ "perl", "perl|-e|1",
	    "perl", "perl -e: itself" },
	{ "python3", "python3|/x/.hidden.py",
	    "_hidden", "a leading dot is no hidden directory" },
	{ "memfd:sealed-91", NULL,
	    "(parent)", "a memfd program belongs to its parent" },
	{ "sleep", "sleep|100",
	    "(parent)", "sleep belongs to its parent" },
	{ "timeout", "timeout|5|./x",
	    "(parent)", "timeout belongs to its parent" },
};

int
main(void)
{
	struct config	*conf;
	char		 buf[256], big[200];
	size_t		 i;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		is_str(name_of(cases[i].comm, cases[i].words), cases[i].want,
		    "%s", cases[i].what);

	/* Cleaning. */
	is_str(name_of("kworker/0:1H", NULL), "kworker_0_1H",
	    "'/' and ':' become '_'");
	is_str(name_of("a\tb c", NULL), "a_b_c", "control and space");
	is_str(name_of("python3", "python3|a:b\x01.py"), "a_b_",
	    "a script's name is cleaned too");
	memset(big, 'x', sizeof(big) - 4);
	memcpy(big + sizeof(big) - 4, ".py", 4);
	snprintf(buf, sizeof(buf), "python3|%s", big);
	is_int(strlen(name_of("python3", buf)), TARGET_NAME_MAX,
	    "a long name is cut at TARGET_NAME_MAX");
	is_str(name_of("python3", "python3|.."), "_",
	    "'..' is no directory");
	/* A command line cut in the middle of a word: the word is left. */
	ok(target_name_derive("python3", "python3\0abc", 11, buf,
	    sizeof(buf)) == 0 && strcmp(buf, "python3") == 0,
	    "a last word without its NUL is not read");
	ok(target_name_wants_argv("bash") && target_name_wants_argv("node") &&
	    target_name_wants_argv("python3.12") &&
	    !target_name_wants_argv("burn"),
	    "the command line is read for shells and interpreters only");

	/* Through target_labels: the default target. */
	conf = config_defaults();
	is_str(service_of(conf, "python3", "python3|mock.py", 0), "mock",
	    "the default target names an interpreter by its script");
	is_str(service_of(conf, "sleep", "sleep|1", 0), "unknown (parent)",
	    "a helper: no name of its own");
	is_str(service_of(conf, "ebpfspyd", "ebpfspyd|-d", 1), "ebpfspyd",
	    "the daemon itself");
	is_str(service_of(conf, "[12]", NULL, 0), "unknown (parent)",
	    "an unread comm: still none");
	config_free(conf);

	return done_testing();
}
