#!/usr/bin/env bash
# export_tables.sh - --prepare --export of a partial backup taken under load:
# the tables import into another server by the documented recipe and equal
# the source at the backup's point, without the changes of a transaction that
# was open then; the .cfg files equal mariabackup's for the same backup; the
# exported backup still restores whole; an interrupted export is refused until
# it is run again.
#
# The source has, in `shop`: orders (AUTO_INCREMENT, a secondary index),
# items (a FOREIGN KEY to orders), a table partitioned by RANGE, a DATA
# DIRECTORY table, a ROW_FORMAT=COMPRESSED and a page_compressed table, a
# MyISAM and an Aria table; `my-db`.`t-1` (names in the filename encoding);
# and the bank workload (`bank`, transfers running through the backup). A
# session holds a transaction open through the backup that inserted rows into
# orders, changed the partitioned table and deleted from the DATA DIRECTORY
# table. shop and my-db take no other write, so their CHECKSUM TABLE (read by
# another session) is the one at the backup's point.
#   1. --databases="mysql shop my@002ddb bank", then --prepare --export (the
#      suite's partial tests export backups without mysql): a .cfg beside every
#      .ibd and none for MyISAM and Aria, a definition per InnoDB table in
#      xtrabackup_tabledefs.pmap equal to the source's SHOW CREATE TABLE,
#      the source's DATA DIRECTORY file untouched, --verify passes.
#   2. the same backup exported by mariabackup: every .cfg equal to ours field
#      by field (but the hostname).
#   3. a fresh server imports every InnoDB table (CREATE from the recorded
#      definition, DISCARD, copy .ibd and .cfg, IMPORT; a partition through a
#      plain table and EXCHANGE PARTITION; the DATA DIRECTORY table in its
#      own directory; MyISAM and Aria files copied): checksums equal the
#      source's, the bank tables the restored backup's (4.), no row of the open
#      transaction, the bank invariant holds, CHECK TABLE passes, orders'
#      AUTO_INCREMENT goes on past its rows; mariabackup's orders.cfg imports
#      the same way.
#  3b. another fresh server gets the same tables from --restore-tables (the
#      MyISAM and Aria ones as files): the same checksums; a MyISAM table it
#      has is not replaced (refused), an Aria one goes beside (--rename).
#   4. the exported backup restored whole (--copy-back): the same checksums,
#      no row of the open transaction.
#   5. --prepare --export again on the exported backup (--target-dir
#      relative): the same .cfg files.
#   6. an export whose server fails (--mariadbd=/bin/false): error, the
#      backup is refused by --verify, --copy-back and --prepare without
#      --export, naming the command that completes it; running it completes
#      it. A --mariadbd that is not a program is refused before any change.
# With XB=mariabackup the oracle takes and exports the backup (its parts that
# check our own files are left out).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

if [[ -z ${XB_CFG:-} ]]; then
    make -C "$TOP" --no-print-directory -s build/xb_cfg >/dev/null || fail "building build/xb_cfg failed"
    XB_CFG=$TOP/build/xb_cfg
