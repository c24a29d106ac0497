#!/usr/bin/env bash
# prepare_errors.sh - bad input to --prepare. One backup is taken by $XB while
# xb_load commits transfers (bank.ledger and bank.accounts change all the time) and
# a stream of UPDATEs hits a 50-row table e.hot whose rows all live on page 3. Each
# case damages its own copy of that backup and runs the preparer under test
# (PREPARE_UNDER_TEST, default build/xtrabackup) on it:
#   truncated redo      ib_logfile0 cut in the middle of its records  -> 13 REDO_CORRUPT, names ib_logfile0
#   corrupt redo        one byte of the records inverted, mid-file    -> 13 REDO_CORRUPT, names ib_logfile0
#   missing tablespace  bank/ledger.ibd deleted (the log writes it)   -> 17 MISSING_FILE, names ledger.ibd
#   corrupt page        a byte of page 3 of e/hot.ibd inverted        -> 10 CORRUPT_PAGE, names hot.ibd
#   the same, with innodb_force_recovery (2 on the command line, limited to 1;
#   1 in backup-my.cnf; 0 on the command line over it) -> completes, the page
#                                                          left as copied, a warning
#   not a backup        a directory with one unrelated file           ->  7 TARGET
#   no checkpoints      a backup without xtrabackup_checkpoints       ->  7 TARGET, names xtrabackup_checkpoints
#   no --target-dir     --prepare alone, run in an empty directory    ->  2 USAGE
# and asserts the exit code, no "completed OK!", that stderr names the file, and
# that every file of the copy is byte-identical afterwards (md5 of the whole tree).
# Each damaged copy has its manifest removed, as a backup by mariabackup has none:
# with it, every damage here is refused first as BACKUP_DAMAGED (backup_damaged.sh
# in test/faults/); without it, the checks of the redo log and the pages catch it.
# Preconditions are checked too: a clean prepare of the backup changes page 3 of
# e/hot.ibd (so the redo touches it). mariabackup, as the preparer under test, only
# fails on the corrupt page and the unusable directories; it accepts a truncated or
# corrupt redo copy and a missing tablespace (exit 0; for the tablespace it warns
# "Tablespace N was not found at ./bank/ledger.ibd ... All redo log for this file
# will be ignored!"). For those cases the test
# then proves that the damage matters: the result differs from a clean prepare
# (xb_pagecmp), so a preparer accepting the input would leave a wrong backup.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

put_init
build_xb_load || fail "cannot build xb_load"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"

