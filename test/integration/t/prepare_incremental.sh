#!/usr/bin/env bash
# prepare_incremental.sh - --prepare --incremental-dir against mariabackup's.
#
# A server under write load (xb_load transfers and a DML stream) is backed up by
# mariabackup: a full backup, then two incrementals, with DDL between them: CREATE,
# DROP, RENAME, TRUNCATE, ALTER ... ALGORITHM=COPY (a rebuild: new space id at the
# same name), a database dropped and created again, a MyISAM table changed, and a
# PAGE_COMPRESSED and a ROW_FORMAT=COMPRESSED table written to. The load stops
# before the second incremental, whose copy is throttled while the second DDL
# batch runs (so it holds DDL markers), and the source's CHECKSUM TABLE at its end
# is the chain's. A chain taken by the tool under test itself (a full backup and
# an incremental, when its --backup takes them) is prepared by both tools too. The chain is copied twice: copy A is prepared by mariabackup (base, then
# each incremental), copy B by the tool under test. Every page of every InnoDB file
# of A and B must be equal (xb_pagecmp; --pc-tail lets through only the known
# harmless tail bytes of page_compressed pages, logged), B's xtrabackup_checkpoints
# must say log-applied with the last incremental's to_lsn, and B restored must start
# without crash recovery and give the source's checksums. Then the refusals: an
# incremental applied out of order (the LSNs and both directories named, the
# target unchanged), an incremental applied to an unprepared base, an incremental
# prepared alone, a full backup given as --incremental-dir, an incremental whose
# redo copy is cut short (the target unchanged).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

put_init
build_xb_load || fail "cannot build xb_load"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"
MB=mariabackup
ACCOUNTS=1000

