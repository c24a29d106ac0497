#!/usr/bin/env bash
# incremental_prepare_signals.sh - --prepare --incremental-dir stopped at each
# of its fault points by kill -9 and by SIGTERM, then the consequences: the
# half-applied backup is refused by --prepare, --copy-back and by another
# incremental, each naming the incremental being applied; the same command
# run again completes it, to pages identical to an uninterrupted apply.
#
# A server with e.bulk (about 16 MiB) and a few more tables is backed up
# in full by mariabackup and prepared; then e.bulk is updated while
# mariabackup takes an incremental (throttled, so its redo copy holds
# some 40 MiB of records), and a table is created, one dropped
# and one rebuilt between the two backups (the updates run while the
# throttled incremental copies). The reference is an
# uninterrupted apply of the incremental by the tool under test (itself
# checked against mariabackup's, page for page). Cases, each on its own copy
# of the prepared base and of the incremental, with --use-memory=24M:
#   prepare-started:kill        -> nothing changed (tree identical), no mark
#   prepare-delta-applied:kill@2, prepare-deltas-done:kill,
#   prepare-batch-written:kill@5, prepare-before-marker:kill
#                               -> exit 137; xtrabackup_incremental_pending
#                                  names the incremental; to_lsn still the
#                                  base's; --prepare, --copy-back and another
#                                  --incremental-dir refused (16 NOT_PREPARED)
#   prepare-deltas-done:term, prepare-batch-written:term
#                               -> exit 1, error 15, the hint names the rerun
#   prepare-delta-applied:error@3 -> error 9, the same refusals
# (at prepare-before-marker the mark already says done: the rerun only
# writes xtrabackup_checkpoints)
# and then the same --prepare --incremental-dir run again: "completed OK!",
# backup_type log-applied with the incremental's to_lsn, no mark left, the
# incremental unchanged, pages equal to the reference.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

put_init
[[ $PUT_KIND == xtrabackup ]] || skip "fault points are in our tool only"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"
MB=mariabackup
MEM=--use-memory=24M

