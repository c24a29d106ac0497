#!/usr/bin/env bash
# backup_ddl.sh - DDL while the backup copies data files. The backup runs with
# --throttle over a ~40 MB table so its copy phase lasts a while. As soon as the
# first file appears in a database directory of the target (the copy phase has
# begun, so the backup's start LSN is fixed) the tool is frozen with SIGSTOP, a
# batch of DDL on InnoDB, MyISAM and Aria tables runs to completion (CREATE, DROP,
# RENAME, a RENAME swap, TRUNCATE, ALTER with ALGORITHM=COPY/INPLACE/INSTANT,
# engine changes, DROP and CREATE DATABASE), and the tool is resumed. The DDL runs
# with a short lock_wait_timeout so that, had the backup already held its DDL lock,
# the test fails clearly instead of measuring nothing. After restore the table set
# (with engines) and every checksum equal the source's at the end of the backup.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

server_start src
# Fewer small files keep the throttled non-InnoDB phase short.
sql src "DROP DATABASE sys" || fail "dropping sys failed"

log "creating tables"
sql src "
CREATE DATABASE ddl;
USE ddl;
CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
INSERT INTO big SELECT seq, REPEAT(MD5(seq), 7) FROM seq_1_to_100000;
CREATE TABLE to_drop       (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE to_rename     (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE to_truncate   (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE alter_copy    (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE alter_inplace (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE alter_rebuild (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE alter_instant (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE swap_a        (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE swap_b        (id INT PRIMARY KEY, a VARCHAR(64), b INT) ENGINE=InnoDB;
CREATE TABLE to_myisam     (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE unchanged     (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE DATABASE ddl_gone;
CREATE TABLE ddl_gone.t1 (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE ddl_gone.t2 (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
CREATE DATABASE ddlm;
CREATE TABLE ddlm.m_to_drop     (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
CREATE TABLE ddlm.m_to_rename   (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
CREATE TABLE ddlm.m_to_truncate (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
CREATE TABLE ddlm.m_alter       (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
CREATE TABLE ddlm.m_to_innodb   (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
CREATE TABLE ddlm.a_alter       (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=Aria;
" || fail "creating the tables failed"
for t in ddl.to_drop ddl.to_rename ddl.to_truncate ddl.alter_copy ddl.alter_inplace ddl.alter_rebuild \
         ddl.alter_instant ddl.swap_a ddl.to_myisam ddl.unchanged ddl_gone.t1 ddl_gone.t2 \
         ddlm.m_to_drop ddlm.m_to_rename ddlm.m_to_truncate ddlm.m_alter ddlm.m_to_innodb ddlm.a_alter; do
    sql src "INSERT INTO $t SELECT seq, MD5(seq) FROM ddl.seq_1_to_3000" || fail "filling $t failed"
done
sql src "INSERT INTO ddl.swap_b SELECT seq, SHA1(seq), seq FROM ddl.seq_1_to_2000" || fail "filling swap_b failed"

DDL="
SET SESSION lock_wait_timeout = 15;
USE ddl;
CREATE TABLE created (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
INSERT INTO created SELECT seq, MD5(seq) FROM seq_1_to_2000;
DROP TABLE to_drop;
RENAME TABLE to_rename TO renamed;
TRUNCATE TABLE to_truncate;
INSERT INTO to_truncate VALUES (1, 'after truncate'), (2, 'after truncate');
ALTER TABLE alter_copy ADD COLUMN c INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
ALTER TABLE alter_inplace ADD INDEX ia (a), ALGORITHM=INPLACE;
ALTER TABLE alter_rebuild ADD COLUMN c2 INT NOT NULL DEFAULT 3 AFTER id, ALGORITHM=INPLACE;
ALTER TABLE alter_instant ADD COLUMN c3 INT NOT NULL DEFAULT 5, ALGORITHM=INSTANT;
UPDATE alter_instant SET c3 = id WHERE id % 3 = 0;
ALTER TABLE big ADD INDEX ipad (pad(16)), ALGORITHM=INPLACE;
RENAME TABLE swap_a TO swap_tmp, swap_b TO swap_a, swap_tmp TO swap_b;
ALTER TABLE to_myisam ENGINE=MyISAM;
CREATE TABLE transient (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO transient VALUES (1);
DROP TABLE transient;
DROP DATABASE ddl_gone;
CREATE DATABASE ddl_new;
CREATE TABLE ddl_new.t (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
INSERT INTO ddl_new.t SELECT seq, MD5(seq) FROM seq_1_to_500;
USE ddlm;
CREATE TABLE m_created (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=MyISAM;
INSERT INTO m_created SELECT seq, MD5(seq) FROM seq_1_to_700;
DROP TABLE m_to_drop;
RENAME TABLE m_to_rename TO m_renamed;
TRUNCATE TABLE m_to_truncate;
INSERT INTO m_to_truncate VALUES (9, 'after truncate');
ALTER TABLE m_alter ADD COLUMN c INT NOT NULL DEFAULT 11;
ALTER TABLE m_to_innodb ENGINE=InnoDB;
ALTER TABLE a_alter ADD COLUMN c INT NOT NULL DEFAULT 13;
UPDATE ddl.unchanged SET a = 'touched' WHERE id < 100;
"

B=$T/backup
xb_backup_bg src "$B" --throttle=20
# The copy phase has begun once any file is in a database directory of the target
# (a hot backup starts following the redo log before it copies any data file).
copying() { [[ -n $(find "$B" -mindepth 2 -maxdepth 2 -type f -print -quit 2>/dev/null) ]]; }
if ! wait_for 60 copying; then
    kill -0 "$XB_PID" 2>/dev/null || { xb_wait; tail -n 20 "$XB_ERR" >&2; fail "backup ended before copying any tablespace"; }
    fail "backup copied no tablespace within 60s"
fi
signal_tree STOP "$XB_PID" || fail "cannot stop the backup process"
log "backup frozen at $(find "$B" -type f | wc -l) files; running DDL"
T0=$(date +%s)
sql src "$DDL" > "$T/ddl.out" 2>&1; DRC=$?
signal_tree CONT "$XB_PID"
log "DDL finished in $(( $(date +%s) - T0 ))s with exit code $DRC"
if [[ $DRC -ne 0 ]]; then
    cat "$T/ddl.out" >&2
    grep -q 'Lock wait timeout' "$T/ddl.out" && fail "DDL was blocked: the backup held its locks already (copy phase too short?)"
    fail "the DDL batch failed"
fi
kill -0 "$XB_PID" 2>/dev/null || fail "the backup ended while frozen (it cannot have been)"
xb_wait
assert_ok "$XB_RC" "$XB_ERR" "backup with concurrent DDL"

EXPECTED_TABLES=$(table_list src)
EXPECTED=$(checksum_all src)
grep -q '^ddl.renamed InnoDB$' <<< "$EXPECTED_TABLES" || fail "sanity: the DDL did not take effect on the source"
restore_backup "$B" dst
assert_eq "$EXPECTED_TABLES" "$(table_list dst)" "restored table set and engines after DDL"
assert_eq "$EXPECTED" "$(checksum_all dst)" "restored checksums after DDL"
assert_eq "$(sql src "SHOW CREATE TABLE ddl.big" | cut -f2)" "$(sql dst "SHOW CREATE TABLE ddl.big" | cut -f2)" \
    "ddl.big definition (index added in place during the backup)"
# Secondary indexes built during the backup must be usable and complete.
assert_eq "100000" "$(sql dst "SELECT COUNT(*) FROM ddl.big FORCE INDEX (ipad) WHERE pad > ''")" "rows via ddl.big.ipad"
assert_eq "3000" "$(sql dst "SELECT COUNT(*) FROM ddl.alter_inplace FORCE INDEX (ia) WHERE a > ''")" "rows via alter_inplace.ia"
sql dst "CHECK TABLE ddl.big, ddl.alter_inplace, ddl.alter_rebuild, ddl.alter_copy, ddl.swap_a, ddl.swap_b EXTENDED" \
    > "$T/check.out" || fail "CHECK TABLE on the restored server failed"
awk -F'\t' '$3 == "status" && $4 != "OK"' "$T/check.out" | grep -q . && { cat "$T/check.out" >&2; fail "CHECK TABLE reported problems"; }
log "backup_ddl: ok ($(wc -l <<< "$EXPECTED") tables compared)"
