#!/usr/bin/env bash
# bench/prepare.sh - --prepare speed and memory of xtrabackup vs mariabackup, side by side.
#
# Builds a sysbench dataset (SIZE_GB, default 1) on a throwaway server with a large
# redo log (LOG_SIZE, default 2G) and no binary log, then takes one backup (with
# BACKUP_BIN, default mariabackup) holding at least REDO_GB (default 1) of redo: a
# 4-thread sysbench oltp_write_only load runs while the backup is frozen with
# SIGSTOP right after its copy phase began, until the server's LSN has moved REDO_GB
# past the backup's start; then the load stops and the backup resumes and copies
# that redo (REDO_GB must stay under 90% of LOG_SIZE, or the server would overwrite
# redo not yet copied). Then, for each --use-memory in USE_MEMORY (default
# "100M 2G") and RUNS rounds (default 2), the backup is copied twice (cp -a), the
# page cache is dropped (sync; echo 3 > /proc/sys/vm/drop_caches) and our prepare
# and `mariabackup --prepare` are timed on one copy each, alternating which goes
# first, under /usr/bin/time -v for the peak RSS; after each round the two prepared
# copies are compared page by page with xb_pagecmp (one line printed). Prints per
# tool and memory size: mean wall time, redo MB/s (redo bytes = size of the backup's
# ib_logfile0 - 12288, i.e. last_lsn - checkpoint LSN), peak RSS, and the ratios
# ours/mariabackup. Exits 1 if a prepare fails or the prepared copies differ.
#
# Checks free space first (source datadir + log + three backup-sized copies) and
# refuses with a message when there is not enough. Run as root (drop_caches).
#
# usage: bench/prepare.sh    env: SIZE_GB=1 TABLES=4 REDO_GB=1 LOG_SIZE=2G
#   USE_MEMORY="100M 2G" RUNS=2 PARALLEL= (--parallel for ours) BACKUP_BIN=mariabackup
#   PREPARE_UNDER_TEST=build/xtrabackup (PREPARE_UNDER_TEST=mariabackup: oracle on
#   both sides, to try the script) KEEP=1
#
# CASE=many: the per-tablespace cost instead. MANY_TABLES (default 10000) small
# InnoDB tables, server restarted; the backup (BACKUP_BIN) is frozen in its copy
# phase while every table gets an UPDATE (redo for every tablespace), then
# finishes; our prepare and mariabackup's are timed on a copy each (RUNS rounds,
# alternating, --use-memory=MANY_MEMORY default 100M), peak RSS from /usr/bin/time
# (%M), and the prepared copies are compared page by page.
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/test/integration/inc/common.sh"
SIZE_GB=${SIZE_GB:-1}
TABLES=${TABLES:-4}
REDO_GB=${REDO_GB:-1}
LOG_SIZE=${LOG_SIZE:-2G}
USE_MEMORY=${USE_MEMORY:-100M 2G}
RUNS=${RUNS:-2}
PARALLEL=${PARALLEL:-}
BACKUP_BIN=${BACKUP_BIN:-mariabackup}
OURS=${PREPARE_UNDER_TEST:-$TOP/build/xtrabackup}
[[ $OURS != */* ]] && OURS=$(command -v "$OURS")
if [[ $OURS == "$TOP/build/xtrabackup" && ! -x $OURS ]]; then make -C "$TOP" >/dev/null || exit 1; fi
[[ -x $OURS ]] || fail "preparer not found: $OURS"
OURS_KIND=$(prepare_kind "$OURS")
command -v sysbench >/dev/null || fail "needs sysbench (make deps)"
[[ -x /usr/bin/time ]] || fail "needs /usr/bin/time (make deps)"
build_xb_pagecmp || fail "cannot build xb_pagecmp (run make first)"

bytes_of() { # 1G / 100M / 0.05 (GiB when no suffix) -> bytes
    awk -v v="$1" 'BEGIN { m = 1073741824; if (v ~ /[kK]$/) m = 1024; else if (v ~ /[mM]$/) m = 1048576;
                   else if (v ~ /[gG]$/) m = 1073741824; sub(/[kKmMgG]$/, "", v); printf "%.0f", v * m }'
}
if [[ ${CASE:-} == many ]]; then
    MANY_TABLES=${MANY_TABLES:-10000}
    MANY_MEMORY=${MANY_MEMORY:-100M}
    OK_LINE_RE='completed OK!'
    server_start src --skip-log-bin --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2 \
        --table-open-cache=20000 --open-files-limit=50000
    log "creating $MANY_TABLES tables"
    { echo "CREATE DATABASE many; USE many;"
      for i in $(seq "$MANY_TABLES"); do
          echo "CREATE TABLE t$i (id INT PRIMARY KEY, a VARCHAR(64), b INT) ENGINE=InnoDB;"
          echo "INSERT INTO t$i SELECT seq, MD5(seq), seq FROM seq_1_to_20;"
      done; } | mariadb --defaults-file="$(cnf_of src)" -N -B || fail "creating the tables failed"
    server_stop src
    server_start_on src "$(datadir_of src)" --skip-log-bin --innodb-buffer-pool-size=512M --table-open-cache=20000 \
        --open-files-limit=50000
    B=$T/backup
    XB=$(command -v "$BACKUP_BIN") xb_backup_bg src "$B"
    copying() { [[ -n $(find "$B" -mindepth 2 -maxdepth 2 -type f -print -quit 2>/dev/null) ]]; }
    wait_for 300 copying || fail "the backup did not start copying within 300s"
    signal_tree STOP "$XB_PID"
    log "backup frozen in its copy phase; one UPDATE in each of the $MANY_TABLES tables"
    { echo "USE many;"; for i in $(seq "$MANY_TABLES"); do echo "UPDATE t$i SET b = b + 1 WHERE id = $((i % 20 + 1));"; done; } |
        mariadb --defaults-file="$(cnf_of src)" -N -B || fail "updates failed"
    signal_tree CONT "$XB_PID"
    xb_wait
    assert_ok "$XB_RC" "$XB_ERR" "backup ($BACKUP_BIN)"
    server_stop src
    log "backup: $(( $(du -sb "$B" | cut -f1) / 1048576 )) MiB, redo copy $(( ($(stat -c %s "$B/ib_logfile0") - 12288) / 1048576 )) MiB"
    declare -A SUM MEM
    many_prepare() { # key bin dir
        local t0 t1 s rss
        t0=$(date +%s.%N)
        /usr/bin/time -f '%M' -o "$T/rss.$1" "$2" --prepare --target-dir="$3" --use-memory="$MANY_MEMORY" > "$T/prep.$1.log" 2>&1 < /dev/null ||
            { tail -n 15 "$T/prep.$1.log" >&2; fail "$1: --prepare failed"; }
        t1=$(date +%s.%N)
        last_line "$T/prep.$1.log" | grep -Eq "$OK_LINE_RE" || { tail -n 5 "$T/prep.$1.log" >&2; fail "$1: no completed OK!"; }
        s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
        rss=$(tail -n 1 "$T/rss.$1")
        SUM[$1]=$(awk -v x="${SUM[$1]:-0}" -v s="$s" 'BEGIN { print x + s }')
        [[ ${MEM[$1]:-0} -lt $rss ]] && MEM[$1]=$rss
        log "$1: ${s}s, peak RSS $rss KiB"
    }
    for r in $(seq "$RUNS"); do
        rm -rf "$T/ours" "$T/mb"
        cp -a "$B" "$T/ours" && cp -a "$B" "$T/mb" || fail "copying the backup failed"
        drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
        if (( r % 2 )); then
            drop_caches; many_prepare ours "$OURS" "$T/ours"; drop_caches; many_prepare mb mariabackup "$T/mb"
        else
            drop_caches; many_prepare mb mariabackup "$T/mb"; drop_caches; many_prepare ours "$OURS" "$T/ours"
        fi
        "$XB_PAGECMP" --pc-tail "$T/ours" "$T/mb" > "$T/cmp.$r" 2>&1 || { tail -n 20 "$T/cmp.$r"; fail "the prepared copies differ"; }
        echo "pages (round $r): identical: $(tail -n 1 "$T/cmp.$r")"
    done
    echo
    echo "many tables: $MANY_TABLES small InnoDB tables, one UPDATE each during the backup (by $BACKUP_BIN); --use-memory=$MANY_MEMORY; rounds: $RUNS"
    printf '%-18s %9s %14s\n' tool "wall s" "peak RSS"
    for k in ours mb; do
        printf '%-18s %9s %10s KiB\n' "$([[ $k == ours ]] && basename "$OURS" || echo mariabackup)" \
            "$(awk -v x="${SUM[$k]}" -v r="$RUNS" 'BEGIN { printf "%.2f", x / r }')" "${MEM[$k]}"
    done
    awk -v o="${SUM[ours]}" -v m="${SUM[mb]}" -v ro="${MEM[ours]}" -v rm="${MEM[mb]}" 'BEGIN {
        printf "ratio ours/mariabackup: wall time %.2f (goal <= 1.00), peak RSS %.2f\n", o / m, ro / rm }'
    exit 0
fi
REDO_BYTES=$(bytes_of "$REDO_GB")
LOG_BYTES=$(bytes_of "$LOG_SIZE")
SIZE_BYTES=$(bytes_of "$SIZE_GB")
(( REDO_BYTES * 10 < LOG_BYTES * 9 )) || fail "REDO_GB=$REDO_GB must stay under 90% of LOG_SIZE=$LOG_SIZE"
ROWS=$(( SIZE_BYTES / 230 / TABLES ))   # ~230 bytes per sysbench row on disk
(( ROWS >= 1000 )) || ROWS=1000

# Disk: source datadir + its redo log, the backup (data + redo) and two copies of it.
NEED=$(( (SIZE_BYTES + LOG_BYTES) + 3 * (SIZE_BYTES + REDO_BYTES + 268435456) ))
AVAIL=$(( $(df -Pk "$T" | awk 'NR == 2 { print $4 }') * 1024 ))
if (( AVAIL < NEED * 12 / 10 )); then
    echo "bench/prepare.sh: not enough space in $(df -P "$T" | awk 'NR == 2 { print $6 }'): need about $((NEED * 12 / 10 / 1073741824 + 1)) GiB" \
         "(SIZE_GB=$SIZE_GB, REDO_GB=$REDO_GB, LOG_SIZE=$LOG_SIZE), $((AVAIL / 1073741824)) GiB free; set TMPDIR or lower them" >&2
    exit 1
fi
log "disk: about $((NEED / 1048576)) MiB needed, $((AVAIL / 1048576)) MiB free in $T"

drop_caches() {
    sync
    if ! echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
        [[ -n ${DROP_WARNED:-} ]] || log "warning: cannot drop the page cache (not root?): timings include cached reads"
        DROP_WARNED=1
    fi
}

SRV_OPTS=(--skip-log-bin --innodb-buffer-pool-size=1G --innodb-log-file-size="$LOG_SIZE" --innodb-flush-method=O_DIRECT)
server_start src "${SRV_OPTS[@]}"
SB=(sysbench --db-driver=mysql --mysql-socket="$(sock_of src)" --mysql-user=root --mysql-db=sbtest
    --tables="$TABLES" --table-size="$ROWS")
sql src "CREATE DATABASE sbtest"
log "preparing ~${SIZE_GB} GB with sysbench ($TABLES tables x $ROWS rows)"
"${SB[@]}" --threads=2 oltp_write_only prepare > "$T/sb_prepare.log" 2>&1 || { tail "$T/sb_prepare.log"; fail "sysbench prepare failed"; }
server_stop src
server_start_on src "$(datadir_of src)" "${SRV_OPTS[@]}"

lsn_now() { sql src "SHOW GLOBAL STATUS LIKE 'Innodb_lsn_current'" | cut -f2; }

# ---- the backup: frozen during its copy phase until REDO_GB of redo was written
"${SB[@]}" --threads=4 --time=100000 --report-interval=10 oltp_write_only run > "$T/sb_run.log" 2>&1 &
SB_PID=$!
bg_track "$SB_PID"
sleep 3
B=$T/backup
LSN0=$(lsn_now)
XB=$(command -v "$BACKUP_BIN") xb_backup_bg src "$B"
copying() { [[ -n $(find "$B" -mindepth 2 -maxdepth 2 -type f -print -quit 2>/dev/null) ]]; }
wait_for 300 copying || fail "the backup did not start copying within 300s"
signal_tree STOP "$XB_PID"
log "backup frozen in its copy phase; waiting for $((REDO_BYTES / 1048576)) MiB of redo (LSN $LSN0 -> $((LSN0 + REDO_BYTES)))"
T0=$SECONDS
while :; do
    L=$(lsn_now)
    (( L - LSN0 >= REDO_BYTES )) && break
    kill -0 "$SB_PID" 2>/dev/null || { tail "$T/sb_run.log"; fail "sysbench stopped"; }
    (( (SECONDS - T0) % 30 == 0 )) && log "redo written: $(( (L - LSN0) / 1048576 )) MiB"
    sleep 1
done
log "redo target reached after $((SECONDS - T0))s ($(( (L - LSN0) / 1048576 / (SECONDS - T0 + 1) )) MiB/s); stopping the load"
kill -TERM "$SB_PID" 2>/dev/null
# shellcheck disable=SC2016
wait_for 20 eval '! kill -0 "$SB_PID" 2>/dev/null' || kill -KILL "$SB_PID" 2>/dev/null
wait "$SB_PID" 2>/dev/null
signal_tree CONT "$XB_PID"
xb_wait
assert_ok "$XB_RC" "$XB_ERR" "backup ($BACKUP_BIN)"
server_stop src
REDO=$(( $(stat -c %s "$B/ib_logfile0") - 12288 ))
BACKUP_BYTES=$(du -sb "$B" | cut -f1)
log "backup: $((BACKUP_BYTES / 1048576)) MiB, redo copy $((REDO / 1048576)) MiB (to_lsn $(checkpoints_value "$B" to_lsn), last_lsn $(checkpoints_value "$B" last_lsn))"

# ---- the prepares
declare -A SUM MEM
BAD=0
run_prepare() { # key bin dir [options]
    local key=$1 bin=$2 dir=$3; shift 3
    local t0 t1 s rss
    drop_caches
    t0=$(date +%s.%N)
    /usr/bin/time -v -o "$T/time.$key" "$bin" --prepare --target-dir="$dir" "$@" > "$T/prep.$key.log" 2>&1 < /dev/null
    local rc=$?
    t1=$(date +%s.%N)
    if [[ $rc -ne 0 ]] || ! last_line "$T/prep.$key.log" | grep -Eq "$OK_LINE_RE"; then
        tail -n 15 "$T/prep.$key.log" >&2
        fail "$key: $(basename "$bin") --prepare failed (exit $rc)"
    fi
    s=$(awk -v a="$t0" -v b="$t1" 'BEGIN { printf "%.2f", b - a }')
    rss=$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$T/time.$key")
    SUM[$key]=$(awk -v x="${SUM[$key]:-0}" -v s="$s" 'BEGIN { print x + s }')
    [[ ${MEM[$key]:-0} -lt ${rss:-0} ]] && MEM[$key]=$rss
    log "$key: ${s}s, peak RSS ${rss} KiB"
}
OURS_OPTS=()
[[ -n $PARALLEL ]] && OURS_OPTS+=(--parallel="$PARALLEL")
for mem in $USE_MEMORY; do
    for r in $(seq "$RUNS"); do
        rm -rf "$T/ours" "$T/mb"
        cp -a "$B" "$T/ours" || fail "copying the backup failed"
        cp -a "$B" "$T/mb" || fail "copying the backup failed"
        stats=()
        [[ $OURS_KIND == xtrabackup ]] && stats=(--stats-file="$T/stats.$mem.$r.json")
        if (( r % 2 )); then
            run_prepare "ours.$mem" "$OURS" "$T/ours" --use-memory="$mem" "${OURS_OPTS[@]}" "${stats[@]}"
            run_prepare "mb.$mem" mariabackup "$T/mb" --use-memory="$mem"
        else
            run_prepare "mb.$mem" mariabackup "$T/mb" --use-memory="$mem"
            run_prepare "ours.$mem" "$OURS" "$T/ours" --use-memory="$mem" "${OURS_OPTS[@]}" "${stats[@]}"
        fi
        # --pc-tail: page_compressed pages whose images are identical may differ after
        # the image (never read; see test/integration/t/prepare_diff.sh); listed, not counted.
        if "$XB_PAGECMP" --pc-tail "$T/ours" "$T/mb" > "$T/cmp.$mem.$r" 2>&1; then
            echo "pages (use-memory $mem, round $r): identical: $(tail -n 1 "$T/cmp.$mem.$r")"
        else
            BAD=1
            echo "pages (use-memory $mem, round $r): DIFFER: $(tail -n 1 "$T/cmp.$mem.$r")"
            grep -v '^SAME' "$T/cmp.$mem.$r" | head -n 10 | sed 's/^/    /'
        fi
        [[ -f $T/stats.$mem.$r.json ]] && log "ours' stats: redo_mb_per_s=$(json_num "$T/stats.$mem.$r.json" redo_mb_per_s)" \
            "records=$(json_num "$T/stats.$mem.$r.json" records) peak_memory_bytes=$(json_num "$T/stats.$mem.$r.json" peak_memory_bytes)"
    done
done
rm -rf "$T/ours" "$T/mb"

echo
echo "redo copy: $REDO bytes ($((REDO / 1048576)) MiB); backup: $((BACKUP_BYTES / 1048576)) MiB; rounds: $RUNS; ours: $OURS; backup by: $BACKUP_BIN"
printf '%-11s %-18s %9s %10s %14s\n' use-memory tool "wall s" "redo MB/s" "peak RSS"
mean() { awk -v x="${SUM[$1]}" -v r="$RUNS" 'BEGIN { printf "%.2f", x / r }'; }
rate() { awk -v b="$REDO" -v x="${SUM[$1]}" -v r="$RUNS" 'BEGIN { printf "%.1f", b / (x / r) / 1e6 }'; }
for mem in $USE_MEMORY; do
    printf '%-11s %-18s %9s %10s %10s KiB\n' "$mem" "ours ($(basename "$OURS"))" "$(mean "ours.$mem")" "$(rate "ours.$mem")" "${MEM[ours.$mem]}"
    printf '%-11s %-18s %9s %10s %10s KiB\n' "$mem" mariabackup "$(mean "mb.$mem")" "$(rate "mb.$mem")" "${MEM[mb.$mem]}"
done
for mem in $USE_MEMORY; do
    awk -v o="$(mean "ours.$mem")" -v m="$(mean "mb.$mem")" -v ro="${MEM[ours.$mem]}" -v rm="${MEM[mb.$mem]}" -v mem="$mem" 'BEGIN {
        printf "ratio ours/mariabackup at --use-memory=%s: wall time %.2f (redo MB/s %.2f), peak RSS %.2f\n", mem, o / m, m / o, ro / rm }'
done
[[ $BAD -eq 0 ]] || { echo "FAIL: the prepared copies differ"; exit 1; }
