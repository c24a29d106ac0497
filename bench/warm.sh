#!/usr/bin/env bash
# bench/warm.sh - what a warm restore buys: a server restored from one of our backups
# with the buffer-pool dump the backup carries, against the very same restore started
# cold (issue 4).
#
# One run:
#  1. a throwaway source server (O_DIRECT, buffer pool BP_SIZE) gets a sysbench dataset
#     of TABLES x ROWS rows; oltp_read_only then runs on it for SRC_WARMUP seconds so
#     its LRU holds the hot set (the rows 1..HOT_ROWS of every table, see below);
#  2. build/xtrabackup --backup (which stores a fresh dump, ib_buffer_pool) and
#     build/xtrabackup --prepare (which sorts it);
#  3. the source is stopped and the backup is restored twice with
#     build/xtrabackup --copy-back: "warm" as is (the dump placed under
#     innodb_buffer_pool_filename, loaded at startup by default) and "cold" (its option
#     file says innodb_buffer_pool_load_at_startup=OFF: same files, no load);
#  4. for each (cold first, then warm; ROUNDS>1 alternates cold,warm,warm,cold,...):
#     sync + drop the page cache, start mariadbd (O_DIRECT, same buffer pool) and, as
#     soon as it accepts connections - NOT waiting for the load, the point is the time to
#     warm from the start - run sysbench oltp_read_only for DURATION seconds while a
#     sampler records the buffer pool's page count, the disk's read bytes
#     (/proc/diskstats), the CPU use (/proc/stat) and Innodb_buffer_pool_load_status;
#  5. print the tps every 5 s side by side, the steady state, the time each run takes
#     to reach 90% of it, the ratio warm/cold (goal <= 0.10), the buffer-pool load's
#     duration and the dump's size, and what on this machine limits the figures.
#
# Definitions used in the table:
#  - steady state = mean tps of the WARM run's last third (both runs are measured
#    against this one value; the cold run's last third is printed next to it);
#  - time to 90% = end of the first 1-second sysbench interval with tps >= 90% of the
#    steady state and a mean >= 90% over it and the next 4 seconds (sysbench reports
#    every second so that short times are resolved; the table shows 5-second means),
#    counted from the moment the server accepts connections (= sysbench start) and from
#    the launch of mariadbd (+ startup);
#  - load time = Innodb_buffer_pool_load_status polled every 0.2 s ("load completed"),
#    and the error log's "Loading buffer pool(s) from" -> "Buffer pool(s) load
#    completed at" (1-second timestamps).
#
# Why this workload: sysbench --rand-type=uniform over the rows 1..HOT_ROWS of every
# table. Uniform access makes the whole hot set (HOT_ROWS of each table: ~1.4 GB of
# primary key by default, sized to fit the 2 GiB pool with room to spare) the working
# set, so a cold
# server reaches its steady state only once nearly all of it has been read by random
# 16 KiB reads, one per missing page, at a queue depth equal to the number of sysbench
# threads: the worst case, and the one a dump is for. With the default "special"
# distribution 75% of the queries hit 1% of the rows, which a cold server reads in a
# second or two; the remaining 25% still need the whole set, so the effect is the same
# but blurred. The rows past HOT_ROWS (ROWS > HOT_ROWS) make the dataset several times
# larger than the hot set and than what the benchmark touches per second, as a real
# database would be: the dump then holds what the source's LRU held, not "everything".
# THREADS=2, the number of cores here: the steady state is already CPU-bound with 2;
# more threads only add queue depth to the cold run's reads.
#
# Reading the results: the cold run is held back by the synchronous random reads of the
# query threads, one 16 KiB read per missing page, at most THREADS at a time, between
# which the same threads spend CPU on the queries. The warm run stays near the cold level
# until the load has read nearly all of the dump (the server loads it in (space, page)
# order, table after table, while uniform queries touch every table), so its time to 90%
# is about the load's duration; the load is one server thread issuing one 16 KiB read per
# page. On the 2-vCPU VM this was written on, a 2 GB load ran at 180 to 650 MB/s from one
# run to the next (idle or under sysbench alike, whatever innodb_io_capacity) while fio
# read the same files at 600-1600 MB/s; in the slow runs perf showed that thread
# CPU-bound: mostly the kernel zeroing fresh buffer-pool memory on first touch (slow
# under this hypervisor), then an io_uring_enter and a virtio notification per page.
#
# usage: bench/warm.sh          (about 18-19 minutes here)
#        QUICK=1 bench/warm.sh  (small dataset, short runs, one round: checks the script, ~4 min)
# env (defaults; QUICK=1 changes the ones marked *):
#   BENCH_DIR=/tmp      where the temp dir goes (needs ~4x the datadir: source, backup,
#                       two restores)
#   TABLES=8*           sysbench tables
#   ROWS=2000000*       rows per table prepared (~250 bytes per row on disk)
#   HOT_ROWS=800000*    rows per table the benchmark reads (ids 1..HOT_ROWS)
#   BP_SIZE=2G*         innodb_buffer_pool_size of every server
#   LOG_SIZE=1G         innodb_log_file_size of the source
#   SRC_WARMUP=60*      seconds of oltp_read_only on the source before the backup
#   DURATION=180*       seconds of each measured run
#   THREADS=2           sysbench threads (prepare always uses 2)
#   RAND_TYPE=uniform   sysbench --rand-type (uniform, special, gaussian, pareto)
#   ROUNDS=2*           cold+warm pairs (alternating order: cold warm warm cold ...); the
#                       tps columns and times to 90% use the per-second means of the rounds
#   PARALLEL=2          --parallel of --backup and --copy-back
#   FIO=1               measure the disk with fio first (0: skip); FIO_SECS=6 per test
#   QUIET_WAIT=120*     before each measured run (after the page cache is dropped), wait
#   QUIET_PCT=15        up to QUIET_WAIT s for the machine to be idle: other processes
#   QUIET_MBS=20        below QUIET_PCT% of the CPUs and QUIET_MBS MB/s of disk reads; the
#                       CPU they take during the runs is printed either way
#   LOAD_IDLE=1         at the end, start the warm restore once more with no workload and
#                       time the load alone (0: skip)
#   RESTORED_EXTRA=     more mysqld options for both restored servers, space separated
#                       (e.g. "--innodb-io-capacity=5000"), to try what changes the figures
#   KEEP=1              keep the temp dir (datadirs, logs, raw series)
# Run as root (drop_caches). Needs mariadbd, mariadb-install-db, sysbench (fio optional).
set -euo pipefail
TOP=$(cd "$(dirname "$0")/.." && pwd)
export TMPDIR=${BENCH_DIR:-${TMPDIR:-/tmp}}
[[ -d $TMPDIR ]] || { echo "bench/warm.sh: BENCH_DIR $TMPDIR is not a directory" >&2; exit 1; }
# common.sh: temp dir $T, server_start/server_start_on/server_stop (write_cnf: option
# file with a [client] section, socket, free port on 127.0.0.1), an EXIT trap that kills
# the servers and helpers it started by pid and removes $T unless KEEP=1.
set +e
# shellcheck source-path=SCRIPTDIR source=../test/integration/inc/common.sh
. "$TOP/test/integration/inc/common.sh"
set -e
# its cleanup (the EXIT trap) runs without errexit: it was written for set -u alone
if declare -F at_exit > /dev/null; then
    at_exit 'trap - ERR; set +e'
