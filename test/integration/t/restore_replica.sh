#!/usr/bin/env bash
# restore_replica.sh - a new replica built from a backup of a primary under load
# (issue 4 "New replicas"), with the tool under test end to end: --backup of the
# primary while bank transfers (InnoDB, xb_load) and single-row inserts into a
# MyISAM and an Aria table keep committing, --prepare, --copy-back into a second
# datadir from that server's option file, start it (no crash recovery, no error),
# then SET GLOBAL gtid_slave_pos from xtrabackup_binlog_info, CHANGE MASTER ...
# master_use_gtid=slave_pos and START SLAVE while the load still runs. Checks:
#  - xtrabackup_binlog_info is "file<TAB>position<TAB>D-S-N": the file is one of the
#    primary's binlogs, BINLOG_GTID_POS(file, position) on the primary is exactly
#    the recorded GTID, whose server id is the primary's and whose sequence number
#    lies between those seen before and after the backup;
#  - the restored data holds exactly the transactions up to that GTID: ledger,
#    MyISAM and Aria rows added since the setup = GTID sequence numbers since then
#    (and it passes `xb_load check`), so replication neither repeats nor skips one;
#  - after the load stops, MASTER_GTID_WAIT(primary's @@gtid_binlog_pos) is 0 within
#    120 s (a stopped SQL thread fails at once), SHOW SLAVE STATUS has both threads
#    running, GTID mode and no error, the replica's gtid_slave_pos equals the
#    primary's binlog position, CHECKSUM TABLE of every table equals the primary's
#    and the replica passes `xb_load check`;
#  - the replication password is only ever sent as SQL on stdin (never argv) and
#    appears in no file of the backup and no log of the tool;
#  - (our tool) the --copy-back log prints the SET GLOBAL gtid_slave_pos / CHANGE
#    MASTER statements with the backup's GTID.
# Runs with our tool and with XB=mariabackup alike.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

ACCOUNTS=1000
RPW="repl-$RANDOM$RANDOM-pw"

# sql_stdin NAME - run the SQL read from stdin (so secrets stay out of argv).
sql_stdin() { mariadb --defaults-file="$(cnf_of "$1")" -N -B; }
# slave_field NAME FIELD - one field of SHOW SLAVE STATUS on server NAME.
slave_field() {
    mariadb --defaults-file="$(cnf_of "$1")" -E -e 'SHOW SLAVE STATUS' \
        | sed -n "s/^ *$2: //p" | head -n 1
}
# rows NAME - ledger, MyISAM and Aria rows on server NAME, summed.
rows() {
    sql "$1" "SELECT (SELECT COUNT(*) FROM bank.ledger) + (SELECT COUNT(*) FROM r.my)
                   + (SELECT COUNT(*) FROM r.aria)"
}

build_xb_load || fail "cannot build xb_load"
server_start src
SRC_ID=$(sql src "SELECT @@server_id")

# --- the primary: replication user (password only in SQL on stdin), data
sql_stdin src <<SQL || fail "creating the replication user failed"
CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY '$RPW';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';
SQL
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
sql src "CREATE DATABASE r;
         CREATE TABLE r.filler (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO r.filler SELECT seq, REPEAT(MD5(seq), 7) FROM r.seq_1_to_40000;
         CREATE TABLE r.my (id INT PRIMARY KEY, v CHAR(32)) ENGINE=MyISAM;
         INSERT INTO r.my SELECT seq, MD5(seq) FROM r.seq_1_to_100;
         CREATE TABLE r.aria (id INT PRIMARY KEY, v CHAR(40)) ENGINE=Aria;
         INSERT INTO r.aria SELECT seq, SHA1(seq) FROM r.seq_1_to_100" \
    || fail "creating the r tables failed"
G0=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
R0=$(rows src)
log "setup done: GTID seq $G0, $R0 ledger/MyISAM/Aria rows"

# --- the load: transfers, and one-row inserts into MyISAM and Aria (one GTID each)
STOP=$T/stop-load
# The binary itself, not the xb_load function: $! must be xb_load's own pid so the
# exit trap's SIGTERM stops it when the test fails (a backgrounded function is a
# subshell, and killing that would leave xb_load running on).
"$XB_LOAD" --defaults-file="$(cnf_of src)" --accounts=$ACCOUNTS --threads=3 --seconds=150 \
    --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
(
    i=1000
    while [[ ! -e $STOP ]]; do
        i=$((i + 1))
        sql src "INSERT INTO r.my VALUES ($i, MD5($i)); INSERT INTO r.aria VALUES ($i, SHA1($i))" \
            || { echo "non-transactional writer: insert $i failed" >&2; exit 1; }
        sleep 0.05
    done
) > "$T/ntw.out" 2>&1 &
NTW_PID=$!
bg_track "$NTW_PID"
sleep 2
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }
kill -0 "$NTW_PID" 2>/dev/null || { cat "$T/ntw.out"; fail "the MyISAM/Aria writer died"; }
SA=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
(( SA > G0 )) || fail "nothing committed before the backup started (GTID seq $SA)"