server_start src --innodb_log_file_size=64M --innodb_buffer_pool_size=64M
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
sql src "CREATE DATABASE pi;
USE pi;
CREATE TABLE t_keep (id INT PRIMARY KEY, a INT, b VARCHAR(200)) ENGINE=InnoDB;
CREATE TABLE t_drop (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB;
CREATE TABLE t_ren (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB;
CREATE TABLE t_trunc (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB;
CREATE TABLE t_alter (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=InnoDB;
CREATE TABLE t_pc (id INT PRIMARY KEY, a INT, b VARCHAR(200)) ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE t_zip (id INT PRIMARY KEY, a INT, b VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE t_my (id INT PRIMARY KEY, b VARCHAR(200)) ENGINE=MyISAM;
CREATE DATABASE gone; CREATE TABLE gone.g (id INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO gone.g VALUES (1),(2);
CREATE DATABASE again; CREATE TABLE again.a (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO again.a VALUES (1,1);" \
    || fail "creating tables failed"
for t in t_keep t_drop t_ren t_trunc t_alter t_pc t_zip t_my; do
    cols="id, b"; sel="seq, REPEAT(MD5(seq), 4)"
    [[ $t == t_keep || $t == t_pc || $t == t_zip ]] && cols="id, a, b" && sel="seq, seq % 13, REPEAT(MD5(seq), 4)"
    sql src "USE pi; INSERT INTO $t ($cols) SELECT $sel FROM seq_1_to_6000" || fail "filling $t failed"
done

STOP=$T/stop-load
"$XB_LOAD" --defaults-file="$(cnf_of src)" --accounts=$ACCOUNTS --threads=1 --seconds=300 --stop-file="$STOP" transfer \
    > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
dml_stream() {
    local i=0 t r
    echo "USE pi;"
    while [[ ! -e $STOP ]]; do
        i=$((i + 1))
        for t in t_keep t_pc t_zip; do
            r=$((RANDOM % 6000 + 1))
            echo "UPDATE $t SET a = a + 1, b = CONCAT(LEFT(b, 150), '-$i') WHERE id BETWEEN $r AND $((r + 20));"
            echo "INSERT INTO $t VALUES ($((10000 + i)), $i, REPEAT('x', $((RANDOM % 150))));"
        done
        echo "UPDATE t_my SET b = 'my-$i' WHERE id = $((RANDOM % 6000 + 1));"
        sleep 0.2
    done
}
dml_stream | mariadb --defaults-file="$(cnf_of src)" --force > "$T/dml.out" 2>&1 &
DML_PID=$!
bg_track "$DML_PID"
sleep 2

mb_backup() {
    local out=$1; shift
    "$MB" --defaults-file="$(cnf_of src)" --backup --target-dir="$out" "$@" > "$T/$(basename "$out").log" 2>&1
    assert_ok $? "$T/$(basename "$out").log" "mariabackup --backup to $out"
}
mb_backup "$T/full"
sleep 2
sql src "USE pi; DROP TABLE t_drop; RENAME TABLE t_ren TO t_renamed; TRUNCATE TABLE t_trunc;
INSERT INTO t_trunc VALUES (1, 'after truncate'); ALTER TABLE t_alter ADD COLUMN c INT DEFAULT 7, ALGORITHM=COPY;
CREATE TABLE t_new (id INT PRIMARY KEY, b VARCHAR(100)) ENGINE=InnoDB; INSERT INTO t_new SELECT seq, MD5(seq) FROM seq_1_to_3000;
DROP DATABASE gone; DROP DATABASE again; CREATE DATABASE again; CREATE TABLE again.a (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO again.a VALUES (2,2),(3,3);" || fail "DDL before incremental 1 failed"
sleep 2
mb_backup "$T/inc1" --incremental-basedir="$T/full"
touch "$STOP"
wait "$DML_PID" 2>/dev/null
wait "$LOAD_PID" 2>/dev/null
# incremental 2 is throttled and the second DDL batch runs while it copies:
# its markers (.ren, .del, .new) are the incremental's
"$MB" --defaults-file="$(cnf_of src)" --backup --target-dir="$T/inc2" --incremental-basedir="$T/inc1" --throttle=8 \
    > "$T/inc2.log" 2>&1 &
MB_PID=$!
bg_track $MB_PID
wait_for 60 grep -q 'Copying ./mysql/' "$T/inc2.log" || fail "incremental 2 did not start copying"
sql src "USE pi; RENAME TABLE t_renamed TO t_ren2, t_keep TO t_keep_tmp, t_keep_tmp TO t_keep;
ALTER TABLE t_new ENGINE=InnoDB; DROP TABLE t_trunc; CREATE TABLE t_trunc (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO t_trunc VALUES (5); ALTER TABLE t_pc ADD INDEX (a); ALTER TABLE t_zip ADD INDEX (a);
UPDATE t_keep SET a = a + 100 WHERE id < 500" || fail "DDL during incremental 2 failed"
kill -0 $MB_PID 2>/dev/null || log "warning: incremental 2 ended before its DDL batch did"
wait $MB_PID
assert_ok $? "$T/inc2.log" "mariabackup --backup to $T/inc2"
log "incremental 2 markers: $(cd "$T/inc2" && find . -name '*.ren' -o -name '*.del' -o -name '*.new' -o -name '*.new.delta' | LC_ALL=C sort | tr '\n' ' ')"
SRC_SUMS=$(checksum_all src)
[[ -n $SRC_SUMS ]] || fail "no checksums from the source"

for d in full inc1 inc2; do
    cp -a "$T/$d" "$T/A_$d" && cp -a "$T/$d" "$T/B_$d" || fail "copying $d failed"
done
# some incrementals of the chain hold DDL markers or deltas of new tables
log "markers and deltas: $(cd "$T/inc1" && find . -name '*.delta' | wc -l) and $(cd "$T/inc2" && find . -name '*.delta' | wc -l) deltas"

# ---- refusals, on copy B before anything is prepared
TSUM=$(tree_sums "$T/B_full")
prep_run "$PUT" "$T/B_full" --incremental-dir="$T/B_inc1"
if [[ $PUT_KIND == xtrabackup ]]; then
    assert_error NOT_PREPARED "$PREP_RC" "$PREP_ERR" "incremental on an unprepared base"
    assert_contains "$PREP_ERR" "applying incremental backup needs a prepared target" "unprepared base: the message"
    assert_contains "$PREP_ERR" "HINT: .*--prepare --target-dir=$T/B_full" "unprepared base: the hint"
else
    assert_failed "$PREP_RC" "$PREP_ERR" "incremental on an unprepared base"
fi
assert_eq "$TSUM" "$(tree_sums "$T/B_full")" "a refused incremental changes nothing"
prep_run "$PUT" "$T/B_inc1"
if [[ $PUT_KIND == xtrabackup ]]; then
    assert_error TARGET "$PREP_RC" "$PREP_ERR" "an incremental prepared alone"
    assert_contains "$PREP_ERR" "HINT: .*--incremental-dir=$T/B_inc1" "an incremental alone: the hint"
fi

# ---- A: mariabackup, B: the tool under test
prep_run "$MB" "$T/A_full" && prep_run "$MB" "$T/A_full" --incremental-dir="$T/A_inc1" &&
    prep_run "$MB" "$T/A_full" --incremental-dir="$T/A_inc2"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup's prepare of the chain"

prep_run "$PUT" "$T/B_full"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare of the base"
TSUM=$(tree_sums "$T/B_full")
prep_run "$PUT" "$T/B_full" --incremental-dir="$T/B_inc2"
if [[ $PUT_KIND == xtrabackup ]]; then
    assert_error TARGET "$PREP_RC" "$PREP_ERR" "incremental 2 before incremental 1"
    assert_contains "$PREP_ERR" "This incremental backup seems not to be proper for the target" "out of order: the words"
    assert_contains "$PREP_ERR" "to_lsn of $T/B_full is $(checkpoints_value "$T/B_full" to_lsn), from_lsn of $T/B_inc2 is $(checkpoints_value "$T/B_inc2" from_lsn)" \
        "out of order: both LSNs and directories"
else
    assert_failed "$PREP_RC" "$PREP_ERR" "incremental 2 before incremental 1"
fi
assert_eq "$TSUM" "$(tree_sums "$T/B_full")" "an incremental out of order changes nothing"
prep_run "$PUT" "$T/B_full" --incremental-dir="$T/B_full"
[[ $PUT_KIND == xtrabackup ]] && assert_error TARGET "$PREP_RC" "$PREP_ERR" "a full backup as --incremental-dir"

if [[ $PUT_KIND == xtrabackup ]]; then
    # the incremental's redo copy cut short: refused before the first change
    cp -a "$T/inc1" "$T/cut_inc1" || fail "copying inc1 failed"
    truncate -s 16384 "$T/cut_inc1/ib_logfile0"
    prep_run "$PUT" "$T/B_full" --incremental-dir="$T/cut_inc1"
    assert_failed "$PREP_RC" "$PREP_ERR" "an incremental with its redo copy cut short"
    assert_contains "$PREP_ERR" "ib_logfile0" "a cut redo copy: the message names it"
    assert_eq "$TSUM" "$(tree_sums "$T/B_full")" "an incremental with a damaged redo copy changes nothing"
fi
prep_run "$PUT" "$T/B_full" --incremental-dir="$T/B_inc1" --apply-log-only --stats-file="$T/stats1.json"
assert_ok "$PREP_RC" "$PREP_ERR" "applying incremental 1"
prep_run "$PUT" "$T/B_full" --incremental-dir="$T/B_inc2" --stats-file="$T/stats2.json"
assert_ok "$PREP_RC" "$PREP_ERR" "applying incremental 2"
if [[ $PUT_KIND == xtrabackup ]]; then
    assert_eq "$(checkpoints_value "$T/inc2" to_lsn)" "$(checkpoints_value "$T/B_full" to_lsn)" "to_lsn of the last incremental"
    assert_eq "$(checkpoints_value "$T/inc2" last_lsn)" "$(checkpoints_value "$T/B_full" last_lsn)" "last_lsn of the last incremental"
    [[ -n $(json_num "$T/stats1.json" pages) && $(json_num "$T/stats1.json" pages) -gt 0 ]] || \
        fail "stats of incremental 1: no delta pages ($(cat "$T/stats1.json"))"
    [[ ! -e $T/B_full/xtrabackup_incremental_pending ]] || fail "the pending mark is left after a finished apply"
fi
assert_eq log-applied "$(checkpoints_value "$T/B_full" backup_type)" "backup_type after the chain"
[[ $PUT_KIND == xtrabackup ]] && assert_eq "$(tree_sums "$T/inc2")" "$(tree_sums "$T/B_inc2")" "the incremental is left as it was"

assert_pages_equal "$T/A_full" "$T/B_full" "chain prepared by mariabackup vs $PUT_KIND" --pc-tail
# the same table set: .frm and friends
assert_eq "$(cd "$T/A_full" && find . -name '*.frm' -o -name '*.MY?' -o -name '*.opt' | LC_ALL=C sort)" \
    "$(cd "$T/B_full" && find . -name '*.frm' -o -name '*.MY?' -o -name '*.opt' | LC_ALL=C sort)" "non-InnoDB files"
[[ -d $T/B_full/gone ]] && fail "the database dropped between the backups is still there"

# a chain of our own backups, prepared by both
if [[ $PUT_KIND == xtrabackup ]]; then
    xb_backup src "$T/our_full" || { tail -n 5 "$XB_ERR" >&2; fail "our full backup failed"; }
    sql src "USE pi; UPDATE t_keep SET a = a + 1 WHERE id < 2000; CREATE TABLE t_ours (id INT PRIMARY KEY) ENGINE=InnoDB;
        INSERT INTO t_ours SELECT seq FROM seq_1_to_1000; DROP TABLE t_ren2" || fail "changes after our full backup failed"
    xb_backup src "$T/our_inc" --incremental-basedir="$T/our_full" || { tail -n 5 "$XB_ERR" >&2; fail "our incremental failed"; }
    for d in our_full our_inc; do cp -a "$T/$d" "$T/A_$d" && cp -a "$T/$d" "$T/B_$d" || fail "copying $d failed"; done
    prep_run "$MB" "$T/A_our_full" && prep_run "$MB" "$T/A_our_full" --incremental-dir="$T/A_our_inc"
    assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup's prepare of our chain"
    prep_run "$PUT" "$T/B_our_full" && prep_run "$PUT" "$T/B_our_full" --incremental-dir="$T/B_our_inc"
    assert_ok "$PREP_RC" "$PREP_ERR" "our prepare of our chain"
    assert_pages_equal "$T/A_our_full" "$T/B_our_full" "our chain prepared by mariabackup vs $PUT_KIND" --pc-tail
fi

restore_prepared "$T/B_full" dst
assert_no_crash_recovery dst "$(checkpoints_value "$T/B_full" last_lsn)"
assert_eq "$SRC_SUMS" "$(checksum_all dst)" "checksums of the restored chain"
log "PASS"
