#!/usr/bin/env bash
# restore_warm.sh - backup -> prepare -> --copy-back -> start, warm, with our tool
# end to end, and --move-back the same way:
#  - --backup asks the server for a buffer-pool dump: the log says how many pages,
#    the backup holds ib_buffer_pool, and the source's innodb_buffer_pool_dump_pct
#    is back to its value afterwards;
#  - --prepare sorts it: the backup's ib_buffer_pool is sorted by (space, page) with
#    no duplicates and no entry of a tablespace the backup lacks (one is planted);
#    xtrabackup_buffer_pool_mru keeps the same pages in the server's order (most
#    recently used first);
#  - --copy-back places every file (datadir, an undo directory and a redo directory
#    outside it, all from the restored server's option file), the dump under the
#    configured innodb_buffer_pool_filename, leaves the backup's metadata behind and
#    the backup itself untouched; the restored server starts with no crash recovery,
#    its error log shows the load from that file completed, the big table has exactly
#    the pages of the dump in its buffer pool right after startup, and CHECKSUM TABLE
#    equals the source's; the log gives the gtid_slave_pos / CHANGE MASTER recipe
#    for a replica from xtrabackup_binlog_info;
#  - --copy-back for a server whose innodb_buffer_pool_size (16M) holds fewer pages
#    than the dump places the most recently used ones, sorted, and says so;
#  - --move-back of a second copy of the backup empties it and gives the same data;
#  - our --copy-back restores a backup taken and prepared by mariabackup (no dump);
#  - a backup carrying only an XtraDB ib_lru_dump (made with --sort-dump
#    --dump-format=ib_lru_dump) gets the same ib_buffer_pool from --prepare.
# Runs only with our tool (mariabackup neither dumps nor restores a dump).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "buffer-pool dumps in backups are ours only"

SERVER_INSTALL_OPTS="--innodb-undo-tablespaces=2" \
    server_start src --innodb-undo-tablespaces=2 --innodb-buffer-pool-dump-pct=25
sql src "CREATE DATABASE w; USE w; CREATE TABLE w.big (id INT PRIMARY KEY, pad CHAR(200), k INT, KEY (k)) ENGINE=InnoDB;
         INSERT INTO w.big SELECT seq, REPEAT(CHAR(65 + seq % 26), 200), seq % 1000 FROM seq_1_to_120000;
         CREATE TABLE w.small (id INT PRIMARY KEY, v VARCHAR(50)) ENGINE=InnoDB;
         INSERT INTO w.small SELECT seq, MD5(seq) FROM seq_1_to_2000;
         CREATE TABLE w.my (id INT PRIMARY KEY) ENGINE=MyISAM; INSERT INTO w.my VALUES (1),(2),(3)" \
    || fail "creating the data failed"
sql src "SELECT COUNT(*), SUM(LENGTH(pad)) FROM w.big" > /dev/null || fail "reading w.big failed"
src_sums=$(checksum_all src)
big_space=$(sql src "SELECT space FROM information_schema.innodb_sys_tables WHERE name = 'w/big'")
[[ $big_space =~ ^[0-9]+$ ]] || fail "no space id for w.big: $big_space"

# --- backup: with a fresh dump, dump_pct put back
xb_backup src "$T/backup" || fail "backup failed (exit $XB_RC)"
assert_ok "$XB_RC" "$XB_ERR" "backup"
assert_contains "$XB_ERR" "Buffer-pool dump stored in the backup as ib_buffer_pool: [0-9]+ pages" "backup log: dump"
assert_file "$T/backup/ib_buffer_pool"
assert_eq 25 "$(sql src 'SELECT @@innodb_buffer_pool_dump_pct')" "dump_pct put back after the backup"
dumped=$(wc -l < "$T/backup/ib_buffer_pool")
big_dumped=$(grep -c "^$big_space," "$T/backup/ib_buffer_pool")
log "dump: $dumped pages, $big_dumped of w.big (space $big_space)"
[[ $big_dumped -gt 1000 ]] || fail "the dump holds only $big_dumped pages of w.big (the table was read in full)"
# an entry of a tablespace the backup does not have, and a duplicate: --prepare drops both
{ echo "4000000000,7"; head -n 1 "$T/backup/ib_buffer_pool"; } >> "$T/backup/ib_buffer_pool"
rm -f "$T/backup/xtrabackup_manifest.pmap"   # the dump is edited on purpose: no manifest to match
cp "$T/backup/ib_buffer_pool" "$T/raw_dump"

# --- prepare with ours: the dump sorted and cleaned
prep_run "$XB" "$T/backup"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare"
assert_contains "$PREP_ERR" "dropped 1 duplicates, 1 of tablespaces not in the backup" "prepare log: dump cleaned"
LC_ALL=C sort -t, -k1,1n -k2,2n -u "$T/backup/ib_buffer_pool" | cmp -s - "$T/backup/ib_buffer_pool" \
    || fail "the prepared ib_buffer_pool is not sorted and unique"
