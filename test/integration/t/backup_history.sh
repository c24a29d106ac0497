#!/usr/bin/env bash
# backup_history.sh - --history[=NAME] records each backup in the server's
# mysql.mariadb_backup_history, mariabackup 10.11's table: created when missing
# with exactly its definition, one row per backup whose every column says what
# the backup's xtrabackup_info says (the same uuid, name, command line, times,
# binlog position, LSNs; format mbstream and compressed Y for a compressed
# stream; binlog_pos NULL without binary log). A backup user without CREATE and
# INSERT on the table is refused before anything is copied, with the GRANT to
# run; with exactly those privileges the backup is recorded. A table of an
# older mariabackup (format ENUM(..., 'xbstream')) is brought up to date. The
# backup taken while the table was being created (we create it before the
# copy, to refuse early) restores with it.
# (XB=mariabackup: mariabackup creates the table at the end and fails after the
# backup is complete, so the refusal-before-copy checks are ours only.)
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

server_start src
sql src "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v VARCHAR(20)) ENGINE=InnoDB;
         INSERT INTO d.t VALUES (1, 'a'), (2, 'b'); CREATE TABLE d.m (id INT) ENGINE=MyISAM;
         INSERT INTO d.m VALUES (7)" || fail "setup"

# info_value DIR KEY - the value of KEY in DIR/xtrabackup_info.
info_value() { sed -n "s/^$2 = //p" "$1/xtrabackup_info"; }

# check_row DIR [WHERE] - the history row of DIR's backup (the row of its uuid,
# or the one row WHERE selects) against its xtrabackup_info.
check_row() {
    local dir=$1 where=${2:-} col want got
    if [[ -z $where ]]; then
        where="uuid = '$(info_value "$dir" uuid)'"
    else
        assert_eq "$(sql src "SELECT uuid FROM mysql.mariadb_backup_history WHERE $where")" \
            "$(info_value "$dir" uuid)" "the uuid of $dir's history row"
    fi
    assert_eq 1 "$(sql src "SELECT COUNT(*) FROM mysql.mariadb_backup_history WHERE $where")" \
        "one history row for $dir"
    for col in name tool_name tool_command tool_version ibbackup_version server_version start_time end_time \
               lock_time binlog_pos innodb_from_lsn innodb_to_lsn partial incremental format; do
        want=$(info_value "$dir" "$col")
        [[ $col == format && $want == xbstream ]] && want=mbstream   # the column's name of the stream format
        got=$(sql src "SELECT IFNULL($col, '') FROM mysql.mariadb_backup_history WHERE $where")
        assert_eq "$want" "$got" "history column $col of $dir"
    done
    want=$(info_value "$dir" compressed); [[ $want == compressed ]] && want=Y
    assert_eq "$want" "$(sql src "SELECT compressed FROM mysql.mariadb_backup_history WHERE $where")" \
        "history column compressed of $dir"
}

