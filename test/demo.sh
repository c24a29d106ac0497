#!/usr/bin/env bash
# demo.sh - `make demo`: the main job end to end, saying what it does.
#
# Starts a throwaway MariaDB 10.11 on a temp datadir (unix socket, free port),
# loads a bank schema and some bulk data, starts 4 threads of money transfers,
# takes a hot backup with build/xtrabackup while they run, prepares it with
# build/xtrabackup --prepare (printing its recovery statistics), restores it with
# build/xtrabackup --copy-back into a second datadir (with the buffer-pool dump the
# backup carries), starts a server there and checks: it loaded the dump (warm start),
# the total balance is unchanged, no transfer is half present, and tables match. Everything lives
# under one temp dir that is removed at the end (KEEP=1 keeps it).
PREPARE_BIN=${PREPARE_BIN:-$(cd "$(dirname "$0")/.." && pwd)/build/xtrabackup}
. "$(dirname "$0")/integration/inc/common.sh"

say() { printf '\n==> %s\n' "$*"; }
ACCOUNTS=5000
build_xb_load || fail "cannot build xb_load"

say "Starting a throwaway MariaDB server in $T"
server_start src
say "Loading data: $ACCOUNTS bank accounts and 200,000 rows of bulk data"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
sql src "CREATE TABLE bank.filler (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO bank.filler SELECT seq, REPEAT(MD5(seq), 7) FROM bank.seq_1_to_200000" \
    || fail "creating bank.filler failed"

say "Starting a write load: 4 threads moving money between accounts"
STOP=$T/stop-load
xb_load src --accounts=$ACCOUNTS --threads=4 --seconds=300 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
sleep 2

say "Backing up the live server: $XB --backup --parallel=4 --target-dir=$T/backup"
"$XB" --defaults-file="$(cnf_of src)" --backup --parallel=4 --target-dir="$T/backup" 2>&1 | tee "$T/backup.log"
rc=${PIPESTATUS[0]}
touch "$STOP"; wait "$LOAD_PID"
[ "$rc" -eq 0 ] || fail "the backup failed (exit $rc)"
tail -n 1 "$T/backup.log" | grep -qx 'completed OK!' || fail "the backup's last line is not 'completed OK!'"
say "The write load committed: $(tail -n 1 "$T/load.out")"
say "Backup directory:"
ls -l "$T/backup"
echo "xtrabackup_checkpoints:"; cat "$T/backup/xtrabackup_checkpoints"
echo "xtrabackup_binlog_info:"; cat "$T/backup/xtrabackup_binlog_info"

say "Preparing with $PREPARE_BIN --prepare"
prep_run "$PREPARE_BIN" "$T/backup"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare"
echo "recovery statistics of the prepare:"
sed -n '/Recovery statistics/,/rate:/p' "$PREP_ERR" | sed 's/^\[00\] [0-9-]* [0-9:]* //'
grep 'Buffer-pool dump' "$PREP_ERR" | sed 's/^\[00\] [0-9-]* [0-9:]* //'

say "Restoring: $XB --copy-back --parallel=4 into a new datadir $T/dst/data (from its my.cnf)"
write_cnf dst "$T/dst/data"
"$XB" --defaults-file="$(cnf_of dst)" --copy-back --parallel=4 --target-dir="$T/backup" 2>&1 \
    | grep -v ' Copying ' | tee "$T/copyback.log"
[ "${PIPESTATUS[0]}" -eq 0 ] || fail "--copy-back failed"
say "Starting a server on the restored datadir"
server_start_on dst "$T/dst/data"
check_clean_start dst
load_done() { sql dst "SHOW STATUS LIKE 'Innodb_buffer_pool_load_status'" | grep -q 'load completed'; }
wait_for 60 load_done || log "the buffer pool load has not finished yet"
grep -E 'Loading buffer pool|load completed' "$(errlog_of dst)" | sed 's/^.*InnoDB: /InnoDB: /' || true
echo "buffer pool after startup: $(sql dst "SHOW STATUS LIKE 'Innodb_buffer_pool_pages_data'" | cut -f2) pages of data (warm)"
say "Checking the restored server: total balance constant, every transfer whole"
xb_load dst --accounts=$ACCOUNTS check || fail "the restored data is inconsistent"
assert_eq "$(sql src "CHECKSUM TABLE bank.filler EXTENDED" | cut -f2)" \
          "$(sql dst "CHECKSUM TABLE bank.filler EXTENDED" | cut -f2)" "bank.filler checksum"
say "Streaming a compressed, encrypted backup through a pipe (as to another host over ssh):"
echo "  $XB --backup --stream=xbstream --compress --compress-threads=2 --encrypt=AES256 --encrypt-key-file=KEY \\"
echo "    | xbstream -x --decompress --decrypt=AES256 --encrypt-key-file=KEY -C $T/streamed"
(umask 077; openssl rand -hex 32 > "$T/key")
mkdir -p "$T/streamed"
"$XB" --defaults-file="$(cnf_of src)" --backup --stream=xbstream --compress --compress-threads=2 \
      --encrypt=AES256 --encrypt-key-file="$T/key" 2> "$T/stream.log" \
    | tee >(wc -c > "$T/stream.bytes") \
    | "$(dirname "$XB")/xbstream" -x --parallel=2 --decompress --decrypt=AES256 --encrypt-key-file="$T/key" \
      -C "$T/streamed" 2> "$T/extract.log"
rcs=("${PIPESTATUS[@]}")
[ "${rcs[0]}" -eq 0 ] && [ "${rcs[2]}" -eq 0 ] || fail "streaming failed (backup exit ${rcs[0]}, extract exit ${rcs[2]})"
sleep 0.2
echo "stream: $(cat "$T/stream.bytes") bytes for $(du -sb "$T/streamed" | cut -f1) bytes of backup; last lines:"
tail -n 1 "$T/stream.log"; tail -n 2 "$T/extract.log"
prep_run "$XB" "$T/streamed"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare of the streamed backup"
echo "the streamed backup is prepared: $(tail -n 1 "$PREP_ERR")"
say "Demo finished: the hot backup restored to a consistent server."
