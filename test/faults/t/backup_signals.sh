#!/usr/bin/env bash
# backup_signals.sh - kill -9 and SIGTERM at every stage of a backup.
#
# A server with InnoDB and MyISAM tables under a light write load; the backup is
# stopped at each backup fault point (doc/faults.md §1) twice: by kill -9 (the
# process gone, nothing cleaned up) and by SIGTERM arriving right there. Each
# time: kill -9 ends the process (status 137) and SIGTERM ends it with the
# INTERRUPTED error, a message saying so and the incomplete-backup hint; the
# target holds no xtrabackup_checkpoints (nothing looks complete); --prepare and
# --copy-back refuse that directory; the server is left with no BACKUP STAGE
# statement and DDL works. A rerun into a killed backup's directory is refused
# until it is removed. Then a backup without faults succeeds and, prepared and
# restored, holds every row and passes CHECK TABLE.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the fault points are our tool's"

server_start src
sql src "CREATE DATABASE s;
         CREATE TABLE s.t (id INT PRIMARY KEY, v INT, pad VARCHAR(200)) ENGINE=InnoDB;
         INSERT INTO s.t SELECT seq, 0, REPEAT(MD5(seq), 6) FROM s.seq_1_to_50000;
         CREATE TABLE s.m (id INT PRIMARY KEY, v INT) ENGINE=MyISAM;
         INSERT INTO s.m SELECT seq, seq FROM s.seq_1_to_1000" || fail "sample data"

# a light write load during every run
( while [[ -d $T ]]; do
      mariadb --defaults-file="$src_CNF" -e "UPDATE s.t SET v = v + 1 WHERE id = FLOOR(1 + RAND() * 50000)" 2>/dev/null
      sleep 0.05
  done ) &
bg_track $!

points=(backup-connected backup-redo-started backup-copy-chunk@3 backup-datafiles-done
        backup-block-ddl backup-block-commit backup-stage-end backup-before-marker)
n=0
for p in "${points[@]}"; do
    point=${p%@*} at=""
    [[ $p == *@* ]] && at="@${p#*@}"
    for action in kill term; do
        n=$((n + 1))
        what="$action at $point$at"
        B=$T/b$n
        export XB_FAULT="$point:$action$at"
        xb_backup src "$B"
        unset XB_FAULT
        if [[ $action == kill ]]; then
            assert_eq 137 "$XB_RC" "$what: the process was killed"
        else
            assert_error INTERRUPTED "$XB_RC" "$XB_ERR" "$what"
            assert_contains "$XB_ERR" "interrupted by signal 15" "$what: the message"
            assert_contains "$XB_ERR" "HINT: .*incomplete backup" "$what: the hint"
            assert_not_contains "$XB_ERR" "completed OK" "$what: no success line"
        fi
        [[ ! -e $B/xtrabackup_checkpoints ]] || fail "$what: $B has xtrabackup_checkpoints"
        if [[ -d $B ]]; then
            "$XB" --prepare --target-dir="$B" > "$T/p$n.log" 2>&1 && fail "$what: --prepare accepted the incomplete backup"
            assert_contains "$T/p$n.log" "Error: \[" "$what: --prepare refuses with an error line"
            mkdir -p "$T/dd$n"
            "$XB" --copy-back --target-dir="$B" --datadir="$T/dd$n" > "$T/c$n.log" 2>&1 \
                && fail "$what: --copy-back accepted the incomplete backup"
            [[ -z $(ls -A "$T/dd$n") ]] || fail "$what: --copy-back of an incomplete backup put files into the datadir"
        fi
        # the dead client's statements are dropped by the server; ours are ended by us
        wait_for 20 bash -c "[[ \$(mariadb --defaults-file='$src_CNF' -N -B -e \"SELECT COUNT(*) FROM information_schema.PROCESSLIST WHERE INFO LIKE 'BACKUP STAGE%'\") == 0 ]]" \
            || fail "$what: a BACKUP STAGE statement is still running"
        sql src "SET SESSION lock_wait_timeout = 10; CREATE TABLE s.probe (i INT); DROP TABLE s.probe" \
            || fail "$what: DDL fails after the backup ended"
        log "case ok: $what (exit status $XB_RC)"
    done
done

# a rerun into the directory a killed backup left is refused, naming it; once
# it is removed, the rerun succeeds there
xb_backup src "$T/b5"
assert_error TARGET "$XB_RC" "$XB_ERR" "a rerun into the directory of a killed backup"
assert_contains "$XB_ERR" "Error: \[[0-9]+\] .*$T/b5" "the refusal names the directory"
rm -rf "$T/b5"
xb_backup src "$T/b5"
assert_ok "$XB_RC" "$XB_ERR" "a rerun into the emptied directory"
log "case ok: a rerun into the killed backup's directory is refused until it is removed"

xb_backup src "$T/b-ok"
assert_ok "$XB_RC" "$XB_ERR" "a backup after the faults"
sql src "FLUSH TABLES" >/dev/null
kill %1 2>/dev/null
restore_backup "$T/b-ok" dst
# the load ran during the backup: compare the restored copy with itself through
# invariants (row counts) and check every table
assert_eq 50000 "$(sql dst "SELECT COUNT(*) FROM s.t")" "restored s.t rows"
assert_eq 500500 "$(sql dst "SELECT SUM(v) FROM s.m")" "restored s.m"
check_all_tables dst
log "case ok: a backup after $n faults restores"