else
    # shellcheck disable=SC2154
    trap '_warm_rc=$?; trap - ERR; set +e; (exit "$_warm_rc"); _cleanup' EXIT
fi
trap 'echo "bench/warm.sh: FAILED at line $LINENO: $BASH_COMMAND (exit $?); KEEP=1 keeps $T" >&2' ERR

if [[ ${QUICK:-0} == 1 ]]; then
    TABLES=${TABLES:-4} ROWS=${ROWS:-400000} HOT_ROWS=${HOT_ROWS:-300000} BP_SIZE=${BP_SIZE:-1G}
    SRC_WARMUP=${SRC_WARMUP:-20} DURATION=${DURATION:-60} FIO_SECS=${FIO_SECS:-2} QUIET_WAIT=${QUIET_WAIT:-30}
    ROUNDS=${ROUNDS:-1}
fi
TABLES=${TABLES:-8}
ROWS=${ROWS:-2000000}
HOT_ROWS=${HOT_ROWS:-800000}
BP_SIZE=${BP_SIZE:-2G}
LOG_SIZE=${LOG_SIZE:-1G}
SRC_WARMUP=${SRC_WARMUP:-60}
DURATION=${DURATION:-180}
THREADS=${THREADS:-2}
RAND_TYPE=${RAND_TYPE:-uniform}
ROUNDS=${ROUNDS:-2}
PARALLEL=${PARALLEL:-2}
FIO=${FIO:-1}
FIO_SECS=${FIO_SECS:-6}
QUIET_WAIT=${QUIET_WAIT:-120}
LOAD_IDLE=${LOAD_IDLE:-1}
RESTORED_EXTRA=${RESTORED_EXTRA:-}
QUIET_PCT=${QUIET_PCT:-15}
QUIET_MBS=${QUIET_MBS:-20}
XTRABACKUP=$TOP/build/xtrabackup
START_EPOCH=$EPOCHREALTIME

for v in TABLES ROWS HOT_ROWS SRC_WARMUP DURATION THREADS ROUNDS PARALLEL QUIET_PCT QUIET_MBS; do
    [[ ${!v} =~ ^[1-9][0-9]*$ ]] || fail "$v=${!v}: give a positive integer"
done
(( HOT_ROWS <= ROWS )) || fail "HOT_ROWS=$HOT_ROWS is more than ROWS=$ROWS"
(( DURATION >= 15 )) || fail "DURATION=$DURATION: give at least 15 s (the steady state is its last third)"
[[ $(id -u) -eq 0 ]] || log "warning: not root: the page cache cannot be dropped, cold runs may read from it"
[[ -x $XTRABACKUP ]] || make -C "$TOP" -j2 >/dev/null || fail "cannot build $XTRABACKUP"
command -v sysbench >/dev/null || fail "needs sysbench (make deps)"
if [[ $FIO == 1 ]] && ! command -v fio >/dev/null; then log "no fio: disk not measured"; FIO=0; fi

bytes_of() { # 512M / 2G / 1048576 -> bytes
    awk -v v="$1" 'BEGIN { m = 1; if (v ~ /[kK]$/) m = 1024; else if (v ~ /[mM]$/) m = 1048576;
                   else if (v ~ /[gG]$/) m = 1073741824; sub(/[kKmMgG]$/, "", v); printf "%.0f", v * m }'
}
BP_BYTES=$(bytes_of "$BP_SIZE")
LOG_BYTES=$(bytes_of "$LOG_SIZE")
EST=$(( TABLES * ROWS * 250 + 200 * 1048576 ))      # datadir estimate
NEED=$(( EST + LOG_BYTES + 3 * (EST + 64 * 1048576) ))
AVAIL=$(( $(df -Pk "$T" | awk 'NR == 2 { print $4 }') * 1024 ))
(( AVAIL > NEED * 12 / 10 )) || fail "not enough space in $TMPDIR: need about $(( NEED * 12 / 10 / 1073741824 + 1 )) GiB" \
    "(TABLES=$TABLES ROWS=$ROWS), $(( AVAIL / 1073741824 )) GiB free; set BENCH_DIR or lower ROWS"
log "warm.sh: $TABLES tables x $ROWS rows (~$(( EST / 1048576 )) MiB), hot rows 1..$HOT_ROWS, buffer pool $BP_SIZE," \
    "sysbench $THREADS threads $RAND_TYPE, runs of ${DURATION}s, $ROUNDS round(s), temp dir $T"

# ---------------------------------------------------------------- helpers
DROP_OK=yes
drop_caches() {
    sync
    if ! echo 3 > /proc/sys/vm/drop_caches 2>/dev/null; then
        [[ $DROP_OK == no ]] || log "warning: cannot drop the page cache (not root?)"
        DROP_OK=no
    fi
}

# The block device holding $T, for its read counter in /proc/diskstats (by major:minor;
# when the file system has no block device of its own, e.g. overlay, every disk).
DEV_MM=$(findmnt -no MAJ:MIN -T "$T" 2>/dev/null | tr -d ' ' || true)
DEV_NAME=$(awk -v mm="$DEV_MM" '$1 ":" $2 == mm { print $3 }' /proc/diskstats)
if [[ -z $DEV_NAME ]]; then
    for d in /sys/block/*; do
        case ${d##*/} in loop*|ram*|zram*|dm-*|md*|sr*) ;; *) DEV_NAME+="${d##*/} " ;; esac
    done
    log "disk: no block device for $T ($DEV_MM); counting reads of: $DEV_NAME"
