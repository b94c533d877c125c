# lib-rusage.sh: what a command costs.  Source it after test-lib.sh.
#
#   rusage CMD...	CMD, bounded to 60 s, then on a last line of its
#			own its peak RSS in kB and its CPU time in ms

rusage () {
	python3 -c 'import resource, subprocess, sys
subprocess.run(["timeout", "60"] + sys.argv[1:])
r = resource.getrusage(resource.RUSAGE_CHILDREN)
print(r.ru_maxrss, int((r.ru_utime + r.ru_stime) * 1000))' "$@"
}