# --- backup, prepare, copy-back, start
B=$T/backup
xb_backup src "$B"
assert_ok "$XB_RC" "$XB_ERR" "backup of the primary under load"
SB=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
prep_run "$XB" "$B"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare"

assert_file "$B/xtrabackup_binlog_info"
log "xtrabackup_binlog_info: $(cat "$B/xtrabackup_binlog_info")"
IFS=$'\t' read -r BFILE BPOS BGTID < "$B/xtrabackup_binlog_info"
[[ -n ${BGTID:-} ]] || fail "xtrabackup_binlog_info has no GTID column: $(cat "$B/xtrabackup_binlog_info")"
[[ $BGTID =~ ^[0-9]+-[0-9]+-[0-9]+(,[0-9]+-[0-9]+-[0-9]+)*$ ]] \
    || fail "the GTID in xtrabackup_binlog_info is not a D-S-N list: '$BGTID'"
[[ $BPOS =~ ^[0-9]+$ ]] || fail "bad binlog position in xtrabackup_binlog_info: '$BPOS'"
BFILE=$(basename "$BFILE")
grep -qxF "./$BFILE" "$(datadir_of src)/mysql-bin.index" || fail "binlog $BFILE is not one of the primary's"
assert_eq "$SRC_ID" "$(cut -d- -f2 <<< "$BGTID")" "server id in the backup's GTID"
assert_eq "$BGTID" "$(sql src "SELECT BINLOG_GTID_POS('$BFILE', $BPOS)")" \
    "BINLOG_GTID_POS($BFILE, $BPOS) on the primary vs the GTID in xtrabackup_binlog_info"
S1=$(gtid_seq "$BGTID")
log "GTID seq: setup $G0, backup start $SA, backup point $S1, backup end $SB"
(( SA < S1 && S1 < SB )) || fail "backup GTID seq $S1 is not between $SA (before) and $SB (after the backup)"

write_cnf rep "$T/rep/data"
xb_run --defaults-file="$(cnf_of rep)" --copy-back --target-dir="$B"
assert_ok "$XB_RC" "$XB_ERR" "copy-back into the replica's datadir"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$XB_ERR" "SET GLOBAL gtid_slave_pos = '$BGTID'; CHANGE MASTER TO .*MASTER_USE_GTID=slave_pos; START SLAVE;" \
        "copy-back log: how to make the restored server a replica"
fi
server_start_on rep "$T/rep/data"
check_clean_start rep
assert_eq "$((S1 - G0))" "$(( $(rows rep) - R0 ))" \
    "ledger/MyISAM/Aria rows added since the setup on the restored server vs GTIDs up to the backup point"
xb_load rep --accounts=$ACCOUNTS check || fail "the restored server fails the bank check"

