#!/usr/bin/env bash
# incremental_oracle.sh - the differential oracle of incremental backups: chains
# taken by either tool and prepared by either must give the same pages.
#
# One server (tables in the DYNAMIC, ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8 and
# PAGE_COMPRESSED formats, bank transfers) is backed up into four chains of a full
# backup and three incrementals at the same moments:
#   ours   full and incrementals by the tool under test ($XB)
#   mb     full and incrementals by mariabackup
#   oursmb our full, mariabackup's incrementals on it
#   mbours mariabackup's full, our incrementals on it
# Between the rounds: DML on every table, CREATE, DROP, RENAME, TRUNCATE, ALTER
# ALGORITHM=COPY and a bulk insert; xb_load commits transfers during the full
# backups and the first two rounds of incrementals and is stopped before the third,
# so every chain's last incremental holds the source's final state. Each chain is
# copied twice; copy A is prepared by mariabackup, copy B by the preparer under test
# (the full backup, then each --incremental-dir in order), and xb_pagecmp must find
# every page of ibdata*, undo* and **/*.ibd of A and B identical (page_compressed
# pages may differ only after their compressed image: --pc-tail, logged as in
# prepare_diff.sh). The mixed chains and ours, prepared by the preparer under test,
# are then restored and every table's CHECKSUM TABLE EXTENDED must equal the source's.
#
# env: PREPARE_UNDER_TEST (default build/xtrabackup; with XB=mariabackup and
# PREPARE_UNDER_TEST=mariabackup the scenario runs with the oracle everywhere).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"
# shellcheck source=../inc/incremental.sh
. "$(dirname "$0")/../inc/incremental.sh"

put_init
build_xb_load || fail "cannot build xb_load"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"
MB=$(command -v mariabackup) || fail "mariabackup (the oracle) is not installed"
ACCOUNTS=1000

server_start src
sql src "DROP DATABASE sys" || fail "dropping sys failed"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
COLS="(id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(200), c TEXT, KEY ka (a))"
sql src "CREATE DATABASE o; USE o;
CREATE TABLE t_dyn  $COLS ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE t_zip  $COLS ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE t_pc   $COLS ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE t_drop $COLS ENGINE=InnoDB;
CREATE TABLE t_ren  $COLS ENGINE=InnoDB;
CREATE TABLE t_trunc $COLS ENGINE=InnoDB;
CREATE TABLE t_copy $COLS ENGINE=InnoDB;" || fail "creating the tables failed"
for t in t_dyn t_zip t_pc t_drop t_ren t_trunc t_copy; do
    sql src "INSERT INTO o.$t SELECT seq, seq % 97, MD5(seq), IF(seq % 40 = 0, REPEAT(MD5(seq), 200), REPEAT('c', seq % 300))
             FROM o.seq_1_to_10000" || fail "filling o.$t failed"
done

inc_start_transfers

CHAINS="ours mb oursmb mbours"
C=$T/chains
for ch in $CHAINS; do mkdir -p "$C/$ch"; done   # mariabackup creates the target, not its parents
# backup_by TOOL TARGET [options] - one backup by $XB (ours) or mariabackup (mb)
backup_by() {
    local tool=$1 target=$2 saved=$XB; shift 2
    [[ $tool == mb ]] && XB=$MB
    xb_backup src "$target" "$@"
    XB=$saved
    assert_ok "$XB_RC" "$XB_ERR" "$tool backup into $target"
}
backup_by ours "$C/ours/full"
backup_by mb   "$C/mb/full"
backup_by ours "$C/oursmb/full"
backup_by mb   "$C/mbours/full"

