#!/usr/bin/env bash
# bench/backup.sh - backup speed of xtrabackup vs mariabackup vs cp -a, side by side.
#
# xtrabackup fsyncs every file before it writes its completion marker; mariabackup does
# not, so it is also timed followed by `sync -f` of its target (like for like).
#
# Builds a sysbench dataset (SIZE_GB, default 3) on a throwaway server, then in every
# round measures the disk's sequential read bandwidth with fio (direct I/O, 1 MiB
# blocks) and times, alternating and with the page cache dropped before each run: our
# --backup with --parallel=4 and 1, mariabackup with the same, both streamed to
# /dev/null (the read side alone), and `cp -a` of the datadir. Prints MB/s of datadir
# bytes, ratios, the share of the disk's read bandwidth, peak RSS, and the throughput a
# 4-thread sysbench write load keeps while each backup tool runs (vs. no backup).
#
# usage: bench/backup.sh [ROUNDS]   env: SIZE_GB=3 TABLES=8 KEEP=1
#
# Other cases (CASE=..., each on its own small server, ours and mariabackup
# alternating, --parallel=$PARALLEL (default 4) for both, sync and page cache dropped
# before each run):
#   CASE=fresh  FRESH_TABLES (default 1000) small InnoDB tables with a few rows are
#               created just before each backup (their page 0 not yet flushed, as
#               for minutes after CREATE); prints both times and how long each tool
#               held DDL blocked: from its "BLOCK_DDL acquired" log line to its
#               "BACKUP STAGE END" line, each line stamped on arrival (ms).
#   CASE=many   MANY_TABLES (default 10000) small tables, server restarted (nothing
#               fresh): backup time of each, peak RSS, DDL hold time.
#   CASE=light  a ~LIGHT_MB (default 180) MiB sysbench server under a light write
#               load (sysbench oltp_write_only --rate=LIGHT_RATE, default 20 tps):
#               backup time of each (ours with its default --pace=auto).
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/test/integration/inc/common.sh"
ROUNDS=${1:-2}
SIZE_GB=${SIZE_GB:-3}
TABLES=${TABLES:-8}
ROWS=$(( SIZE_GB * 1024 * 1024 * 1024 / 230 / TABLES ))   # ~230 bytes per sysbench row on disk
[ -x "$TOP/build/xtrabackup" ] || make -C "$TOP" >/dev/null || exit 1
CASE=${CASE:-throughput}
PARALLEL=${PARALLEL:-4}

