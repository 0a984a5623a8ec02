#!/bin/sh
# run.sh - the browser tests (tests/web/test_*.py): contrib/web in headless
# Chromium against the built daemon.  By hand, from the build directory:
#
#   tests/web/run.sh                        # every test module
#   tests/web/run.sh test_client            # one module (or module.Class.test)
#
# CARCD is the daemon (default ./daemon/carcd), PYTHON3 the python with
# python3-websockets and python3-msgpack (default /usr/bin/python3), CHROMIUM
# the browser (default /usr/bin/chromium).  A missing Chromium or
# python3-websockets is a hard failure (exit 99), never a skip: these tests
# are the only ones of the web client.  It exits non-zero when any test
# fails or errs.
here=$(cd "$(dirname "$0")" && pwd)
: "${CARCD:=$(pwd)/daemon/carcd}"
: "${PYTHON3:=/usr/bin/python3}"
: "${CHROMIUM:=/usr/bin/chromium}"
PYTHONDONTWRITEBYTECODE=1
export CARCD PYTHON3 CHROMIUM PYTHONDONTWRITEBYTECODE

if [ ! -x "$CARCD" ]; then
	echo "run.sh: no daemon at $CARCD (build it first, or set CARCD)" >&2
	exit 99
fi
if [ ! -x "$CHROMIUM" ]; then
	echo "run.sh: no Chromium at $CHROMIUM (apt-get install chromium, or set CHROMIUM)" >&2
	exit 99
fi
if ! "$PYTHON3" -c 'import websockets' 2>/dev/null; then
	echo "run.sh: $PYTHON3 cannot import websockets (apt-get install python3-websockets)" >&2
	exit 99
fi
if ! "$PYTHON3" -c 'import msgpack' 2>/dev/null; then
	echo "run.sh: $PYTHON3 cannot import msgpack (apt-get install python3-msgpack)" >&2
	exit 99
fi

cd "$here" || exit 99
if [ $# -eq 0 ]; then
	for f in test_*.py; do
		set -- "$@" "${f%.py}"
	done
fi
exec "$PYTHON3" -m unittest -v "$@"
