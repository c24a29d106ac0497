#!/usr/bin/env bash
# bench/stream.sh - streaming and compression speed, side by side in one run.
#
# Builds a sysbench dataset (SIZE_GB, default 2) on a throwaway server, then times,
# alternating, with the page cache dropped before each run and --parallel=4:
#   xb_local      our --backup into a directory (the reference: goal, streaming within 10%)
#   xb_xbstream   our --backup --stream=xbstream > /dev/null
#   mb_xbstream   mariabackup --backup --stream=xbstream > /dev/null
#   xb_tar        our --backup --stream=tar > /dev/null (spools each file first)
#   xb_zstd_N     our --backup --stream=xbstream --compress --compress-threads=N for N
#                 in 1 2 4, into a file (so the compressed size is known)
#   xb_zstd_enc   the same with 4 threads and --encrypt=AES256
# Prints MB/s of datadir bytes, the stream/local ratio, the compression ratio and
# how compression throughput scales with threads. The machine has 2 cores: scaling
# past 2 threads is not expected here, and the figures say so rather than hide it.
#
# usage: bench/stream.sh [ROUNDS]   env: SIZE_GB=2 TABLES=8
set -u
TOP=$(cd "$(dirname "$0")/.." && pwd)
. "$TOP/test/integration/inc/common.sh"
ROUNDS=${1:-2}
SIZE_GB=${SIZE_GB:-2}
TABLES=${TABLES:-8}
ROWS=$(( SIZE_GB * 1024 * 1024 * 1024 / 230 / TABLES ))
[ -x "$TOP/build/xtrabackup" ] || make -C "$TOP" >/dev/null || exit 1
command -v sysbench >/dev/null || { echo "needs sysbench (make deps)"; exit 1; }

server_start src --skip-log-bin --innodb-buffer-pool-size=1G --innodb-log-file-size=256M --innodb-flush-method=O_DIRECT
SB=(sysbench --db-driver=mysql --mysql-socket="$(sock_of src)" --mysql-user=root --mysql-db=sbtest
    --tables=$TABLES --table-size=$ROWS)
sql src "CREATE DATABASE sbtest"
log "preparing ~${SIZE_GB} GB with sysbench ($TABLES tables x $ROWS rows)"
"${SB[@]}" --threads=2 oltp_read_write prepare >/dev/null || fail "sysbench prepare failed"
server_stop src
server_start_on src "$(datadir_of src)" --skip-log-bin --innodb-buffer-pool-size=1G --innodb-log-file-size=256M --innodb-flush-method=O_DIRECT
DATA=$(datadir_of src)
BYTES=$(du -sb "$DATA" | cut -f1)
CNF=$(cnf_of src)
XB=$TOP/build/xtrabackup
(umask 077; openssl rand -hex 32 > "$T/key")
log "datadir: $((BYTES / 1048576)) MiB"

drop_caches() { sync; echo 3 > /proc/sys/vm/drop_caches 2>/dev/null || true; }
declare -A SUM OUTB MEM
run_one() { # name output-file command...   (output-file "-" : none)
  local name=$1 out=$2; shift 2
  rm -rf "$T/out" "$T/out.xbs"; drop_caches
  local t0 t1 s rss
  t0=$(date +%s.%N)
  if [[ $out == - ]]; then
    /usr/bin/time -f '%M' -o "$T/rss" "$@" > /dev/null 2> "$T/$name.log" || { tail "$T/$name.log"; fail "$name failed"; }
  else
    /usr/bin/time -f '%M' -o "$T/rss" "$@" > "$out" 2> "$T/$name.log" || { tail "$T/$name.log"; fail "$name failed"; }
    sync -f "$out"
    OUTB[$name]=$(stat -c %s "$out")
  fi
  t1=$(date +%s.%N)
  s=$(awk -v a="$t0" -v b="$t1" 'BEGIN{print b-a}')
  SUM[$name]=$(awk -v x="${SUM[$name]:-0}" -v s="$s" 'BEGIN{print x+s}')
  rss=$(cat "$T/rss")
  [ "${MEM[$name]:-0}" -lt "$rss" ] && MEM[$name]=$rss
  log "$name: ${s}s"
}
B=(--defaults-file="$CNF" --backup --parallel=4 --progress=none)
for r in $(seq "$ROUNDS"); do
  run_one xb_local - "$XB" "${B[@]}" --target-dir="$T/out"
  run_one xb_xbstream - "$XB" "${B[@]}" --stream=xbstream
  run_one mb_xbstream - mariabackup --defaults-file="$CNF" --backup --parallel=4 --stream=xbstream
  run_one xb_tar - "$XB" "${B[@]}" --stream=tar
  for th in 1 2 4; do
    run_one "xb_zstd_$th" "$T/out.xbs" "$XB" "${B[@]}" --stream=xbstream --compress --compress-threads=$th
  done
  run_one xb_zstd_enc "$T/out.xbs" "$XB" "${B[@]}" --stream=xbstream --compress --compress-threads=4 \
    --encrypt=AES256 --encrypt-key-file="$T/key"
done

rate() { awk -v b="$BYTES" -v s="${SUM[$1]}" -v r="$ROUNDS" 'BEGIN{printf "%.0f", b/(s/r)/1e6}'; }
ratio() { awk -v a="$(rate "$1")" -v b="$(rate "$2")" 'BEGIN{printf "%.2f", a/b}'; }
echo
echo "datadir bytes: $BYTES; rounds: $ROUNDS; CPUs: $(nproc); all runs --parallel=4, page cache dropped"
printf '%-14s %8s %10s %14s\n' run "MB/s" "peak RSS" "compression"
for n in xb_local xb_xbstream mb_xbstream xb_tar xb_zstd_1 xb_zstd_2 xb_zstd_4 xb_zstd_enc; do
  c=""
  [[ -n ${OUTB[$n]:-} ]] && c=$(awk -v b="$BYTES" -v o="${OUTB[$n]}" 'BEGIN{printf "%.2fx", b/o}')
  printf '%-14s %8s %6s KiB %14s\n' "$n" "$(rate $n)" "${MEM[$n]:-?}" "$c"
done
echo "ratio --stream=xbstream / local backup:      $(ratio xb_xbstream xb_local)  (goal >= 0.90)"
echo "ratio --stream=tar / local backup:           $(ratio xb_tar xb_local)"
echo "ratio xtrabackup / mariabackup (xbstream):   $(ratio xb_xbstream mb_xbstream)"
echo "compression scaling: 2 threads / 1 = $(ratio xb_zstd_2 xb_zstd_1), 4 threads / 1 = $(ratio xb_zstd_4 xb_zstd_1)  ($(nproc) CPUs)"
echo "encryption cost: compress+encrypt / compress (4 threads) = $(ratio xb_zstd_enc xb_zstd_4)"
