#!/usr/bin/env bash
# run.sh - the fault campaign: the scenarios under test/faults/t/, each a way a
# backup, a prepare or a restore can be hurt (a signal or kill -9 at a named
# point, a held lock, the server killed, a full disk, a damaged backup, a
# secret on the command line) and what the tool must do then: the exit
# status, the message, nothing that looks complete when it is not, and a
# rerun that succeeds once the fault is gone.
#
# usage: test/faults/run.sh [name ...]   (default: every t/*.sh)
#
# The scenarios use the integration helpers (test/integration/inc/common.sh)
# and run through the integration runner (time limit, logs in
# build/test-results/, NO_SKIP); the tool is stopped at the points of
# src/common/fault.def through the XB_FAULT environment variable
# (doc/faults.md). Prints "faults: N passed, N failed, N skipped".
set -u
TOP=$(cd "$(dirname "$0")/../.." && pwd)
args=()
if [[ $# -eq 0 ]]; then
    shopt -s nullglob
    args=("$TOP"/test/faults/t/*.sh)
else
    for a in "$@"; do
        a=${a%.sh}
        [[ -f $TOP/test/faults/t/$a.sh ]] || { echo "run.sh: no such fault scenario: $a" >&2; exit 2; }
        args+=("$TOP/test/faults/t/$a.sh")
    done
fi
if [[ ${#args[@]} -eq 0 ]]; then echo "faults: 0 passed, 1 failed, 0 skipped (no scenario under test/faults/t/)"; exit 1; fi
SUITE=faults exec "$TOP/test/integration/run.sh" "${args[@]}"
