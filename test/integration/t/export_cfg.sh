#!/usr/bin/env bash
# export_cfg.sh - the .cfg files written from a prepared backup's dictionary
# (engine-hooks/innodb/dict.c and cfg.c, through test/tools/xb_cfg.c) are ones
# ALTER TABLE ... IMPORT TABLESPACE accepts: the tables come back with the
# source's rows.
#
# A server holds tables of every kind the .cfg format carries: column types
# with NULLs, secondary, prefix and descending indexes, a composite primary key,
# no primary key, REDUNDANT, COMPACT, DYNAMIC and COMPRESSED rows,
# page_compressed, a partitioned table, instant ADD COLUMN and instant DROP
# COLUMN (the clustered index keeps the dropped column; also with a reordering
# ADD under a VARCHAR primary key, and in a REDUNDANT table), a virtual column
# with an index. The tool under test ($XB) backs it up, mariabackup prepares the
# backup, xb_cfg writes DIR/d/T.cfg for every table. A second server gets the
# same definitions (the same DDL history), discards their tablespaces, receives
# the backup's .ibd files and our .cfg files and imports them; CHECKSUM TABLE of
# every table must equal the source's, CHECK TABLE must pass, and the import must
# have used the .cfg (no "IO Read error: (2, No such file or directory) Error
# opening" warning about a missing .cfg). (t_virt is compared by its rows: its
# CHECKSUM TABLE changes across any import, the server's own export's too.) Then a .cfg that disagrees with the
# table (a column type changed in the .cfg by the destination's definition)
# must make the import fail with the server's schema mismatch error.
#
# env: XB_CFG (the .cfg writer, default build/xb_cfg).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

# XB_CFG: the tool (default build/xb_cfg, built here; e.g. build-asan/xb_cfg)
if [[ -z ${XB_CFG:-} ]]; then
    make -C "$TOP" --no-print-directory -s build/xb_cfg >/dev/null || fail "building build/xb_cfg failed"
    XB_CFG=$TOP/build/xb_cfg
fi

DDL="CREATE DATABASE d; USE d;
CREATE TABLE t_types (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, c VARCHAR(100), tx TEXT, b BLOB,
  dc DECIMAL(10,2), dt DATETIME(3), n INT NULL, ch CHAR(10) CHARACTER SET utf8mb4, cl CHAR(8) CHARACTER SET latin1 NOT NULL DEFAULT '',
  bi BIGINT UNSIGNED NOT NULL DEFAULT 0, KEY k_c (c), KEY k_tx (tx(20)), KEY k_desc (n DESC, ch)) ENGINE=InnoDB;
