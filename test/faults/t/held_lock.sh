#!/usr/bin/env bash
# held_lock.sh - a backup held up by a lock is bounded and can be stopped.
#  a. A session holds LOCK TABLES t WRITE in an open transaction; the backup
#     waits at BACKUP STAGE START with its default limit. While it waits, the log
#     names the holder and says that a DDL statement queues behind the backup;
#     once the backup is stopped, that DDL goes through. SIGTERM (a cron timeout) ends it within a few seconds
#     with INTERRUPTED (the statement is stopped with KILL QUERY from a second
#     connection), no completion marker, no BACKUP STAGE statement left running.
#  b. The same with SIGINT, and with kill -9 while waiting: the server drops the
#     dead client's statement (no BACKUP STAGE left running after a short while).
#  c. The same holder with --lock-wait-timeout=2: LOCK_TIMEOUT within a few
#     seconds, naming the option.
#  d. A long write to a MyISAM table holds BLOCK_DDL; SIGTERM during that wait
#     stops the backup the same way.
#  e. Once the holders are gone, a backup succeeds: prepared and restored, its
#     data equals the source.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the interruption contract is our tool's"

server_start src
sql src "CREATE DATABASE test; CREATE TABLE test.t (i INT PRIMARY KEY, pad VARCHAR(200)) ENGINE=InnoDB;
         INSERT INTO test.t SELECT seq, REPEAT('x', 200) FROM test.seq_1_to_20000;
         CREATE TABLE test.m (i INT) ENGINE=MyISAM" || fail "creating the tables failed"

stage_statements() {
    sql src "SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'BACKUP STAGE%'"
}

no_marker() {
    [[ ! -e $1/xtrabackup_checkpoints ]] || fail "$2: $1 has xtrabackup_checkpoints after a failed backup"
}

ddl_works() {
    sql src "SET SESSION lock_wait_timeout = 10; CREATE TABLE test.ddl_probe (i INT); DROP TABLE test.ddl_probe" \
        || fail "$1: DDL from another connection fails after the backup ended"
}

# stop_while_waiting WHAT SIG TARGET [options] - start a backup, wait until it logs
# that it waits for the lock, send SIG, check how it ends.
stop_while_waiting() {
    local what=$1 sig=$2 target=$3; shift 3
    xb_backup_bg src "$target" "$@"
    wait_for 30 grep -q "waiting for\|Waiting for\|held up by" "$XB_ERR" \
        || { kill -9 "$XB_PID"; xb_wait; fail "$what: the backup never said what it waits for"; }
    local t0=$SECONDS
    kill -s "$sig" "$XB_PID"
    xb_wait_max 30 "$what"
    local took=$((SECONDS - t0))
    if [[ $sig == KILL ]]; then
        assert_eq 137 "$XB_RC" "$what: killed by SIGKILL"
        # the server notices the dead client and drops its statement
        wait_for 20 bash -c "[[ \$(mariadb --defaults-file='$src_CNF' -N -B -e \"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'BACKUP STAGE%'\") == 0 ]]" \
            || fail "$what: a BACKUP STAGE statement of the killed backup is still running 20 s later"
    else
        assert_error INTERRUPTED "$XB_RC" "$XB_ERR" "$what"
        assert_contains "$XB_ERR" "interrupted by signal" "$what: the message"
        assert_contains "$XB_ERR" "HINT: .*incomplete backup" "$what: the hint"
        (( took <= 5 )) || fail "$what: the backup took ${took}s to stop after SIG$sig"
        assert_eq 0 "$(stage_statements)" "$what: no BACKUP STAGE statement left running"
    fi
    no_marker "$target" "$what"
    log "case ok: $what (stopped ${took}s after SIG$sig)"
}

