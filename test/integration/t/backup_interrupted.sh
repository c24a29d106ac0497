#!/usr/bin/env bash
# backup_interrupted.sh - a backup stopped by SIGINT or SIGTERM (a DBA's Ctrl-C, a
# cron timeout) ends quickly with the INTERRUPTED exit code, says that the target
# is incomplete, never writes xtrabackup_checkpoints, and releases its BACKUP STAGE
# lock: a second backup right after it succeeds. The copy is slowed with
# --throttle so the signal lands while datafiles are being copied. A SIGINT the
# parent set to be ignored stays ignored (a script's "xtrabackup &").
# mariabackup has no such contract (it dies on the signal): our tool only.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the interruption contract is our tool's"

server_start src
sql src "CREATE DATABASE i; CREATE TABLE i.t (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO i.t SELECT seq, REPEAT(MD5(seq), 7) FROM i.seq_1_to_100000" || fail "sample data"

for sig in INT TERM; do
    xb_backup_bg src "$T/b-$sig" --throttle=2
    wait_for 30 grep -q "Copying" "$XB_ERR" || { xb_wait; fail "the backup never started copying"; }
    start=$(date +%s)
    kill -s "$sig" "$XB_PID"
    xb_wait
    secs=$(( $(date +%s) - start ))
    assert_error INTERRUPTED "$XB_RC" "$XB_ERR" "SIG$sig"
    assert_contains "$XB_ERR" "interrupted by signal" "SIG$sig: the message"
    assert_contains "$XB_ERR" "HINT: .*incomplete backup" "SIG$sig: the hint"
    [[ -e $T/b-$sig/xtrabackup_checkpoints ]] && fail "an interrupted backup wrote xtrabackup_checkpoints"
    (( secs <= 15 )) || fail "SIG$sig took ${secs}s to stop the backup"
    log "case ok: SIG$sig stopped the backup in ${secs}s"
done
xb_backup src "$T/b-after"
assert_ok "$XB_RC" "$XB_ERR" "a backup after the interrupted ones"

# A script that runs the backup in the background with SIGINT ignored (as a shell
# does for "xtrabackup &" without job control): Ctrl-C on the script must not stop it.
XB_RUN=$((XB_RUN + 1)); XB_OUT=$T/xb.$XB_RUN.out; XB_ERR=$T/xb.$XB_RUN.err
env --ignore-signal=INT "$XB" --defaults-file="$(cnf_of src)" --backup --target-dir="$T/b-ignored" --throttle=20 \
    > "$XB_OUT" 2> "$XB_ERR" < /dev/null &
XB_PID=$!
bg_track "$XB_PID"
wait_for 30 grep -q "Copying" "$XB_ERR" || { xb_wait; fail "the backup with SIGINT ignored never started copying"; }
kill -s INT "$XB_PID"
xb_wait
assert_ok "$XB_RC" "$XB_ERR" "a backup whose parent ignores SIGINT, sent SIGINT"
assert_file "$T/b-ignored/xtrabackup_checkpoints"
log "case ok: SIGINT ignored by the parent stays ignored"
