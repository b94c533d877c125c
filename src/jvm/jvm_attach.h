#ifndef EBPFSPY_JVM_ATTACH_H
#define EBPFSPY_JVM_ATTACH_H

#include <sys/types.h>

#include <stddef.h>

/*
 * Run a jcmd command in a JVM by HotSpot's attach protocol, as jcmd
 * does ("Compiler.perfmap" writes /tmp/perf-PID.map): 0 and its reply
 * (after the status line, NUL-terminated, cut to len) when the JVM
 * answered 0; -1 otherwise.  Waits at most timeout_ms for the JVM to
 * open its socket.  Only for a process known to run HotSpot: the
 * protocol begins with a SIGQUIT, which would end another program.
 */
int	 jvm_attach_jcmd(pid_t, const char *, char *, size_t, int);

#endif