grep -q '^4000000000,' "$T/backup/ib_buffer_pool" && fail "the entry of a missing tablespace was kept"
kept=$(wc -l < "$T/backup/ib_buffer_pool")
big_kept=$(grep -c "^$big_space," "$T/backup/ib_buffer_pool")
# the same pages in the server's order, most recently used first, kept beside it
mru=$T/backup/xtrabackup_buffer_pool_mru
assert_file "$mru"
LC_ALL=C sort -t, -k1,1n -k2,2n "$mru" | cmp -s - "$T/backup/ib_buffer_pool" \
    || fail "xtrabackup_buffer_pool_mru does not hold the pages of ib_buffer_pool, once each"
awk -F, 'NR == FNR { if (!(($1 "," $2) in at)) at[$1 "," $2] = FNR; next }
         { p = at[$1 "," $2]; if (p <= last) { print "out of order at line " FNR; exit 1 } last = p }' \
    "$T/raw_dump" "$mru" || fail "xtrabackup_buffer_pool_mru is not in the order of the server's dump"
cp -a "$T/backup" "$T/backup2"
before=$(tree_sums "$T/backup")

# --- an old XtraDB-style dump: --sort-dump writes ib_lru_dump, --prepare turns it back
cp -a "$T/backup" "$T/backup3"
xb_run --sort-dump --dump-input="$T/backup3/ib_buffer_pool" --dump-output="$T/backup3/ib_lru_dump" \
    --dump-format=ib_lru_dump
assert_ok "$XB_RC" "$XB_ERR" "--sort-dump to ib_lru_dump"
lru_size=$(stat -c %s "$T/backup3/ib_lru_dump")
assert_eq 0 "$((lru_size % 16384))" "ib_lru_dump is padded to 16 KiB"
[[ $lru_size -ge $(((kept + 1) * 8)) ]] || fail "ib_lru_dump of $lru_size bytes cannot hold $kept pages"
rm "$T/backup3/ib_buffer_pool" "$T/backup3/xtrabackup_buffer_pool_mru"
prep_run "$XB" "$T/backup3"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare of a backup with an ib_lru_dump"
assert_contains "$PREP_ERR" "ib_lru_dump \(ib_lru_dump, $kept pages\): $kept pages" "prepare log: ib_lru_dump converted"
cmp -s "$T/backup/ib_buffer_pool" "$T/backup3/ib_buffer_pool" || fail "ib_lru_dump converted to a different ib_buffer_pool"
rm -rf "$T/backup3"

# --- copy-back into a layout of three directories, from the restored server's option file
mkdir -p "$T/dst"
write_cnf dst "$T/dst/data" --innodb-undo-tablespaces=2 --innodb-undo-directory="$T/dst/undo" \
    --innodb-log-group-home-dir="$T/dst/redo" --innodb-buffer-pool-filename=warm.dump
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/backup" --parallel=2
assert_ok "$XB_RC" "$XB_ERR" "copy-back"
assert_contains "$XB_ERR" "kept, sorted by tablespace and page, in $T/dst/data/warm.dump" "copy-back log: dump placed"
assert_contains "$XB_ERR" "The restored server loads these $kept pages at startup" "copy-back log: pages to warm"
read -r _ _ gtid < "$T/backup/xtrabackup_binlog_info"
[[ $gtid =~ ^[0-9]+-[0-9]+-[0-9]+ ]] || fail "no GTID in xtrabackup_binlog_info: $gtid"
assert_contains "$XB_ERR" "SET GLOBAL gtid_slave_pos = '$gtid'; CHANGE MASTER TO" "copy-back log: replica recipe"
assert_file "$T/dst/undo/undo001"
assert_file "$T/dst/undo/undo002"
assert_file "$T/dst/redo/ib_logfile0"
assert_file "$T/dst/data/w/big.ibd"
[[ -e $T/dst/data/undo001 || -e $T/dst/data/ib_logfile0 ]] && fail "undo or redo files landed in the datadir"
for f in xtrabackup_checkpoints xtrabackup_binlog_info backup-my.cnf ib_buffer_pool xtrabackup_buffer_pool_mru; do
    [[ -e $T/dst/data/$f ]] && fail "$f was copied into the datadir"
done
assert_file "$T/dst/data/xtrabackup_info"
assert_eq "$before" "$(tree_sums "$T/backup")" "the backup is unchanged by --copy-back"
cmp -s "$T/backup/ib_buffer_pool" "$T/dst/data/warm.dump" || fail "warm.dump differs from the prepared dump"

