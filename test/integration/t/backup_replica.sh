#!/usr/bin/env bash
# backup_replica.sh - a backup of a replica with --slave-info --safe-slave-backup:
# xtrabackup_slave_info holds the replica's position as SQL (GTID form, since the
# replica uses master_use_gtid=slave_pos) equal to the replica's gtid_slave_pos at
# the backup point; --safe-slave-backup stops the SQL thread for the lock phase
# and starts it again afterwards; xtrabackup_binlog_info is the replica's own
# binlog position. Replication credentials go through stdin, never argv.
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
