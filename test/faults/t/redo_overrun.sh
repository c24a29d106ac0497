#!/usr/bin/env bash
# redo_overrun.sh - the server overwrites redo log the backup has not copied yet.
# A server with the smallest redo log (innodb_log_file_size=4M), a heavy write
# load (xb_load transfer), and a throttled backup whose redo follower polls the
# log only every 5 s (--log-copy-interval=5000): the server writes more than a
# whole log between two polls. The backup must warn before the log is overwritten
# (the headroom forecast from the server's redo rate), then fail with
# REDO_OVERWRITTEN within a few seconds of the overwrite, during the datafile
# copy and not after it, exit status 1, no xtrabackup_checkpoints. A rerun that
# polls at the default interval keeps up under the same load and succeeds.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the redo headroom forecast is our tool's"
build_xb_load || fail "cannot build xb_load"

server_start src --innodb-log-file-size=4M
LOGSIZE=$(sql src "SELECT @@innodb_log_file_size")
log "innodb_log_file_size=$LOGSIZE"
xb_load src --accounts=2000 setup > /dev/null || fail "xb_load setup failed"
# a table that keeps the throttled copy busy for about 20 s
sql src "CREATE DATABASE f; CREATE TABLE f.t (id INT PRIMARY KEY, pad VARCHAR(1000)) ENGINE=InnoDB;
         INSERT INTO f.t SELECT seq, REPEAT(MD5(seq), 30) FROM f.seq_1_to_60000" || fail "filler table"

STOP=$T/load.stop
xb_load src --accounts=2000 --threads=8 --seconds=300 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
at_exit "touch '$STOP'"
sleep 1
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }

# 1. the follower too slow for the load: warned, then stopped at once
start=$(date +%s)
xb_backup_bg src "$T/b-slow" --throttle=3 --log-copy-interval=5000
xb_wait_max 120 "the backup with a slow redo follower"
secs=$(( $(date +%s) - start ))
assert_error REDO_OVERWRITTEN "$XB_RC" "$XB_ERR" "redo overwritten"
assert_contains "$XB_ERR" "Error: \[012\] redo log was overwritten before it was copied: copied up to LSN [0-9]+, server at LSN [0-9]+" "the error"
assert_contains "$XB_ERR" "HINT: increase innodb_log_file_size" "the hint"
assert_contains "$XB_ERR" "Warning: redo log headroom is [0-9]+%" "the headroom warning"
[[ -e $T/b-slow/xtrabackup_checkpoints ]] && fail "xtrabackup_checkpoints written by a failed backup"
assert_not_contains "$XB_ERR" "Copied the InnoDB files" "the copy stopped at the overwrite, not after it"
wline=$(grep -n "Warning: redo log headroom" "$XB_ERR" | head -n 1 | cut -d: -f1)
eline=$(grep -n "Error: \[012\]" "$XB_ERR" | head -n 1 | cut -d: -f1)
(( wline < eline )) || fail "the headroom warning (line $wline) came after the error (line $eline)"
# the warning's and the error's times: the overwrite is reported within a few seconds
ts() { sed -n "${1}p" "$XB_ERR" | awk '{print $2" "$3}'; }
wt=$(date -d "$(ts "$wline")" +%s); et=$(date -d "$(ts "$eline")" +%s)
log "warning at $(ts "$wline"), error at $(ts "$eline"), backup ran ${secs}s"
(( et - wt <= 10 )) || fail "the error came $((et - wt))s after the warning (bound 10 s)"
# the throttled copy alone needs about 20 s: failing well before means it did not wait for a file
(( secs <= 15 )) || fail "the backup took ${secs}s to fail (bound 15 s)"
log "case ok: warned, then REDO_OVERWRITTEN after ${secs}s"

# 2. the same load, the follower at its default interval: the backup succeeds
xb_backup src "$T/b-ok" --parallel=2
assert_ok "$XB_RC" "$XB_ERR" "a rerun at the default --log-copy-interval under the same load"
assert_file "$T/b-ok/xtrabackup_checkpoints"
touch "$STOP"
wait "$LOAD_PID"
log "case ok: a rerun succeeds"
