#!/usr/bin/env bash
# restore_signals.sh - --copy-back and --move-back stopped by SIGTERM and by
# kill -9 at restore-file-copied (the 5th file put into the datadir), then
# run again.
#
# A backup of server src (e.bulk and e.small, test/faults/inc/redo_backup.sh)
# is prepared by the tool under test; each case restores its own copy of it
# into a new datadir, with --parallel=1 so the 5th file is reached with
# others still to go:
#   --copy-back, SIGTERM  -> exit 1, error 15 INTERRUPTED; the files it had
#                            copied are removed again (the datadir is empty);
#                            the rerun succeeds
#   --copy-back, kill -9  -> killed (137); the datadir holds part of the
#                            backup but no ib_logfile0 (the redo log goes
#                            last), and mariadbd refuses to start on it
#                            ("ib_logfile0 was not found"); the rerun is
#                            refused ("not empty", error 7 TARGET) and says
#                            to restore into an empty directory; emptied, it
#                            succeeds
#   --move-back, SIGTERM  -> exit 1, error 15 INTERRUPTED, the hint says every
#   --move-back, kill -9     file is whole in one of the two places (kill: 137);
#                            no file is lost (files in the backup + in the
#                            datadir = the backup's before), no ib_logfile0 in
#                            the datadir; the rerun with
#                            --force-non-empty-directories moves the rest
# Every finished restore starts a server whose CHECKSUM TABLE equals the source's.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"
# shellcheck source=../inc/redo_backup.sh
. "$(dirname "$0")/../inc/redo_backup.sh"

put_init
[[ $PUT_KIND == xtrabackup ]] || skip "fault points are in our tool only"

B=$T/backup
redo_backup_make src "$B"
SUM=$(redo_backup_checksum src)
server_stop src
prep_run "$PUT" "$B"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare"
NFILES=$(find "$B" -type f | wc -l)

# restored_ok NAME - start server NAME on its datadir: CHECKSUM TABLE equal to the source's.
restored_ok() {
    local u; u=$(_srv_user)
    [[ $u != "$(id -un)" ]] && chown -R "$u" "$T/$1"
    server_start_on "$1" "$(datadir_of "$1")"
    check_clean_start "$1"
    assert_eq "$SUM" "$(redo_backup_checksum "$1")" "$1: CHECKSUM TABLE of the restored server"
    server_stop "$1"
}

n=0
for mode in copy-back move-back; do
    for action in term kill; do
        n=$((n + 1))
        name=r$n
        what="--$mode, $action"
        C=$T/bk.$name
        cp -a "$B" "$C" || fail "copying the backup failed"
        write_cnf "$name" "$T/$name/data"
        D=$(datadir_of "$name")
        cnf=$(cnf_of "$name")
        XB_FAULT=restore-file-copied:$action@5 xb_run --defaults-file="$cnf" --"$mode" --target-dir="$C" --parallel=1
        if [[ $action == kill ]]; then
            assert_eq 137 "$XB_RC" "$what: killed"
        else
            assert_error INTERRUPTED "$XB_RC" "$XB_ERR" "$what"
            assert_contains "$XB_ERR" "--$mode stopped: [0-9]+ of [0-9]+ files" "$what: what was restored"
        fi
        assert_not_contains "$XB_ERR" 'completed OK!' "$what: no completed OK!"
        [[ -e $D/ib_logfile0 ]] && fail "$what: the stopped restore put ib_logfile0 into the datadir"
        if [[ $mode == move-back ]]; then
            in_b=$(find "$C" -type f | wc -l)
            in_d=$(find "$D" -type f ! -name '*.xbrestore' | wc -l)
            # xtrabackup_checkpoints, xtrabackup_info, backup-my.cnf... stay in the backup
            assert_eq "$NFILES" "$((in_b + in_d))" "$what: every file in exactly one place"
            if [[ $action == term ]]; then
                assert_contains "$XB_ERR" 'every file is whole either in the datadir or still in' "$what: the hint"
            fi
            xb_run --defaults-file="$cnf" --move-back --target-dir="$C" --force-non-empty-directories
            assert_ok "$XB_RC" "$XB_ERR" "$what: rerun with --force-non-empty-directories"
        elif [[ $action == term ]]; then
            left=$(find "$D" -mindepth 1 2>/dev/null | head -n 3)
            [[ -z $left ]] || fail "$what: files left in the datadir: $left"
            assert_contains "$XB_ERR" 'removed again' "$what: the log says the copied files were removed"
            xb_run --defaults-file="$cnf" --copy-back --target-dir="$C"
            assert_ok "$XB_RC" "$XB_ERR" "$what: rerun"
        else
            in_d=$(find "$D" -type f | wc -l)
            (( in_d >= 4 )) || fail "$what: only $in_d files in the datadir after the kill"
            # the server refuses the datadir the kill left
            u=$(_srv_user)
            [[ $u != "$(id -un)" ]] && chown -R "$u" "$T/$name"
            timeout 60 "$MARIADBD" --no-defaults --datadir="$D" --socket="$T/$name/probe.sock" --skip-networking \
                --user="$u" --log-error="$T/$name/probe.err" > /dev/null 2>&1
            rc=$?
            (( rc != 0 && rc != 124 )) || fail "$what: a server started on the datadir the kill left (exit $rc)"
            assert_contains "$T/$name/probe.err" 'ib_logfile0 was not found' "$what: the server refuses it for want of the redo log"
            xb_run --defaults-file="$cnf" --copy-back --target-dir="$C"
            assert_error TARGET "$XB_RC" "$XB_ERR" "$what: rerun into the datadir the kill left"
            assert_contains "$XB_ERR" 'is not empty' "$what: rerun: the error"
            assert_contains "$XB_ERR" 'HINT: restore into an empty directory' "$what: rerun: what to do"
            rm -rf "$D"
            xb_run --defaults-file="$cnf" --copy-back --target-dir="$C"
            assert_ok "$XB_RC" "$XB_ERR" "$what: rerun into an emptied datadir"
        fi
        restored_ok "$name"
        rm -rf "$C"
        log "case ok: $what"
    done
done
