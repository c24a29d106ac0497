#!/usr/bin/env bash
# prepare_signals.sh - a --prepare stopped at each of its fault points by
# SIGTERM and by kill -9, and a write in place cut part-way; then a rerun.
#
# One backup (test/faults/inc/redo_backup.sh: ~40 MiB of redo for a table
# whose every page it rewrites) is prepared once by mariabackup: the
# reference. Each case prepares its own cp -a copy with --use-memory=24M
# (several batches) and XB_FAULT set, once in each journal mode (the default
# and --prepare-fsync):
#   POINT:term   (prepare-started, prepare-batch-written, prepare-journal-
#                committed, prepare-before-marker) -> exit 1, error 15
#                INTERRUPTED, "interrupted" in the message, no "completed OK!"
#   POINT:kill   (the same points, the batch ones at their 2nd hit) -> killed
#                (exit 137), nothing said
#   prepare-page-write:error@N -> the Nth run of pages written in place
#                (the first from the 3rd that is of e/bulk.ibd, from its page 4 on: an
#                index page, read and updated) is cut after
#                4 KiB (a torn page) -> exit 1, error 9 IO_WRITE naming the
#                file, the journal left in the backup
# and in every case the backup is not marked prepared (backup_type stays
# full-backuped); the rerun without a fault ends with "completed OK!",
# backup_type = log-applied, no journal left, and pages identical to the
# reference (xb_pagecmp). The torn case also shows that the repair is real:
# the same copy with its journal removed is refused by the rerun
# (CORRUPT_PAGE on the torn page).
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"
# shellcheck source=../inc/redo_backup.sh
. "$(dirname "$0")/../inc/redo_backup.sh"

put_init
[[ $PUT_KIND == xtrabackup ]] || skip "fault points are in our tool only"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"

B=$T/backup
redo_backup_make src "$B"
server_stop src
REF=$T/ref
cp -a "$B" "$REF" || fail "copying the backup failed"
prep_run mariabackup "$REF"
assert_ok "$PREP_RC" "$PREP_ERR" "reference prepare (mariabackup)"
MEM=--use-memory=24M

# rerun_ok CASE DIR - the rerun finishes the job: pages equal to the reference.
rerun_ok() {
    local name=$1 dir=$2
    prep_run "$PUT" "$dir" $MEM
    assert_ok "$PREP_RC" "$PREP_ERR" "$name: rerun"
    assert_eq log-applied "$(checkpoints_value "$dir" backup_type)" "$name: backup_type after the rerun"
    [[ ! -e $dir/xtrabackup_prepare_journal ]] || fail "$name: the journal is left after a successful prepare"
    assert_pages_equal "$REF" "$dir" "$name: rerun vs mariabackup's prepare"
}

not_prepared() {
    assert_eq full-backuped "$(checkpoints_value "$2" backup_type)" "$1: the backup must not be marked prepared"
    assert_not_contains "$PREP_ERR" 'completed OK!' "$1: no completed OK!"
}

# An uninterrupted prepare with the same settings first: several batches.
C=$T/plain
cp -a "$B" "$C" || fail "copying the backup failed"
prep_run "$PUT" "$C" $MEM
assert_ok "$PREP_RC" "$PREP_ERR" "uninterrupted prepare"
nb=$(grep -c 'applying batch' "$PREP_ERR")
(( nb >= 3 )) || fail "precondition: the prepare applies $nb batches, want at least 3"
log "uninterrupted prepare: $nb batches"
assert_pages_equal "$REF" "$C" "uninterrupted prepare vs mariabackup's"
rm -rf "$C"

# Each case in both journal modes: the default (runs in place as soon as they
# are journaled) and --prepare-fsync (the batch journaled, fsynced, then in
# place); the rerun uses the default.
for MODE in "" --prepare-fsync; do
    for point in prepare-started prepare-batch-written prepare-journal-committed prepare-before-marker; do
        for action in term kill; do
            name="$point:$action${MODE:+ $MODE}"
            at=
            [[ $action == kill && $point == prepare-batch-written ]] && at=@2
            [[ $action == kill && $point == prepare-journal-committed ]] && at=@2
            C=$T/c.$point.$action
            cp -a "$B" "$C" || fail "copying the backup failed"
            XB_FAULT=$point:$action$at prep_run "$PUT" "$C" $MEM $MODE
            if [[ $action == kill ]]; then
                assert_eq 137 "$PREP_RC" "$name: exit status of a process killed by SIGKILL"
            else
                assert_error INTERRUPTED "$PREP_RC" "$PREP_ERR" "$name"
                assert_contains "$PREP_ERR" 'interrupted' "$name: the message says so"
            fi
            not_prepared "$name" "$C"
            rerun_ok "$name" "$C"
            if [[ $point == prepare-journal-committed && $action == kill ]]; then
                assert_contains "$PREP_ERR" 'writing them in place again' "$name: the rerun replays the committed journal"
            fi
            rm -rf "$C"
            log "case ok: $name"
        done
    done

    # A write in place cut after its first 4 KiB: a torn page, repaired by the rerun.
    # The Nth run written in place is cut, the first N (from 3) that is a run of
    # e/bulk.ibd (its pages are read, then updated: a torn one fails its checksum).
    C=$T/torn
    for n in $(seq 3 40); do
        rm -rf "$C"
        cp -a "$B" "$C" || fail "copying the backup failed"
        XB_FAULT=prepare-page-write:error@$n prep_run "$PUT" "$C" $MEM $MODE
        BYTE=$(sed -n 's/.*cannot write e\/bulk.ibd at byte \([0-9]*\).*/\1/p' "$PREP_ERR")
        [[ -n $BYTE ]] && (( BYTE >= 4 * 16384 )) && break
    done
    assert_error IO_WRITE "$PREP_RC" "$PREP_ERR" "torn write"
    assert_contains "$PREP_ERR" 'cannot write e/bulk.ibd at byte' "torn write: the error names the file"
    assert_contains "$PREP_ERR" 'run --prepare again' "torn write: the hint says what to do"
    PAGE=$((BYTE / 16384))
    log "torn write${MODE:+ $MODE} at run $n: e/bulk.ibd page $PAGE"
    not_prepared "torn write" "$C"
    assert_file "$C/xtrabackup_prepare_journal"
    D=$T/torn-nojournal
    cp -a "$C" "$D" || fail "copying the torn backup failed"
    rm -f "$D/xtrabackup_prepare_journal"
    prep_run "$PUT" "$D" $MEM
    assert_error CORRUPT_PAGE "$PREP_RC" "$PREP_ERR" "torn page without its journal"
    assert_contains "$PREP_ERR" "e/bulk.ibd page $PAGE fails its checksum" "torn page without its journal: the error names the page"
    rm -rf "$D"
    rerun_ok "torn write" "$C"
    assert_contains "$PREP_ERR" 'writing them in place again' "torn write: the rerun says it replays the journal"
    log "case ok: torn write${MODE:+ $MODE}"
done
