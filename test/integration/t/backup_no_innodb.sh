#!/usr/bin/env bash
# backup_no_innodb.sh - a backup of a server running without InnoDB (skip-innodb)
# on a datadir whose InnoDB files an earlier start created. The server shows no
# innodb_* variable and refuses SHOW ENGINE INNODB STATUS; the backup still
# succeeds, copies the InnoDB files as they lie (as mariabackup does: nothing
# writes them), records backup-my.cnf from the option files, and copies the redo
# log to its end without asking the server how far it is durable (it cannot say),
# so the copy holds the FILE_CHECKPOINT both preparers need. Checks: our prepare and mariabackup's both succeed; a server restored
# without InnoDB has the MyISAM and Aria tables' CHECKSUM TABLE of the source;
# started again with InnoDB, the same datadir has the InnoDB table of before.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

# 1. InnoDB data, written while InnoDB ran
server_start src
sql src "CREATE DATABASE s; CREATE TABLE s.i (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
         INSERT INTO s.i SELECT seq, CONCAT('row ', seq) FROM s.seq_1_to_2000" || fail "creating s.i failed"
sum_i=$(sql src "CHECKSUM TABLE s.i EXTENDED")
server_stop src

# 2. the same datadir without InnoDB
server_start_on noinno "$(datadir_of src)" --skip-innodb --default-storage-engine=MyISAM
sql noinno "CREATE TABLE s.m (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=MyISAM;
            CREATE TABLE s.a (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=Aria;
            INSERT INTO s.m SELECT seq, REPEAT('m', seq % 90) FROM s.seq_1_to_3000;
            INSERT INTO s.a SELECT seq, REPEAT('a', seq % 90) FROM s.seq_1_to_3000" || fail "creating s.m, s.a failed"
static_sums() { sql "$1" "CHECKSUM TABLE s.m, s.a EXTENDED"; }
sums=$(static_sums noinno)
ibdata_md5=$(md5sum < "$(datadir_of noinno)/ibdata1")

xb_backup noinno "$T/b"
assert_ok "$XB_RC" "$XB_ERR" "backup of a server without InnoDB"
assert_file "$T/b/ibdata1"
assert_file "$T/b/mysql/innodb_table_stats.ibd"
assert_file "$T/b/s/i.ibd"
assert_eq "$ibdata_md5" "$(md5sum < "$T/b/ibdata1")" "ibdata1 copied as it lies"
size=$(stat -c %s "$T/b/ib_logfile0")
[[ $size -gt 12288 ]] || fail "ib_logfile0 of the backup has no room after its header ($size bytes)"
assert_eq "innodb_page_size=16384" "$(grep '^innodb_page_size=' "$T/b/backup-my.cnf")" "backup-my.cnf page size"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$XB_ERR" "InnoDB is disabled on the server" "log line saying InnoDB is off"
fi

# 3. both preparers take it
cp -a "$T/b" "$T/b_mb"
prep_run mariabackup "$T/b_mb"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup --prepare"
prep_run "$XB" "$T/b"
assert_ok "$PREP_RC" "$PREP_ERR" "--prepare"

# 4. restored without InnoDB, then with it
server_stop noinno
restore_prepared "$T/b" dst --skip-innodb --default-storage-engine=MyISAM
assert_eq "$sums" "$(static_sums dst)" "MyISAM and Aria tables after restore"
server_stop dst
server_start_on dst2 "$(datadir_of dst)"
check_clean_start dst2
assert_eq "$sum_i" "$(sql dst2 "CHECKSUM TABLE s.i EXTENDED")" "InnoDB table once InnoDB runs again"
assert_eq "$sums" "$(static_sums dst2)" "MyISAM and Aria tables with InnoDB running"
log "ok: backup, prepare and restore of a server without InnoDB"