else
    log "disk: $T is on /dev/$DEV_NAME ($DEV_MM)"
fi
disk_sectors_read() { # sectors (512 bytes) read so far
    awk -v names=" $DEV_NAME " 'index(names, " " $3 " ") { s += $6 } END { printf "%.0f", s }' /proc/diskstats
}
disk_reads() { # "sectors reads ms-reading" so far
    awk -v names=" $DEV_NAME " 'index(names, " " $3 " ") { s += $6; r += $4; ms += $7 }
        END { printf "%.0f %.0f %.0f", s, r, ms }' /proc/diskstats
}
cpu_ticks() { # "busy total iowait steal" (all CPUs, clock ticks) from /proc/stat's cpu line
    # user nice system idle iowait irq softirq steal (guest time is already in user)
    awk '$1 == "cpu" { t = 0; for (i = 2; i <= 9; i++) t += $i; print t - $5 - $6 - $9, t, $6, $9; exit }' /proc/stat
}
proc_ticks() { # PID... -> utime + stime of those processes (clock ticks)
    local p sum=0 f
    for p in "$@"; do
        [[ -r /proc/$p/stat ]] || continue
        f=$(< "/proc/$p/stat") || continue
        f=${f##*) }                      # fields after "(comm) "
        read -ra f <<< "$f"
        sum=$(( sum + f[11] + f[12] ))   # fields 14 and 15 of the whole line
    done
    echo "$sum"
}
# activity SECONDS - "busy% diskMB/s" over SECONDS: share of all CPUs busy (user+system,
# not iowait/steal) and reads of the disk
activity() {
    local a b d0 d1
    a=$(cpu_ticks); d0=$(disk_sectors_read); sleep "$1"; b=$(cpu_ticks); d1=$(disk_sectors_read)
    awk -v a="$a" -v b="$b" -v d0="$d0" -v d1="$d1" -v s="$1" 'BEGIN { split(a, x, " "); split(b, y, " ");
        printf "%.0f %.0f", (y[2] > x[2]) ? 100 * (y[1] - x[1]) / (y[2] - x[2]) : 0, (d1 - d0) * 512 / s / 1e6 }'
}
# wait_quiet - other people's jobs on this machine (builds, test suites) take CPU and
# disk from the servers measured here, and right after the page cache is dropped they
# read their files back: before a measured run (after drop_caches, none of our servers
# running), wait up to QUIET_WAIT seconds for three 2-second samples in a row with less
# than QUIET_PCT% of the CPUs busy and less than QUIET_MBS MB/s read from the disk.
# Sets QUIET_SEEN to the last sample.
wait_quiet() {
    local t0=$SECONDS ok=0 b mbs
    while :; do
        read -r b mbs <<< "$(activity 2)"
        QUIET_SEEN="${b}% CPU, ${mbs} MB/s disk reads"
        if (( b < QUIET_PCT && mbs < QUIET_MBS )); then
            ok=$(( ok + 1 ))
            (( ok >= 3 )) && return 0
        else
            ok=0
        fi
        if (( SECONDS - t0 >= QUIET_WAIT )); then
            log "warning: the machine is not idle after ${QUIET_WAIT}s of waiting (other processes: $QUIET_SEEN): measuring anyway"
            return 0
        fi
    done
}

status_of() { # NAME VAR... -> values, tab separated, in the order asked
    local name=$1; shift
    local q="" v
    for v in "$@"; do q+="${q:+ UNION ALL }SELECT variable_value FROM information_schema.global_status WHERE variable_name = '$v'"; done
    sql "$name" "$q" | tr '\n' '\t'
}

# sampler NAME T0 OUT PID... - every second: seconds since T0, Innodb_buffer_pool_pages_data,
# Innodb_pages_read (every page InnoDB read: the load's, the queries', read-ahead), sectors
# read from the disk (by anyone), the disk's reads and milliseconds spent reading, CPU busy/total/iowait/steal ticks, CPU ticks of
# PID... (the server and sysbench), load status.
sampler() {
    local name=$1 t0=$2 out=$3 next now vals pd rd st; shift 3
    next=${EPOCHREALTIME/./}
    while :; do
        vals=$(status_of "$name" INNODB_BUFFER_POOL_PAGES_DATA INNODB_PAGES_READ INNODB_BUFFER_POOL_LOAD_STATUS 2>/dev/null) || vals=""
        now=$EPOCHREALTIME
        IFS=$'\t' read -r pd rd st <<< "$vals" || true
        printf '%s %s %s %s %s %s %s\n' "$(awk -v a="$t0" -v b="$now" 'BEGIN { printf "%.2f", b - a }')" \
            "${pd:-NA}" "${rd:-NA}" "$(disk_reads)" "$(cpu_ticks)" "$(proc_ticks "$@")" "${st:-}" >> "$out"
        next=$(( next + 1000000 ))
        now=${EPOCHREALTIME/./}
        (( next > now )) && sleep "$(awk -v d=$(( next - now )) 'BEGIN { printf "%.3f", d / 1e6 }')"
    done
}

# load_poller NAME LAUNCH OUT - Innodb_buffer_pool_load_status every 0.2 s until it
# says the load ended; writes "seconds-since-launch status" when it does.
load_poller() {
    local name=$1 launch=$2 out=$3 st
    while :; do
        st=$(sql "$name" "SELECT variable_value FROM information_schema.global_status
                          WHERE variable_name = 'INNODB_BUFFER_POOL_LOAD_STATUS'" 2>/dev/null) || st=""
        if [[ $st == *"load completed"* || $st == *aborted* || $st == *Cannot* || $st == *rror* ]]; then
            echo "$(awk -v a="$launch" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.2f", b - a }') $st" > "$out"
            return 0
        fi
        sleep 0.2
    done
}

errlog_epoch() { # "2025-11-22  6:00:00 0 [Note] ..." -> epoch seconds
    local d t
    read -r d t _ <<< "$1"
    date -d "$d $t" +%s 2>/dev/null || echo ""
}