# --- replication from the backup's GTID, while the load still runs
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer stopped before replication started"; }
sql_stdin rep <<SQL || fail "configuring replication failed"
SET GLOBAL gtid_slave_pos = '$BGTID';
CHANGE MASTER TO master_host='127.0.0.1', master_port=$(port_of src), master_user='repl',
  master_password='$RPW', master_use_gtid=slave_pos;
SQL
assert_eq "$BGTID" "$(sql rep "SELECT @@gtid_slave_pos")" "gtid_slave_pos set from xtrabackup_binlog_info"
sql rep "START SLAVE" || fail "START SLAVE failed"
io_running() { [[ $(slave_field rep Slave_IO_Running) == Yes ]]; }
wait_for 30 io_running || fail "the replica's IO thread does not run: $(slave_field rep Last_IO_Error)"
sleep 3   # replicate live transactions for a while

touch "$STOP"
wait "$LOAD_PID"; LRC=$?
wait "$NTW_PID"; NRC=$?
cat "$T/load.out"
[[ $LRC -eq 0 ]] || fail "xb_load transfer exited with $LRC"
[[ $NRC -eq 0 ]] || { cat "$T/ntw.out"; fail "the MyISAM/Aria writer exited with $NRC"; }
xb_load src --accounts=$ACCOUNTS check || fail "the primary itself fails the bank check"
WANT=$(sql src "SELECT @@gtid_binlog_pos")
SE=$(gtid_seq "$WANT")
(( SE > SB )) || fail "nothing committed after the backup (GTID seq $SE), the replica had nothing to catch up"
log "primary at $WANT; the replica has $((SE - S1)) transactions to apply after the backup point"

# MASTER_GTID_WAIT('$WANT', 120) in 1 s slices, so a stopped SQL thread fails at once
waited=-1
for ((i = 0; i < 120; i++)); do
    waited=$(sql rep "SELECT MASTER_GTID_WAIT('$WANT', 1)") || fail "MASTER_GTID_WAIT on the replica failed"
    [[ $waited == 0 ]] && break
    [[ $(slave_field rep Slave_SQL_Running) == Yes ]] ||
        fail "the replica's SQL thread stopped at $(sql rep "SELECT @@gtid_slave_pos"): $(slave_field rep Last_Error)"
done
assert_eq 0 "$waited" "MASTER_GTID_WAIT('$WANT') on the replica within 120 s (at $(sql rep "SELECT @@gtid_slave_pos"))"
assert_eq Yes "$(slave_field rep Slave_IO_Running)" "Slave_IO_Running"
assert_eq Yes "$(slave_field rep Slave_SQL_Running)" "Slave_SQL_Running"
assert_eq Slave_Pos "$(slave_field rep Using_Gtid)" "Using_Gtid"
assert_eq "0" "$(slave_field rep Last_Errno)" "Last_Errno (Last_Error: $(slave_field rep Last_Error))"
assert_eq "" "$(slave_field rep Last_Error)" "Last_Error"
assert_eq "" "$(slave_field rep Last_IO_Error)" "Last_IO_Error"
assert_eq "" "$(slave_field rep Last_SQL_Error)" "Last_SQL_Error"
assert_eq "$WANT" "$(sql rep "SELECT @@gtid_slave_pos")" "the replica's gtid_slave_pos vs the primary's gtid_binlog_pos"
assert_eq "$(checksum_all src)" "$(checksum_all rep)" "CHECKSUM TABLE, primary vs replica"
xb_load rep --accounts=$ACCOUNTS check || fail "the replica fails the bank check"
assert_eq "$(rows src)" "$(rows rep)" "ledger/MyISAM/Aria rows, primary vs replica"

# --- the password went nowhere but SQL on stdin
grep -rqF -- "$RPW" "$B" && fail "the replication password is in the backup: $(grep -rlF -- "$RPW" "$B")"
grep -qF -- "$RPW" "$T"/xb.*.err "$T"/xb.*.out "$T"/prep.*.err "$T"/prep.*.out \
    && fail "the replication password is in a log of the tool"
log "restore_replica: ok ($((S1 - G0)) transactions in the backup, $((SE - S1)) replicated after it)"