# ---------------------------------------------------------------- small cases
# stamp: each stderr line of a tool prefixed with its arrival time (s, ms precision)
stamp() { perl -MTime::HiRes=time -ne '$|=1; printf "%.3f %s", time, $_'; }
declare -A CSUM CMEM CHOLD CN
case_run() { # key command... -> time, peak RSS and DDL hold time of one backup
  local key=$1; shift
  # mariabackup leaves its writes dirty: without a sync they are flushed during the next run
  rm -rf "$T/out"; sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null
  local t0 t1 s hold
  t0=$(date +%s.%N)
  { /usr/bin/time -f '%M' -o "$T/rss" "$@" 2>&1 >/dev/null || echo "FAILED $?"; } | stamp > "$T/$key.log"
  t1=$(date +%s.%N)
  grep -q '^[0-9.]* FAILED' "$T/$key.log" && { tail "$T/$key.log"; fail "$key failed"; }
  s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{printf "%.3f", b-a}')
  # DDL blocked: BLOCK_DDL acquired (ours: "Acquired BACKUP STAGE BLOCK_DDL", mariabackup:
  # "Acquired locks for BACKUP STAGE BLOCK_DDL") to the start of BACKUP STAGE END
  hold=$(awk '/Acquired (locks for )?BACKUP STAGE BLOCK_DDL/ && !a { a=$1 }
              /Starting BACKUP STAGE END/ && a && !e { e=$1 } END { if (a && e) printf "%.0f", (e-a)*1000; else print "nan" }' "$T/$key.log")
  CSUM[$key]=$(awk -v x="${CSUM[$key]:-0}" -v s="$s" 'BEGIN{print x+s}')
  CHOLD[$key]=$(awk -v x="${CHOLD[$key]:-0}" -v h="$hold" 'BEGIN{print x+h}')
  CN[$key]=$(( ${CN[$key]:-0} + 1 ))
  local rss; rss=$(tail -n 1 "$T/rss")
  [ "${CMEM[$key]:-0}" -lt "$rss" ] && CMEM[$key]=$rss
  log "$key: ${s}s, DDL blocked ${hold} ms, peak RSS $rss KiB"
}
case_report() { # title
  local xb=xb mb=mb
  echo
  echo "$1 (--parallel=$PARALLEL, rounds: ${CN[xb]})"
  printf '%-12s %10s %18s %14s\n' tool "backup s" "DDL blocked ms" "peak RSS KiB"
  for k in xb mb; do
    printf '%-12s %10s %18s %14s\n' "$([ $k = xb ] && echo xtrabackup || echo mariabackup)" \
      "$(awk -v x="${CSUM[$k]}" -v n="${CN[$k]}" 'BEGIN{printf "%.2f", x/n}')" \
      "$(awk -v x="${CHOLD[$k]}" -v n="${CN[$k]}" 'BEGIN{printf "%.0f", x/n}')" "${CMEM[$k]}"
  done
  awk -v a="${CSUM[xb]}" -v b="${CSUM[mb]}" -v ha="${CHOLD[xb]}" -v hb="${CHOLD[mb]}" 'BEGIN{
    printf "ratio xtrabackup/mariabackup: backup time %.2f (goal <= 1.00), DDL blocked %.2f (goal <= 1.00)\n", a/b, ha/hb }'
}
XB_CMD=("$TOP/build/xtrabackup" --backup --parallel="$PARALLEL" --progress=none --target-dir="$T/out")
MB_CMD=(mariabackup --backup --parallel="$PARALLEL" --target-dir="$T/out")
make_tables() { # db count rows-each [create options]
  { echo "CREATE DATABASE $1; USE $1; SET SESSION sql_log_bin = 0;"
    for i in $(seq "$2"); do
      echo "CREATE TABLE t$i (id INT PRIMARY KEY, a VARCHAR(64), b INT) ENGINE=InnoDB;"
      echo "INSERT INTO t$i SELECT seq, MD5(seq), seq FROM seq_1_to_$3;"
    done; } | mariadb --defaults-file="$(cnf_of src)" -N -B || fail "creating $2 tables in $1 failed"
}
if [ "$CASE" = fresh ]; then
  FRESH_TABLES=${FRESH_TABLES:-1000}
  server_start src --skip-log-bin --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2
  CNF=$(cnf_of src)
  for r in $(seq "$ROUNDS"); do
    for k in xb mb; do
      log "round $r: $FRESH_TABLES fresh tables for $k"
      sql src "DROP DATABASE IF EXISTS fresh" || fail "drop"
      make_tables fresh "$FRESH_TABLES" 20
      if [ $k = xb ]; then case_run xb "${XB_CMD[0]}" --defaults-file="$CNF" "${XB_CMD[@]:1}"
      else case_run mb "${MB_CMD[0]}" --defaults-file="$CNF" "${MB_CMD[@]:1}"; fi
    done
  done
  case_report "fresh tables: $FRESH_TABLES InnoDB tables created just before each backup"
  exit 0
fi
if [ "$CASE" = many ]; then
  MANY_TABLES=${MANY_TABLES:-10000}
  server_start src --skip-log-bin --innodb-buffer-pool-size=512M --innodb-flush-log-at-trx-commit=2 \
    --table-open-cache=20000 --open-files-limit=50000
  log "creating $MANY_TABLES tables"
  make_tables many "$MANY_TABLES" 20
  server_stop src
  server_start_on src "$(datadir_of src)" --skip-log-bin --innodb-buffer-pool-size=512M
  CNF=$(cnf_of src)
  for r in $(seq "$ROUNDS"); do
    case_run xb "${XB_CMD[0]}" --defaults-file="$CNF" "${XB_CMD[@]:1}"
    case_run mb "${MB_CMD[0]}" --defaults-file="$CNF" "${MB_CMD[@]:1}"
  done
  case_report "many tables: $MANY_TABLES small InnoDB tables, server restarted"
  exit 0