# ---------------------------------------------------------------- a, b, c: LOCK TABLES holder
lock_holder src a "BEGIN;" "LOCK TABLES test.t WRITE;" "SELECT 'locked';"
wait_for 10 grep -q locked "$T/a.out" || fail "the holder did not take its lock"
hid=$(sql src "SELECT ID FROM information_schema.PROCESSLIST WHERE ID <> CONNECTION_ID() AND USER = 'root'
               AND COMMAND = 'Sleep' ORDER BY TIME DESC LIMIT 1")

# a DDL statement sent while the backup waits queues behind it: the log says so,
# and once the backup is stopped the DDL goes through
( sleep 1; sql src "SET SESSION lock_wait_timeout = 60; CREATE TABLE test.queued (i INT)" > "$T/queued.out" 2>&1
  echo "rc=$?" >> "$T/queued.out" ) &
DDL_PID=$!
bg_track "$DDL_PID"
stop_while_waiting "a. LOCK TABLES holder, SIGTERM" TERM "$T/b-term"
assert_contains "$XB_ERR" "Waiting for BACKUP STAGE START for [0-9]+ s \(gives up after 600 s, --lock-wait-timeout\): connection $hid" \
    "a. the log names the holder"
assert_contains "$XB_ERR" "1 connection\(s\) wait behind it" "a. the log says a connection queues behind the backup"
t0=$SECONDS
wait "$DDL_PID"
assert_contains "$T/queued.out" "^rc=0$" "a. the queued DDL succeeds once the backup is stopped"
(( SECONDS - t0 <= 5 )) || fail "a. the queued DDL took $((SECONDS - t0))s more after the backup stopped"
sql src "DROP TABLE test.queued"
stop_while_waiting "b. LOCK TABLES holder, SIGINT" INT "$T/b-int"
stop_while_waiting "b. LOCK TABLES holder, kill -9" KILL "$T/b-kill"

what="c. LOCK TABLES holder, --lock-wait-timeout=2"
t0=$SECONDS
xb_backup src "$T/b-timeout" --lock-wait-timeout=2
took=$((SECONDS - t0))
assert_error LOCK_TIMEOUT "$XB_RC" "$XB_ERR" "$what"
assert_contains "$XB_ERR" "not granted within 2 s \(--lock-wait-timeout=2\): held up by connection $hid" "$what: the message"
(( took <= 15 )) || fail "$what: took ${took}s"
no_marker "$T/b-timeout" "$what"
log "case ok: $what (${took}s)"

: > "$T/a.release"
wait "$HOLDER_PID" || fail "the lock session failed: $(cat "$T/a.out")"
grep -q "holder a alive" "$T/a.out" || fail "the lock session does not work after the backups"
ddl_works "a-c"

# ---------------------------------------------------------------- d: MyISAM write holds BLOCK_DDL
(sql src "INSERT INTO test.m SELECT SLEEP(60)" > "$T/myisam.out" 2>&1) &
MY_PID=$!
bg_track "$MY_PID"
wait_for 10 bash -c "[[ \$(mariadb --defaults-file='$src_CNF' -N -B -e \"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO test.m%'\") == 1 ]]" \
    || fail "d. the INSERT did not start"
stop_while_waiting "d. MyISAM write holding BLOCK_DDL, SIGTERM" TERM "$T/b-ddl"
sql src "KILL QUERY $(sql src "SELECT ID FROM information_schema.PROCESSLIST WHERE INFO LIKE 'INSERT INTO test.m%'")" || true
wait "$MY_PID" 2>/dev/null
ddl_works "d"

# ---------------------------------------------------------------- e: a backup after all that
xb_backup src "$T/b-ok"
assert_ok "$XB_RC" "$XB_ERR" "e. a backup once the holders are gone"
want=$(checksum_all src)
put_init
prep_run "$PUT" "$T/b-ok"
assert_ok "$PREP_RC" "$PREP_ERR" "e. prepare"
restore_backup "$T/b-ok" dst
assert_eq "$want" "$(checksum_all dst)" "e. restored data equals the source"
log "case ok: e. backup, prepare, restore after the lock cases"
