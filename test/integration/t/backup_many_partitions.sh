#!/usr/bin/env bash
# backup_many_partitions.sh - a MyISAM table of 600 partitions (1,200 files) on a
# server whose open-files-limit is 1024. mariabackup opens all of a table's files
# at once and fails there with "Too many open files" (MariaDB's suite checks that
# failure: mariabackup.partition_notwin, listed in test/mtr/differs.txt); we copy
# the files one at a time, so the backup must succeed and restore the table
# exactly (CHECKSUM TABLE of every partitioned table equal to the source's).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "mariabackup fails on this table by design (partition_notwin)"

server_start src --open-files-limit=1024
sql src "CREATE DATABASE p;
         CREATE TABLE p.t1 (id BIGINT NOT NULL AUTO_INCREMENT PRIMARY KEY, v VARCHAR(40)) ENGINE=MyISAM
             PARTITION BY HASH (id) PARTITIONS 600;
         INSERT INTO p.t1 (v) SELECT MD5(seq) FROM p.seq_1_to_20000;
         CREATE TABLE p.t2 (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB PARTITION BY KEY (id) PARTITIONS 64;
         INSERT INTO p.t2 SELECT seq, MD5(seq) FROM p.seq_1_to_20000" || fail "creating the partitioned tables"
sums() { sql "$1" "CHECKSUM TABLE p.t1, p.t2 EXTENDED"; }
want=$(sums src)
[[ $(find "$(datadir_of src)/p" -name 't1#P#p*.MY[DI]' | wc -l) -eq 1200 ]] || fail "expected 1,200 MyISAM files"

xb_backup src "$T/b" --open-files-limit=1024
assert_ok "$XB_RC" "$XB_ERR" "backup of a 600-partition MyISAM table"
assert_eq 1200 "$(find "$T/b/p" -name 't1#P#p*.MY[DI]' | wc -l)" "every partition file in the backup"
prep_run "$XB" "$T/b"
assert_ok "$PREP_RC" "$PREP_ERR" "--prepare"
restore_prepared "$T/b" dst
assert_eq "$want" "$(sums dst)" "partitioned tables after restore"
log "ok: 600 MyISAM partitions backed up and restored"
