#!/bin/sh
# run.sh - the end-to-end protocol tests (tests/proto/test_*.py) against the
# built daemon.  `make check` runs it with CARCD (the daemon), CARCCTL and
# PYTHON3 set in AM_TESTS_ENVIRONMENT; by hand, from the build directory:
#
#   tests/proto/run.sh                      # every test, modules side by side
#   tests/proto/run.sh test_malformed       # one module (or module.Class.test)
#
# With no names, runall.py runs each module in a process of its own,
# CARC_TEST_JOBS at once (default: one a processor), and prints the totals
# as one unittest run would.
#
# It exits non-zero when any test fails or errs, and 99 (automake's "hard
# error", never a skip) when something the tests need is missing: python3's
# msgpack or websockets module, stunnel or openssl.
here=$(cd "$(dirname "$0")" && pwd)
: "${CARCD:=$(pwd)/daemon/carcd}"
: "${PYTHON3:=/usr/bin/python3}"
PYTHONDONTWRITEBYTECODE=1
export CARCD PYTHON3 PYTHONDONTWRITEBYTECODE

if [ ! -x "$CARCD" ]; then
	echo "run.sh: no daemon at $CARCD (build it first, or set CARCD)" >&2
	exit 99
fi
if ! "$PYTHON3" -c 'import msgpack' 2>/dev/null; then
	echo "run.sh: $PYTHON3 cannot import msgpack (apt-get install python3-msgpack)" >&2
	exit 99
fi

if ! "$PYTHON3" -c 'import websockets' 2>/dev/null; then
	# an independent WebSocket client for test_websocket: a hard failure, not a skip
	echo "run.sh: $PYTHON3 cannot import websockets (apt-get install python3-websockets)" >&2
	exit 99
fi

# the TLS proxy of test_tls_proxy (proto/PROTOCOL.md section 6): also a hard failure
for p in "${STUNNEL:-stunnel4}" openssl; do
	if ! command -v "$p" >/dev/null; then
		echo "run.sh: no $p (apt-get install stunnel4 openssl)" >&2
		exit 99
	fi
done

cd "$here" || exit 99
if [ $# -eq 0 ]; then
	exec "$PYTHON3" runall.py
fi
exec "$PYTHON3" -m unittest -v "$@"