server_start_on dst "$T/dst/data" --innodb-undo-tablespaces=2 --innodb-undo-directory="$T/dst/undo" \
    --innodb-log-group-home-dir="$T/dst/redo" --innodb-buffer-pool-filename=warm.dump
check_clean_start dst
load_done() { sql dst "SHOW STATUS LIKE 'Innodb_buffer_pool_load_status'" | grep -q 'load completed'; }
wait_for 60 load_done \
    || fail "the buffer pool load did not complete: $(sql dst "SHOW STATUS LIKE 'Innodb_buffer_pool_load_status'")"
assert_contains "$(errlog_of dst)" "Loading buffer pool\(s\) from $T/dst/data/warm.dump" "error log: load from the dump"
assert_contains "$(errlog_of dst)" "Buffer pool\(s\) load completed at" "error log: load completed"
in_pool=$(sql dst "SELECT COUNT(*) FROM information_schema.innodb_buffer_page WHERE space = $big_space")
log "w.big: $big_kept pages in the dump, $in_pool in the restored server's buffer pool"
assert_eq "$big_kept" "$in_pool" "pages of w.big in the buffer pool after the load"
assert_eq "$src_sums" "$(checksum_all dst)" "CHECKSUM TABLE after --copy-back"
server_stop dst

# --- copy-back for a server with a buffer pool smaller than the dump: the most recently
# used pages are kept (the server itself would keep the first ones of the sorted file)
write_cnf small "$T/small/data" --innodb-undo-tablespaces=2 --innodb-buffer-pool-size=16M
pool=$((16 * 1048576 / (16384 + 200)))
[[ $kept -gt $pool ]] || fail "the dump ($kept pages) is not larger than a 16M pool ($pool pages)"
head -n "$pool" "$T/backup/ib_buffer_pool" | cmp -s - <(head -n "$pool" "$mru" | LC_ALL=C sort -t, -k1,1n -k2,2n) \
    && fail "the $pool most recent pages are the first $pool in (space, page) order: nothing to tell apart"
xb_run --defaults-file="$small_CNF" --copy-back --target-dir="$T/backup"
assert_ok "$XB_RC" "$XB_ERR" "copy-back with a small buffer pool"
assert_contains "$XB_ERR" "buffer pool holds about $pool pages: the $pool most recently used pages of the dump are kept, $((kept - pool)) less recent ones dropped" \
    "copy-back log: dump cut to the buffer pool"
head -n "$pool" "$mru" | LC_ALL=C sort -t, -k1,1n -k2,2n | cmp -s - "$T/small/data/ib_buffer_pool" \
    || fail "the placed dump is not the $pool most recently used pages, sorted"
rm -rf "$T/small"

# --- move-back of the second copy
write_cnf mv "$T/mv/data" --innodb-undo-tablespaces=2
xb_run --defaults-file="$mv_CNF" --move-back --target-dir="$T/backup2"
assert_ok "$XB_RC" "$XB_ERR" "move-back"
left=$(find "$T/backup2" -mindepth 1 | sed "s|$T/backup2/||" | LC_ALL=C sort | tr '\n' ' ')
assert_eq "backup-my.cnf xtrabackup_binlog_info xtrabackup_checkpoints " "$left" "files left in the backup by --move-back"
assert_file "$T/mv/data/ib_buffer_pool"
server_start_on mv "$T/mv/data" --innodb-undo-tablespaces=2
check_clean_start mv
assert_eq "$src_sums" "$(checksum_all mv)" "CHECKSUM TABLE after --move-back"
server_stop mv

# --- a backup taken and prepared by mariabackup, restored by ours (drop-in both ways)
mariabackup --defaults-file="$src_CNF" --backup --target-dir="$T/mb" > "$T/mb.log" 2>&1 \
    || fail "mariabackup --backup failed: $(tail -n 3 "$T/mb.log")"
mariabackup --prepare --target-dir="$T/mb" > "$T/mbp.log" 2>&1 \
    || fail "mariabackup --prepare failed: $(tail -n 3 "$T/mbp.log")"
write_cnf mbr "$T/mbr/data" --innodb-undo-tablespaces=2
xb_run --defaults-file="$mbr_CNF" --copy-back --target-dir="$T/mb"
assert_ok "$XB_RC" "$XB_ERR" "our --copy-back of mariabackup's backup"
assert_contains "$XB_ERR" "The backup holds no buffer-pool dump" "copy-back log: no dump in mariabackup's backup"
server_start_on mbr "$T/mbr/data" --innodb-undo-tablespaces=2
check_clean_start mbr
assert_eq "$src_sums" "$(checksum_all mbr)" "CHECKSUM TABLE after our --copy-back of mariabackup's backup"
log "restore_warm: ok ($kept pages warmed, $big_kept of w.big)"
