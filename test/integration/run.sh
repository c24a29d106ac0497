#!/usr/bin/env bash
# run.sh - run the integration scenarios under test/integration/t/.
#
# usage: test/integration/run.sh [name|name.sh|path ...]   (default: every t/*.sh)
#
# Builds build/xb_load when needed, then runs each scenario in its own process
# group under a time limit (TEST_TIMEOUT seconds, default 300; on expiry the whole
# group, servers included, gets SIGTERM and then SIGKILL). A scenario's output goes
# to build/test-results/<name>.log (TEST_RESULTS overrides the directory), whose
# tail is printed when it fails; the tool's and the servers' logs of a failed
# scenario are kept in <name>.files/. Prints one line per scenario (PASS/FAIL/SKIP
# and seconds) and finally exactly one line "integration: N passed, N failed,
# N skipped"; exits 1 if any failed. Exit code 77 is a skip, never a pass; with
# NO_SKIP=1 (make check: every scenario must run against our tool on a machine
# `make deps` set up) a skip fails the run too. XB selects the tool under test
# (XB=mariabackup runs the scenarios against the installed oracle, where some
# scenarios skip by design). SUITE names the suite in the summary line
# (test/faults/run.sh runs the fault campaign through this runner).
set -u -o pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
RESULTS=${TEST_RESULTS:-$TOP/build/test-results}
TEST_TIMEOUT=${TEST_TIMEOUT:-300}
mkdir -p "$RESULTS"

XB_LOAD=${XB_LOAD:-$TOP/build/xb_load}
src=$TOP/test/tools/xb_load.c
if [[ ! -x $XB_LOAD || $src -nt $XB_LOAD ]]; then
    # shellcheck disable=SC2046
    if ! gcc -O2 -Wall -o "$XB_LOAD.tmp.$$" "$src" $(pkg-config --cflags --libs libmariadb) -lpthread \
            || ! mv -f "$XB_LOAD.tmp.$$" "$XB_LOAD"; then
        rm -f "$XB_LOAD.tmp.$$"
        echo "run.sh: building $XB_LOAD failed" >&2
        echo "${SUITE:-integration}: 0 passed, 1 failed, 0 skipped"
        exit 1
    fi
fi
export XB_LOAD

tests=()
if [[ $# -eq 0 ]]; then
    shopt -s nullglob
    tests=("$TOP"/test/integration/t/*.sh)
else
    for a in "$@"; do
        if [[ -f $a ]]; then tests+=("$(cd "$(dirname "$a")" && pwd)/$(basename "$a")")
        elif [[ -f $TOP/test/integration/t/$a ]]; then tests+=("$TOP/test/integration/t/$a")
        elif [[ -f $TOP/test/integration/t/$a.sh ]]; then tests+=("$TOP/test/integration/t/$a.sh")
        else echo "run.sh: no such scenario: $a" >&2; exit 2
        fi
    done
fi

passed=0 failed=0 skipped=0
for t in "${tests[@]}"; do
    name=$(basename "$t" .sh)
    logf=$RESULTS/$name.log
    start=$(date +%s)
    # timeout makes itself a process group leader and signals the whole group on
    # expiry, so mariadbd servers started by the scenario go too.
    rm -rf "$RESULTS/$name.files"
    TEST_ARTIFACTS=$RESULTS/$name.files \
        timeout --kill-after=20 "$TEST_TIMEOUT" bash "$t" > "$logf" 2>&1 < /dev/null
    rc=$?
    secs=$(( $(date +%s) - start ))
    case $rc in
        0)  passed=$((passed + 1)); printf 'PASS  %-28s %4ds\n' "$name" "$secs" ;;
        77) skipped=$((skipped + 1))
            printf 'SKIP  %-28s %4ds  %s\n' "$name" "$secs" "$(grep -m1 '^SKIP:' "$logf" | cut -c7-)" ;;
        *)  failed=$((failed + 1))
            why="exit code $rc"
            [[ $rc -eq 124 || $rc -eq 137 ]] && why="timed out after ${TEST_TIMEOUT}s"
            printf 'FAIL  %-28s %4ds  (%s; log: %s)\n' "$name" "$secs" "$why" "${logf#"$TOP"/}"
            tail -n 40 "$logf" | sed 's/^/    | /' ;;
    esac
done

if [[ ${NO_SKIP:-0} == 1 && $skipped -gt 0 ]]; then
    echo "${SUITE:-integration}: $skipped scenario(s) skipped where all must run (NO_SKIP=1): something the machine lacks (make deps)"
    failed=$((failed + skipped)); skipped=0
fi
echo "${SUITE:-integration}: $passed passed, $failed failed, $skipped skipped"
[[ $failed -eq 0 ]]