dml_round() { # N
    local n=$1
    sql src "USE o;
UPDATE t_dyn SET b = CONCAT(b, '-$n'), a = a + 1 WHERE id % $((n + 2)) = 0;
UPDATE t_zip SET b = CONCAT(b, '-$n'), c = REPEAT(MD5(id + $n), 20) WHERE id % $((n + 3)) = 0;
UPDATE t_pc  SET b = CONCAT(b, '-$n'), c = REPEAT(SHA1(id + $n), 10) WHERE id % $((n + 3)) = 0;
DELETE FROM t_dyn WHERE id BETWEEN $((n * 1000)) AND $((n * 1000 + 300));
INSERT INTO t_dyn SELECT seq, seq % 5, 'round $n', REPEAT('n', 500) FROM seq_$((10000 + n * 20000))_to_$((10000 + n * 20000 + 15000));" \
        || fail "DML round $n failed"
}
ddl_round() { # N
    local n=$1
    case $n in
        1) sql src "USE o; DROP TABLE t_drop; RENAME TABLE t_ren TO t_ren_1; TRUNCATE TABLE t_trunc;
                    INSERT INTO t_trunc SELECT seq, seq, 'after truncate', 'x' FROM seq_1_to_500;
                    CREATE TABLE t_new $COLS ENGINE=InnoDB;
                    INSERT INTO t_new SELECT seq, seq, MD5(seq), 'new' FROM seq_1_to_3000" ;;
        2) sql src "USE o; ALTER TABLE t_copy ADD COLUMN d INT NOT NULL DEFAULT 3, ALGORITHM=COPY;
                    RENAME TABLE t_ren_1 TO t_ren_2; ALTER TABLE t_zip FORCE;
                    CREATE TABLE t_new2 $COLS ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
                    INSERT INTO t_new2 SELECT seq, seq, MD5(seq), 'new2' FROM seq_1_to_3000" ;;
        3) sql src "USE o; DROP TABLE t_new; TRUNCATE TABLE t_trunc; ALTER TABLE t_pc FORCE;
                    CREATE TABLE t_new3 $COLS ENGINE=InnoDB PAGE_COMPRESSED=1;
                    INSERT INTO t_new3 SELECT seq, seq, MD5(seq), 'new3' FROM seq_1_to_3000" ;;
    esac || fail "DDL round $n failed"
}

prev=full
for n in 1 2 3; do
    dml_round $n
    ddl_round $n
    if [[ $n == 3 ]]; then
        touch "$STOP"
        wait "$LOAD_PID" || { cat "$T/load.out"; fail "xb_load transfer failed"; }
        cat "$T/load.out"
    fi
    backup_by ours "$C/ours/inc$n"   --incremental-basedir="$C/ours/$prev"
    backup_by mb   "$C/mb/inc$n"     --incremental-basedir="$C/mb/$prev"
    backup_by mb   "$C/oursmb/inc$n" --incremental-basedir="$C/oursmb/$prev"
    backup_by ours "$C/mbours/inc$n" --incremental-basedir="$C/mbours/$prev"
    for ch in $CHAINS; do inc_check_link "$C/$ch/$prev" "$C/$ch/inc$n"; done
    prev=inc$n
done
xb_load src --accounts=$ACCOUNTS check || fail "the source fails the bank check"
SRC_SUMS=$(checksum_all src)
SRC_TABLES=$(table_list src)

n=0
for ch in $CHAINS; do
    log "=== chain $ch"
    inc_copy_chain "$C/$ch" "$T/A/$ch" full inc1 inc2 inc3
    inc_copy_chain "$C/$ch" "$T/B/$ch" full inc1 inc2 inc3
    A=$T/A/$ch; Bc=$T/B/$ch
    inc_prepare_chain "$MB" "$A/full" "$A/inc1" "$A/inc2" "$A/inc3"
    inc_prepare_chain "$PUT" "$Bc/full" "$Bc/inc1" "$Bc/inc2" "$Bc/inc3"
    assert_pages_equal "$A/full" "$Bc/full" "chain $ch prepared by mariabackup (A) and by $(basename "$PUT") (B)" --pc-tail
    if [[ $ch == ours && $XB_KIND == xtrabackup ]]; then
        # our backup with incrementals applied by mariabackup: its manifest describes the
        # full backup as taken, which the to_lsn tells; it is not refused as damaged
        xb_run --verify --target-dir="$A/full"
        assert_ok "$XB_RC" "$XB_ERR" "--verify of our chain prepared by mariabackup"
        assert_contains "$XB_ERR" "another tool applied an incremental backup to it since" \
            "--verify of our chain prepared by mariabackup: the warning"
    fi
    rm -rf "$A"
    if [[ $ch != mb ]]; then
        n=$((n + 1))
        restore_prepared "$Bc/full" "dst$n"
        assert_eq "$SRC_TABLES" "$(table_list "dst$n")" "chain $ch restored: tables"
        assert_eq "$SRC_SUMS" "$(checksum_all "dst$n")" "chain $ch restored: CHECKSUM TABLE of every table"
        xb_load "dst$n" --accounts=$ACCOUNTS check || fail "chain $ch restored: bank check"
        server_stop "dst$n"
        rm -rf "$T/dst$n"
    fi
    rm -rf "$Bc"
done
log "incremental_oracle: ok (4 chains page-identical across preparers, 3 restored equal to the source)"