fi
if [ "$CASE" = light ]; then
  LIGHT_MB=${LIGHT_MB:-180}
  LIGHT_RATE=${LIGHT_RATE:-20}
  command -v sysbench >/dev/null || { echo "needs sysbench (make deps)"; exit 1; }
  server_start src --skip-log-bin --innodb-buffer-pool-size=256M
  CNF=$(cnf_of src)
  LSB=(sysbench --db-driver=mysql --mysql-socket="$(sock_of src)" --mysql-user=root --mysql-db=sbtest
       --tables=4 --table-size=$(( LIGHT_MB * 1048576 / 230 / 4 )))
  sql src "CREATE DATABASE sbtest"
  "${LSB[@]}" --threads=2 oltp_write_only prepare >/dev/null || fail "sysbench prepare failed"
  log "datadir: $(( $(du -sb "$(datadir_of src)" | cut -f1) / 1048576 )) MiB; light load: $LIGHT_RATE tps"
  "${LSB[@]}" --threads=2 --rate="$LIGHT_RATE" --time=100000 oltp_write_only run >/dev/null 2>&1 &
  LOAD=$!; bg_track $LOAD
  sleep 3
  for r in $(seq "$ROUNDS"); do
    case_run xb "${XB_CMD[0]}" --defaults-file="$CNF" "${XB_CMD[@]:1}"
    case_run mb "${MB_CMD[0]}" --defaults-file="$CNF" "${MB_CMD[@]:1}"
  done
  kill $LOAD 2>/dev/null
  grep -h 'Pacing' "$T/xb.log" | sed 's/^/  ours: /' | head -n 5
  case_report "light load: ~$LIGHT_MB MiB server, $LIGHT_RATE write tps during the backup (ours paced with --pace=auto)"
  exit 0
fi
[ "$CASE" = throughput ] || { echo "unknown CASE=$CASE (throughput, fresh, many, light)"; exit 1; }
command -v sysbench >/dev/null && command -v fio >/dev/null || { echo "needs sysbench and fio (make deps)"; exit 1; }

# No binary log: its files are not part of a backup and would inflate "datadir bytes".
server_start src --skip-log-bin --innodb-buffer-pool-size=1G --innodb-log-file-size=256M --innodb-flush-method=O_DIRECT
SB=(sysbench --db-driver=mysql --mysql-socket="$(sock_of src)" --mysql-user=root --mysql-db=sbtest
    --tables=$TABLES --table-size=$ROWS)
sql src "CREATE DATABASE sbtest"
log "preparing ~${SIZE_GB} GB with sysbench ($TABLES tables x $ROWS rows)"
"${SB[@]}" --threads=2 oltp_read_write prepare >/dev/null || fail "sysbench prepare failed"
# A clean restart: nothing left for InnoDB to flush or purge in the background.
server_stop src
server_start_on src "$(datadir_of src)" --skip-log-bin --innodb-buffer-pool-size=1G --innodb-log-file-size=256M --innodb-flush-method=O_DIRECT
DATA=$(datadir_of src)
BYTES=$(du -sb "$DATA" | cut -f1)
log "datadir: $((BYTES / 1048576)) MiB"

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }

# The disk's sequential read bandwidth (fio, direct, 1 MiB) is measured in every round,
# between the backups, on one file laid out once: this virtual disk's figure moves from
# run to run (its host caches), so one reading at the start is not a fair yardstick.
log "laying out a 2 GiB file for fio (disk sequential read bandwidth, direct, 1 MiB)"
fio --name=layout --filename="$T/fio.dat" --size=2G --bs=1M --rw=write --direct=1 --ioengine=libaio \
    --output-format=terse >/dev/null 2>&1 || fail "fio could not lay out $T/fio.dat"
fio_read() { # iodepth -> MB/s
  fio --name=seqread --filename="$T/fio.dat" --size=2G --bs=1M --rw=read --direct=1 --ioengine=libaio \
      --iodepth="$1" --readonly --output-format=terse --terse-version=3 2>/dev/null |
    cut -d';' -f7 | awk '{printf "%.0f", $1*1024/1e6}'   # KB/s -> MB/s
}
declare -a DISK1 DISK8
disk_round() { # round
  drop_caches; DISK1[$1]=$(fio_read 1)
  drop_caches; DISK8[$1]=$(fio_read 8)
  log "disk read, round $1: ${DISK1[$1]} MB/s at queue depth 1, ${DISK8[$1]} MB/s at queue depth 8"
}