server_start src --innodb_log_file_size=256M --innodb_buffer_pool_size=128M
sql src "CREATE DATABASE e;
    CREATE TABLE e.bulk (id INT PRIMARY KEY, v INT NOT NULL, pad VARCHAR(255)) ENGINE=InnoDB;
    INSERT INTO e.bulk SELECT seq, 0, REPEAT(MD5(seq), 7) FROM e.seq_1_to_60000;
    CREATE TABLE e.small (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
    INSERT INTO e.small SELECT seq, seq FROM e.seq_1_to_100;
    CREATE TABLE e.dropped (id INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO e.dropped VALUES (1);
    CREATE TABLE e.rebuilt (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO e.rebuilt SELECT seq, seq FROM e.seq_1_to_500" \
    || fail "creating the tables failed"
"$MB" --defaults-file="$(cnf_of src)" --backup --target-dir="$T/full" > "$T/full.log" 2>&1
assert_ok $? "$T/full.log" "mariabackup full backup"
prep_run "$MB" "$T/full"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup prepare of the base"
sql src "DROP TABLE e.dropped; ALTER TABLE e.rebuilt ADD COLUMN w INT, ALGORITHM=COPY;
    CREATE TABLE e.created (id INT PRIMARY KEY, v INT) ENGINE=InnoDB; INSERT INTO e.created SELECT seq, seq FROM e.seq_1_to_300" \
    || fail "DDL between the backups failed"
"$MB" --defaults-file="$(cnf_of src)" --backup --target-dir="$T/inc" --incremental-basedir="$T/full" --throttle=5 \
    > "$T/inc.log" 2>&1 &
MB_PID=$!
bg_track $MB_PID
sleep 2
sql src "UPDATE e.bulk SET v = v + 1, pad = REPEAT(MD5(id + 1), 7); UPDATE e.bulk SET v = v + 1, pad = REPEAT(MD5(id + 2), 7);
    UPDATE e.small SET v = v + 1" || fail "updating the tables failed"
kill -0 $MB_PID 2>/dev/null || log "warning: the incremental backup ended before the updates did"
wait $MB_PID
assert_ok $? "$T/inc.log" "mariabackup incremental backup"
server_stop src
REDO=$(( $(stat -c %s "$T/inc/ib_logfile0") - 12288 ))
log "incremental: $((REDO / 1048576)) MiB of redo, $(find "$T/inc" -name '*.delta' | wc -l) deltas"
(( REDO > 4 * 1048576 )) || fail "precondition: only $REDO bytes of redo in the incremental"
INC_SUMS=$(tree_sums "$T/inc")

# the reference: an uninterrupted apply, equal to mariabackup's
REF=$T/ref
cp -a "$T/full" "$REF" && cp -a "$T/inc" "$T/ref_inc" || fail "copying failed"
prep_run "$PUT" "$REF" --incremental-dir="$T/ref_inc" $MEM
assert_ok "$PREP_RC" "$PREP_ERR" "uninterrupted apply"
nb=$(grep -c 'applying batch' "$PREP_ERR")
log "uninterrupted apply: $nb batches"
cp -a "$T/full" "$T/mb" && cp -a "$T/inc" "$T/mb_inc" || fail "copying failed"
prep_run "$MB" "$T/mb" --incremental-dir="$T/mb_inc"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup's apply"
assert_pages_equal "$T/mb" "$REF" "uninterrupted apply vs mariabackup's"
rm -rf "$T/mb" "$T/mb_inc" "$T/ref_inc"
TO_BASE=$(checkpoints_value "$T/full" to_lsn)
TO_INC=$(checkpoints_value "$T/inc" to_lsn)

# refused NAME DIR - a half-applied DIR is refused by the commands that would use it.
refused() {
    local name=$1 dir=$2
    assert_file "$dir/xtrabackup_incremental_pending"
    assert_contains "$dir/xtrabackup_incremental_pending" "incremental_dir = $T/i" "$name: the mark names the incremental"
    assert_eq "$TO_BASE" "$(checkpoints_value "$dir" to_lsn)" "$name: to_lsn is still the base's"
    prep_run "$PUT" "$dir"
    assert_error NOT_PREPARED "$PREP_RC" "$PREP_ERR" "$name: --prepare of the half-applied backup"
    assert_contains "$PREP_ERR" "incremental backup $T/i.* was being applied" "$name: --prepare names the incremental"
    assert_contains "$PREP_ERR" "HINT: .*--incremental-dir=$T/i" "$name: --prepare's hint"
    xb_run --copy-back --target-dir="$dir" --datadir="$T/restore-$RANDOM"
    assert_error NOT_PREPARED "$XB_RC" "$XB_ERR" "$name: --copy-back of the half-applied backup"
    assert_contains "$XB_ERR" "incremental backup $T/i" "$name: --copy-back names the incremental"
    prep_run "$PUT" "$dir" --incremental-dir="$T/full"
    assert_failed "$PREP_RC" "$PREP_ERR" "$name: another --incremental-dir"
}

# completed NAME DIR INC - the rerun finishes the apply.
completed() {
    local name=$1 dir=$2 inc=$3
    prep_run "$PUT" "$dir" --incremental-dir="$inc" $MEM
    assert_ok "$PREP_RC" "$PREP_ERR" "$name: rerun"
    assert_eq log-applied "$(checkpoints_value "$dir" backup_type)" "$name: backup_type after the rerun"
    assert_eq "$TO_INC" "$(checkpoints_value "$dir" to_lsn)" "$name: to_lsn after the rerun"
    [[ ! -e $dir/xtrabackup_incremental_pending ]] || fail "$name: the mark is left after the rerun"
    [[ ! -e $dir/xtrabackup_prepare_journal ]] || fail "$name: the journal is left after the rerun"
    assert_eq "$INC_SUMS" "$(tree_sums "$inc")" "$name: the incremental is unchanged"
    assert_pages_equal "$REF" "$dir" "$name: rerun vs the uninterrupted apply"
}

n=0
for c in prepare-started:kill prepare-delta-applied:kill@2 prepare-deltas-done:kill prepare-batch-written:kill@5 \
         prepare-before-marker:kill prepare-deltas-done:term prepare-batch-written:term prepare-delta-applied:error@3; do
    n=$((n + 1))
    C=$T/c$n I=$T/i$n
    cp -a "$T/full" "$C" && cp -a "$T/inc" "$I" || fail "copying failed"
    BEFORE=$(tree_sums "$C")
    XB_FAULT=$c prep_run "$PUT" "$C" --incremental-dir="$I" $MEM
    case $c in
        *:kill*) assert_eq 137 "$PREP_RC" "$c: exit status of a process killed by SIGKILL" ;;
        *:term*) assert_error INTERRUPTED "$PREP_RC" "$PREP_ERR" "$c"
                 assert_contains "$PREP_ERR" "HINT: .*--incremental-dir=$I" "$c: the hint names the rerun" ;;
        *:error*) assert_error IO_WRITE "$PREP_RC" "$PREP_ERR" "$c" ;;
    esac
    assert_not_contains "$PREP_ERR" 'completed OK!' "$c: no completed OK!"
    if [[ $c == prepare-started:* ]]; then
        assert_eq "$BEFORE" "$(tree_sums "$C")" "$c: nothing changed"
    else
        refused "$c" "$C"
    fi
    completed "$c" "$C" "$I"
    rm -rf "$C" "$I"
    log "case ok: $c"
done
