# lib-python.sh: the CPython interpreters the t7xxx tests run.  Source it
# after test-lib.sh, lib-daemon.sh and lib-profile.sh.
#
# Interpreters are Debian's /usr/bin/python3 ("deb") and pyenv's newest
# 3.8 to 3.13 ("py38" .. "py313") under $PYENV_ROOT, `pyenv root',
# ~/.pyenv or /root/.pyenv.  Each one found sets the prerequisite of its upper-case name
# (DEB, PY38, ..., PY313); a test of an interpreter that is not installed
# is skipped -- except that with EBPFSPY_REQUIRE_BPF=1 (CI) Debian's and
# pyenv's 3.11 to 3.13 must be there (python_require_ci).
#
#   PYTHONS			the names of those found, "deb py38 ..."
#   python_path NAME		the interpreter's path
#   python_link NAME PREFIX	a symlink ./PREFIX-NAME to it: the comm,
#				and so the service, of what it runs
#   pywork_line MARK		the line of pywork.py marked "# @MARK"

PYWORK=$EBPFSPY_SOURCE_DIR/t/helper/pywork.py
PYTHONS=
PYTHON_ALL="deb py38 py39 py310 py311 py312 py313"
PYTHON_CI="deb py311 py312 py313"

python_pyenv_root_ () {
	if test -n "${PYENV_ROOT-}"; then
		echo "$PYENV_ROOT"
	elif pyenv root 2>/dev/null; then
		:
	elif test -d "${HOME-}/.pyenv"; then
		echo "$HOME/.pyenv"
	else
		echo /root/.pyenv
	fi
}

# The newest installed 3.MINOR.*, as sort -V orders them.
python_find_ () {
	case $1 in
	deb)
		test -x /usr/bin/python3 && echo /usr/bin/python3 ;;
	py3*)
		m=${1#py3}
		d=$(ls -d "$(python_pyenv_root_)"/versions/3."$m".* \
		    2>/dev/null | grep -E "/3\.$m\.[0-9]+\$" | sort -V |
		    tail -1) &&
		test -n "$d" && test -x "$d/bin/python3.$m" &&
		echo "$d/bin/python3.$m" ;;
	esac
}

for python_n_ in $PYTHON_ALL; do
	python_p_=$(python_find_ "$python_n_") || continue
	test -n "$python_p_" || continue
	eval "python_path_$python_n_=\$python_p_"
	PYTHONS="$PYTHONS${PYTHONS:+ }$python_n_"
	test_set_prereq "$(echo "$python_n_" | tr a-z A-Z)"
done
unset python_n_ python_p_

python_path () {
	eval "echo \"\${python_path_$1-}\""
}

python_link () {
	ln -sf "$(python_path "$1")" "./$2-$1"
}

pywork_line () {
	grep -n "# @$1\$" "$PYWORK" | cut -d: -f1
}

# CI must not pass by skipping the interpreters it is meant to cover.
python_require_ci () {
	test_expect_success "interpreters: $PYTHONS" '
		missing= &&
		for n in $PYTHON_CI; do
			case " $PYTHONS " in
			*" $n "*) ;;
			*) missing="$missing $n" ;;
			esac
		done &&
		if test -n "$missing"; then
			echo "missing:$missing" &&
			test "${EBPFSPY_REQUIRE_BPF-}" != 1
		fi
	'
}