declare -A SUM MEM LAST ROUND_PCT
run_one() { # name command...
  local name=$1; shift
  rm -rf "$T/out"; drop_caches
  local t0 t1
  t0=$(date +%s.%N)
  /usr/bin/time -f '%M' -o "$T/rss" "$@" > "$T/$name.log" 2>&1 || { tail "$T/$name.log"; fail "$name failed"; }
  t1=$(date +%s.%N)
  local s; s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')
  LAST[$name]=$s
  SUM[$name]=$(awk -v x="${SUM[$name]:-0}" -v s="$s" 'BEGIN{print x+s}')
  local rss; rss=$(cat "$T/rss")
  [ "${MEM[$name]:-0}" -lt "$rss" ] && MEM[$name]=$rss
  log "$name: ${s}s"
}
CNF=$(cnf_of src)
for r in $(seq "$ROUNDS"); do
  disk_round "$r"
  run_one xb_p4 "$TOP/build/xtrabackup" --defaults-file="$CNF" --backup --parallel=4 --progress=none --target-dir="$T/out"
  ROUND_PCT[$r]=$(awk -v b="$BYTES" -v s="${LAST[xb_p4]}" -v d="${DISK1[$r]}" 'BEGIN{printf "%.0f", 100*b/s/1e6/d}')
  run_one mb_p4 mariabackup --defaults-file="$CNF" --backup --parallel=4 --target-dir="$T/out"
  # mariabackup does not fsync what it wrote: "completed OK!" can precede the data reaching
  # the disk. The same run followed by a sync of the target is the like-for-like figure.
  run_one mb_p4_sync sh -c 'mariabackup --defaults-file="$1" --backup --parallel=4 --target-dir="$2" && sync -f "$2"' \
    sh "$CNF" "$T/out"
  # The read side alone: the same backups streamed to /dev/null (as to another host),
  # so the disk only reads.
  run_one xb_p4_stream sh -c '"$1" --defaults-file="$2" --backup --parallel=4 --progress=none --stream=xbstream \
    --target-dir="$3" > /dev/null' sh "$TOP/build/xtrabackup" "$CNF" "$T/out"
  run_one mb_p4_stream sh -c 'mariabackup --defaults-file="$1" --backup --parallel=4 --stream=xbstream \
    --target-dir="$2" > /dev/null' sh "$CNF" "$T/out"
  run_one xb_p1 "$TOP/build/xtrabackup" --defaults-file="$CNF" --backup --parallel=1 --progress=none --target-dir="$T/out"
  run_one mb_p1 mariabackup --defaults-file="$CNF" --backup --parallel=1 --target-dir="$T/out"
  run_one cp cp -a "$DATA" "$T/out"
done
rm -f "$T/fio.dat"
mean() { printf '%s\n' "$@" | awk '{s+=$1; n++} END {printf "%.0f", s/n}'; }
DISK_MBS=$(mean "${DISK1[@]}")
DISK8_MBS=$(mean "${DISK8[@]}")

rate() { awk -v b="$BYTES" -v s="${SUM[$1]}" -v r="$ROUNDS" 'BEGIN{printf "%.0f", b/(s/r)/1e6}'; }
echo
echo "datadir bytes: $BYTES; rounds: $ROUNDS"
echo "disk sequential read (fio, direct, 1 MiB), mean of the rounds: $DISK_MBS MB/s at queue depth 1 (rounds: ${DISK1[*]}), $DISK8_MBS MB/s at queue depth 8 (rounds: ${DISK8[*]})"
printf '%-28s %8s %10s %12s\n' run "MB/s" "peak RSS" "vs disk QD1"
for n in xb_p4 mb_p4 mb_p4_sync xb_p4_stream mb_p4_stream xb_p1 mb_p1 cp; do
  printf '%-28s %8s %8s KiB %11s%%\n' "$n" "$(rate $n)" "${MEM[$n]:-?}" \
    "$(awk -v a="$(rate $n)" -v d="$DISK_MBS" 'BEGIN{printf "%.0f", 100*a/d}')"