fi
build_xb_load || fail "building xb_load failed"
ACCOUNTS=500
server_start src
mkdir -p "$T/ext"
chown "$(_srv_user)" "$T/ext"
sql src "CREATE DATABASE test; USE test; CREATE TABLE test.t (id INT) ENGINE=InnoDB;
  CREATE DATABASE shop;
  CREATE TABLE shop.orders (id INT AUTO_INCREMENT PRIMARY KEY, customer VARCHAR(40), total DECIMAL(10,2),
    KEY k_customer (customer)) ENGINE=InnoDB;
  INSERT INTO shop.orders (customer, total) SELECT CONCAT('c', seq % 97), seq / 3 FROM seq_1_to_3000;
  CREATE TABLE shop.items (id INT PRIMARY KEY, order_id INT NOT NULL, sku VARCHAR(20),
    FOREIGN KEY fk_order (order_id) REFERENCES shop.orders (id)) ENGINE=InnoDB;
  INSERT INTO shop.items SELECT seq, 1 + seq % 3000, CONCAT('sku', seq) FROM seq_1_to_6000;
  CREATE TABLE shop.p (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB
    PARTITION BY RANGE (id) (PARTITION p0 VALUES LESS THAN (1000), PARTITION p1 VALUES LESS THAN (2000),
    PARTITION p2 VALUES LESS THAN MAXVALUE);
  INSERT INTO shop.p SELECT seq, MD5(seq) FROM seq_1_to_3000;
  CREATE TABLE shop.dd (id INT PRIMARY KEY, v INT) ENGINE=InnoDB DATA DIRECTORY='$T/ext';
  INSERT INTO shop.dd SELECT seq, seq FROM seq_1_to_500;
  CREATE TABLE shop.z (id INT PRIMARY KEY, s VARCHAR(200)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
  INSERT INTO shop.z SELECT seq, REPEAT('z', seq % 200) FROM seq_1_to_2000;
  CREATE TABLE shop.pc (id INT PRIMARY KEY, s VARCHAR(200)) ENGINE=InnoDB PAGE_COMPRESSED=1;
  INSERT INTO shop.pc SELECT seq, REPEAT('p', seq % 200) FROM seq_1_to_2000;
  CREATE TABLE shop.msg (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=MyISAM;
  INSERT INTO shop.msg SELECT seq, MD5(seq) FROM seq_1_to_1000;
  CREATE TABLE shop.ar (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=Aria;
  INSERT INTO shop.ar SELECT seq, MD5(seq) FROM seq_1_to_1000;
  CREATE DATABASE \`my-db\`;
  CREATE TABLE \`my-db\`.\`t-1\` (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=InnoDB;
  INSERT INTO \`my-db\`.\`t-1\` SELECT seq, MD5(seq) FROM seq_1_to_1000;" || fail "setup failed"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
INNODB="shop.orders shop.items shop.p shop.dd shop.z shop.pc my-db.t-1"

# the transaction open through the backup
lock_holder src open "USE test; BEGIN;
  INSERT INTO shop.orders (customer, total) SELECT 'UNCOMMITTED', seq FROM seq_1_to_300;
  UPDATE shop.p SET v = 'UNCOMMITTED' WHERE id % 10 = 0;
  DELETE FROM shop.dd WHERE id <= 100;
  SELECT 'open';"
wait_for 30 grep -q open "$T/open.out" || fail "the open transaction did not start: $(cat "$T/open.out")"
STOP=$T/stop
xb_load src --accounts=$ACCOUNTS --threads=2 --seconds=600 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
bg_track $!
at_exit "touch $STOP"
sleep 1

sums() { checksum_all "$1" | grep -E '^(shop|my-db)\.' | grep -vE '^shop\.(msg|ar|orders_mb) '; }
SRC_SUMS=$(sums src)
[[ $(wc -l <<< "$SRC_SUMS") -eq 7 ]] || fail "expected 7 checksummed InnoDB tables, got: $SRC_SUMS"
MYISAM_SUMS=$(checksum_all src | grep -E '^shop\.(msg|ar) ')

# ---------------------------------------------------------------- 1. export
log "--- 1. a partial backup under load, exported"
xb_backup src "$T/b" --databases="mysql shop my@002ddb bank"
assert_ok "$XB_RC" "$XB_ERR" "partial backup"
# what the rest needs of the source, then the source stopped: from now on its
# DATA DIRECTORY file changes only if an export writes into it
mkdir -p "$T/defs"
for t in shop.orders shop.items shop.p shop.dd shop.z shop.pc '`my-db`.`t-1`' bank.accounts bank.ledger; do
    sql src "SHOW CREATE TABLE $t" | cut -f2- | sed 's/\\n/\n/g' > "$T/defs/$t.sql" || fail "SHOW CREATE TABLE $t"
done
touch "$STOP" "$T/open.release"   # (the open transaction ends after the backup: it does not matter now)
wait_for 30 grep -q "holder open alive" "$T/open.out" || fail "the session of the open transaction did not end"
server_stop src
EXT_MD5=$(md5sum < "$T/ext/shop/dd.ibd")
cp -a "$T/b" "$T/b-mb"
xb_run --prepare --export --target-dir="$T/b"
assert_ok "$XB_RC" "$XB_ERR" "--prepare --export"
[[ $XB_KIND == xtrabackup ]] && assert_contains "$XB_ERR" "the server on the backup shut down" "the export's server"
# mariabackup exports no DATA DIRECTORY table (its .isl names the source's file)
DD=shop/dd
[[ $XB_KIND == mariabackup ]] && DD=
for f in shop/orders shop/items 'shop/p#P#p0' 'shop/p#P#p1' 'shop/p#P#p2' $DD shop/z shop/pc my@002ddb/t@002d1 \
         bank/accounts bank/ledger; do
    assert_file "$T/b/$f.cfg"
done
for f in shop/msg shop/ar; do
    [[ -e $T/b/$f.cfg ]] && fail "$f.cfg written for a table that is not InnoDB"
done
if [[ $XB_KIND == xtrabackup ]]; then
    assert_eq "$EXT_MD5" "$(md5sum < "$T/ext/shop/dd.ibd")" "the source's DATA DIRECTORY file is untouched by the export"
elif [[ $EXT_MD5 != "$(md5sum < "$T/ext/shop/dd.ibd")" ]]; then
    log "NOTE: mariabackup --prepare --export wrote into the source's DATA DIRECTORY file (through the backup's .isl)"
    EXT_MD5=$(md5sum < "$T/ext/shop/dd.ibd")
fi
assert_file "$T/b/shop/dd.isl"
if [[ $XB_KIND == xtrabackup ]]; then
    [[ -e $T/b/xtrabackup_export_pending ]] && fail "xtrabackup_export_pending left after a complete export"
    # the recorded definitions are the source's (but AUTO_INCREMENT=N, which moves)
    defs=$(LC_ALL=C awk '/^def /{ if (name) print name; name=$2; n=$3+1; got=0; next }
                          name && got < n { got += length($0) + 1 }
                          END { if (name) print name }' "$T/b/xtrabackup_tabledefs.pmap" | LC_ALL=C sort | tr '\n' ' ')
    assert_eq "bank/accounts bank/ledger my@002ddb/t@002d1 mysql/gtid_slave_pos mysql/innodb_index_stats mysql/innodb_table_stats mysql/transaction_registry shop/dd shop/items shop/orders shop/p shop/pc shop/z " \
        "$defs" "the tables of xtrabackup_tabledefs.pmap"
    for t in orders items p z dd; do
        want=$(sed 's/ AUTO_INCREMENT=[0-9]*//' "$T/defs/shop.$t.sql")
        got=$(LC_ALL=C awk -v w="shop/$t" '/^def /{ on = ($2 == w); n = $3 + 1; got = 0; next }
                                           on && got < n { got += length($0) + 1; print }' \
              "$T/b/xtrabackup_tabledefs.pmap" | sed 's/ AUTO_INCREMENT=[0-9]*//')
        assert_eq "$want" "$got" "the recorded definition of shop.$t"
    done
    xb_run --verify --target-dir="$T/b"
    assert_ok "$XB_RC" "$XB_ERR" "--verify of the exported backup"
fi

# ---------------------------------------------------------------- 2. mariabackup's .cfg
log "--- 2. the same backup exported by mariabackup: the .cfg files"
mariabackup --prepare --export --target-dir="$T/b-mb" > "$T/mb-export.log" 2>&1 \
    || { tail -n 20 "$T/mb-export.log" >&2; fail "mariabackup --prepare --export failed"; }
n=0
while IFS= read -r -d '' ours; do
    rel=${ours#"$T/b/"}
    if [[ $rel == shop/dd.cfg && ! -f $T/b-mb/$rel ]]; then
        log "mariabackup --export leaves out DATA DIRECTORY tables: no $rel to compare"
        continue
    fi
    [[ -f $T/b-mb/$rel ]] || fail "mariabackup wrote no $rel"
    "$XB_CFG" cmp "$ours" "$T/b-mb/$rel" --ignore-hostname > "$T/cmp.out" 2>&1 \
        || fail "$rel differs from mariabackup's: $(cat "$T/cmp.out")"
    n=$((n + 1))
done < <(find "$T/b" -name '*.cfg' -print0)
[[ $n -ge 10 ]] || fail "only $n .cfg files compared"
log "$n .cfg files equal mariabackup's field by field (but the hostname)"
if [[ $EXT_MD5 != "$(md5sum < "$T/ext/shop/dd.ibd")" ]]; then
    log "NOTE: mariabackup --prepare --export wrote into the source's DATA DIRECTORY file (through the backup's .isl)"
    EXT_MD5=$(md5sum < "$T/ext/shop/dd.ibd")
fi

# ---------------------------------------------------------------- 3. import
log "--- 3. every InnoDB table imported into a fresh server by the recipe"
server_start dst
user=$(_srv_user)
mkdir -p "$T/dst-ext"
chown "$user" "$T/dst-ext"
# the definitions as the source has them (the recipe: your schema, or xtrabackup_tabledefs.pmap)
create() { cat "$T/defs/$1.sql"; }
sql dst "CREATE DATABASE shop; CREATE DATABASE \`my-db\`; CREATE DATABASE bank" || fail "databases on dst"
for t in orders items p z pc; do
    sql dst "SET foreign_key_checks = 0; USE shop; $(create "shop.$t")" || fail "creating shop.$t on dst"
done
sql dst "USE shop; $(create shop.dd | sed "s|$T/ext|$T/dst-ext|")" || fail "creating shop.dd on dst"
sql dst "USE \`my-db\`; $(create '`my-db`.`t-1`')" || fail "creating my-db.t-1 on dst"
for t in accounts ledger; do
    sql dst "USE bank; $(create "bank.$t")" || fail "creating bank.$t on dst"
done
for i in 0 1 2; do
    sql dst "CREATE TABLE shop.p_p$i LIKE shop.p; ALTER TABLE shop.p_p$i REMOVE PARTITIONING" || fail "shop.p_p$i"
done
# import DB TABLE FILE_STEM [DIR] - discard, copy FILE_STEM.ibd/.cfg of the backup, import
import() {
    local db=$1 tb=$2 stem=$3 dir=${4:-$(datadir_of dst)/$5}
    sql dst "SET foreign_key_checks = 0; ALTER TABLE \`$db\`.\`$tb\` DISCARD TABLESPACE" || fail "discarding $db.$tb"
    cp "$T/b/$stem.ibd" "$dir/" && cp "$T/b/$stem.cfg" "$dir/" || fail "copying $stem"
    chown "$user" "$dir/"*
    sql dst "SET foreign_key_checks = 0; ALTER TABLE \`$db\`.\`$tb\` IMPORT TABLESPACE" > "$T/import.out" 2>&1 \
        || fail "importing $db.$tb: $(cat "$T/import.out")"
}
D=$(datadir_of dst)
for t in orders items z pc; do import shop $t "shop/$t" "$D/shop"; done
import my-db t-1 "my@002ddb/t@002d1" "$D/my@002ddb"
import bank accounts bank/accounts "$D/bank"
import bank ledger bank/ledger "$D/bank"
if [[ -n $DD ]]; then
    # DISCARD removes the .isl: the files go into the table's DATA DIRECTORY and a
    # new .isl names the .ibd there
    sql dst "ALTER TABLE shop.dd DISCARD TABLESPACE" || fail "discarding shop.dd"
    cp "$T/b/shop/dd.ibd" "$T/b/shop/dd.cfg" "$T/dst-ext/shop/" || fail "copying shop/dd"
    printf '%s' "$T/dst-ext/shop/dd.ibd" > "$D/shop/dd.isl"
    chown "$user" "$T/dst-ext/shop/"* "$D/shop/dd.isl"
    sql dst "ALTER TABLE shop.dd IMPORT TABLESPACE" > "$T/import.out" 2>&1 || fail "importing shop.dd: $(cat "$T/import.out")"
    [[ $(sql dst "SHOW CREATE TABLE shop.dd") == *"DATA DIRECTORY='$T/dst-ext/'"* ]] || fail "shop.dd lost its DATA DIRECTORY"
else
    sql dst "DROP TABLE shop.dd; CREATE TABLE shop.dd LIKE shop.z; DROP TABLE shop.dd" || fail "dropping shop.dd on dst"
fi
for i in 0 1 2; do
    mv "$T/b/shop/p#P#p$i.ibd" "$T/b/shop/p_p$i.ibd"; mv "$T/b/shop/p#P#p$i.cfg" "$T/b/shop/p_p$i.cfg"
    import shop "p_p$i" "shop/p_p$i" "$D/shop"
    mv "$T/b/shop/p_p$i.ibd" "$T/b/shop/p#P#p$i.ibd"; mv "$T/b/shop/p_p$i.cfg" "$T/b/shop/p#P#p$i.cfg"
    sql dst "ALTER TABLE shop.p EXCHANGE PARTITION p$i WITH TABLE shop.p_p$i; DROP TABLE shop.p_p$i" \
        || fail "exchanging partition p$i"
done
if grep -E "Error opening .*\.cfg|will attempt to import without schema verification" "$(errlog_of dst)"; then
    fail "an import went on without its .cfg"
fi
assert_eq "$(grep -v "^shop.dd ${DD:+x}" <<< "$SRC_SUMS")" "$(sums dst)" "the imported tables' checksums equal the source's at the backup's point"
# MyISAM and Aria tables have no tablespace to import: their files are copied whole
cp "$T/b/shop/msg."* "$T/b/shop/ar."* "$D/shop/" && chown "$user" "$D/shop/"* || fail "copying the MyISAM and Aria files"
sql dst "FLUSH TABLES" || fail "FLUSH TABLES on dst"
assert_eq "$MYISAM_SUMS" "$(checksum_all dst | grep -E '^shop\.(msg|ar) ')" \
    "the MyISAM and Aria tables copied from the backup"
BANK_SUMS=$(checksum_all dst | grep '^bank\.')
assert_eq 0 "$(sql dst "SELECT COUNT(*) FROM shop.orders WHERE customer = 'UNCOMMITTED'")" "no row of the open transaction"
assert_eq 0 "$(sql dst "SELECT COUNT(*) FROM shop.p WHERE v = 'UNCOMMITTED'")" "no change of the open transaction"
[[ -n $DD ]] && assert_eq 500 "$(sql dst "SELECT COUNT(*) FROM shop.dd")" "no delete of the open transaction"
xb_load dst --accounts=$ACCOUNTS check > "$T/check.out" 2>&1 || fail "bank invariant on the imported tables: $(cat "$T/check.out")"
log "bank after the import: $(cat "$T/check.out")"
check_all_tables dst
sql dst "INSERT INTO shop.orders (customer, total) VALUES ('after', 1)" || fail "insert after the import"
[[ $(sql dst "SELECT MAX(id) FROM shop.orders") -gt 3000 ]] || fail "orders' AUTO_INCREMENT did not go on past its rows"
# mariabackup's files import the same way
sql dst "SET foreign_key_checks = 0; USE shop; $(create shop.orders | sed 's/CREATE TABLE `orders`/CREATE TABLE `orders_mb`/');
  ALTER TABLE shop.orders_mb DISCARD TABLESPACE" || fail "shop.orders_mb"
cp "$T/b-mb/shop/orders.ibd" "$D/shop/orders_mb.ibd"; cp "$T/b-mb/shop/orders.cfg" "$D/shop/orders_mb.cfg"
chown "$user" "$D/shop/"*
sql dst "ALTER TABLE shop.orders_mb IMPORT TABLESPACE" > "$T/import.out" 2>&1 \
    || fail "importing mariabackup's orders: $(cat "$T/import.out")"
assert_eq "$(grep '^shop.orders ' <<< "$SRC_SUMS" | cut -d' ' -f2)" \
    "$(sql dst "CHECKSUM TABLE shop.orders_mb EXTENDED" | cut -f2)" "mariabackup's export of orders, imported"
server_stop dst

# ---------------------------------------------------------------- 3b. --restore-tables
if [[ $XB_KIND == xtrabackup ]]; then
    log "--- 3b. the same tables put into another fresh server by --restore-tables"
    server_start dst2
    sql dst2 "CREATE DATABASE shop; CREATE DATABASE \`my-db\`; CREATE DATABASE bank" || fail "databases on dst2"
    # (shop.dd's DATA DIRECTORY is the source's own directory: restore_tables covers that kind)
    xb_run --defaults-file="$(cnf_of dst2)" --target-dir="$T/b" \
        '--restore-tables=shop.orders,shop.items,shop.p,shop.z,shop.pc,`my-db`.`t-1`,bank.accounts,bank.ledger,shop.msg,shop.ar'
    assert_ok "$XB_RC" "$XB_ERR" "--restore-tables into a fresh server"
    assert_eq "$(grep -v '^shop.dd ' <<< "$SRC_SUMS")" "$(sums dst2)" "the tables --restore-tables put back equal the source's"
    assert_eq "$BANK_SUMS" "$(checksum_all dst2 | grep '^bank\.')" "the bank tables --restore-tables put back"
    assert_eq "$MYISAM_SUMS" "$(checksum_all dst2 | grep -E '^shop\.(msg|ar) ')" "the MyISAM and Aria tables it put back"
    # a MyISAM table the server has is not replaced: refused, nothing changed
    xb_run --defaults-file="$(cnf_of dst2)" --target-dir="$T/b" --restore-tables=shop.msg
    assert_error USAGE "$XB_RC" "$XB_ERR" "--restore-tables of a MyISAM table the server has"
    assert_contains "$XB_ERR" "shop.msg is a MyISAM table the server has: --restore-tables puts one back only where the server lacks it" \
        "the refusal says why"
    xb_run --defaults-file="$(cnf_of dst2)" --target-dir="$T/b" --restore-tables=shop.ar --rename=shop.ar:shop.ar2
    assert_ok "$XB_RC" "$XB_ERR" "--restore-tables of an Aria table beside the live one"
    assert_eq "$(grep '^shop.ar ' <<< "$MYISAM_SUMS" | cut -d' ' -f2)" "$(sql dst2 "CHECKSUM TABLE shop.ar2 EXTENDED" | cut -f2)" \
        "the Aria table restored under another name"
    assert_eq 0 "$(sql dst2 "SELECT COUNT(*) FROM shop.orders WHERE customer = 'UNCOMMITTED'")" \
        "--restore-tables: no row of the open transaction"
    server_stop dst2
fi

# ---------------------------------------------------------------- 4. restore whole
log "--- 4. the exported backup restored whole"
restore_prepared "$T/b" r
assert_eq "$SRC_SUMS" "$(sums r)" "the exported backup restored: checksums"
assert_eq 0 "$(sql r "SELECT COUNT(*) FROM shop.orders WHERE customer = 'UNCOMMITTED'")" "restored: no row of the open transaction"
# the restored backup is the source at the backup's binlog position: the bank
# tables, written through the backup, were imported as they are there
assert_eq "$BANK_SUMS" "$(checksum_all r | grep '^bank\.')" "the imported bank tables equal the restored backup's"
server_stop r
rm -rf "${T:?}/r"

[[ $XB_KIND == xtrabackup ]] || { log "PASS (oracle: the parts about our own files left out)"; exit 0; }

# ---------------------------------------------------------------- 5. again
log "--- 5. --prepare --export again"
find "$T/b" -name '*.cfg' -print0 | LC_ALL=C sort -z | xargs -0 md5sum > "$T/cfg.before"
# (a relative --target-dir: the server on the backup takes its paths absolute)
log "run (in $T): $(basename "$XB") --prepare --export --target-dir=b"
(cd "$T" && "$XB" --prepare --export --target-dir=b > "$T/rel.out" 2> "$T/rel.err" < /dev/null)
assert_ok "$?" "$T/rel.err" "a second --prepare --export, with a relative --target-dir"
find "$T/b" -name '*.cfg' -print0 | LC_ALL=C sort -z | xargs -0 md5sum > "$T/cfg.after"
assert_eq "$(cat "$T/cfg.before")" "$(cat "$T/cfg.after")" "the .cfg files of a second export"

# ---------------------------------------------------------------- 6. interrupted
log "--- 6. an export that does not finish"
tree_sums "$T/b" > "$T/tree.before"
xb_run --prepare --export --target-dir="$T/b" --mariadbd="$T/none"
assert_error EXPORT "$XB_RC" "$XB_ERR" "--mariadbd naming no program"
assert_contains "$XB_ERR" "--mariadbd=$T/none is not an executable file" "the message names the option"
assert_eq "$(cat "$T/tree.before")" "$(tree_sums "$T/b")" "a refused --mariadbd changes nothing"
xb_run --prepare --export --target-dir="$T/b" --mariadbd=/bin/false
assert_error EXPORT "$XB_RC" "$XB_ERR" "an export whose server fails"
assert_contains "$XB_ERR" "the server started on the backup ended with status 1 before it was ready" "the failure"
assert_file "$T/b/xtrabackup_export_pending"
assert_file "$T/b/shop/dd.isl"
xb_run --verify --target-dir="$T/b"
assert_error NOT_PREPARED "$XB_RC" "$XB_ERR" "--verify of a half-exported backup"
assert_contains "$XB_ERR" "run xtrabackup --prepare --export --target-dir=$T/b again" "the hint"
xb_run --prepare --target-dir="$T/b"
assert_error NOT_PREPARED "$XB_RC" "$XB_ERR" "--prepare without --export of a half-exported backup"
mkdir -p "$T/r6"
xb_run --copy-back --target-dir="$T/b" --datadir="$T/r6/data"
assert_error NOT_PREPARED "$XB_RC" "$XB_ERR" "--copy-back of a half-exported backup"
[[ -e $T/r6/data/ibdata1 ]] && fail "--copy-back of a half-exported backup copied files"
xb_run --prepare --export --target-dir="$T/b"
assert_ok "$XB_RC" "$XB_ERR" "the export run again"
assert_contains "$XB_ERR" "an earlier --prepare --export of it did not finish" "the rerun says what it completes"
[[ -e $T/b/xtrabackup_export_pending ]] && fail "xtrabackup_export_pending left after the rerun"
xb_run --verify --target-dir="$T/b"
assert_ok "$XB_RC" "$XB_ERR" "--verify after the rerun"
log "PASS"
