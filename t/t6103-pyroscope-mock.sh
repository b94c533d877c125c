#!/bin/sh
test_description='the mock Pyroscope server answers as the server does

t/helper/mock_cases.py sends requests whose answers Grafana Pyroscope'"'"'s
source decides (the mock names the file of each rule): status codes of
the Push API and of /ingest, the labelset parser, validation limits,
partial ingestion of a request of several series, and what /ingest
stores (series name guessed from the sample type, service with no
suffix stripped).  The other t61xx tests trust this mock.'
. "$(dirname "$0")/test-lib.sh"
. "$EBPFSPY_SOURCE_DIR/t/lib-pyroscope.sh"

if ! test_have_prereq PYTHON3; then
	skip_all='python3 is needed for the mock server'
	test_done
fi

test_expect_success 'start the mock' '
	mock_start
'

test_expect_success 'every case gets the server'"'"'s answer' '
	python3 "$EBPFSPY_SOURCE_DIR/t/helper/mock_cases.py" "$MOCK_URL" \
	    mock.rec >cases &&
	cat cases &&
	! grep FAIL cases &&
	test "$(grep -c "^ok " cases)" -ge 25
'

test_expect_success 'the labelset parser, as the server'"'"'s own tests' '
	PYTHONPATH="$EBPFSPY_SOURCE_DIR/t/helper" python3 -c "
import mock_pyroscope as m
# api/model/labelset/labelset_test.go TestParseLabelSet
assert m.labelset_parse(\"foo\") == {\"__name__\": \"foo\"}
assert m.labelset_parse(\"foo{bar=1,baz=2}\") == \\
    {\"__name__\": \"foo\", \"bar\": \"1\", \"baz\": \"2\"}
assert m.labelset_parse(\" foo { bar = 1 , baz = 2 } \") == \\
    {\"__name__\": \"foo\", \"bar\": \"1\", \"baz\": \"2\"}
# a value runs to , or }; = and { are in it; a repeated key: the last
assert m.labelset_parse(\"a{k=x=y{,k=z}\") == {\"__name__\": \"a\", \"k\": \"z\"}
for bad in (\"\", \"a b\", \"a{k-1=v}\", \"a{=v}\", \"a:b{}\"):
    try:
        m.labelset_parse(bad)
    except m.Reject as e:
        assert e.status == 400, (bad, e.status)
    else:
        raise AssertionError(bad)
"
'

test_expect_success 'stop the mock' '
	mock_stop
'

test_done