CREATE TABLE t_cpk (a INT NOT NULL, b VARCHAR(20) NOT NULL, v INT, w VARCHAR(30), PRIMARY KEY (a, b), UNIQUE KEY u_v (v), KEY k_w (w(5))) ENGINE=InnoDB;
CREATE TABLE t_nopk (a INT, b VARCHAR(10), KEY k_a (a)) ENGINE=InnoDB;
CREATE TABLE t_red (id INT PRIMARY KEY, s VARCHAR(50), c CHAR(5) CHARACTER SET utf8mb3, KEY k_s (s)) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
CREATE TABLE t_compact (id INT PRIMARY KEY, s VARCHAR(50), c CHAR(5) CHARACTER SET utf8mb3, KEY k_s (s)) ENGINE=InnoDB ROW_FORMAT=COMPACT;
CREATE TABLE t_zip (id INT PRIMARY KEY, s VARCHAR(200), KEY k_s (s)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE t_pc (id INT PRIMARY KEY, s VARCHAR(200)) ENGINE=InnoDB PAGE_COMPRESSED=1 PAGE_COMPRESSION_LEVEL=3;
CREATE TABLE t_part (id INT PRIMARY KEY, s VARCHAR(20)) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 2;
CREATE TABLE t_add (id INT PRIMARY KEY, a VARCHAR(20)) ENGINE=InnoDB;
INSERT INTO t_add VALUES (0, 'seed');
ALTER TABLE t_add ADD COLUMN added INT NOT NULL DEFAULT 42, ALGORITHM=INSTANT;
CREATE TABLE t_drop (id INT PRIMARY KEY, a VARCHAR(20), gone INT, z INT) ENGINE=InnoDB;
INSERT INTO t_drop VALUES (0, 'seed', 0, 0);
ALTER TABLE t_drop DROP COLUMN gone, ALGORITHM=INSTANT;
CREATE TABLE t_virt (id INT PRIMARY KEY, a INT, v INT AS (a * 2) VIRTUAL, s INT AS (a + 1) STORED, KEY k_v (v)) ENGINE=InnoDB;
CREATE TABLE t_drop_vpk (k VARCHAR(40) PRIMARY KEY, a INT, gone VARCHAR(10), z INT NOT NULL DEFAULT 0) ENGINE=InnoDB;
INSERT INTO t_drop_vpk VALUES ('seed', 0, 'g', 0);
ALTER TABLE t_drop_vpk DROP COLUMN gone, ADD COLUMN f INT AFTER k, ALGORITHM=INSTANT;
CREATE TABLE t_drop_red (id INT PRIMARY KEY, a VARCHAR(20), gone INT, z INT) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
INSERT INTO t_drop_red VALUES (0, 'seed', 0, 0);
ALTER TABLE t_drop_red DROP COLUMN gone, ALGORITHM=INSTANT;"
TABLES="t_types t_cpk t_nopk t_red t_compact t_zip t_pc t_part t_add t_drop t_virt t_drop_vpk t_drop_red"

server_start src
sql src "$DDL" || fail "creating the tables failed"
sql src "USE d;
INSERT INTO t_types (c, tx, b, dc, dt, n, ch, cl, bi) SELECT CONCAT('v', seq), REPEAT('t', seq * 10), REPEAT('b', seq * 30),
  seq / 7, '2024-01-02 03:04:05.678', IF(seq % 3, seq, NULL), 'ch', 'cl', seq * 1000 FROM seq_1_to_2000;
INSERT INTO t_cpk SELECT seq % 10, CONCAT('k', seq), seq, CONCAT('w', seq) FROM seq_1_to_3000;
INSERT INTO t_nopk SELECT seq, CONCAT('x', seq) FROM seq_1_to_3000;
INSERT INTO t_red SELECT seq, CONCAT('r', seq), 'c' FROM seq_1_to_3000;
INSERT INTO t_compact SELECT seq, CONCAT('c', seq), 'c' FROM seq_1_to_3000;
INSERT INTO t_zip SELECT seq, REPEAT('z', seq % 200) FROM seq_1_to_2000;
INSERT INTO t_pc SELECT seq, REPEAT('p', seq % 200) FROM seq_1_to_2000;
INSERT INTO t_part SELECT seq, CONCAT('p', seq) FROM seq_1_to_2000;
INSERT INTO t_add SELECT seq, CONCAT('a', seq), seq FROM seq_1_to_2000;
INSERT INTO t_drop SELECT seq, CONCAT('d', seq), seq FROM seq_1_to_2000;
INSERT INTO t_virt (id, a) SELECT seq, seq FROM seq_1_to_2000;
INSERT INTO t_drop_vpk (k, f, a, z) SELECT CONCAT('key-', LPAD(seq, 6, '0'), REPEAT('x', seq % 30)), seq, seq, seq FROM seq_1_to_5000;
INSERT INTO t_drop_red SELECT seq, CONCAT('d', seq), seq FROM seq_1_to_2000;
DELETE FROM t_cpk WHERE v % 7 = 0;" || fail "filling the tables failed"
src_sums=$(checksum_all src)

xb_backup src "$T/bk"
assert_ok "$XB_RC" "$XB_ERR" "backup"
prepare_backup "$T/bk"
"$XB_CFG" write "$T/bk" --autoinc=d/t_types > "$T/xb_cfg.out" 2>&1 || { cat "$T/xb_cfg.out" >&2; fail "xb_cfg write failed"; }
n_cfg=$(ls "$T/bk/d/"*.cfg | wc -l)
assert_eq 14 "$n_cfg" "one .cfg per tablespace of d (the partitioned table has two)"

server_start dst
sql dst "$DDL" || fail "creating the tables on dst failed"
user=$(_srv_user)
# A 10.11 server imports a partition's tablespace into a table of its own:
# each goes into a plain table of the same columns, which then is exchanged
# with its partition.
sql dst "CREATE TABLE d.t_part_p0 (id INT PRIMARY KEY, s VARCHAR(20)) ENGINE=InnoDB;
    CREATE TABLE d.t_part_p1 LIKE d.t_part_p0" || fail "creating the partition tables failed"
IMPORTS="${TABLES/t_part /} t_part_p0 t_part_p1"
for t in $IMPORTS; do
    sql dst "ALTER TABLE d.$t DISCARD TABLESPACE" || fail "discarding d.$t failed"
done
for f in "$T/bk/d/"*.ibd "$T/bk/d/"*.cfg; do
    b=$(basename "$f")
    b=${b/\#P\#/_}
    cp "$f" "$dst_DATADIR/d/$b" || fail "copying $f failed"
done
[[ $user != "$(id -un)" ]] && chown "$user" "$dst_DATADIR/d/"*
for t in $IMPORTS; do
    sql dst "ALTER TABLE d.$t IMPORT TABLESPACE" > "$T/import.$t.out" 2>&1 || { cat "$T/import.$t.out" >&2; fail "importing d.$t with our .cfg failed"; }
done
sql dst "ALTER TABLE d.t_part EXCHANGE PARTITION p0 WITH TABLE d.t_part_p0;
    ALTER TABLE d.t_part EXCHANGE PARTITION p1 WITH TABLE d.t_part_p1;
    DROP TABLE d.t_part_p0, d.t_part_p1" || fail "exchanging the imported partitions failed"
if grep -E "Error opening .*\.cfg|cfg.*will attempt to import without schema verification" "$(errlog_of dst)"; then
    fail "an import went on without the .cfg"
fi
dst_sums=$(checksum_all dst)
# CHECKSUM TABLE of a table with a virtual column differs after any import,
# with the server's own .cfg too (10.11.19: 394153792 before, 2509146732
# after, for the same rows): t_virt's rows are compared instead.
assert_eq "$(grep -v '^d.t_virt ' <<<"$src_sums")" "$(grep -v '^d.t_virt ' <<<"$dst_sums")" \
    "CHECKSUM TABLE of the imported tables equals the source's"
rows="SELECT COUNT(*), MD5(GROUP_CONCAT(CONCAT_WS(',', id, a, v, s) ORDER BY id)) FROM d.t_virt"
assert_eq "$(sql src "SET SESSION group_concat_max_len = 1048576; $rows")" \
    "$(sql dst "SET SESSION group_concat_max_len = 1048576; $rows")" "t_virt's rows after the import"
assert_eq "$(sql src "SELECT COUNT(*), SUM(v) FROM d.t_virt FORCE INDEX (k_v) WHERE v > 100")" \
    "$(sql dst "SELECT COUNT(*), SUM(v) FROM d.t_virt FORCE INDEX (k_v) WHERE v > 100")" "t_virt's index on the virtual column"
bad=$(sql dst "CHECK TABLE $(echo $TABLES | sed 's/\([a-z_]*\)/d.\1/g; s/ /, /g') EXTENDED" | awk -F'\t' '$3 != "status" || $4 != "OK"')
[[ -z $bad ]] || fail "CHECK TABLE after the import: $bad"
next=$(sql dst "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'd' AND TABLE_NAME = 't_types'")
[[ $next -gt 2000 ]] || fail "t_types' AUTO_INCREMENT after the import is $next, not past the 2000 rows"
log "14 tablespaces imported with our .cfg files: checksums equal, CHECK TABLE ok"

# A .cfg that disagrees with the table must be refused: t_nopk's column b becomes an INT.
sql dst "CREATE TABLE d.t_bad (a INT, b INT, KEY k_a (a)) ENGINE=InnoDB; ALTER TABLE d.t_bad DISCARD TABLESPACE" || fail "t_bad"
cp "$T/bk/d/t_nopk.ibd" "$dst_DATADIR/d/t_bad.ibd"
cp "$T/bk/d/t_nopk.cfg" "$dst_DATADIR/d/t_bad.cfg"
[[ $user != "$(id -un)" ]] && chown "$user" "$dst_DATADIR/d/t_bad."*
if sql dst "ALTER TABLE d.t_bad IMPORT TABLESPACE" > "$T/import.bad.out" 2>&1; then
    fail "an import whose .cfg disagrees with the table succeeded"
fi
assert_contains "$T/import.bad.out" "Schema mismatch" "the server checks our .cfg against the table"
log "a .cfg that disagrees with the table is refused: $(grep -m1 ERROR "$T/import.bad.out")"
