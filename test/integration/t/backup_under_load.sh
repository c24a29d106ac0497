#!/usr/bin/env bash
# backup_under_load.sh - a backup taken while 4 threads commit bank transfers must
# restore to a transactionally consistent state at exactly the binlog position it
# records: the restored server passes `xb_load check` (constant total, every account
# agreeing with the ledger, so no transfer is half present), holds exactly one
# ledger row per transfer GTID up to the GTID in xtrabackup_binlog_info (so every
# transfer committed before that point is present and none after it), and, restored
# together with the source binlog cut at the recorded file:position, reports that
# same GTID as @@gtid_binlog_pos.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

ACCOUNTS=2000
build_xb_load || fail "cannot build xb_load"
server_start src
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
# Some bulk so the copy takes a moment while transfers keep committing.
sql src "CREATE TABLE bank.filler (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO bank.filler SELECT seq, REPEAT(MD5(seq), 7) FROM bank.seq_1_to_60000" \
    || fail "creating bank.filler failed"
G0=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
log "setup done, GTID seq $G0"

STOP=$T/stop-load
xb_load src --accounts=$ACCOUNTS --threads=4 --seconds=120 --stop-file="$STOP" transfer \
    > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
sleep 2
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }
SA=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
(( SA > G0 )) || fail "no transfer committed before the backup started (GTID seq $SA)"

B=$T/backup
xb_backup src "$B"
BRC=$XB_RC
sleep 1
SB=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
touch "$STOP"
wait "$LOAD_PID"; LRC=$?
cat "$T/load.out"
[[ $LRC -eq 0 ]] || fail "xb_load transfer exited with $LRC"
assert_ok "$BRC" "$XB_ERR" "backup under load"
xb_load src --accounts=$ACCOUNTS check || fail "the source itself fails the bank check"

assert_file "$B/xtrabackup_binlog_info"
log "xtrabackup_binlog_info: $(cat "$B/xtrabackup_binlog_info")"
read -r BFILE BPOS BGTID < "$B/xtrabackup_binlog_info"
[[ -n ${BGTID:-} ]] || fail "xtrabackup_binlog_info has no GTID column: $(cat "$B/xtrabackup_binlog_info")"
S1=$(gtid_seq "$BGTID")
log "GTID seq: setup $G0, backup start $SA, backup point $S1, after backup $SB"
(( SA < S1 )) || fail "backup GTID seq $S1 is not after the seq $SA seen before the backup started"
(( S1 < SB )) || fail "backup GTID seq $S1 is not before the seq $SB seen after the backup (load stalled?)"

RESTORE_BINLOG_FROM=src restore_backup "$B" dst
xb_load dst --accounts=$ACCOUNTS check || fail "restored server fails the bank check"
assert_eq "$BGTID" "$(sql dst "SELECT @@gtid_binlog_pos")" \
    "restored @@gtid_binlog_pos (backup + source binlog up to $BFILE:$BPOS) vs xtrabackup_binlog_info"
assert_eq "$((S1 - G0))" "$(sql dst "SELECT COUNT(*) FROM bank.ledger")" \
    "ledger rows on the restored server vs transfer GTIDs up to the backup point"
assert_eq "$(sql src "CHECKSUM TABLE bank.filler EXTENDED" | cut -f2)" \
          "$(sql dst "CHECKSUM TABLE bank.filler EXTENDED" | cut -f2)" "bank.filler checksum"
log "backup_under_load: ok ($((S1 - G0)) transfers in the backup)"
