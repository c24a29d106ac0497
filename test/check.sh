#!/usr/bin/env bash
# make check: every test, in order of cost. Unit tests (CUnit), the same under
# ASan/UBSan, cppcheck, then the integration scenarios against real mariadbd
# servers, some of them again with the program built with ASan/UBSan, the
# fault campaign (test/faults/), and
# MariaDB's own mariabackup test suite run against our binary. Prints a final "check: N passed, N failed" line over all stages.
set -u
cd "$(dirname "$0")/.."
total_pass=0 total_fail=0 status=0
stage() {
  local name=$1; shift
  echo "=== $name"
  local log; log=$(mktemp)
  "$@" 2>&1 | tee "$log"
  local rc=${PIPESTATUS[0]}
  local line; line=$(grep -E '[0-9]+ passed, [0-9]+ failed' "$log" | tail -1)
  local p f
  p=$(sed -E 's/.* ([0-9]+) passed.*/\1/' <<<"$line"); f=$(sed -E 's/.* ([0-9]+) failed.*/\1/' <<<"$line")
  [ -n "$line" ] || { p=0; f=1; }
  [ "$rc" -ne 0 ] && [ "${f:-0}" -eq 0 ] && f=1
  total_pass=$((total_pass+p)); total_fail=$((total_fail+f))
  [ "$rc" -eq 0 ] || status=1
  rm -f "$log"
}
stage "unit tests" make --no-print-directory check-unit
stage "unit tests under ASan/UBSan" make --no-print-directory check-asan
stage "fuzzing the redo parser and applier, and the xbstream reader" make --no-print-directory check-fuzz
stage "cppcheck" make --no-print-directory check-lint
stage "documentation" test/check-docs.sh
stage "integration tests" make --no-print-directory check-integration
stage "integration tests, program under ASan/UBSan" make --no-print-directory check-asan-integration
stage "fault campaign (signals, kill -9, locks, a dying server, full disks, damaged backups, secrets)" make --no-print-directory check-faults
stage "MariaDB's mariabackup test suite (suite/mariabackup), our binary as mariabackup" make --no-print-directory check-mtr
echo "check: $total_pass passed, $total_fail failed"
exit $status