done
ratio() { awk -v a="$(rate "$1")" -v b="$(rate "$2")" 'BEGIN{printf "%.2f", a/b}'; }
echo "ratio xtrabackup/mariabackup --parallel=4: $(ratio xb_p4 mb_p4)  (goal >= 1.30)"
echo "ratio xtrabackup/(mariabackup + sync) --parallel=4: $(ratio xb_p4 mb_p4_sync)  (like for like: both durable)"
echo "ratio xtrabackup/mariabackup --parallel=1: $(ratio xb_p1 mb_p1)  (goal >= 1.00)"
echo "ratio xtrabackup --parallel=4 / cp -a:     $(ratio xb_p4 cp)"
echo "xtrabackup --parallel=4 into a directory on the same disk: $(awk -v a="$(rate xb_p4)" -v d="$DISK_MBS" 'BEGIN{printf "%.0f", 100*a/d}')% of the disk's read bandwidth (goal >= 70%; each round against its own disk reading: ${ROUND_PCT[*]}%)"
echo "  (it reads and writes the same number of bytes on one disk; streamed to /dev/null it reads only: $(awk -v a="$(rate xb_p4_stream)" -v d="$DISK_MBS" 'BEGIN{printf "%.0f", 100*a/d}')%)"

# Write-load impact: sysbench write-only with 4 threads reports its throughput every
# second; the backup starts 5 s in. The loss is the mean tps while the backup runs
# compared with the mean tps of a run with no backup.
LOAD_SECS=${LOAD_SECS:-30}
load_run() { # out-file
  "${SB[@]}" --threads=4 --time="$LOAD_SECS" --report-interval=1 oltp_write_only run > "$1" 2>/dev/null
}
tps_between() { # file from-second to-second
  awk -v a="$2" -v b="$3" '/^\[ [0-9]+s \]/ { t=$2+0; if (t>a && t<=b+1) { s+=$7; n++ } }
    END { if (n) printf "%.1f", s/n; else print "nan" }' "$1"
}
declare -A LOSS
during() { # name command...
  local name=$1; shift
  rm -rf "$T/out"; drop_caches
  load_run "$T/load.$name" & local lp=$!
  sleep 5
  local t0=$SECONDS
  "$@" > "$T/during.$name.log" 2>&1 || { tail "$T/during.$name.log"; fail "$name under load failed"; }
  local t1=$SECONDS
  wait $lp
  DUR_TPS=$(tps_between "$T/load.$name" 5 $((5 + t1 - t0)))
}
for r in $(seq "$ROUNDS"); do
  drop_caches; load_run "$T/load.alone"
  BASE=$(tps_between "$T/load.alone" 0 "$LOAD_SECS")
  during xb "$TOP/build/xtrabackup" --defaults-file="$CNF" --backup --parallel=4 --progress=none --target-dir="$T/out"
  XB_TPS=$DUR_TPS
  during mb mariabackup --defaults-file="$CNF" --backup --parallel=4 --target-dir="$T/out"
  MB_TPS=$DUR_TPS
  log "round $r: write tps alone $BASE; while xtrabackup runs $XB_TPS; while mariabackup runs $MB_TPS"
  LOSS[xb]=$(awk -v x="${LOSS[xb]:-0}" -v b="$BASE" -v d="$XB_TPS" 'BEGIN{print x + 100*(1-d/b)}')
  LOSS[mb]=$(awk -v x="${LOSS[mb]:-0}" -v b="$BASE" -v d="$MB_TPS" 'BEGIN{print x + 100*(1-d/b)}')
done
awk -v x="${LOSS[xb]}" -v m="${LOSS[mb]}" -v r="$ROUNDS" 'BEGIN{
  lx=x/r; lm=m/r;
  printf "write load loses %.1f%% of its throughput while xtrabackup runs, %.1f%% while mariabackup runs (goal: at most half: %s)\n", lx, lm, (lx <= lm/2) ? "met" : "not met" }'