ACCOUNTS=2000
server_start src
sql src "DROP DATABASE sys" || fail "dropping sys failed"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
sql src "CREATE DATABASE e;
         CREATE TABLE e.hot (id INT PRIMARY KEY, v INT NOT NULL) ENGINE=InnoDB;
         INSERT INTO e.hot SELECT seq, 0 FROM e.seq_1_to_50;
         CREATE TABLE e.bulk (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO e.bulk SELECT seq, REPEAT(MD5(seq), 7) FROM e.seq_1_to_60000" || fail "creating the tables failed"
# A restart puts a checkpoint after the CREATEs: the backup's redo copy starts after
# them and the tables are copied as plain .ibd files.
server_stop src
server_start_on src "$(datadir_of src)"

STOP=$T/stop-load
# The binary itself in the background (not the xb_load function in a subshell), so
# $! is its pid and the exit trap stops it on every path.
"$XB_LOAD" --defaults-file="$(cnf_of src)" --accounts=$ACCOUNTS --threads=2 --seconds=300 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
hot_stream() {
    while [[ ! -e $STOP ]]; do
        echo "UPDATE e.hot SET v = v + 1 WHERE id = $((RANDOM % 50 + 1));"
        sleep 0.01
    done
}
hot_stream | mariadb --defaults-file="$(cnf_of src)" > "$T/hot.out" 2>&1 &
HOT_PID=$!
bg_track "$HOT_PID"
sleep 2
B=$T/backup
# The cases below need a few MiB of redo in the backup: how much the load writes
# while the backup runs depends on how busy the machine is, so a backup with too
# little is taken again, slower (a lower --throttle).
for thr in 8 4 2; do
    xb_backup_bg src "$B" --throttle=$thr
    xb_wait_max 120 "the backup under load"
    assert_ok "$XB_RC" "$XB_ERR" "backup under load"
    SIZE=$(stat -c %s "$B/ib_logfile0")
    REDO=$((SIZE - 12288))
    (( REDO >= 4 * 1048576 )) && break
    log "only $REDO bytes of redo with --throttle=$thr: again, slower"
    rm -rf "$B"
done
touch "$STOP"
wait "$LOAD_PID"; wait "$HOT_PID"
assert_file "$B/bank/ledger.ibd" "$B/e/hot.ibd" "$B/ib_logfile0" "$B/xtrabackup_checkpoints"
log "backup: $((REDO / 1048576)) MiB of redo, last_lsn $(checkpoints_value "$B" last_lsn)"
(( REDO >= 4 * 1048576 )) || fail "only $REDO bytes of redo in the backup (--throttle=2)"

# The reference: a clean prepare (by the oracle), and the precondition that the redo
# writes page 3 of e/hot.ibd.
OK=$T/ok
cp -a "$B" "$OK" || fail "copying the backup failed"
prep_run mariabackup "$OK"
assert_ok "$PREP_RC" "$PREP_ERR" "clean prepare (mariabackup) of the backup"
"$XB_PAGECMP" -v -n 1000 "$B/e/hot.ibd" "$OK/e/hot.ibd" > "$T/hot.cmp"
grep -q ' page 3: ' "$T/hot.cmp" || { cat "$T/hot.cmp" >&2; fail "precondition: the redo copy does not change page 3 of e/hot.ibd"; }

# newcopy NAME - a fresh copy of the backup, echoes its path.
newcopy() {
    cp -a "$B" "$T/$1" || fail "copying the backup to $T/$1 failed"
    rm -f "$T/$1/xtrabackup_manifest.pmap"
    echo "$T/$1"
}


# expect_error CASE DIR CODE_NAME FILE_ERE MB [prepare options...] - run the preparer
# under test on DIR. Ours: exit code of CODE_NAME, not "completed OK!", stderr matches
# FILE_ERE, DIR unchanged. mariabackup (MB says what it does): "fails" -> a failure
# naming FILE_ERE (unless empty); "accepts" -> exit 0 expected and the damage must
# change the result (compared with the clean prepare $OK); "warns" -> the same, and
# its warning names FILE_ERE.
expect_error() {
    local name=$1 dir=$2 code_name=$3 file_re=$4 mb=$5; shift 5
    local before
    before=$(tree_sums "$dir")
    prep_run "$PUT" "$dir" "$@"
    if [[ $PUT_KIND == xtrabackup ]]; then
        assert_failed "$PREP_RC" "$PREP_ERR" "$name"
        assert_error "$code_name" "$PREP_RC" "$PREP_ERR" "$name"
        [[ -z $file_re ]] || assert_contains "$PREP_ERR" "$file_re" "$name: the error names the file"
        assert_eq "$before" "$(tree_sums "$dir")" "$name: the backup must be left as it was (md5 of every file)"
    elif [[ $mb == fails ]]; then
        assert_failed "$PREP_RC" "$PREP_ERR" "$name (mariabackup)"
        [[ -z $file_re ]] || assert_contains "$PREP_ERR" "$file_re" "$name: mariabackup's error names the file"
    else
        assert_ok "$PREP_RC" "$PREP_ERR" "$name: mariabackup accepts this input"
        [[ $mb == warns ]] && assert_contains "$PREP_ERR" "$file_re" "$name: mariabackup's warning names the file"
        if "$XB_PAGECMP" "$dir" "$OK" > "$T/$name.cmp" 2>&1; then
            fail "$name: the damaged backup prepares to the same pages as the intact one: the case tests nothing"
        fi
        log "$name: mariabackup accepts it; its result differs from a clean prepare: $(tail -n 1 "$T/$name.cmp")"
    fi
    log "case ok: $name"
}

# 1. truncated redo copy: cut half-way through the records (well before last_lsn).
D=$(newcopy truncated)
truncate -s $((12288 + REDO / 2)) "$D/ib_logfile0"
expect_error truncated_redo "$D" REDO_CORRUPT 'ib_logfile0' accepts

# 2. one byte inverted in the middle of the records (breaks the CRC of its mtr).
D=$(newcopy corrupt_redo)
flip "$D/ib_logfile0" $((12288 + REDO / 2 + 1234))
expect_error corrupt_redo "$D" REDO_CORRUPT 'ib_logfile0' accepts

# 3. a tablespace the log writes is missing.
D=$(newcopy missing_ibd)
rm -f "$D/bank/ledger.ibd"
expect_error missing_tablespace "$D" MISSING_FILE 'ledger\.ibd' warns

# 4. a corrupt page the redo applies to (page 3 of e/hot.ibd, 16 KiB pages).
D=$(newcopy corrupt_page)
[[ $("$XB_PAGECMP" --info "$D/e/hot.ibd") == *" physical=16384 "* ]] || fail "e/hot.ibd does not have 16 KiB pages"
flip "$D/e/hot.ibd" $((3 * 16384 + 8000))
expect_error corrupt_page "$D" CORRUPT_PAGE 'hot\.ibd' fails

# 4b. the same damaged copy with innodb_force_recovery (ours; mariabackup limits it
#     to 1 too, but what it does with the page is its own): the prepare completes,
#     warns naming the page, and leaves that page as copied. From backup-my.cnf
#     ([mysqld]) as well, where the command line's 0 wins.
if [[ $PUT_KIND == xtrabackup ]]; then
    D2=$T/corrupt_page_cnf
    cp -a "$D" "$D2" || fail "copying the damaged backup failed"
    echo "innodb_force_recovery=1" >> "$D2/backup-my.cnf"
    "$PUT" --defaults-file="$D2/backup-my.cnf" --prepare --target-dir="$D2" --innodb-force-recovery=0 \
        > "$T/force0.out" 2> "$T/force0.err" < /dev/null
    assert_error CORRUPT_PAGE "$?" "$T/force0.err" "innodb_force_recovery=1 in backup-my.cnf, 0 on the command line"
    assert_not_contains "$T/force0.err" 'innodb_force_recovery = 1' "the command line's 0 wins over backup-my.cnf"
    "$PUT" --defaults-file="$D2/backup-my.cnf" --prepare --target-dir="$D2" > "$T/force1.out" 2> "$T/force1.err" < /dev/null
    assert_ok "$?" "$T/force1.err" "innodb_force_recovery=1 from backup-my.cnf"
    assert_contains "$T/force1.err" 'innodb_force_recovery = 1' "innodb_force_recovery read from backup-my.cnf"
    PAGE3=$(dd if="$D/e/hot.ibd" bs=16384 skip=3 count=1 2> /dev/null | md5sum)
    prep_run "$PUT" "$D" --innodb-force-recovery=2
    assert_ok "$PREP_RC" "$PREP_ERR" "prepare of a damaged page with --innodb-force-recovery=2"
    assert_contains "$PREP_ERR" 'limited to 1' "--innodb-force-recovery=2 is limited to 1"
    assert_contains "$PREP_ERR" 'innodb_force_recovery = 1' "the level used is logged"
    assert_contains "$PREP_ERR" 'e/hot\.ibd page 3 fails its checksum before apply.*left as copied' \
        "the damaged page is named in a warning"
    assert_eq "$PAGE3" "$(dd if="$D/e/hot.ibd" bs=16384 skip=3 count=1 2> /dev/null | md5sum)" \
        "the damaged page is left as copied"
    assert_eq log-applied "$(checkpoints_value "$D" backup_type)" "the backup is prepared"
    log "case ok: innodb_force_recovery"
fi

# 5. a directory that is not a backup.
D=$T/not_a_backup
mkdir -p "$D" && echo "not a backup" > "$D/README"
expect_error not_a_backup "$D" TARGET "$([[ $PUT_KIND == xtrabackup ]] && echo 'not_a_backup|xtrabackup_checkpoints')" fails

# 6. a backup without xtrabackup_checkpoints.
D=$(newcopy no_checkpoints)
rm -f "$D/xtrabackup_checkpoints"
expect_error no_checkpoints "$D" TARGET 'xtrabackup_checkpoints' fails

# 7. --prepare without --target-dir (from an empty directory: mariabackup would
#    otherwise look for ./xtrabackup_backupfiles).
mkdir -p "$T/empty"
log "run: $(basename "$PUT") --prepare (no --target-dir) in $T/empty"
(cd "$T/empty" && "$PUT" --prepare > "$T/notarget.out" 2> "$T/notarget.err" < /dev/null)
RC=$?
assert_failed "$RC" "$T/notarget.err" "--prepare without --target-dir"
if [[ $PUT_KIND == xtrabackup ]]; then
    # mariabackup's default backup directory, absent here
    assert_eq 1 "$RC" "--prepare without --target-dir: exit status"
    assert_contains "$T/notarget.err" 'xtrabackup_backupfiles' "the error names the default --target-dir"
fi
[[ -z $(ls -A "$T/empty") ]] || fail "--prepare without --target-dir created files in the current directory"
log "case ok: no --target-dir"
log "prepare_errors: ok"
