#!/usr/bin/env bash
# server_killed.sh - the server killed -9 while a backup runs. During the
# datafile copy (slowed with --throttle so it lasts), the backup must notice
# within a few seconds, not when the current file is done: the copy threads
# stop between chunks once the main thread's half-second check finds the
# server gone. Then at the steps after the copy (the tool stopped at a fault
# point, the server killed, the tool resumed): before BLOCK_DDL, under
# BLOCK_DDL, under BLOCK_COMMIT. Every time: exit status 1, the CONNECT
# error saying "the server went away", a hint saying what to do, no
# xtrabackup_checkpoints; the server restarted, a rerun succeeds.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "fault points and the liveness contract are our tool's"

server_start src
DD=$(datadir_of src)
# a few hundred MiB in several tables: the copy at 20 MiB/s lasts about 10 s
sql src "CREATE DATABASE k" || fail "database"
for i in 1 2 3 4; do
    sql src "CREATE TABLE k.t$i (id INT PRIMARY KEY, pad VARCHAR(1000)) ENGINE=InnoDB;
             INSERT INTO k.t$i SELECT seq, REPEAT(MD5(seq), 30) FROM k.seq_1_to_50000" || fail "sample data t$i"
done
log "data: $(du -sm "$DD/k" | cut -f1) MiB"

check_gone() { # WHAT - the backup's error says the server went away, nothing looks complete
    assert_error CONNECT "$XB_RC" "$XB_ERR" "$1"
    assert_contains "$XB_ERR" "Error: \[004\] the server went away: " "$1: the message"
    assert_contains "$XB_ERR" "HINT: .*once the server is up, run the backup again" "$1: the hint"
    [[ -e $2/xtrabackup_checkpoints ]] && fail "$1: xtrabackup_checkpoints written"
    assert_not_contains "$XB_ERR" "completed OK" "$1: no success line"
}

restart() {
    server_start_on src "$DD"
}

# 1. killed during the datafile copy
xb_backup_bg src "$T/b-copy" --throttle=20 --parallel=2
wait_for 60 grep -q "Copying .*k/t" "$XB_ERR" || { xb_wait; fail "the copy never started"; }
sleep 2
grep -q "Copied the InnoDB files" "$XB_ERR" && fail "the copy ended before the server was killed: more data needed"
start=$(date +%s.%N)
server_kill src
xb_wait
secs=$(echo "$(date +%s.%N) - $start" | bc)
check_gone "killed during the copy" "$T/b-copy"
assert_not_contains "$XB_ERR" "Copied the InnoDB files" "killed during the copy: the copy did not go on"
(( $(echo "$secs <= 10" | bc) )) || fail "the backup took ${secs}s to notice the server was killed (bound 10 s)"
log "case ok: killed during the copy, noticed in ${secs}s"
restart

# 2. killed at the steps after the copy: the tool stopped at a point, the server killed, the tool resumed
for point in backup-datafiles-done backup-block-ddl backup-block-commit; do
    XB_FAULT=$point:stop xb_backup_bg src "$T/b-$point"
    wait_for 120 grep -q "fault point $point reached" "$XB_ERR" || { xb_wait; fail "$point never reached"; }
    server_kill src
    start=$(date +%s.%N)
    kill -CONT "$XB_PID"
    xb_wait
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    check_gone "killed at $point" "$T/b-$point"
    (( $(echo "$secs <= 10" | bc) )) || fail "killed at $point: ${secs}s to notice (bound 10 s)"
    log "case ok: killed at $point, noticed in ${secs}s"
    restart
done

# the server back: a backup succeeds and restores to the same data
xb_backup src "$T/b-after" --parallel=2
assert_ok "$XB_RC" "$XB_ERR" "a backup after the server came back"
assert_file "$T/b-after/xtrabackup_checkpoints"
log "case ok: a rerun succeeds"