sb() { # sysbench against server NAME: NAME args...
    local name=$1; shift
    sysbench --db-driver=mysql --mysql-socket="$(sock_of "$name")" --mysql-user=root --mysql-db=sbtest \
        --tables="$TABLES" "$@"
}
sb_exec() { # the same, replacing the (sub)shell: ( sb_exec NAME args ) & gives sysbench's pid
    local name=$1; shift
    exec sysbench --db-driver=mysql --mysql-socket="$(sock_of "$name")" --mysql-user=root --mysql-db=sbtest \
        --tables="$TABLES" "$@"
}

# ---------------------------------------------------------------- disk
FIO_LINE="not measured (FIO=0)"
FIO_QD2_MBS=""
FIO_QD32_MBS=""
SEQ_MBS=""
if [[ $FIO == 1 ]]; then
    fio_run() { # rw bs iodepth -> "IOPS KB/s mean-lat-us"
        fio --name=warm --filename="$T/fio.dat" --size=2G --bs="$2" --rw="$1" --direct=1 --ioengine=libaio \
            --iodepth="$3" --runtime="$FIO_SECS" --time_based --output-format=terse --terse-version=3 2>/dev/null \
            | awk -F';' '{ print $8, $7, $40 }'
    }
    log "disk: fio, O_DIRECT, ${FIO_SECS}s each: 16 KiB random reads at queue depth 1, $THREADS, 32; 1 MiB sequential"
    fio --name=warm --filename="$T/fio.dat" --size=2G --bs=1M --rw=write --direct=1 --ioengine=libaio \
        --iodepth=8 --output-format=terse > /dev/null 2>&1 || fail "fio could not write $T/fio.dat"
    drop_caches
    read -r R1_IOPS _ R1_LAT <<< "$(fio_run randread 16k 1)"
    read -r RQ_IOPS RQ_KBS _ <<< "$(fio_run randread 16k "$THREADS")"
    read -r R32_IOPS R32_KBS _ <<< "$(fio_run randread 16k 32)"
    read -r _ SEQ_KBS _ <<< "$(fio_run read 1M 8)"
    SEQ_MBS=$(awk -v k="$SEQ_KBS" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }')
    rm -f "$T/fio.dat"
    mbs() { awk -v k="$1" 'BEGIN { printf "%.0f", k * 1024 / 1e6 }'; }
    FIO_QD2_MBS=$(mbs "$RQ_KBS")
    FIO_QD32_MBS=$(mbs "$R32_KBS")
    FIO_LINE=$(printf '16 KiB random reads: QD1 %s IOPS (%.0f us each), QD%s %s IOPS (%s MB/s), QD32 %s IOPS (%s MB/s); 1 MiB sequential QD8 %s MB/s' \
        "$R1_IOPS" "$R1_LAT" "$THREADS" "$RQ_IOPS" "$FIO_QD2_MBS" "$R32_IOPS" "$FIO_QD32_MBS" "$(mbs "$SEQ_KBS")")
    log "disk: $FIO_LINE"
fi

# ---------------------------------------------------------------- source, dataset, warm-up
SRV_OPTS=(--skip-log-bin --innodb-buffer-pool-size="$BP_SIZE" --innodb-flush-method=O_DIRECT)
server_start src "${SRV_OPTS[@]}" --innodb-log-file-size="$LOG_SIZE"
sql src "CREATE DATABASE sbtest"
T_PREP=$SECONDS
log "sysbench prepare: $TABLES tables x $ROWS rows, 2 threads"
sb src --threads=2 --table-size="$ROWS" oltp_read_only prepare > "$T/sb_prepare.log" 2>&1 \
    || { tail "$T/sb_prepare.log" >&2; fail "sysbench prepare failed"; }
