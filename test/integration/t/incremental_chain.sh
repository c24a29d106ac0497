#!/usr/bin/env bash
# incremental_chain.sh - a chain of a full backup and three incrementals, each on the
# previous one, taken while 2 threads commit bank transfers the whole time and DDL
# changes the schema between them, prepares with the preparer under test (the full
# backup, then each --incremental-dir in order) and restores to exactly the source.
#
# Between the backups: a table created, one dropped, one renamed (twice), one
# truncated (twice), one rebuilt by ALTER FORCE and then by ADD COLUMN
# ALGORITHM=COPY, one extended by bulk inserts, a database dropped and re-created
# with tables of the same names (new space ids), a page_compressed table and a
# ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 table updated. While the third
# incremental is taken (its copy throttled to last COPY_SECS), a DDL loop creates,
# fills, renames, rebuilds, truncates and drops tables of its own database.
#
# The point compared: the transfer load and the DDL loop are stopped while the third
# incremental is still copying, so the source does not change after that backup's
# consistent point; the source's state at the end is then the state the chain must
# restore. That is asserted, not assumed: the GTID the third incremental records
# (xtrabackup_binlog_info) must equal the source's final @@gtid_binlog_pos, so no
# transaction or DDL committed after the backup point. The restored server must then
# pass the bank check (constant total, accounts agreeing with the ledger), hold one
# ledger row per transfer GTID, and have exactly the source's tables (table_list)
# with the same CHECKSUM TABLE EXTENDED for every one of them (checksum_all), the
# DDL loop's tables included; CHECK TABLE EXTENDED passes on every InnoDB table.
#
# env: PREPARE_UNDER_TEST (default build/xtrabackup; mariabackup to try the scenario
# with the oracle, with XB=mariabackup), COPY_SECS (12).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"
# shellcheck source=../inc/incremental.sh
. "$(dirname "$0")/../inc/incremental.sh"

put_init
build_xb_load || fail "cannot build xb_load"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"
ACCOUNTS=2000
COPY_SECS=${COPY_SECS:-12}

