#!/usr/bin/env bash
# backup_idle.sh - a full backup of an idle server holding every kind of table the
# tool must handle (InnoDB in each ROW_FORMAT, page_compressed, FULLTEXT, partitioned,
# a DATA DIRECTORY tablespace outside the datadir, names needing filename encoding,
# MyISAM, Aria), taken as a least-privilege backup user whose password lives only in
# an option file. Checks the exit code, the final "completed OK!", the metadata files
# and, after prepare and restore, that every table's checksum equals the source's.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

server_start src
EXT=$T/external
mkdir -p "$EXT"

log "creating sample data"
sql src "
CREATE DATABASE sample;
USE sample;
CREATE TABLE t_redundant  (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
CREATE TABLE t_compact    (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=InnoDB ROW_FORMAT=COMPACT;
CREATE TABLE t_dynamic    (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, KEY(a)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE t_compressed (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE t_pagecomp   (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE t_fulltext   (id INT PRIMARY KEY, a VARCHAR(100), b TEXT, FULLTEXT KEY(b)) ENGINE=InnoDB;
CREATE TABLE t_part       (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=InnoDB
                          PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (500),
                          PARTITION p1 VALUES LESS THAN (1000), PARTITION p2 VALUES LESS THAN MAXVALUE);
CREATE TABLE t_myisam     (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=MyISAM;
CREATE TABLE t_aria       (id INT PRIMARY KEY, a VARCHAR(100), b TEXT) ENGINE=Aria;
CREATE DATABASE \`sample-2\`;
CREATE TABLE \`sample-2\`.\`tab le\` (id INT PRIMARY KEY, a VARCHAR(100)) ENGINE=InnoDB;
" || fail "creating the sample tables failed"

HAVE_EXT=0
if sql src "CREATE TABLE sample.t_external (id INT PRIMARY KEY, a VARCHAR(100), b TEXT)
            ENGINE=InnoDB DATA DIRECTORY='$EXT'" 2> "$T/ext.err"; then
    HAVE_EXT=1
else
    log "server refused DATA DIRECTORY ($(cat "$T/ext.err")); continuing without it"
fi

HAVE_MYISAM_EXT=0
if [[ $(sql src "SELECT @@have_symlink") == YES ]] &&
   sql src "CREATE TABLE sample.t_myisam_external (id INT PRIMARY KEY, a VARCHAR(100), b TEXT)
            ENGINE=MyISAM DATA DIRECTORY='$EXT' INDEX DIRECTORY='$EXT'" 2> "$T/ext.err"; then
    HAVE_MYISAM_EXT=1
else
    log "no MyISAM DATA DIRECTORY table ($(cat "$T/ext.err" 2>/dev/null)); continuing without it"
fi

for t in t_redundant t_compact t_dynamic t_compressed t_pagecomp t_fulltext t_part t_myisam t_aria \
         $( ((HAVE_EXT)) && echo t_external) $( ((HAVE_MYISAM_EXT)) && echo t_myisam_external); do
    # Every 50th row carries a 20 KB text so DYNAMIC/COMPRESSED tables get off-page blobs.
    sql src "USE sample; INSERT INTO sample.$t SELECT seq, CONCAT('row ', seq, ' ', MD5(seq)),
             IF(seq % 50 = 0, REPEAT(MD5(seq), 640), CONCAT('word', seq % 97, ' text ', seq))
             FROM seq_1_to_2000" || fail "filling sample.$t failed"
done
sql src "USE sample; INSERT INTO \`sample-2\`.\`tab le\` SELECT seq, MD5(seq) FROM seq_1_to_100" || fail "filling tab le failed"
sql src "DELETE FROM sample.t_dynamic WHERE id % 7 = 0; UPDATE sample.t_compact SET a = 'updated' WHERE id % 5 = 0"

# A least-privilege backup user; its password is only ever in an option file.
PW="Xb-secret-$RANDOM$RANDOM"
sql src "CREATE USER backup@localhost IDENTIFIED BY '$PW';
         GRANT RELOAD, PROCESS, LOCK TABLES, BINLOG MONITOR ON *.* TO backup@localhost" \
    || fail "creating the backup user failed"
BCNF=$T/backup-user.cnf
printf '[client]\nuser=backup\npassword=%s\nsocket=%s\n' "$PW" "$(sock_of src)" > "$BCNF"
sed -n '/^\[mysqld\]/,$p' "$(cnf_of src)" >> "$BCNF"   # the tool also reads [mysqld]

EXPECTED=$(checksum_all src)
EXPECTED_TABLES=$(table_list src)
MASTER=$(sql src "SHOW MASTER STATUS" | awk -F'\t' '{ print $1 "\t" $2 }')
GTID=$(sql src "SELECT @@gtid_binlog_pos")

B=$T/backup
xb_run --defaults-file="$BCNF" --backup --target-dir="$B" --parallel=3
assert_ok "$XB_RC" "$XB_ERR" "backup of an idle server"
if [[ $XB_KIND == xtrabackup ]]; then
    # several threads, a plain local target, nothing limiting the rate: read/write batches
    assert_contains "$XB_ERR" "InnoDB files \\([0-9.]+ MiB\\) with 3 threads, reading and writing in turns of 64 MiB a thread" \
        "the copy threads read and write in turns"
    # no SUPER: no fresh dump; the server's own last dump (written when it last
    # stopped) is stored instead, said once at info level (no warning for cron
    # monitors to fire on)
    grep -q 'Warning:.*buffer-pool' "$XB_ERR" && fail "a warning about the buffer-pool dump without SUPER"
    assert_contains "$XB_ERR" "the backup user may not ask for a fresh one \(no SUPER\), so the server's own last dump \(written .*, older than this backup\) is stored as ib_buffer_pool" \
        "backup log: the server's own dump, labelled as older"
    cmp -s "$B/ib_buffer_pool" "$(sql src 'SELECT @@datadir')/ib_buffer_pool" \
        || fail "the stored dump is not the server's own"
fi
[[ -s $XB_OUT ]] && fail "backup wrote to stdout (reserved for stream data): $(head -c 200 "$XB_OUT")"

assert_file "$B/xtrabackup_checkpoints" "$B/xtrabackup_info" "$B/backup-my.cnf" \
            "$B/xtrabackup_binlog_info" "$B/ib_logfile0" "$B/ibdata1"
assert_contains "$B/xtrabackup_checkpoints" '^backup_type = full-backuped$' "checkpoints: backup type"
assert_contains "$B/xtrabackup_checkpoints" '^from_lsn = 0$' "checkpoints: full backup starts at LSN 0"
assert_contains "$B/xtrabackup_checkpoints" '^to_lsn = [1-9][0-9]*$' "checkpoints: to_lsn"
assert_contains "$B/xtrabackup_checkpoints" '^last_lsn = [1-9][0-9]*$' "checkpoints: last_lsn"
TO_LSN=$(awk '$1 == "to_lsn" { print $3 }' "$B/xtrabackup_checkpoints")
LAST_LSN=$(awk '$1 == "last_lsn" { print $3 }' "$B/xtrabackup_checkpoints")
(( LAST_LSN >= TO_LSN )) || fail "checkpoints: last_lsn $LAST_LSN < to_lsn $TO_LSN"
assert_contains "$B/backup-my.cnf" '^\[mysqld\]' "backup-my.cnf has a [mysqld] section"
assert_contains "$B/backup-my.cnf" '^innodb_page_size=16384$' "backup-my.cnf records the page size"
# An idle server: the recorded binlog coordinates are the current ones.
assert_eq "$MASTER	$GTID" "$(cat "$B/xtrabackup_binlog_info")" "xtrabackup_binlog_info (file, position, GTID)"

# The password must appear in no file of the backup and not in the log.
if grep -rlF -- "$PW" "$B" "$XB_ERR" "$XB_OUT" > "$T/leak" 2>/dev/null; then
    fail "the backup user's password leaked into: $(tr '\n' ' ' < "$T/leak")"
fi
# Non-InnoDB tables and the partitioned table are in the backup under their own names.
assert_file "$B/sample/t_myisam.MYD" "$B/sample/t_myisam.frm" "$B/sample/t_aria.MAD" \
            "$B/sample/t_part.par" "$B/sample@002d2/tab@0020le.frm"

restore_backup "$B" dst
assert_eq "$EXPECTED_TABLES" "$(table_list dst)" "restored table set and engines"
assert_eq "$EXPECTED" "$(checksum_all dst)" "restored table checksums"
if ((HAVE_EXT)); then
    [[ $(sql dst "SELECT COUNT(*) FROM sample.t_external") == 2000 ]] || fail "t_external not restored"
fi
log "backup_idle: ok ($(wc -l <<< "$EXPECTED") tables compared)"