# 1. --history=NAME on a server without the table: created with mariabackup's definition.
xb_backup src "$T/b1" --history=nightly
assert_ok "$XB_RC" "$XB_ERR" "backup with --history=nightly"
assert_eq nightly "$(info_value "$T/b1" name)" "xtrabackup_info names the series"
sql src "SHOW CREATE TABLE mysql.mariadb_backup_history" | cut -f2 | sed 's/\\n/\n/g' > "$T/create.txt"
cat > "$T/create.want" <<'EOF'
CREATE TABLE `mariadb_backup_history` (
  `uuid` varchar(40) NOT NULL,
  `name` varchar(255) DEFAULT NULL,
  `tool_name` varchar(255) DEFAULT NULL,
  `tool_command` text DEFAULT NULL,
  `tool_version` varchar(255) DEFAULT NULL,
  `ibbackup_version` varchar(255) DEFAULT NULL,
  `server_version` varchar(255) DEFAULT NULL,
  `start_time` timestamp NULL DEFAULT NULL,
  `end_time` timestamp NULL DEFAULT NULL,
  `lock_time` bigint(20) unsigned DEFAULT NULL,
  `binlog_pos` varchar(128) DEFAULT NULL,
  `innodb_from_lsn` bigint(20) unsigned DEFAULT NULL,
  `innodb_to_lsn` bigint(20) unsigned DEFAULT NULL,
  `partial` enum('Y','N') DEFAULT NULL,
  `incremental` enum('Y','N') DEFAULT NULL,
  `format` enum('file','tar','mbstream') DEFAULT NULL,
  `compressed` enum('Y','N') DEFAULT NULL,
  PRIMARY KEY (`uuid`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb3 COLLATE=utf8mb3_general_ci
EOF
assert_eq "$(cat "$T/create.want")" "$(cat "$T/create.txt")" "SHOW CREATE TABLE mysql.mariadb_backup_history"
check_row "$T/b1"
assert_contains "$T/b1/xtrabackup_info" "^binlog_pos = filename 'mysql-bin\.[0-9]+', position '[0-9]+'" "binlog position recorded"

# 2. --history alone, a compressed stream: name '', format mbstream, compressed Y.
XB_RUN=$((XB_RUN + 1)); XB_ERR=$T/xb.$XB_RUN.err
log "run: $(basename "$XB") --backup --stream=xbstream --compress --history --extra-lsndir"
"$XB" --defaults-file="$(cnf_of src)" --backup --stream=xbstream --compress --history \
    --extra-lsndir="$T/b2" > "$T/b2.xbs" 2> "$XB_ERR" < /dev/null
assert_ok $? "$XB_ERR" "stream backup with --history"
assert_eq "" "$(info_value "$T/b2" name)" "no series name"
# (mariabackup's --extra-lsndir copy has another uuid and lock_time than its row)
[[ $XB_KIND == xtrabackup ]] && check_row "$T/b2" "name = ''"
assert_eq 2 "$(sql src "SELECT COUNT(*) FROM mysql.mariadb_backup_history")" "two rows after two backups"
assert_eq "mbstream Y" "$(sql src "SELECT CONCAT(format, ' ', compressed) FROM mysql.mariadb_backup_history
    WHERE name = ''")" "the stream backup's format and compression"

# 3. A backup user without CREATE/INSERT on the table; then with exactly those.
PW=hist-$RANDOM-pw
sql src "CREATE USER bk@localhost; GRANT RELOAD, PROCESS, BINLOG MONITOR ON *.* TO bk@localhost" || fail "user"
printf "SET PASSWORD FOR bk@localhost = PASSWORD('%s')" "$PW" | mariadb --defaults-file="$(cnf_of src)" \
    || fail "password"
BCNF=$T/bk.cnf
printf '[client]\nuser=bk\npassword=%s\nsocket=%s\n' "$PW" "$(sock_of src)" > "$BCNF"
chmod 600 "$BCNF"
xb_run --defaults-file="$BCNF" --backup --target-dir="$T/b3" --history=nightly
if [[ $XB_KIND == xtrabackup ]]; then
    assert_error PRIVILEGE "$XB_RC" "$XB_ERR" "--history without the privileges"
    assert_contains "$XB_ERR" "may not create or write mysql\.mariadb_backup_history" "the error names the table"
    assert_contains "$XB_ERR" "HINT: GRANT CREATE, INSERT ON mysql\.mariadb_backup_history TO bk@localhost" \
        "the hint gives the GRANT"
    [[ -e $T/b3/xtrabackup_checkpoints ]] && fail "refused --history still copied a backup"
else
    assert_failed "$XB_RC" "$XB_ERR" "--history without the privileges"
fi
assert_eq 2 "$(sql src "SELECT COUNT(*) FROM mysql.mariadb_backup_history")" "no row from the refused backup"
grep -qF -- "$PW" "$XB_ERR" && fail "the password appears in the log"
sql src "GRANT CREATE, INSERT ON mysql.mariadb_backup_history TO bk@localhost" || fail "grant"
if [[ $XB_KIND == xtrabackup ]]; then   # mariabackup also runs an ALTER TABLE every time
    rm -rf "$T/b3"
    xb_run --defaults-file="$BCNF" --backup --target-dir="$T/b3" --history=nightly
    assert_ok "$XB_RC" "$XB_ERR" "--history with CREATE and INSERT on the table"
    check_row "$T/b3"
    grep -qF -- "$PW" "$T/b3/xtrabackup_info" && fail "the password appears in xtrabackup_info"
    assert_eq 0 "$(sql src "SELECT COUNT(*) FROM mysql.mariadb_backup_history WHERE tool_command LIKE '%$PW%'")" \
        "no password in the history table"
fi

# 4. The table of an older mariabackup: its format column knows xbstream, not mbstream.
sql src "DROP TABLE mysql.mariadb_backup_history"
sed -e "1s/^CREATE TABLE \`mariadb_backup_history\`/CREATE TABLE mysql.mariadb_backup_history/" \
    -e "s/enum('file','tar','mbstream')/enum('file','tar','xbstream')/" "$T/create.want" > "$T/old.sql"
mariadb --defaults-file="$(cnf_of src)" < "$T/old.sql" || fail "creating an old-style table"
xb_backup src "$T/b4" --history=upgrade
assert_ok "$XB_RC" "$XB_ERR" "backup into an old-style history table"
assert_eq "enum('file','tar','mbstream')" "$(sql src "SELECT COLUMN_TYPE FROM information_schema.COLUMNS
    WHERE TABLE_SCHEMA = 'mysql' AND TABLE_NAME = 'mariadb_backup_history' AND COLUMN_NAME = 'format'")" \
    "the format column brought up to date"
check_row "$T/b4"

# 5. Without binary logging: binlog_pos is NULL, xtrabackup_info's empty.
server_start nolog --skip-log-bin
xb_backup nolog "$T/b5" --history
assert_ok "$XB_RC" "$XB_ERR" "--history without binary log"
assert_eq "NULL" "$(sql nolog "SELECT IFNULL(binlog_pos, 'NULL') FROM mysql.mariadb_backup_history")" \
    "binlog_pos without binary log"
assert_eq "" "$(info_value "$T/b5" binlog_pos)" "xtrabackup_info's binlog_pos without binary log"

# 6. The first backup, taken while the table was being created, restores with it.
restore_backup "$T/b1" dst
assert_eq "$(checksum_all src)" "$(checksum_all dst)" "restored data"
if [[ $XB_KIND == xtrabackup ]]; then   # mariabackup creates the table after the copy
    assert_eq 0 "$(sql dst "SELECT COUNT(*) FROM mysql.mariadb_backup_history")" \
        "the restored table (empty in the backup: the row is written after it)"
fi
log "ok"
