#!/usr/bin/env bash
# restore_tables.sh - --restore-tables puts single tables of an exported
# backup back into the running server, and touches nothing else.
#
# A server holds a schema shop: orders (AUTO_INCREMENT primary key, a
# secondary index), order_items (a FOREIGN KEY to orders), events
# (partitioned by RANGE, three partitions) and live, which takes writes all
# along. The tool under test backs it up and exports it (--prepare --export;
# with RT_EXPORT=mariabackup, mariabackup --prepare --export writes the .cfg
# files and the test xtrabackup_tabledefs.pmap from SHOW CREATE TABLE).
# Then, on the live source:
#   - orders and order_items are dropped and restored while live takes writes:
#     their CHECKSUM TABLE equals the backup time's, CHECK TABLE passes, live
#     keeps growing and stays consistent, no foreign key is reported;
#   - events (partitioned) has rows changed and is restored over its live
#     self (same definition): its checksum is the backup's again;
#   - orders changed is restored beside itself (--rename): orders keeps its
#     changes, orders_restored equals the backup;
#   - order_items restored while its parents are gone: a warning names the
#     foreign key and counts the orphans;
#   - refused, nothing changed, exit status 1: a table not in the backup, a
#     live table whose definition differs, a subpartitioned table, a backup
#     without --export, a user without ALTER (the message names the privilege);
#   - a DATA DIRECTORY table dropped and restored into its directory (a new
#     .isl names the file there), then changed and restored over itself;
#   - a table whose names the datadir encodes (`my-db`.`t-1`), a partitioned
#     table created under another name, a failure part-way (a damaged .cfg:
#     the table created by the run is dropped, a live one is left discarded
#     with the command to retry, which works), a table locked by another
#     session (the wait ends at --lock-wait-timeout, the table unchanged).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "--restore-tables is ours (mariabackup has no such command)"

server_start src
sql src "CREATE DATABASE shop; USE shop;
CREATE TABLE orders (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(40) NOT NULL,
  total DECIMAL(10,2), KEY k_customer (customer)) ENGINE=InnoDB;
CREATE TABLE order_items (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, order_id INT NOT NULL, sku VARCHAR(20),
  qty INT NOT NULL, CONSTRAINT fk_items_order FOREIGN KEY (order_id) REFERENCES orders (id)) ENGINE=InnoDB;
CREATE TABLE events (id INT NOT NULL, at DATE NOT NULL, note VARCHAR(40), PRIMARY KEY (id, at)) ENGINE=InnoDB
  PARTITION BY RANGE (YEAR(at)) (PARTITION p2023 VALUES LESS THAN (2024), PARTITION p2024 VALUES LESS THAN (2025),
  PARTITION pmax VALUES LESS THAN MAXVALUE);
CREATE TABLE live (id INT NOT NULL AUTO_INCREMENT PRIMARY KEY, v INT) ENGINE=InnoDB;
INSERT INTO orders (customer, total) SELECT CONCAT('c', seq % 50), seq / 3 FROM seq_1_to_3000;
INSERT INTO order_items (order_id, sku, qty) SELECT 1 + seq % 3000, CONCAT('sku', seq), 1 + seq % 7 FROM seq_1_to_9000;
INSERT INTO events SELECT seq, '2023-01-01' + INTERVAL seq DAY, CONCAT('e', seq) FROM seq_1_to_1000;
INSERT INTO live (v) SELECT seq FROM seq_1_to_100;
CREATE TABLE sub (id INT NOT NULL, d DATE NOT NULL) ENGINE=InnoDB PARTITION BY RANGE (YEAR(d))
  SUBPARTITION BY HASH (id) SUBPARTITIONS 2 (PARTITION p0 VALUES LESS THAN (2024), PARTITION p1 VALUES LESS THAN MAXVALUE);
