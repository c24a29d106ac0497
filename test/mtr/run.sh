#!/usr/bin/env bash
# run.sh - run MariaDB's own mariabackup test suite (suite/mariabackup from the
# mariadb-test package) against our binary standing in for mariabackup.
#
# usage: test/mtr/run.sh [--oracle] [test ...]
#   (default: the whole suite; --oracle runs the installed mariabackup instead,
#   to see what the suite does with the tool it was written for)
#
# How it works. mariadb-test-run.pl always takes mariabackup, mariadb-backup and
# mbstream from its --client-bindir, so we build a directory of symlinks to
# /usr/bin/* in which those three names point at a copy of build/xtrabackup.
# MTR writes into the tree it runs from, so the test tree is copied into a work
# directory under /tmp (world-traversable, unlike most checkouts' parents). As
# root, tests that rely on file permissions (chmod 0000 does not stop root)
# cannot pass, so MTR runs as the unprivileged system user xbmtr (created when
# missing). The manager can die (SIGPIPE after a worker vanished); tests it
# never reported are run again in a second pass. A test stuck longer than
# MTR_TESTCASE_TIMEOUT minutes (default 10) is killed by MTR and fails.
#
# Results: build/mtr/results.txt holds one line per test instance (name,
# result, seconds, first error line), then "mtr: N passed, N failed, N pending,
# N skipped". A test that fails is a failure of the run unless it is listed in
# test/mtr/pending.txt (with the issue that will make it pass); a listed test
# that passes is a failure too (take it off the list). A test listed in
# test/mtr/differs.txt checks a limitation or a log text of mariabackup that we
# deliberately do not share (each with the reason); it is reported as
# "differs", never as a pass, and fails the run if it starts to pass. A test that skips must be
# listed in test/mtr/skipped.txt with the reason it skips whatever the tool;
# any other skip fails the run. Exit status 0 only when nothing failed.
set -u -o pipefail

TOP=$(cd "$(dirname "$0")/../.." && pwd)
SRC_TREE=${MTR_SRC_TREE:-/usr/share/mysql/mysql-test}
OUT=${MTR_RESULTS:-$TOP/build/mtr}
PARALLEL=${MTR_PARALLEL:-2}
PORT_BASE=${MTR_PORT_BASE:-16000}
TC_TIMEOUT=${MTR_TESTCASE_TIMEOUT:-10}
RUN_USER=${MTR_USER:-xbmtr}
oracle=0
if [[ ${1:-} == --oracle ]]; then oracle=1; shift; fi

die() { echo "mtr: $*" >&2; echo "mtr: 0 passed, 1 failed, 0 pending, 0 skipped"; exit 1; }

[[ -f $SRC_TREE/mariadb-test-run.pl ]] || die "$SRC_TREE/mariadb-test-run.pl not found: install mariadb-test (make deps)"
[[ -d $SRC_TREE/suite/mariabackup ]] || die "$SRC_TREE/suite/mariabackup not found: install mariadb-test (make deps)"
if [[ $oracle -eq 1 ]]; then
    TOOL=$(command -v mariabackup) || die "mariabackup not installed"
else
    TOOL=${XB:-$TOP/build/xtrabackup}
    [[ -x $TOOL ]] || die "$TOOL not built: run make"
fi