server_start src
sql src "DROP DATABASE sys" || fail "dropping sys failed"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
G0=$(gtid_seq "$(sql src "SELECT @@gtid_binlog_pos")")
T8="(id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(200), KEY ka (a))"
sql src "
CREATE TABLE bank.filler (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
INSERT INTO bank.filler SELECT seq, REPEAT(MD5(seq), 7) FROM bank.seq_1_to_80000;
CREATE DATABASE ic; USE ic;
CREATE TABLE t_drop  $T8 ENGINE=InnoDB;
CREATE TABLE t_ren   $T8 ENGINE=InnoDB;
CREATE TABLE t_trunc $T8 ENGINE=InnoDB;
CREATE TABLE t_alter $T8 ENGINE=InnoDB;
CREATE TABLE t_ext   $T8 ENGINE=InnoDB;
CREATE TABLE t_pc    $T8 ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE t_zip   $T8 ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE t_same  $T8 ENGINE=InnoDB;
CREATE DATABASE dbx;
CREATE TABLE dbx.a (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE dbx.b (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
INSERT INTO dbx.a SELECT seq, MD5(seq) FROM seq_1_to_3000;
INSERT INTO dbx.b SELECT seq, SHA1(seq) FROM seq_1_to_3000;
CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
INSERT INTO m SELECT seq, MD5(seq) FROM seq_1_to_1000;
" || fail "creating the tables failed"
for t in t_drop t_ren t_trunc t_alter t_ext t_pc t_zip t_same; do
    sql src "INSERT INTO ic.$t SELECT seq, seq % 97, REPEAT(MD5(seq), 1 + seq % 6) FROM ic.seq_1_to_8000" \
        || fail "filling ic.$t failed"
done
D=$(datadir_of src)
assert_eq 8192 "$(sql src "SELECT ZIP_PAGE_SIZE FROM information_schema.INNODB_SYS_TABLES WHERE NAME = 'ic/t_zip'")" \
    "ic.t_zip's compressed page size"
assert_eq "\`PAGE_COMPRESSED\`='1'" "$(sql src "SELECT CREATE_OPTIONS FROM information_schema.TABLES WHERE TABLE_NAME = 't_pc'")" \
    "ic.t_pc's options"

inc_start_transfers
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }

B=$T/chain
mkdir -p "$B"   # mariabackup creates the target, not its parents
xb_backup src "$B/full"
assert_ok "$XB_RC" "$XB_ERR" "full backup"
assert_eq full-backuped "$(checkpoints_value "$B/full" backup_type)" "backup_type of the full backup"

log "round 1: create, drop, rename, truncate, ALTER FORCE, bulk insert, page_compressed and compressed updates"
sql src "USE ic;
CREATE TABLE t_new $T8 ENGINE=InnoDB;
INSERT INTO t_new SELECT seq, seq, MD5(seq) FROM seq_1_to_5000;
DROP TABLE t_drop;
RENAME TABLE t_ren TO t_ren2;
TRUNCATE TABLE t_trunc;
INSERT INTO t_trunc SELECT seq, seq, 'after truncate 1' FROM seq_1_to_700;
ALTER TABLE t_alter FORCE;
UPDATE t_alter SET b = CONCAT(b, 'r1') WHERE id % 3 = 0;
INSERT INTO t_ext SELECT seq, seq % 7, REPEAT(SHA1(seq), 5) FROM seq_8001_to_60000;
UPDATE t_pc SET b = REPEAT(SHA1(id), 4), a = a + 1 WHERE id % 5 = 0;
UPDATE t_zip SET b = REPEAT(SHA1(id), 4), a = a + 1 WHERE id % 5 = 0;
DELETE FROM t_zip WHERE id BETWEEN 100 AND 900;
UPDATE m SET v = 'r1' WHERE id < 100;
" || fail "round 1 failed"
inc_backup src "$B/inc1" "$B/full"

log "round 2: database dropped and re-created, ADD COLUMN ALGORITHM=COPY, rename again, truncate again"
sql src "DROP DATABASE dbx;
CREATE DATABASE dbx;
CREATE TABLE dbx.a (id INT PRIMARY KEY, v VARCHAR(64), w INT) ENGINE=InnoDB;
CREATE TABLE dbx.b (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE dbx.c (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB PAGE_COMPRESSED=1;
INSERT INTO dbx.a SELECT seq, CONCAT('new-', seq), seq FROM ic.seq_1_to_2000;
INSERT INTO dbx.b SELECT seq, CONCAT('new-', seq) FROM ic.seq_1_to_2000;
INSERT INTO dbx.c SELECT seq, CONCAT('new-', seq) FROM ic.seq_1_to_2000;
USE ic;
ALTER TABLE t_alter ADD COLUMN c INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
RENAME TABLE t_ren2 TO t_ren3;
UPDATE t_ren3 SET b = 'renamed twice' WHERE id % 10 = 0;
TRUNCATE TABLE t_trunc;
INSERT INTO t_trunc SELECT seq, seq, 'after truncate 2' FROM seq_1_to_300;
INSERT INTO t_ext SELECT seq, seq % 7, REPEAT(SHA1(seq), 5) FROM seq_60001_to_90000;
UPDATE t_pc SET b = 'pc round 2' WHERE id % 7 = 0;
UPDATE t_zip SET b = 'zip round 2' WHERE id % 7 = 0;
INSERT INTO t_zip SELECT seq, seq, REPEAT(MD5(seq), 3) FROM seq_8001_to_12000;
DROP TABLE t_new;
CREATE TABLE t_new $T8 ENGINE=InnoDB;
INSERT INTO t_new SELECT seq, seq, 'second t_new' FROM seq_1_to_500;
" || fail "round 2 failed"
inc_backup src "$B/inc2" "$B/inc1"

log "round 3: the third incremental taken while the DDL loop and the transfers run"
sql src "UPDATE ic.t_pc SET b = 'pc round 3' WHERE id % 11 = 0;
         UPDATE ic.t_zip SET b = 'zip round 3' WHERE id % 11 = 0;
         INSERT INTO ic.t_ext SELECT seq, 1, REPEAT('x', 150) FROM ic.seq_90001_to_100000" || fail "round 3 failed"
DATA_MB=$(find "$D" \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo*' \) -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s / 1048576 }')
THROTTLE=$(( DATA_MB / COPY_SECS > 0 ? DATA_MB / COPY_SECS : 1 ))
DDL_STOP=$T/stop-ddl
ddl_loop src ddl "$DDL_STOP"
sleep 1
xb_backup_bg src "$B/inc3" --incremental-basedir="$B/inc2" --throttle=$THROTTLE
log "InnoDB files: $DATA_MB MiB, inc3 with --throttle=$THROTTLE"
sleep $(( COPY_SECS / 2 ))
kill -0 "$XB_PID" 2>/dev/null || fail "the third incremental ended before the load was stopped (raise COPY_SECS)"
touch "$DDL_STOP" "$STOP"
wait "$DDL_PID"; DRC=$?
wait "$LOAD_PID"; LRC=$?
cat "$T/load.out"
tail -n 1 "$T/ddl_loop.ddl.out"
[[ $LRC -eq 0 ]] || fail "xb_load transfer exited with $LRC"
[[ $DRC -eq 0 ]] || { cat "$T/ddl_loop.ddl.out"; fail "the DDL loop failed ($DRC)"; }
kill -0 "$XB_PID" 2>/dev/null || fail "the third incremental ended before the load had stopped: its point is not the source's final state (raise COPY_SECS)"
log "load and DDL stopped while inc3 runs"
xb_wait_max 300 "third incremental"
assert_ok "$XB_RC" "$XB_ERR" "third incremental (DDL running during the copy)"
inc_check_link "$B/inc2" "$B/inc3"
NLOOP=$(sed -n 's/^ddl_loop done\t//p' "$T/ddl_loop.ddl.out")
(( NLOOP >= 5 )) || fail "the DDL loop ran only ${NLOOP:-0} rounds during the third incremental"

xb_load src --accounts=$ACCOUNTS check || fail "the source itself fails the bank check"
SRC_GTID=$(sql src "SELECT @@gtid_binlog_pos")
read -r _ _ BGTID < "$B/inc3/xtrabackup_binlog_info"
assert_eq "$SRC_GTID" "$BGTID" "GTID of the third incremental vs the source's final GTID (the load must stop before its point)"
S1=$(gtid_seq "$BGTID")
SRC_SUMS=$(checksum_all src)
SRC_TABLES=$(table_list src)
log "source: $(wc -l <<< "$SRC_TABLES") tables, GTID $SRC_GTID, $NLOOP DDL loop rounds"

# The chain prepared by the preparer under test, restored and compared.
inc_prepare_chain "$PUT" "$B/full" "$B/inc1" "$B/inc2" "$B/inc3"
restore_prepared "$B/full" dst
xb_load dst --accounts=$ACCOUNTS check || fail "restored server fails the bank check"
LEDGER=$(sql dst "SELECT COUNT(*) FROM bank.ledger")
assert_eq "$SRC_TABLES" "$(table_list dst)" "tables of the restored server vs the source"
assert_eq "$SRC_SUMS" "$(checksum_all dst)" "CHECKSUM TABLE of every table, restored vs source"
assert_eq "$(sql src "SELECT COUNT(*) FROM bank.ledger")" "$LEDGER" "ledger rows restored vs source"
check_all_tables dst
log "incremental_chain: ok ($(wc -l <<< "$SRC_TABLES") tables equal, $LEDGER transfers, GTID seq $G0..$S1, $NLOOP DDL rounds)"
