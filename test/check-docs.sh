#!/usr/bin/env bash
# check-docs.sh - the README's exit-code table matches src/common/error.def, the man
# page generated from the option table lists every option, and the README starts
# with the two commands, every fault point is in doc/faults.md, no source file cites a document outside the repository,
# and every doc/FILE.md §N the code cites exists. Prints "docs: N passed, N failed".
set -u
cd "$(dirname "$0")/.."
pass=0 fail=0
ok()  { pass=$((pass+1)); }
bad() { echo "FAIL: $*"; fail=$((fail+1)); }
while IFS='|' read -r code desc; do
  if grep -qF "| $code | $desc |" README.md; then ok; else bad "README lacks exit code $code ($desc)"; fi
done < <(sed -n 's/^XB_ERROR([A-Z_]*, *\([0-9]*\), *"\(.*\)")$/\1|\2/p' src/common/error.def)
head -5 README.md | grep -q 'make demo' && ok || bad "README does not start with make demo"
head -5 README.md | grep -q 'make check' && ok || bad "README does not start with make check"
man=$(build/xtrabackup --man 2>/dev/null)
while read -r name; do
  esc=${name//-/\\-}
  grep -qF -- "\\-\\-$esc" <<<"$man" && ok || bad "man page lacks --$name"
done < <(sed -n 's/^XB_OPT([A-Z_0-9]*, *"\([a-z0-9-]*\)".*/\1/p' src/config/options.def)
# Every fault-injection point is documented in doc/faults.md.
while read -r name; do
  grep -qF -- "| \`$name\` |" doc/faults.md && ok || bad "doc/faults.md lacks the fault point $name"
done < <(sed -n 's/^XB_FAULT_POINT([A-Z_]*, *"\([a-z-]*\)".*/\1/p' src/common/fault.def)
# The README's table of mariabackup's options is the one the script makes now.
if command -v mariabackup >/dev/null; then
  want=$(test/tools/option-table.sh)
  have=$(sed -n '/^<!-- option-table begin -->$/,/^<!-- option-table end -->$/p' README.md | sed '1d;$d')
  [ "$want" = "$have" ] && ok || bad "README's mariabackup option table is stale: run test/tools/option-table.sh --readme"
else
  bad "mariabackup is not installed (make deps): cannot check the README's option table"
fi
# The project stands alone: no citation of a document outside the repository,
# and every "doc/FILE.md §N" the code cites names a section that exists.
if grep -rnE -i '\bspec (sections? )?[0-9]' src engine-hooks test bench Makefile >/dev/null 2>&1; then
  bad "a source file cites the outside spec: $(grep -rnE -i '\bspec (sections? )?[0-9]' src engine-hooks test bench Makefile | head -3 | tr '\n' ' ')"
else ok; fi
while IFS= read -r cite; do
  file=${cite%% *}; sec=${cite##*§}
  if [ ! -f "$file" ]; then bad "cited $file does not exist"; continue; fi
  grep -qE "^#+ ${sec//./\\.}[. ]" "$file" && ok || bad "$file has no section $sec (cited in the code)"
done < <(grep -rhoE 'doc/[a-z-]+\.md §[0-9]+(\.[0-9]+)?' src engine-hooks test | sort -u)
echo "docs: $pass passed, $fail failed"
[ "$fail" -eq 0 ]