SRC_BYTES=$(du -sb "$(datadir_of src)" | cut -f1)
log "dataset ready in $(( SECONDS - T_PREP ))s: datadir $(( SRC_BYTES / 1048576 )) MiB"
sql src "ANALYZE TABLE $(seq -s, -f 'sbtest.sbtest%g' 1 "$TABLES")" > /dev/null
HOT_PAGES=$(sql src "SELECT SUM(stat_value) FROM mysql.innodb_index_stats WHERE database_name = 'sbtest'
                     AND index_name = 'PRIMARY' AND stat_name = 'size'")
HOT_MIB=$(awk -v p="$HOT_PAGES" -v h="$HOT_ROWS" -v r="$ROWS" 'BEGIN { printf "%.0f", p * 16384 * h / r / 1048576 }')
log "primary keys: $HOT_PAGES pages; the hot set (ids 1..$HOT_ROWS) is about $HOT_MIB MiB, the buffer pool $(( BP_BYTES / 1048576 )) MiB"

RUN_OPTS=(--table-size="$HOT_ROWS" --rand-type="$RAND_TYPE" --threads="$THREADS")
log "warming the source: oltp_read_only for ${SRC_WARMUP}s"
WARM_A=$(( SRC_WARMUP > 20 ? SRC_WARMUP - 10 : SRC_WARMUP / 2 ))
WARM_B=$(( SRC_WARMUP - WARM_A ))
sb src "${RUN_OPTS[@]}" --time="$WARM_A" oltp_read_only run > "$T/sb_src_warm1.log" 2>&1 \
    || { tail "$T/sb_src_warm1.log" >&2; fail "sysbench on the source failed"; }
R0=$(status_of src INNODB_BUFFER_POOL_READS | cut -f1)
sb src "${RUN_OPTS[@]}" --time="$WARM_B" oltp_read_only run > "$T/sb_src_warm2.log" 2>&1 \
    || { tail "$T/sb_src_warm2.log" >&2; fail "sysbench on the source failed"; }
R1=$(status_of src INNODB_BUFFER_POOL_READS | cut -f1)
SRC_TPS=$(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$T/sb_src_warm2.log")
SRC_RPS=$(( (R1 - R0) / WARM_B ))
SRC_PAGES=$(status_of src INNODB_BUFFER_POOL_PAGES_DATA | cut -f1)
log "source after warm-up: $SRC_TPS tps, $SRC_RPS page reads/s from disk over the last ${WARM_B}s, $SRC_PAGES pages in the pool"

# ---------------------------------------------------------------- backup, prepare
run_xb() { # what log args...
    local what=$1 out=$2; shift 2
    local t0=$SECONDS rc=0
    "$XTRABACKUP" "$@" > "$out" 2>&1 < /dev/null || rc=$?
    if [[ $rc -ne 0 ]] || ! last_line "$out" | grep -Eq "$OK_LINE_RE"; then
        tail -n 25 "$out" | sed 's/^/  | /' >&2
        fail "$what failed (exit $rc): see above"
    fi
    log "$what: $(( SECONDS - t0 ))s"
}
B=$T/backup
run_xb "backup" "$T/backup.log" --defaults-file="$(cnf_of src)" --backup --target-dir="$B" --parallel="$PARALLEL" --progress=none
DUMP_BACKUP_LINE=$(grep -m1 'Buffer-pool dump stored in the backup' "$T/backup.log" || true)
[[ -n $DUMP_BACKUP_LINE ]] || { grep -i 'dump' "$T/backup.log" | sed 's/^/  | /' >&2; fail "the backup holds no buffer-pool dump"; }
[[ -s $B/ib_buffer_pool ]] || fail "the backup's log says a dump was stored, but $B/ib_buffer_pool is missing or empty"
log "backup: ${DUMP_BACKUP_LINE#*] }"
run_xb "prepare" "$T/prepare.log" --prepare --target-dir="$B"
grep -i 'dump\|buffer.pool' "$T/prepare.log" | sed 's/^/# prepare: /' || true
DUMP_PAGES=$(wc -l < "$B/ib_buffer_pool")
server_stop src

# ---------------------------------------------------------------- the two restores
# The restored servers keep their dump as placed (no dump at shutdown) so that a second
# round starts from the same file; the cold one never loads it.
RESTORED_OPTS=("${SRV_OPTS[@]}" --innodb-buffer-pool-dump-at-shutdown=OFF)
read -ra _more <<< "$RESTORED_EXTRA"
RESTORED_OPTS+=("${_more[@]}")
COLD_OPTS=(--innodb-buffer-pool-load-at-startup=OFF)
declare -A MODE_OPTS=([cold]="${COLD_OPTS[*]}" [warm]="")
for m in cold warm; do
    read -ra extra <<< "${MODE_OPTS[$m]}"
    write_cnf "$m" "$T/$m/data" "${RESTORED_OPTS[@]}" "${extra[@]}"
    run_xb "copy-back ($m)" "$T/copyback.$m.log" --defaults-file="$(cnf_of "$m")" --copy-back --target-dir="$B" --parallel="$PARALLEL"
    grep -E 'Buffer-pool dump|loads these|load_at_startup|rror|arning' "$T/copyback.$m.log" | sed "s/^/# copy-back $m: /" || true
done
PLACED=$T/warm/data/ib_buffer_pool
[[ -s $PLACED ]] || fail "--copy-back placed no dump at $PLACED"
PLACED_PAGES=$(wc -l < "$PLACED")
PLACED_MIB=$(awk -v p="$PLACED_PAGES" 'BEGIN { printf "%.0f", p * 16384 / 1048576 }')
LOG0=$(stat -c %s "$T/warm/data/ib_logfile0" 2>/dev/null || echo 0)
log "restored twice; dump placed: $PLACED_PAGES pages ($PLACED_MIB MiB); restored ib_logfile0: $LOG0 bytes"
# the restored servers keep the redo log size --prepare left (no resize at startup)
(( LOG0 >= 1048576 )) && RESTORED_OPTS+=(--innodb-log-file-size="$LOG0")
rm -rf "$T/cold/data/ib_buffer_pool"   # belt and braces: load_at_startup=OFF already
# ---------------------------------------------------------------- the measured runs
declare -A STARTUP LOADLINE QUIET
measure() { # mode round
    local m=$1 r=$2 tag=$1.$2
    read -ra extra <<< "${MODE_OPTS[$m]}"
    drop_caches
    wait_quiet
    QUIET[$tag]=$QUIET_SEEN
    local launch ready t0 spid sbpid rc=0 lpid=""
    launch=$EPOCHREALTIME
    server_start_on "$m" "$T/$m/data" "${RESTORED_OPTS[@]}" "${extra[@]}"
    ready=$EPOCHREALTIME
    STARTUP[$tag]=$(awk -v a="$launch" -v b="$ready" 'BEGIN { printf "%.1f", b - a }')
    : > "$T/samples.$tag"
    t0=$EPOCHREALTIME
    ( sb_exec "$m" "${RUN_OPTS[@]}" --time="$DURATION" --report-interval=1 oltp_read_only run ) > "$T/sb.$tag" 2>&1 &
    sbpid=$!; bg_track "$sbpid"
    sampler "$m" "$t0" "$T/samples.$tag" "$(pid_of "$m")" "$sbpid" &
    spid=$!; bg_track "$spid"
    if [[ $m == warm ]]; then
        load_poller "$m" "$launch" "$T/load.$tag" &
        lpid=$!; bg_track "$lpid"
    fi
    log "run $tag: sysbench oltp_read_only ${DURATION}s (server accepted connections ${STARTUP[$tag]}s after launch; just before, other processes: ${QUIET[$tag]})"
    wait "$sbpid" || rc=$?
    [[ $rc -eq 0 ]] || { tail "$T/sb.$tag" >&2; fail "sysbench on $m failed (exit $rc)"; }
    kill "$spid" 2>/dev/null || true; wait "$spid" 2>/dev/null || true
    if [[ -n $lpid ]]; then kill "$lpid" 2>/dev/null || true; wait "$lpid" 2>/dev/null || true; fi
    local e; e=$(errlog_of "$m")
    cp "$e" "$T/errlog.$tag"
    local l1 l2 s1 s2
    l1=$(grep -m1 'Loading buffer pool(s) from' "$e" || true)
    l2=$(grep -m1 'Buffer pool(s) load completed at' "$e" || true)
    if [[ -n $l1 && -n $l2 ]]; then
        s1=$(errlog_epoch "$l1"); s2=$(errlog_epoch "$l2")
        LOADLINE[$tag]="$(( s2 - s1 ))s in the error log (${l1%% 0 \[*} -> ${l2%% 0 \[*})"
    elif [[ -n $l1 ]]; then
        LOADLINE[$tag]="started (${l1%% 0 \[*}) but not completed in the error log"
    else
        LOADLINE[$tag]="no load in the error log"
    fi
    log "run $tag: $(sed -n 's/^ *transactions: *[0-9]* *(\([0-9.]*\) per sec.)/\1/p' "$T/sb.$tag") tps overall; load: ${LOADLINE[$tag]}"
    server_stop "$m"
}
# The load alone: the warm restore started once more with no workload (LOAD_IDLE=1), to
# compare the load's speed on an idle server with the one under sysbench above.
IDLE_LOAD=""
idle_load() {
    drop_caches
    wait_quiet
    local launch e l1 l2 st i
    launch=$EPOCHREALTIME
    server_start_on warm "$T/warm/data" "${RESTORED_OPTS[@]}"
    for ((i = 0; i < 3000; i++)); do
        st=$(sql warm "SELECT variable_value FROM information_schema.global_status
                       WHERE variable_name = 'INNODB_BUFFER_POOL_LOAD_STATUS'" 2>/dev/null) || st=""
        [[ $st == *"load completed"* || $st == *aborted* || $st == *Cannot* || $st == *rror* ]] && break
        sleep 0.1
    done
    IDLE_LOAD=$(awk -v a="$launch" -v b="$EPOCHREALTIME" -v p="$PLACED_PAGES" 'BEGIN {
        printf "%.1f s after launch (%.0f MB/s at least)", b - a, p * 16384 / (b - a) / 1e6 }')
    e=$(errlog_of warm)
    cp "$e" "$T/errlog.warm.idle"
    l1=$(grep -m1 'Loading buffer pool(s) from' "$e" || true)
    l2=$(grep -m1 'Buffer pool(s) load completed at' "$e" || true)
    if [[ -n $l1 && -n $l2 ]]; then
        IDLE_LOAD+="; $(( $(errlog_epoch "$l2") - $(errlog_epoch "$l1") ))s in the error log"
    else
        IDLE_LOAD+="; status: $st"
    fi
    log "load on an idle server: $IDLE_LOAD"
    server_stop warm
}

ORDER=()
for r in $(seq "$ROUNDS"); do
    if (( r % 2 )); then ORDER+=("cold $r" "warm $r"); else ORDER+=("warm $r" "cold $r"); fi
done
for o in "${ORDER[@]}"; do
    read -r m r <<< "$o"
    measure "$m" "$r"
done
[[ $LOAD_IDLE == 1 ]] && idle_load

# ---------------------------------------------------------------- analysis
# per-second tps, averaged over the rounds: "sec tps"
series() { # mode -> file
    local m=$1 out=$T/tps.$1
    for r in $(seq "$ROUNDS"); do
        awk '/^\[ [0-9]+s \]/ { t = $2; sub(/s$/, "", t); print t, $7 }' "$T/sb.$m.$r"
    done | awk '{ s[$1] += $2; n[$1]++ } END { for (t in s) print t, s[t] / n[t] }' | sort -n > "$out"
    echo "$out"
}
COLD_S=$(series cold)
WARM_S=$(series warm)
mean_between() { awk -v a="$2" -v b="$3" '$1 > a && $1 <= b { s += $2; n++ } END { if (n) printf "%.1f", s / n; else print "nan" }' "$1"; }
LAST3=$(( DURATION - DURATION / 3 ))
STEADY=$(mean_between "$WARM_S" "$LAST3" "$DURATION")
COLD_LAST=$(mean_between "$COLD_S" "$LAST3" "$DURATION")
t90() { # series -> seconds, or "never": the first second s with tps >= 90% of steady
         # whose 5-second mean (s..s+4) is >= 90% too (one lucky second does not count)
    awk -v thr="$(awk -v s="$STEADY" 'BEGIN { print 0.9 * s }')" '{ t[NR] = $1; v[NR] = $2; n = NR }
        END { for (i = 1; i <= n; i++) { if (v[i] < thr) continue; s = 0; k = 0
                  for (j = i; j <= n && j < i + 5; j++) { s += v[j]; k++ }
                  if (s / k >= thr) { print t[i]; exit } }
              print "never" }' "$1"
}
mean_of() { # values... -> mean
    printf '%s\n' "$@" | awk '{ s += $1; n++ } END { printf "%.1f", s / n }'
}
startup_mean() { local m=$1 v=() r; for r in $(seq "$ROUNDS"); do v+=("${STARTUP[$m.$r]}"); done; mean_of "${v[@]}"; }
COLD_UP=$(startup_mean cold)
WARM_UP=$(startup_mean warm)
COLD_T=$(t90 "$COLD_S")
WARM_T=$(t90 "$WARM_S")
plus() { if [[ $1 == never ]]; then echo never; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", a + b }'; fi; }
COLD_TL=$(plus "$COLD_T" "$COLD_UP")
WARM_TL=$(plus "$WARM_T" "$WARM_UP")
ratio() { if [[ $1 == never || $2 == never ]]; then echo "n/a"; else awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", a / b }'; fi; }
R_LAUNCH=$(ratio "$WARM_TL" "$COLD_TL")
per_round() { # mode -> "46s 49s" (each round's own series against the same steady state)
    local m=$1 r out=""
    for r in $(seq "$ROUNDS"); do
        awk '/^\[ [0-9]+s \]/ { t = $2; sub(/s$/, "", t); print t, $7 }' "$T/sb.$m.$r" > "$T/tps.$m.$r"
        out+="$(t90 "$T/tps.$m.$r")s "
    done
    echo "${out% }"
}
PER_COLD=$(per_round cold)
PER_WARM=$(per_round warm)
R_ACCEPT=$(ratio "$WARM_T" "$COLD_T")

# samples at 5-second marks (round 1): pool MiB, disk MB/s and CPU busy % over the 5 s before
marks() { # mode -> "mark poolMiB diskMBs cpu% iowait% others%"
    awk -v D="$DURATION" '
        { t[NR] = $1; pd[NR] = $2; prd[NR] = $3; busy[NR] = $7; tot[NR] = $8; iow[NR] = $9; ours[NR] = $11; n = NR }
        function at(m,   i, j) { j = 1; for (i = 1; i <= n; i++) if (t[i] <= m + 0.5) j = i; return j }
        function pos(x) { return x < 0 ? 0 : x }   # tick accounting can differ by a tick or two
        function last(m,   j) { j = at(m); return (j == at(m - 5) && j < n) ? j + 1 : j }
        END { for (m = 5; m <= D; m += 5) { a = at(m - 5); b = last(m);
                  dt = t[b] - t[a]; dtk = tot[b] - tot[a];
                  printf "%d %s %s %s %s %s\n", m,
                      (pd[b] == "NA" ? "?" : sprintf("%.0f", pd[b] * 16384 / 1048576)),
                      (dt > 0 && prd[b] != "NA" && prd[a] != "NA" ? sprintf("%.0f", (prd[b] - prd[a]) * 16384 / dt / 1e6) : "?"),
                      (dtk > 0 ? sprintf("%.0f", 100 * (busy[b] - busy[a]) / dtk) : "?"),
                      (dtk > 0 ? sprintf("%.0f", 100 * (iow[b] - iow[a]) / dtk) : "?"),
                      (dtk > 0 ? sprintf("%.0f", pos(100 * (busy[b] - busy[a] - ours[b] + ours[a]) / dtk)) : "?") } }' "$T/samples.$1.1"
}
marks cold > "$T/marks.cold"
marks warm > "$T/marks.warm"
# InnoDB's reads of a run until it reached 90% (or over the whole run), and the disk's
# (InnoDB's: since the launch, the server starts with no page read but those of startup)
disk_until() { # mode seconds startup -> "mean-MB/s peak-MB/s MiB disk-MB/s disk-reads/s peak-disk-reads/s disk-ms-per-read"
    awk -v u="$2" -v up="$3" '$3 != "NA" { n++; t[n] = $1; p[n] = $3; s[n] = $4; r[n] = $5; ms[n] = $6 }
        END { last = 1; for (i = 1; i <= n; i++) if (t[i] <= u + 0.5) last = i;
              pk = 0; pr = 0
              for (i = 2; i <= last; i++) { d = t[i] - t[i-1]; if (d > 0) { x = (p[i] - p[i-1]) * 16384 / d / 1e6; if (x > pk) pk = x
                                                                              x = (r[i] - r[i-1]) / d; if (x > pr) pr = x } }
              dt = t[last] - t[1]; dr = r[last] - r[1]
              printf "%.0f %.0f %.0f %.0f %.0f %.0f %.3f", p[last] * 16384 / (t[last] + up) / 1e6, pk, p[last] * 16384 / 1048576,
                     (dt > 0 ? (s[last] - s[1]) * 512 / dt / 1e6 : 0), (dt > 0 ? dr / dt : 0), pr, (dr > 0 ? (ms[last] - ms[1]) / dr : 0) }' "$T/samples.$1.1"
}
COLD_U=$([[ $COLD_T == never ]] && echo "$DURATION" || echo "$COLD_T")
read -r COLD_MBS COLD_PEAK COLD_MIB COLD_DEV COLD_RPS COLD_RPEAK COLD_LAT <<< "$(disk_until cold "$COLD_U" "${STARTUP[cold.1]}")"
WARM_U=$([[ $WARM_T == never ]] && echo "$DURATION" || echo "$WARM_T")
read -r WARM_MBS WARM_PEAK WARM_MIB WARM_DEV _ _ _ <<< "$(disk_until warm "$WARM_U" "${STARTUP[warm.1]}")"
others_mean() { # mode [until-second] -> mean others' CPU % of round 1 (up to the mark covering that second)
    awk -v u="${2:-1e9}" '$6 != "?" && $1 - 5 < u { s += $6; n++ } END { if (n) printf "%.0f", s / n; else print "?" }' "$T/marks.$1"
}
OTHERS_COLD=$(others_mean cold)
OTHERS_WARM=$(others_mean warm)
STEAL=$(awk '{ if (NR == 1) { s0 = $10; t0 = $8 } s1 = $10; t1 = $8 } END { if (t1 > t0) printf "%.0f", 100 * (s1 - s0) / (t1 - t0); else print 0 }' "$T/samples.cold.1")
OTHERS_COLD_RAMP=$(others_mean cold "$COLD_U")
OTHERS_WARM_RAMP=$(others_mean warm "$WARM_U")
STEADY_CPU=$(awk -v a="$LAST3" '$1 > a && $4 != "?" { s += $4; n++ } END { if (n) printf "%.0f", s / n; else print "?" }' "$T/marks.warm")
COLD_IOW=$(awk -v u="$COLD_U" '$1 <= u + 4 && $5 != "?" { s += $5; n++ } END { if (n) printf "%.0f", s / n; else print "?" }' "$T/marks.cold")
LOAD_POLL=()
for r in $(seq "$ROUNDS"); do
    if [[ -s $T/load.warm.$r ]]; then
        read -r ls lst < "$T/load.warm.$r"
        LOAD_POLL+=("round $r: $lst, seen ${ls}s after launch ($(awk -v a="$ls" -v b="${STARTUP[warm.$r]}" 'BEGIN { printf "%.1f", a - b }')s after accepting connections); ${LOADLINE[warm.$r]}")
    else
        LOAD_POLL+=("round $r: not completed within the run; ${LOADLINE[warm.$r]}")
    fi
done
# the load starts during startup, so "completed N s after launch" bounds its duration
LOAD_RATE=""
if [[ -s $T/load.warm.1 ]]; then
    LOAD_RATE=$(awk -v p="$PLACED_PAGES" '{ if ($1 > 0) printf "at least %.0f MB/s (%d pages of 16 KiB in at most %.1f s)", p * 16384 / $1 / 1e6, p, $1 }' "$T/load.warm.1")
fi

# ---------------------------------------------------------------- report
TOTAL=$(awk -v a="$START_EPOCH" -v b="$EPOCHREALTIME" 'BEGIN { printf "%.0f", b - a }')
echo
echo "== bench/warm.sh: cold vs warm restore (issue 4) =="
echo "dataset: $TABLES tables x $ROWS rows, datadir $(( SRC_BYTES / 1048576 )) MiB; benchmark reads ids 1..$HOT_ROWS of each (~$HOT_MIB MiB of primary key);" \
     "buffer pool $BP_SIZE; innodb_flush_method=O_DIRECT"
echo "workload: sysbench oltp_read_only --threads=$THREADS --rand-type=$RAND_TYPE --time=$DURATION, started as soon as the server accepts connections; rounds: $ROUNDS"
echo "source after ${SRC_WARMUP}s of warm-up: $SRC_TPS tps, $SRC_RPS disk page reads/s, $SRC_PAGES pages in its pool"
echo "dump: --backup stored $(sed -n 's/.*ib_buffer_pool: \([0-9]*\) pages.*/\1/p' <<< "$DUMP_BACKUP_LINE") pages; after --prepare $DUMP_PAGES; placed by --copy-back: $PLACED_PAGES pages ($PLACED_MIB MiB)"
echo
printf '%6s | %9s %9s | %13s %13s | %15s | %11s | %11s\n' "t (s)" "cold tps" "warm tps" "cold pool MiB" "warm pool MiB" "InnoDB read MB/s" "CPU busy" "others' CPU"
printf '%6s | %9s %9s | %13s %13s | %7s %7s | %5s %5s | %5s %5s\n' "" "" "" "" "" cold warm cold warm cold warm
five_s() { awk -v D="$DURATION" '{ b = int(($1 - 1) / 5) * 5 + 5; s[b] += $2; n[b]++ }
                   END { for (b = 5; b <= D; b += 5) printf "%d %.1f\n", b, (n[b] ? s[b] / n[b] : 0) }' "$1"; }
# columns: mark tps | mark tps | mark pool MB/s cpu iowait others | (same, warm); every file has the marks 5, 10, ..., DURATION
paste -d' ' <(five_s "$COLD_S") <(five_s "$WARM_S") "$T/marks.cold" "$T/marks.warm" \
    | awk '{ printf "%6d | %9s %9s | %13s %13s | %7s %7s | %4s%% %4s%% | %4s%% %4s%%\n", $1, $2, $4, $6, $12, $7, $13, $8, $14, $10, $16 }'
echo "(tps: 5-second means of the per-second reports; pool = Innodb_buffer_pool_pages_data; InnoDB read = Innodb_pages_read x 16 KiB;"
echo " CPU busy = share of all $(nproc) cores in use, others' CPU = the part not used by this server and its sysbench; pool, MB/s, CPU from round 1)"
echo
echo "steady state = mean tps of the warm run's last third (${LAST3}-${DURATION}s): $STEADY   (cold run's last third: $COLD_LAST; source: $SRC_TPS)"
printf '%-44s %10s %10s\n' "" cold warm
printf '%-44s %9ss %9ss\n' "server launch -> accepts connections" "$COLD_UP" "$WARM_UP"
printf '%-44s %10s %10s\n' "to 90% of steady, from accepting connections" "${COLD_T}s" "${WARM_T}s"
printf '%-44s %10s %10s\n' "to 90% of steady, from launch" "${COLD_TL}s" "${WARM_TL}s"
(( ROUNDS > 1 )) && echo "(each round on its own, from accepting connections: cold $PER_COLD; warm $PER_WARM)"
echo "ratio warm/cold of the time to 90%: $R_LAUNCH from launch, $R_ACCEPT from accepting connections" \
     "(goal <= 0.10: $(awk -v r="$R_LAUNCH" 'BEGIN { print (r != "n/a" && r <= 0.10) ? "met" : "not met" }'))"
echo "buffer-pool load of the warm run (dump: $PLACED_PAGES pages, $PLACED_MIB MiB${LOAD_RATE:+; $LOAD_RATE}):"
printf '  %s\n' "${LOAD_POLL[@]}"
[[ -n $IDLE_LOAD ]] && echo "  the same load on an idle server (no sysbench): completed $IDLE_LOAD"
echo "what limits these figures on this machine:"
echo "  page cache dropped before each server start: $DROP_OK; InnoDB reads with O_DIRECT (no page cache) either way"
echo "  disk /dev/$DEV_NAME: $FIO_LINE"
echo "  cold run (round 1) from launch to 90% (or its end): InnoDB read $COLD_MBS MB/s on average, $COLD_PEAK MB/s in the best second ($COLD_MIB MiB; the whole disk: $COLD_DEV MB/s," \
     "$COLD_RPS reads/s, $COLD_RPEAK peak, $COLD_LAT ms each), iowait $COLD_IOW% of the CPUs: one synchronous random 16 KiB read per missing page," \
     "at most $THREADS at a time${FIO_QD2_MBS:+ (fio at that queue depth: $FIO_QD2_MBS MB/s)}, between which the same threads spend CPU on the queries"
echo "  warm run (round 1) from launch to 90%: InnoDB read $WARM_MBS MB/s on average, $WARM_PEAK MB/s in the best second after connections were accepted ($WARM_MIB MiB; the whole disk: $WARM_DEV MB/s): mostly the load's sorted reads${FIO_QD32_MBS:+ (fio QD32 random: $FIO_QD32_MBS MB/s)}"
if [[ -s $T/load.warm.1 ]]; then
    read -r LS _ < "$T/load.warm.1"
    echo "  the load (round 1): $(awk -v p="$PLACED_PAGES" -v s="$LS" -v f="${FIO_QD32_MBS:-0}" -v q="${SEQ_MBS:-0}" 'BEGIN {
        r = p * 16384 / s / 1e6; printf "%.0f MB/s from launch to completed", r
        if (f > 0) printf " = %.0f%% of fio'"'"'s 16 KiB random reads at QD32, %.0f%% of its 1 MiB sequential reads", 100 * r / f, 100 * r / q }')" \
         "(one thread of the server issues one 16 KiB read per page of the dump, in (space, page) order)"
fi
echo "  steady state: CPU $STEADY_CPU% busy (mariadbd + sysbench on $(nproc) cores), no disk reads: CPU-bound"
echo "  other processes on this machine took $OTHERS_COLD% (cold run; $OTHERS_COLD_RAMP% until 90%) and $OTHERS_WARM% (warm run; $OTHERS_WARM_RAMP% until 90%)" \
     "of the CPUs in round 1, the hypervisor $STEAL% (steal, cold run)$(
    awk -v a="$OTHERS_COLD" -v b="$OTHERS_WARM" -v c="$OTHERS_COLD_RAMP" -v d="$OTHERS_WARM_RAMP" 'BEGIN {
        if (a + 0 > 10 || b + 0 > 10 || c + 0 > 10 || d + 0 > 10)
            printf "; WARNING: more than 10%%: the tps and times above are disturbed, rerun on an idle machine" }')"
echo "total time of this run: ${TOTAL}s ($(( TOTAL / 60 )) min $(( TOTAL % 60 )) s); raw series in $T (KEEP=1 keeps them)"
