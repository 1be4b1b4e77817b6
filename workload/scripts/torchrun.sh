#!/usr/bin/env bash
# torchrun through the Python 3.11 fix when the interpreter needs it.
# PYTHON picks the interpreter that has torch (Debian's /usr/bin/python3 by default).
set -euo pipefail
here=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
python=${PYTHON:-/usr/bin/python3}
exec "$python" "$here/torchrun_py311.py" "$@"