INSERT INTO sub SELECT seq, '2023-06-01' + INTERVAL seq DAY FROM seq_1_to_400;
CREATE DATABASE \`my-db\`; CREATE TABLE \`my-db\`.\`t-1\` (id INT PRIMARY KEY, s VARCHAR(10)) ENGINE=InnoDB;
INSERT INTO \`my-db\`.\`t-1\` SELECT seq, 'x' FROM seq_1_to_500;" || fail "creating shop failed"
mkdir -p "$T/ext"; chown "$(_srv_user)" "$T/ext"
sql src "CREATE TABLE shop.remote (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB DATA DIRECTORY='$T/ext';
INSERT INTO shop.remote SELECT seq, MD5(seq) FROM shop.seq_1_to_800" || fail "creating shop.remote failed"

# live takes writes until $T/stop exists
(
    while [[ ! -e $T/stop ]]; do
        sql src "INSERT INTO shop.live (v) VALUES (1)" || break
        sleep 0.05
    done
) &
bg_track $!

sums() { sql src "CHECKSUM TABLE $* EXTENDED" | awk -F'\t' '{ print $1 " " $2 }'; }
check_ok() {
    local bad
    bad=$(sql src "CHECK TABLE $* EXTENDED" | awk -F'\t' '$3 == "error" || ($3 == "status" && $4 != "OK")')
    [[ -z $bad ]] || fail "CHECK TABLE: $bad"
}

backup_sums=$(sums shop.orders, shop.order_items, shop.events)
remote_sum=$(sums shop.remote)
xb_backup src "$T/bk"
assert_ok "$XB_RC" "$XB_ERR" "backup"

# The export: ours (--prepare --export) by default; RT_EXPORT=mariabackup
# takes mariabackup's .cfg files and writes xtrabackup_tabledefs.pmap from the
# source's SHOW CREATE TABLE, as our export records them (info/tabledefs.h).
write_tabledefs() {
    local out=$1 path name def n=0
    {
        echo "xtrabackup-tabledefs 1"
        # the file name (sorted) and the SQL name of each table
        while read -r path name; do
            def=$(mariadb --defaults-file="$src_CNF" -N -B -r -e "SHOW CREATE TABLE $name" | sed '1s/^[^\t]*\t//')
            printf 'def %s %d\n%s\n' "$path" "$(printf '%s' "$def" | wc -c)" "$def"
            n=$((n + 1))
        done < <(printf '%s\n' "my@002ddb/t@002d1 \`my-db\`.\`t-1\`" "shop/events shop.events" "shop/live shop.live" \
                   "shop/order_items shop.order_items" "shop/orders shop.orders" "shop/remote shop.remote" "shop/sub shop.sub" | LC_ALL=C sort)
        echo "end $n"
    } > "$out"
}
if [[ ${RT_EXPORT:-xtrabackup} == mariabackup ]]; then
    log "prepare: mariabackup --prepare --export --target-dir=$T/bk"
    mariabackup --prepare --export --target-dir="$T/bk" > "$T/prepare.log" 2>&1 < /dev/null
    assert_ok $? "$T/prepare.log" "mariabackup --prepare --export"
    write_tabledefs "$T/bk/xtrabackup_tabledefs.pmap"
else
    xb_run --prepare --export --target-dir="$T/bk"
    assert_ok "$XB_RC" "$XB_ERR" "--prepare --export"
fi
assert_file "$T/bk/shop/orders.cfg"
assert_file "$T/bk/shop/events#P#pmax.cfg"
assert_file "$T/bk/xtrabackup_tabledefs.pmap"
assert_eq "backup_type = log-applied" "$(grep backup_type "$T/bk/xtrabackup_checkpoints")" "the backup is prepared"

restore() { xb_run --defaults-file="$src_CNF" --target-dir="$T/bk" "$@"; }
live_rows() { sql src "SELECT COUNT(*) FROM shop.live"; }

# ---- orders and order_items dropped, restored while live takes writes
sql src "DROP TABLE shop.order_items, shop.orders" || fail "dropping failed"
before_live=$(live_rows)
restore --restore-tables=shop.orders,shop.order_items
assert_ok "$XB_RC" "$XB_ERR" "restore of orders and order_items"
assert_eq "$(grep -v events <<<"$backup_sums")" "$(sums shop.orders, shop.order_items)" "restored tables equal the backup"
check_ok shop.orders, shop.order_items
assert_contains "$XB_ERR" "restored: shop.orders \([0-9]+ rows" "a summary line for orders"
assert_contains "$XB_ERR" "restored: shop.order_items \(9000 rows" "a summary line for order_items"
assert_contains "$XB_ERR" "foreign key .fk_items_order.: every row" "the foreign key checked"
assert_not_contains "$XB_ERR" "have no parent row" "no orphans"
assert_eq "3000" "$(sql src "SELECT COUNT(*) FROM shop.orders FORCE INDEX (k_customer) WHERE customer LIKE 'c%'")" \
    "the secondary index of orders after the import"
next=$(sql src "SELECT AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = 'shop' AND TABLE_NAME = 'orders'")
[[ $next -gt 3000 ]] || fail "orders' AUTO_INCREMENT after the import is $next"
ls "$src_DATADIR/shop" | grep -E '\.cfg$|xbrestore' && fail "files left in the datadir"
assert_eq "$(stat -c '%U:%G %a' "$src_DATADIR/shop/live.ibd")" "$(stat -c '%U:%G %a' "$src_DATADIR/shop/orders.ibd")" \
    "the placed .ibd has the owner and mode of the server's own files"
sleep 1
[[ $(live_rows) -gt $before_live ]] || fail "shop.live stopped taking writes"
log "orders and order_items restored; live kept its writes"

# ---- a DATA DIRECTORY table: dropped and restored into its directory, then changed and restored over itself
if [[ ${RT_EXPORT:-xtrabackup} == xtrabackup ]]; then   # mariabackup exports no DATA DIRECTORY table
    sql src "DROP TABLE shop.remote" || fail "dropping shop.remote"
    restore --restore-tables=shop.remote
    assert_ok "$XB_RC" "$XB_ERR" "restore of the DATA DIRECTORY table"
    assert_eq "$remote_sum" "$(sums shop.remote)" "shop.remote equals the backup"
    assert_file "$T/ext/shop/remote.ibd"
    [[ -e $src_DATADIR/shop/remote.ibd ]] && fail "shop.remote's .ibd was put into the datadir"
    [[ $(sql src "SHOW CREATE TABLE shop.remote") == *"DATA DIRECTORY='$T/ext/'"* ]] || fail "shop.remote lost its DATA DIRECTORY"
    sql src "UPDATE shop.remote SET v = 'changed' WHERE id < 50" || fail "changing shop.remote"
    restore --restore-tables=shop.remote
    assert_ok "$XB_RC" "$XB_ERR" "restore of the DATA DIRECTORY table over itself"
    assert_eq "$remote_sum" "$(sums shop.remote)" "shop.remote equals the backup again"
    check_ok shop.remote
    ls "$T/ext/shop" | grep -E '\.cfg$|xbrestore' && fail "files left in the DATA DIRECTORY"
    log "a DATA DIRECTORY table restored into its directory, twice"
fi

# ---- names the datadir encodes: `my-db`.`t-1` is my@002ddb/t@002d1
tsum=$(sums '`my-db`.`t-1`' | awk '{ print $2 }')
sql src 'DROP TABLE `my-db`.`t-1`' || fail "dropping my-db.t-1"
restore '--restore-tables=`my-db`.`t-1`'
assert_ok "$XB_RC" "$XB_ERR" "restore of my-db.t-1"
assert_eq "$tsum" "$(sums '`my-db`.`t-1`' | awk '{ print $2 }')" "my-db.t-1 equals the backup"
assert_contains "$XB_ERR" "from $T/bk/my@002ddb/t@002d1.ibd: 500 rows" "the encoded file names"

# ---- events (partitioned), changed, restored over itself
sql src "DELETE FROM shop.events WHERE id % 3 = 0; UPDATE shop.events SET note = 'changed' WHERE id < 100;
    INSERT INTO shop.events VALUES (5000, '2030-01-01', 'new')" || fail "changing events failed"
restore --restore-tables=shop.events
assert_ok "$XB_RC" "$XB_ERR" "restore of the partitioned events"
assert_eq "$(grep events <<<"$backup_sums")" "$(sums shop.events)" "events equals the backup"
check_ok shop.events
assert_eq "p2023 364
p2024 366
pmax 270" "$(sql src "SELECT PARTITION_NAME, TABLE_ROWS FROM information_schema.PARTITIONS WHERE TABLE_SCHEMA = 'shop'
    AND TABLE_NAME = 'events' ORDER BY 1" | awk '{ print $1 }' | paste -d' ' - <(sql src "SELECT COUNT(*) FROM shop.events PARTITION (p2023)
    UNION ALL SELECT COUNT(*) FROM shop.events PARTITION (p2024) UNION ALL SELECT COUNT(*) FROM shop.events PARTITION (pmax)"))" \
    "each partition holds its rows"
[[ -z $(sql src "SHOW TABLES FROM shop LIKE 'xbrt%'") ]] || fail "work tables left"
log "events restored through its partitions"

# ---- --rename beside a changed live table
sql src "UPDATE shop.orders SET total = 0 WHERE id < 50; INSERT INTO shop.orders (customer) VALUES ('late')" || fail "changing orders"
changed=$(sums shop.orders)
restore --restore-tables=shop.orders --rename=shop.orders:shop.orders_restored
assert_ok "$XB_RC" "$XB_ERR" "restore of orders as orders_restored"
assert_eq "$changed" "$(sums shop.orders)" "the live orders is untouched"
assert_eq "$(grep 'shop.orders ' <<<"$backup_sums" | awk '{ print $2 }')" "$(sums shop.orders_restored | awk '{ print $2 }')" \
    "orders_restored equals the backup's orders"
check_ok shop.orders_restored
log "orders restored beside itself as orders_restored"

# ---- orphans reported: order_items restored while some of its parents are gone
sql src "SET foreign_key_checks = 0; DELETE FROM shop.orders WHERE id <= 10" || fail "deleting orders"
restore --restore-tables=shop.order_items
assert_ok "$XB_RC" "$XB_ERR" "restore of order_items alone"
assert_contains "$XB_ERR" "Warning: foreign key .fk_items_order.: 30 rows of .shop.\..order_items. have no parent row" \
    "the orphans counted and the constraint named"

# ---- a partitioned table the server lacks, created under another name
restore --restore-tables=shop.events --rename=shop.events:shop.events_copy
assert_ok "$XB_RC" "$XB_ERR" "restore of events as events_copy"
assert_eq "$(grep events <<<"$backup_sums" | awk '{ print $2 }')" "$(sums shop.events_copy | awk '{ print $2 }')" \
    "events_copy equals the backup's events"
check_ok shop.events_copy

# ---- a failure part-way: order_items' .cfg is damaged in a copy of the backup
cp -a "$T/bk" "$T/bad"
head -c 64 "$T/bk/shop/order_items.cfg" > "$T/bad/shop/order_items.cfg"
sql src "DROP TABLE shop.orders_restored, shop.events_copy" || fail "dropping the copies"
sql src "DROP TABLE shop.order_items" || fail "dropping order_items"
xb_run --defaults-file="$src_CNF" --target-dir="$T/bad" --restore-tables=shop.orders_x,shop.order_items \
    --rename=shop.orders_x:shop.orders_x2 2>/dev/null
assert_eq 1 "$XB_RC" "a table not in the backup, with a rename: exit status"
xb_run --defaults-file="$src_CNF" --target-dir="$T/bad" --restore-tables=shop.orders,shop.order_items,shop.events \
    --rename=shop.orders:shop.orders_restored
assert_eq 1 "$XB_RC" "a failed import: exit status"
assert_contains "$XB_ERR" "restored: shop.orders as .shop.\..orders_restored." "the table restored before the failure"
assert_contains "$XB_ERR" "not restored: shop.order_items: .*created by this run and is dropped again" \
    "the failed table, created by us, is dropped"
assert_contains "$XB_ERR" "not restored: shop.events: not attempted" "the table after the failure"
[[ -z $(sql src "SHOW TABLES FROM shop LIKE 'order_items'") ]] || fail "the failed order_items was left"
ls "$src_DATADIR/shop" | grep -E '^order_items\.|xbrestore' && fail "files of the failed import left in the datadir"
# the same failure over a live table: it stays discarded, the message says how to retry, the retry works
restore --restore-tables=shop.order_items
assert_ok "$XB_RC" "$XB_ERR" "order_items restored again"
xb_run --defaults-file="$src_CNF" --target-dir="$T/bad" --restore-tables=shop.order_items
assert_eq 1 "$XB_RC" "a failed import over a live table: exit status"
assert_contains "$XB_ERR" "is left with its tablespace discarded .*retry with xtrabackup --restore-tables=shop.order_items --target-dir=$T/bad" \
    "the discarded table and the retry named"
restore --restore-tables=shop.order_items
assert_ok "$XB_RC" "$XB_ERR" "the retry of order_items"
assert_eq "$(grep order_items <<<"$backup_sums")" "$(sums shop.order_items)" "order_items after the retry"
log "a failure part-way: created table dropped, discarded table named, retry works"

# ---- a metadata lock held by another session: the wait ends at --lock-wait-timeout, the table is unchanged
lock_holder src mdl "LOCK TABLES shop.orders READ;"
sleep 1
orders_before=$(sums shop.orders)
start=$(date +%s)
restore --restore-tables=shop.orders --lock-wait-timeout=2
assert_eq 1 "$XB_RC" "a table locked by another session: exit status"
[[ $(( $(date +%s) - start )) -lt 60 ]] || fail "the locked restore took $(( $(date +%s) - start )) s"
assert_contains "$XB_ERR" "not restored: shop.orders: .*Lock wait timeout exceeded.*the live table .shop.\..orders. is unchanged" \
    "the lock wait ended and the table is named unchanged"
touch "$T/mdl.release"
wait "$HOLDER_PID" 2>/dev/null
assert_eq "$orders_before" "$(sums shop.orders)" "the locked table is untouched"
log "a metadata lock: the restore gave up after --lock-wait-timeout"

# ---- refusals: nothing changes, exit status 1
all_before=$(checksum_all src | grep -v '^shop.live ')
restore --restore-tables=shop.orders,shop.nosuch
assert_eq 1 "$XB_RC" "a table not in the backup: exit status"
assert_contains "$XB_ERR" "Error: \[0*17\] table shop.nosuch is not in the backup $T/bk" "the missing table named"

restore --restore-tables=shop.sub
assert_eq 1 "$XB_RC" "a subpartitioned table: exit status"
assert_contains "$XB_ERR" "shop.sub is subpartitioned: --restore-tables cannot exchange subpartitions" "subpartitions refused"

sql src "ALTER TABLE shop.order_items ADD COLUMN extra INT" || fail "altering order_items"
items_before=$(sums shop.order_items)
restore --restore-tables=shop.orders,shop.order_items
assert_eq 1 "$XB_RC" "a live table that differs: exit status"
assert_contains "$XB_ERR" "differs from the backup's definition of shop.order_items at line 6: live '  .extra. int\(11\) DEFAULT NULL,'" \
    "the first differing line shown"
assert_contains "$XB_ERR" "HINT: .*--rename=shop.order_items:shop.order_items_restored" "the rename recipe suggested"
assert_eq "$items_before" "$(sums shop.order_items)" "the differing live table is untouched"
sql src "ALTER TABLE shop.order_items DROP COLUMN extra" || fail "altering order_items back"

mkdir "$T/noexport"
cp "$T/bk/xtrabackup_checkpoints" "$T/noexport/"
xb_run --defaults-file="$src_CNF" --target-dir="$T/noexport" --restore-tables=shop.orders
assert_eq 1 "$XB_RC" "a backup without --export: exit status"
assert_contains "$XB_ERR" "is not exported: it has no xtrabackup_tabledefs.pmap" "the backup is refused"
assert_contains "$XB_ERR" "HINT: run xtrabackup --prepare --export --target-dir=$T/noexport first" "the hint"

sql src "CREATE USER rt@localhost; GRANT SELECT, CREATE, DROP, INSERT ON shop.* TO rt@localhost" || fail "creating rt"
restore --user=rt --restore-tables=shop.orders
assert_eq 1 "$XB_RC" "a user without ALTER: exit status"
assert_contains "$XB_ERR" "missing required privilege ALTER on .shop.\..orders." "the privilege named"
assert_eq "$all_before" "$(checksum_all src | grep -v '^shop.live ')" "the refused runs changed nothing"

touch "$T/stop"
sleep 0.3
check_ok shop.live
log "refusals: missing table, differing definition, no export, no ALTER privilege"
