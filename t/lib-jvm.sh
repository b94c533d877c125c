# lib-jvm.sh: the JDKs the t711x tests run.  Source it after test-lib.sh.
#
# JDKs are Debian's openjdk-17 ("jdk17") and the Temurin 25 these
# machines carry ("jdk25") under /usr/lib/jvm, or those $EBPFSPY_JDK17
# and $EBPFSPY_JDK25 name.  Each one found sets its prerequisite (JDK17,
# JDK25) and JAVA.
#
#   JDKS			the names of those found, "jdk17 jdk25"
#   jdk_home NAME		its directory
#   jvm_compile NAME DIR	javac t/helper/JvmWork.java, JvmWait.java and
#				JvmInline.java into DIR
#   jvm_start NAME DIR ARGS...	java -cp DIR ARGS in the background;
#				waits for its "ready" line; JVM_PID is set
#				and it is killed when the test ends, its
#				perf map removed

JDKS=

jdk_home () {
	case $1 in
	jdk17) echo "${EBPFSPY_JDK17:-/usr/lib/jvm/java-17-openjdk-amd64}" ;;
	jdk25) echo "${EBPFSPY_JDK25:-/usr/lib/jvm/temurin-25-jdk-amd64}" ;;
	esac
}

for jdk_ in jdk17 jdk25; do
	if test -x "$(jdk_home $jdk_)/bin/javac"; then
		JDKS="$JDKS $jdk_"
		test_set_prereq "$(echo $jdk_ | tr a-z A-Z)"
		test_set_prereq JAVA
	fi
done

jvm_compile () {
	mkdir -p "$2" &&
	"$(jdk_home $1)/bin/javac" -d "$2" \
	    "$EBPFSPY_SOURCE_DIR/t/helper/JvmWork.java" \
	    "$EBPFSPY_SOURCE_DIR/t/helper/JvmWait.java" \
	    "$EBPFSPY_SOURCE_DIR/t/helper/JvmInline.java"
}

jvm_start () {
	jvm_home_=$(jdk_home $1) &&
	jvm_dir_=$2 &&
	shift 2 &&
	# Emptied here: the child truncates it only once it runs, and the
	# last JVM's "ready" would let a reader at a JVM still starting.
	: >jvm.out &&
	{ "$jvm_home_/bin/java" -cp "$jvm_dir_" "$@" >jvm.out 2>&1 & } &&
	JVM_PID=$! &&
	test_when_finished "kill $JVM_PID; wait $JVM_PID;
	    rm -f /tmp/perf-$JVM_PID.map; :" &&
	jvm_n_=0 &&
	while ! grep -q '^ready' jvm.out 2>/dev/null; do
		kill -0 $JVM_PID 2>/dev/null || {
			cat >&2 jvm.out; return 1; }
		jvm_n_=$((jvm_n_ + 1))
		test $jvm_n_ -lt 1200 || {
			echo >&2 "the JVM is not ready"; return 1; }
		sleep 0.05
	done
}
