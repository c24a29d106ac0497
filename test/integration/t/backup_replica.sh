#!/usr/bin/env bash
# backup_replica.sh - a backup of a replica with --slave-info --safe-slave-backup:
# xtrabackup_slave_info holds the replica's position as SQL (GTID form, since the
# replica uses master_use_gtid=slave_pos) equal to the replica's gtid_slave_pos at
# the backup point; --safe-slave-backup stops the SQL thread for the lock phase
# and starts it again afterwards; xtrabackup_binlog_info is the replica's own
# binlog position. Replication credentials go through stdin, never argv. Then, with
# gtid_slave_pos emptied, the file gives the binlog file and position instead.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

server_start primary
server_start replica --log-slave-updates
RPW="repl-$RANDOM$RANDOM"
mariadb --defaults-file="$(cnf_of primary)" <<SQL || fail "replication user"
CREATE USER 'repl'@'127.0.0.1' IDENTIFIED BY '$RPW';
GRANT REPLICATION SLAVE ON *.* TO 'repl'@'127.0.0.1';
CREATE DATABASE r;
CREATE TABLE r.t (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
INSERT INTO r.t SELECT seq, MD5(seq) FROM r.seq_1_to_5000;
SQL
mariadb --defaults-file="$(cnf_of replica)" <<SQL || fail "CHANGE MASTER"
CHANGE MASTER TO MASTER_HOST='127.0.0.1', MASTER_PORT=$(port_of primary), MASTER_USER='repl',
  MASTER_PASSWORD='$RPW', MASTER_USE_GTID=slave_pos;
START SLAVE;
SQL
want=$(sql primary "SELECT @@gtid_binlog_pos")
caught_up() { [[ $(sql replica "SELECT @@gtid_slave_pos") == "$want" ]]; }
wait_for 60 caught_up ||
    fail "the replica did not catch up: $(sql replica "SELECT @@gtid_slave_pos")"
log "replica caught up at $want"

xb_backup replica "$T/b" --slave-info --safe-slave-backup
assert_ok "$XB_RC" "$XB_ERR" "backup of the replica"
assert_file "$T/b/xtrabackup_slave_info"
log "xtrabackup_slave_info: $(cat "$T/b/xtrabackup_slave_info")"
assert_contains "$T/b/xtrabackup_slave_info" "^SET GLOBAL gtid_slave_pos = '$want';\$" "gtid_slave_pos in xtrabackup_slave_info"
assert_contains "$T/b/xtrabackup_slave_info" "^CHANGE MASTER TO master_use_gtid = slave_pos;\$" "CHANGE MASTER in xtrabackup_slave_info"
grep -qF "$RPW" "$T/b/"* "$XB_ERR" && fail "the replication password leaked into the backup or the log"
sql_running() { [[ $(sql replica "SHOW GLOBAL STATUS LIKE 'Slave_running'" | cut -f2) == ON ]]; }
wait_for 10 sql_running || fail "the replica threads do not run again after --safe-slave-backup"
read -r _ _ rgtid < "$T/b/xtrabackup_binlog_info"
assert_eq "$want" "$rgtid" "the replica's own binlog GTID in xtrabackup_binlog_info"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$XB_ERR" "safe-slave-backup: stopping the replica SQL thread" "the SQL thread was stopped"
fi
restore_backup "$T/b" restored
assert_eq "$(checksum_all replica)" "$(checksum_all restored)" "restored replica data"
assert_eq "SET GLOBAL gtid_slave_pos = '$want';
CHANGE MASTER TO master_use_gtid = slave_pos;" "$(cat "$T/b/xtrabackup_slave_info")" "the whole xtrabackup_slave_info"

# A replica by GTID whose gtid_slave_pos is empty has no GTID to start from:
# the file gives the primary's binlog file and position instead, no SET line
# (mariabackup 10.11's rule, suite/mariabackup rpl_slave_info).
sql replica "STOP SLAVE; SET GLOBAL gtid_slave_pos=''" || fail "clearing gtid_slave_pos"
status() { mariadb --defaults-file="$(cnf_of replica)" -B -e "SHOW SLAVE STATUS" |
           awk -F'\t' -v want="$1" 'NR == 1 { for (i = 1; i <= NF; i++) col[$i] = i; next } { print $col[want] }'; }
file=$(status Relay_Master_Log_File) pos=$(status Exec_Master_Log_Pos)
[[ -n $file && $pos -gt 0 ]] || fail "SHOW SLAVE STATUS gives no position: '$file' '$pos'"
xb_backup replica "$T/b2" --slave-info
assert_ok "$XB_RC" "$XB_ERR" "backup of the replica with an empty gtid_slave_pos"
assert_eq "CHANGE MASTER TO MASTER_LOG_FILE='$file', MASTER_LOG_POS=$pos;" "$(cat "$T/b2/xtrabackup_slave_info")" \
    "xtrabackup_slave_info without a GTID position"
assert_contains "$XB_ERR" "MySQL slave binlog position: master '' filename '$file' position '$pos'$" \
    "the position in the log"
