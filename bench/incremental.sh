#!/usr/bin/env bash
# bench/incremental.sh - incremental backup and chain prepare of xtrabackup vs
# mariabackup, side by side, with `cp -a` of the datadir as a reference.
#
# Builds a sysbench dataset (SIZE_GB, default 4: 4 tables, 4.4 GiB of InnoDB files,
# about 2 minutes to load on 2 cores; the whole run takes 4 to 10 minutes there,
# depending on the disk, and needs about 7 x SIZE_GB free) on a throwaway server without
# binary log, takes a full backup with our tool, then changes about CHANGE_PCT
# (default 5) percent of the pages: UPDATEs of the unindexed column c over random
# id ranges (in place, so each touches the leaf pages of its range only), then
# flushes them (the checkpoint passes every change, so the changed pages are on disk
# with their new LSN, as after a day of normal running). Then RUNS rounds (default
# 2), alternating which tool goes first, each with the page cache dropped (sync;
# echo 3 > /proc/sys/vm/drop_caches) before every run: our --backup
# --incremental-basedir=FULL and mariabackup's, both with --parallel=$PARALLEL
# (default 4), each timed to its end plus a `sync` of what it wrote (ours fsyncs
# its files, mariabackup does not: like for like), peak RSS from /usr/bin/time.
# The fraction of pages in the deltas (pages in the .delta files / pages of the
# InnoDB datafiles) is measured and printed for each tool.
#
# Then the same change again and a second incremental by each tool on its first,
# and the prepare of full + inc1 + inc2: the chain taken by CHAIN_BIN (default
# mariabackup; both tools prepare each other's chains) is copied twice, and our
# prepare (full, then each --incremental-dir) and mariabackup's are timed on one copy
# each with the same --use-memory (USE_MEMORY, default 1G), page cache dropped first,
# alternating; peak RSS is the largest of the three steps. A copy is made of new
# files, so our first check of it would read it whole (the stat cache of the
# directory the backup wrote no longer vouches for it, doc/backup-directory.md
# §18): as a DBA does after moving a backup, each copied directory that has a
# manifest is checked once with --verify before the timing (its time is printed
# apart, "verify of the copies"). A chain prepared where it was taken needs no
# such step. The prepared copies are
# compared page by page with xb_pagecmp (one line printed; a difference fails).
#
# Prints per tool: backup wall time, MB/s of InnoDB file bytes (what an incremental
# reads; `cp -a`: datadir bytes, its 256 MiB redo log included), peak RSS; prepare wall
# time and peak RSS; `cp -a` of the datadir; and the ratios with the goals:
#   our incremental backup >= 1.5x as fast as mariabackup's (time ratio mb/ours)
#   our chain prepare <= 0.5x mariabackup's time (ratio ours/mb)
# Run as root (drop_caches). Exits 1 when a run fails or the prepared copies differ.
#
# usage: bench/incremental.sh    env: SIZE_GB=4 TABLES=4 CHANGE_PCT=5 RUNS=2
#   PARALLEL=4 USE_MEMORY=1G CHAIN_BIN=mariabackup KEEP=1
#   OURS=build/xtrabackup (OURS=mariabackup: the oracle on both sides, to try the
#   script)
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/test/integration/inc/common.sh"
. "$TOP/test/integration/inc/incremental.sh"
SIZE_GB=${SIZE_GB:-4}
TABLES=${TABLES:-4}
CHANGE_PCT=${CHANGE_PCT:-5}
RUNS=${RUNS:-2}
PARALLEL=${PARALLEL:-4}
USE_MEMORY=${USE_MEMORY:-1G}
OURS=${OURS:-$TOP/build/xtrabackup}
[[ $OURS != */* ]] && OURS=$(command -v "$OURS")
if [[ $OURS == "$TOP/build/xtrabackup" && ! -x $OURS ]]; then make -C "$TOP" >/dev/null || exit 1; fi
[[ -x $OURS ]] || fail "our tool not found: $OURS"
MB=$(command -v mariabackup) || fail "mariabackup is not installed"
CHAIN_BIN=${CHAIN_BIN:-mariabackup}
command -v sysbench >/dev/null || fail "needs sysbench (make deps)"
[[ -x /usr/bin/time ]] || fail "needs /usr/bin/time (make deps)"
build_xb_pagecmp || fail "cannot build xb_pagecmp (run make first)"

ROWS=$(awk -v g="$SIZE_GB" -v t="$TABLES" 'BEGIN { printf "%d", g * 1073741824 / 230 / t }')   # ~230 bytes per row on disk
NEED=$(awk -v g="$SIZE_GB" 'BEGIN { printf "%d", g * 1073741824 * 7 }')   # source, full, cp -a, two prepared chains, deltas
AVAIL=$(( $(df -Pk "$T" | awk 'NR == 2 { print $4 }') * 1024 ))
(( AVAIL > NEED )) || { echo "bench/incremental.sh: need about $((NEED / 1073741824 + 1)) GiB free in $T, $((AVAIL / 1073741824)) GiB there (lower SIZE_GB or set TMPDIR)" >&2; exit 1; }

drop_caches() {
    sync
    if ! echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
        [[ -n ${DROP_WARNED:-} ]] || log "warning: cannot drop the page cache (not root?): timings include cached reads"
        DROP_WARNED=1
    fi
}
secs_since() { awk -v a="$1" -v b="$(date +%s.%N)" 'BEGIN { printf "%.3f", b - a }'; }

SRV_OPTS=(--skip-log-bin --innodb-buffer-pool-size=1G --innodb-log-file-size=256M --innodb-flush-method=O_DIRECT)
server_start src "${SRV_OPTS[@]}"
SB=(sysbench --db-driver=mysql --mysql-socket="$(sock_of src)" --mysql-user=root --mysql-db=sbtest
    --tables="$TABLES" --table-size="$ROWS")
sql src "CREATE DATABASE sbtest" || fail "CREATE DATABASE sbtest"
log "preparing ~${SIZE_GB} GB with sysbench ($TABLES tables x $ROWS rows)"
T0=$(date +%s.%N)
"${SB[@]}" --threads=2 oltp_read_write prepare > "$T/sb_prepare.log" 2>&1 || { tail "$T/sb_prepare.log"; fail "sysbench prepare failed"; }
log "sysbench prepare: $(secs_since "$T0") s"
D=$(datadir_of src)
DATA_BYTES=$(find "$D" \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo*' \) -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s }')
DATA_PAGES=$(( DATA_BYTES / 16384 ))
DATADIR_BYTES=$(du -sb "$D" | cut -f1)
inc_checkpoint src

mkdir -p "$T/c"
XB=$OURS xb_backup src "$T/c/full" --parallel="$PARALLEL"
assert_ok "$XB_RC" "$XB_ERR" "full backup"

# change CHANGE_PCT % of each table's rows in 40 random contiguous id ranges, then flush
change_pages() { # round
    local t i span start stmts=""
    span=$(( ROWS * CHANGE_PCT / 100 / 40 ))
    (( span > 0 )) || span=1
    for t in $(seq 1 "$TABLES"); do
        for i in $(seq 1 40); do
            start=$(( (RANDOM * 32768 + RANDOM) % (ROWS - span) + 1 ))
            stmts+="UPDATE sbtest$t SET c = REVERSE(c) WHERE id BETWEEN $start AND $((start + span - 1));"
        done
    done
    sql src "USE sbtest; $stmts" || fail "the change of round $1 failed"
    inc_checkpoint src
}

declare -A SUM MEM PAGES CNT
timed() { # key command... -> wall time (the command then sync), peak RSS
    local key=$1 t0 s rss; shift
    drop_caches
    t0=$(date +%s.%N)
    /usr/bin/time -f '%M' -o "$T/rss.$key" "$@" > "$T/$key.out" 2> "$T/$key.err" < /dev/null
    local rc=$?
    sync
    s=$(secs_since "$t0")
    assert_ok "$rc" "$T/$key.err" "$key: $*"
    rss=$(tail -n 1 "$T/rss.$key")
    SUM[$key]=$(awk -v x="${SUM[$key]:-0}" -v s="$s" 'BEGIN { print x + s }')
    CNT[$key]=$(( ${CNT[$key]:-0} + 1 ))
    (( ${MEM[$key]:-0} < rss )) && MEM[$key]=$rss
    log "$key: ${s} s, peak RSS $rss KiB"
}
inc_cmd() { # bin target base
    echo "$1" --defaults-file="$(cnf_of src)" --backup --parallel="$PARALLEL" --target-dir="$2" --incremental-basedir="$3"
}

change_pages 1
for r in $(seq "$RUNS"); do
    rm -rf "$T/c/inc1_xb" "$T/c/inc1_mb"
    if (( r % 2 )); then order="xb mb"; else order="mb xb"; fi
    for k in $order; do
        bin=$OURS; [[ $k == mb ]] && bin=$MB
        # shellcheck disable=SC2046
        timed "inc_$k" $(inc_cmd "$bin" "$T/c/inc1_$k" "$T/c/full")
        inc_check_link "$T/c/full" "$T/c/inc1_$k" > /dev/null
        PAGES[$k]=$(inc_delta_pages "$T/c/inc1_$k")
    done
done
drop_caches
T0=$(date +%s.%N)
cp -a "$D" "$T/cp" || fail "cp -a of the datadir failed"
sync
CP_S=$(secs_since "$T0")
rm -rf "$T/cp"

change_pages 2
for k in xb mb; do
    bin=$OURS; [[ $k == mb ]] && bin=$MB
    # shellcheck disable=SC2046
    timed "inc2_$k" $(inc_cmd "$bin" "$T/c/inc2_$k" "$T/c/inc1_$k")
done
server_stop src

# ---- the prepare of full + inc1 + inc2 (CHAIN_BIN's incrementals on our full backup)
ck=xb; [[ $(prepare_kind "$CHAIN_BIN") == mariabackup ]] && ck=mb
prep_chain() { # key bin dir
    local key=$1 bin=$2 dir=$3 t0 s rss max=0 step
    drop_caches
    t0=$(date +%s.%N)
    for step in "" "$dir/inc1" "$dir/inc2"; do
        /usr/bin/time -f '%M' -o "$T/rss.$key" "$bin" --prepare --target-dir="$dir/full" --use-memory="$USE_MEMORY" \
            ${step:+--incremental-dir="$step"} > "$T/$key.out" 2> "$T/$key.err" < /dev/null
        assert_ok $? "$T/$key.err" "$key: prepare ${step:-of the full backup}"
        rss=$(tail -n 1 "$T/rss.$key"); (( rss > max )) && max=$rss
    done
    sync
    s=$(secs_since "$t0")
    SUM[$key]=$(awk -v x="${SUM[$key]:-0}" -v s="$s" 'BEGIN { print x + s }')
    CNT[$key]=$(( ${CNT[$key]:-0} + 1 ))
    (( ${MEM[$key]:-0} < max )) && MEM[$key]=$max
    log "$key: chain prepare ${s} s, peak RSS $max KiB"
}
for r in $(seq "$RUNS"); do
    for k in xb mb; do
        rm -rf "$T/p_$k"; mkdir -p "$T/p_$k"
        inc_copy_chain "$T/c" "$T/p_$k" full
        cp -a "$T/c/inc1_$ck" "$T/p_$k/inc1" || fail "copying inc1_$ck failed"
        cp -a "$T/c/inc2_$ck" "$T/p_$k/inc2" || fail "copying inc2_$ck failed"
    done
    drop_caches
    t0=$(date +%s.%N)
    for d in full inc1 inc2; do
        [[ -e $T/p_xb/$d/xtrabackup_manifest.pmap ]] || continue
        "$OURS" --verify --target-dir="$T/p_xb/$d" > "$T/verify.out" 2>&1 || { tail -n 5 "$T/verify.out"; fail "--verify of the copy $d failed"; }
    done
    s=$(secs_since "$t0")
    SUM[verify]=$(awk -v x="${SUM[verify]:-0}" -v s="$s" 'BEGIN { print x + s }')
    CNT[verify]=$(( ${CNT[verify]:-0} + 1 ))
    if (( r % 2 )); then
        prep_chain prep_xb "$OURS" "$T/p_xb"; prep_chain prep_mb "$MB" "$T/p_mb"
    else
        prep_chain prep_mb "$MB" "$T/p_mb"; prep_chain prep_xb "$OURS" "$T/p_xb"
    fi
    "$XB_PAGECMP" --pc-tail "$T/p_xb/full" "$T/p_mb/full" > "$T/cmp.$r" 2>&1 || { tail -n 20 "$T/cmp.$r"; fail "the prepared copies differ"; }
    echo "pages (round $r): $(tail -n 1 "$T/cmp.$r")"
done

# ---- report
avg() { awk -v x="${SUM[$1]}" -v n="${CNT[$1]}" 'BEGIN { printf "%.2f", x / n }'; }
name() { [[ $1 == xb ]] && basename "$OURS" || echo mariabackup; }
echo
echo "incremental backup: ~${SIZE_GB} GB sysbench ($TABLES x $ROWS rows, $((DATA_BYTES / 1048576)) MiB InnoDB files," \
     "$((DATADIR_BYTES / 1048576)) MiB datadir), ${CHANGE_PCT}% of rows changed per round, --parallel=$PARALLEL, rounds: $RUNS"
printf '%-12s %10s %10s %14s %16s %12s\n' tool "inc s" "MB/s" "peak RSS KiB" "pages in deltas" "of all pages"
for k in xb mb; do
    printf '%-12s %10s %10s %14s %16s %11s%%\n' "$(name $k)" "$(avg "inc_$k")" \
        "$(awk -v b="$DATA_BYTES" -v s="$(avg "inc_$k")" 'BEGIN { printf "%.0f", b / 1048576 / s }')" \
        "${MEM[inc_$k]}" "${PAGES[$k]}" "$(awk -v p="${PAGES[$k]}" -v n="$DATA_PAGES" 'BEGIN { printf "%.2f", 100 * p / n }')"
done
printf '%-12s %10s %10s\n' "cp -a" "$CP_S" "$(awk -v b="$DATADIR_BYTES" -v s="$CP_S" 'BEGIN { printf "%.0f", b / 1048576 / s }')"
echo "second incremental (1 run each): $(name xb) $(avg inc2_xb) s, mariabackup $(avg inc2_mb) s"
echo
echo "chain prepare (full + 2 incrementals taken by $(basename "$CHAIN_BIN"), --use-memory=$USE_MEMORY, rounds: $RUNS)"
printf '%-12s %10s %14s\n' tool "prepare s" "peak RSS KiB"
for k in xb mb; do printf '%-12s %10s %14s\n' "$(name $k)" "$(avg "prep_$k")" "${MEM[prep_$k]}"; done
echo "verify of the copies before our chain (once per copy, not in the time above): $(avg verify) s"
awk -v xi="$(avg inc_xb)" -v mi="$(avg inc_mb)" -v xp="$(avg prep_xb)" -v mp="$(avg prep_mb)" -v cp="$CP_S" \
    -v xr="${MEM[inc_xb]}" -v mr="${MEM[inc_mb]}" -v xpr="${MEM[prep_xb]}" -v mpr="${MEM[prep_mb]}" 'BEGIN {
    sp = mi / xi; pr = xp / mp
    printf "incremental backup speed-up mariabackup/ours: %.2fx (goal >= 1.50: %s); ours vs cp -a: %.2fx the time\n",
        sp, sp >= 1.5 ? "met" : "NOT met", xi / cp
    printf "chain prepare time ours/mariabackup: %.2f (goal <= 0.50: %s)\n", pr, pr <= 0.5 ? "met" : "NOT met"
    printf "peak RSS ours/mariabackup: incremental backup %.2f, chain prepare %.2f\n", xr / mr, xpr / mpr }'
