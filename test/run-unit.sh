#!/usr/bin/env bash
# Run every CUnit test executable given as arguments; print one line per
# executable and a final "unit: N passed, N failed" line counting CUnit tests
# (asserts failing inside a test count that test as failed). Exit non-zero on
# any failure or on an executable that crashed.
set -u
passed=0 failed=0 crashed=0
for t in "$@"; do
  name=$(basename "$t")
  out=$("$t" 2>&1); rc=$?
  # CUnit's summary: "tests  N  N  N  N  n/a" = Total Ran Passed Failed Inactive
  line=$(printf '%s\n' "$out" | awk '$1=="tests"{print $3, $4, $5}' | tail -1)
  read -r ran ok bad <<<"${line:-0 0 0}"
  if [ "$rc" -ne 0 ] || [ -z "$line" ]; then
    if [ "${bad:-0}" -eq 0 ]; then crashed=$((crashed+1)); bad=1; fi
    printf '%s\n' "$out" | tail -40
    echo "FAIL $name (exit $rc): $ok passed, $bad failed"
  else
    echo "ok   $name: $ok passed"
  fi
  passed=$((passed+ok)); failed=$((failed+bad))
done
echo "unit: $passed passed, $failed failed"
[ "$failed" -eq 0 ] && [ "$crashed" -eq 0 ]
