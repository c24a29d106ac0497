#!/usr/bin/env bash
# backup_layout.sh - a server whose InnoDB files are spread out: the system
# tablespace in two files (ibdata1, ibdata2) under innodb_data_home_dir, two undo
# tablespaces under innodb_undo_directory, the redo log under
# innodb_log_group_home_dir, all outside the datadir. The backup finds every file
# through the server's variables, puts them at the top of the backup as mariabackup
# does (so backup-my.cnf's layout works), copies ibdata2 with page numbers
# continuing after ibdata1, and the restored server's data equals the source's
# while a write load ran during the backup. Also connects over TCP.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

mkdir -p "$T/sys" "$T/undo" "$T/redo"
LAYOUT=(--innodb-data-home-dir="$T/sys" --innodb-data-file-path='ibdata1:12M;ibdata2:12M:autoextend'
        --innodb-undo-directory="$T/undo" --innodb-undo-tablespaces=2 --innodb-log-group-home-dir="$T/redo")
# mariadb-install-db needs the same layout options
SERVER_INSTALL_OPTS="${LAYOUT[*]}" server_start src "${LAYOUT[@]}"
[[ -f $T/sys/ibdata2 && -f $T/undo/undo002 && -f $T/redo/ib_logfile0 ]] || fail "the server did not use the spread-out layout"
build_xb_load || fail "cannot build xb_load"
xb_load src --accounts=1000 setup || fail "xb_load setup"
sql src "CREATE TABLE bank.bulk (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO bank.bulk SELECT seq, REPEAT(MD5(seq), 7) FROM bank.seq_1_to_100000" || fail "bulk data"

STOP=$T/stop
xb_load src --accounts=1000 --threads=2 --seconds=60 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LP=$!
bg_track "$LP"
sleep 1
# TCP instead of the socket; the option file still gives user and password
xb_run --defaults-file="$(cnf_of src)" --backup --target-dir="$T/b" --protocol=tcp --host=127.0.0.1 --port="$(port_of src)"
touch "$STOP"; wait "$LP"
assert_ok "$XB_RC" "$XB_ERR" "backup of a spread-out layout over TCP"
for f in ibdata1 ibdata2 undo001 undo002 ib_logfile0; do assert_file "$T/b/$f"; done
assert_contains "$T/b/backup-my.cnf" '^innodb_data_file_path=ibdata1:12M;ibdata2:12M:autoextend$' "backup-my.cnf data file path"
assert_contains "$T/b/backup-my.cnf" '^innodb_undo_tablespaces=2$' "backup-my.cnf undo tablespaces"
cmp -s "$T/sys/ibdata2" "$T/b/ibdata2" || log "ibdata2 changed during the backup (fine: redo covers it)"

restore_backup "$T/b" dst --innodb-data-file-path='ibdata1:12M;ibdata2:12M:autoextend' --innodb-undo-tablespaces=2
xb_load dst --accounts=1000 check || fail "restored bank data inconsistent"
assert_eq "$(sql src "CHECKSUM TABLE bank.bulk EXTENDED" | cut -f2)" "$(sql dst "CHECKSUM TABLE bank.bulk EXTENDED" | cut -f2)" "bank.bulk"
