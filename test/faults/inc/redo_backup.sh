# redo_backup.sh - sourced by the prepare and restore fault scenarios, after
# test/integration/inc/common.sh: a server with a table whose pages the redo
# copy of a backup rewrites, and a backup of it whose prepare has several
# batches to apply.
#
# redo_backup_make NAME DIR - starts server NAME (a 256 MiB redo log, so
# nothing is overwritten while the backup is stopped), fills e.bulk (about
# 16 MiB: 60000 rows) and e.small, restarts it, then backs it up into DIR with the tool
# under test stopped at backup-datafiles-done (XB_FAULT=...:stop) while
# every row of e.bulk is updated twice: every page of the table is then in
# the backup at its old version and the redo copy holds some 40 MiB of
# records for it. Sets REDO_BYTES. Fails the test on any error.
# redo_backup_checksum NAME - CHECKSUM TABLE of the tables it made.

redo_backup_make() {
    local name=$1 dir=$2
    server_start "$name" --innodb_log_file_size=256M --innodb_buffer_pool_size=128M
    sql "$name" "CREATE DATABASE e;
        CREATE TABLE e.bulk (id INT PRIMARY KEY, v INT NOT NULL, pad VARCHAR(255)) ENGINE=InnoDB;
        INSERT INTO e.bulk SELECT seq, 0, REPEAT(MD5(seq), 7) FROM e.seq_1_to_60000;
        CREATE TABLE e.small (id INT PRIMARY KEY, v INT) ENGINE=InnoDB;
        INSERT INTO e.small SELECT seq, seq FROM e.seq_1_to_100" || fail "creating the tables failed"
    # a restart puts the checkpoint after the inserts: the redo copy then
    # updates pages read from the backup, not pages it builds from nothing
    server_stop "$name"
    server_start_on "$name" "$(datadir_of "$name")" --innodb_log_file_size=256M --innodb_buffer_pool_size=128M
    XB_FAULT=backup-datafiles-done:stop xb_backup_bg "$name" "$dir"
    wait_for 120 grep -q 'fault point backup-datafiles-done reached' "$XB_ERR" \
        || fail "the backup did not reach backup-datafiles-done: $(tail -n 3 "$XB_ERR")"
    sql "$name" "UPDATE e.bulk SET v = v + 1, pad = REPEAT(MD5(id + 1), 7);
        UPDATE e.bulk SET v = v + 1, pad = REPEAT(MD5(id + 2), 7);
        UPDATE e.small SET v = v + 1" || fail "updating the tables failed"
    kill -CONT "$XB_PID"
    xb_wait_max 180 "the backup"
    assert_ok "$XB_RC" "$XB_ERR" "the backup"
    REDO_BYTES=$(( $(stat -c %s "$dir/ib_logfile0") - 12288 ))
    log "backup $dir: $((REDO_BYTES / 1048576)) MiB of redo"
    (( REDO_BYTES > 16 * 1048576 )) || fail "only $REDO_BYTES bytes of redo in the backup"
}

redo_backup_checksum() {
    sql "$1" "CHECKSUM TABLE e.bulk, e.small"
}