mkdir -p "$OUT"
W=$(mktemp -d /tmp/xb-mtr.XXXXXX) || die "cannot create a work directory under /tmp"
chmod 755 "$W"
trap 'rm -rf "$W"' EXIT
# Layout, as MTR's install-layout logic expects of a base directory:
# $W/mysql-test (the copied tree), $W/bin (clients), $W/sbin, $W/lib and
# $W/share/mysql pointing at the installed server's.
mkdir -p "$W/share/mysql" "$W/bin" "$W/libexec"
cp -a "$SRC_TREE" "$W/mysql-test" || die "copying $SRC_TREE failed"
for f in /usr/share/mysql/*; do
    [[ $(basename "$f") == mysql-test ]] || ln -s "$f" "$W/share/mysql/$(basename "$f")"
done
ln -s /usr/sbin "$W/sbin"; ln -s /usr/lib "$W/lib"
for f in /usr/bin/*; do ln -s "$f" "$W/bin/$(basename "$f")"; done
if [[ $oracle -eq 0 ]]; then
    cp "$TOOL" "$W/libexec/xtrabackup"
    for n in mariabackup mariadb-backup mbstream; do ln -sf ../libexec/xtrabackup "$W/bin/$n"; done
fi

as_user=()
if [[ $(id -u) -eq 0 ]]; then
    if ! id "$RUN_USER" >/dev/null 2>&1; then
        useradd --system --no-create-home --shell /usr/sbin/nologin "$RUN_USER" \
            || die "cannot create the system user $RUN_USER"
    fi
    chown -R "$RUN_USER" "$W"
    as_user=(runuser -u "$RUN_USER" --)
fi

mtr_args=(--suite=mariabackup --parallel="$PARALLEL" --port-base="$PORT_BASE"
          --client-bindir="$W/bin" --vardir="$W/var" --force --max-test-fail=0
          --retry=1 --retry-failure=0 --testcase-timeout="$TC_TIMEOUT" --report-times
          --nowarnings --suite-timeout=600)

run_mtr() {   # run_mtr LOG [test ...]
    local log=$1; shift
    (cd "$W/mysql-test" && \
        "${as_user[@]}" env HOME="$W" PATH="$W/bin:/usr/sbin:/usr/bin:/bin" \
        perl ./mariadb-test-run.pl "${mtr_args[@]}" "$@") >"$log" 2>&1
}

start=$(date +%s)
log1=$OUT/mtr-pass1.log
echo "mtr: running suite/mariabackup with $([[ $oracle -eq 1 ]] && echo mariabackup || echo "$TOOL") (log: $log1)"
run_mtr "$log1" "$@"

# Parse results: "mariabackup.NAME 'comb' w1 [ pass ] 1234" (times in ms).
parse() {
    sed -nE 's/^(mariabackup\.[^ ]+( '"'"'[^'"'"']*'"'"')?) +(w[0-9]+ )?\[ (pass|fail|skipped|disabled) \] *(.*)$/\1|\4|\5/p' "$@"
}
parse "$log1" >"$OUT/raw.txt"
# Tests MTR never reported on: run them again (a dead manager).
mapfile -t expected < <(cd "$W/mysql-test/suite/mariabackup" && \
    if [[ $# -gt 0 ]]; then printf '%s\n' "$@" | sed 's/^mariabackup\.//'; else ls ./*.test | sed 's|^\./||; s/\.test$//'; fi)
missing=()
for t in "${expected[@]}"; do
    grep -q "^mariabackup\.$t[ |]" "$OUT/raw.txt" || missing+=("$t")
done
if [[ ${#missing[@]} -gt 0 ]]; then
    echo "mtr: ${#missing[@]} tests were never reported; running them again"
    run_mtr "$OUT/mtr-pass2.log" "${missing[@]/#/mariabackup.}"
    parse "$OUT/mtr-pass2.log" >>"$OUT/raw.txt"
fi
secs=$(( $(date +%s) - start ))

listed() {   # listed FILE NAME[,COMB...]: is the test (or this combination of it) listed in FILE?
    grep -vE '^\s*(#|$)' "$1" 2>/dev/null | awk '{print $1}' | grep -qxF -e "$2" -e "${2%%,*}"
}
first_error() {   # the first error line MTR printed for a failed test
    local pat
    for pat in '(mysqltest: |Error: |Test case timeout|timed out)' '(ERROR|failed|Timeout|differ)'; do
        awk -v t="$1" -v p="$pat" 'index($0,t)==1 && /\[ fail \]/ {f=1; next}
            f && $0 ~ p {print; exit}
            f && /^mariabackup\./ {exit}' "$log1" "$OUT/mtr-pass2.log" 2>/dev/null | head -1 | cut -c1-240 | grep . && return
    done
}

pass=0 fail=0 pend=0 skip=0 diff=0
res=$OUT/results.txt
: >"$res.tmp"
# A test reported twice (a retry) counts by its last result.
tac "$OUT/raw.txt" | awk -F'|' '!seen[$1]++' | sort >"$OUT/final.txt"
while IFS='|' read -r name result rest; do
    ms=$(grep -oE '^[0-9]+' <<<"$rest" || true)
    s=$(( ${ms:-0} / 1000 ))
    key=${name#mariabackup.}; key=${key// \'/,}; key=${key//\'/}
    case $result in
    pass)
        if [[ $oracle -eq 0 ]] && listed "$TOP/test/mtr/differs.txt" "$key"; then
            fail=$((fail+1)); printf '%-60s FAIL %5ss  passes but is listed in test/mtr/differs.txt: take it off\n' "$key" "$s" >>"$res.tmp"
        elif [[ $oracle -eq 0 ]] && listed "$TOP/test/mtr/pending.txt" "$key"; then
            fail=$((fail+1)); printf '%-60s FAIL %5ss  passes but is listed in test/mtr/pending.txt: take it off\n' "$key" "$s" >>"$res.tmp"
        else
            pass=$((pass+1)); printf '%-60s pass %5ss\n' "$key" "$s" >>"$res.tmp"
        fi ;;
    fail)
        err=$(first_error "$name")
        if [[ $oracle -eq 0 ]] && listed "$TOP/test/mtr/differs.txt" "$key"; then
            diff=$((diff+1)); printf '%-60s differs %2ss  %s\n' "$key" "$s" "$err" >>"$res.tmp"
        elif [[ $oracle -eq 0 ]] && listed "$TOP/test/mtr/pending.txt" "$key"; then
            pend=$((pend+1)); printf '%-60s pending %2ss  %s\n' "$key" "$s" "$err" >>"$res.tmp"
        else
            fail=$((fail+1)); printf '%-60s FAIL %5ss  %s\n' "$key" "$s" "$err" >>"$res.tmp"
        fi ;;
    skipped|disabled)
        if listed "$TOP/test/mtr/skipped.txt" "$key"; then
            skip=$((skip+1)); printf '%-60s skip  %s\n' "$key" "$rest" >>"$res.tmp"
        else
            fail=$((fail+1)); printf '%-60s FAIL  skipped but not in test/mtr/skipped.txt: %s\n' "$key" "$rest" >>"$res.tmp"
        fi ;;
    esac
done <"$OUT/final.txt"
for t in "${expected[@]}"; do
    grep -q "^mariabackup\.$t[ |]" "$OUT/raw.txt" || {
        fail=$((fail+1)); printf '%-60s FAIL  never reported by MTR\n' "$t" >>"$res.tmp"; }
done
mv "$res.tmp" "$res"
# Keep the var directory of failed tests for inspection.
if [[ $fail -gt 0 && -d $W/var ]]; then
    rm -rf "$OUT/var"; cp -a "$W/var/log" "$OUT/var-log" 2>/dev/null || true
fi
grep -E ' (FAIL|pending|differs) ' "$res" || true
line="mtr: $pass passed, $fail failed, $pend pending, $diff differ, $skip skipped in ${secs}s (table: $res)"
echo "$line" | tee -a "$res"
[[ $fail -eq 0 ]]
