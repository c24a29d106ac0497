#!/usr/bin/env bash
# partial_backup.sh - partial backups (--databases, --databases-file,
# --databases-exclude, --tables, --tables-file, --tables-exclude) keep exactly
# the files mariabackup 10.11 keeps, and prepare and restore.
#
# The source has InnoDB, MyISAM, Aria and partitioned tables in `shop`, two
# InnoDB tables in `my-db` (my@002ddb in the datadir, table `t-1` is t@002d1),
# the bank workload writing to `bank` during every backup, and a loop of
# CREATE/RENAME/ALTER/DROP in `churn` (always left out: DDL on filtered-out
# tables must not fail the backup). shop and my-db are not written after the
# setup, so their CHECKSUM TABLE is the one at the backup's point.
#   1. --databases="mysql shop my@002ddb": the files of the database
#      directories are exactly shop's, my-db's and mysql's, with ibdata1 and
#      the redo copy, xtrabackup_info says partial = Y; prepared by ours (the
#      bank's and churn's redo is passed over, with a warning) and restored into
#      a fresh server: shop and my-db have the source's checksums, bank's tables
#      are missing there (no .frm). A copy is prepared by mariabackup.
#   2. --tables with a regex list matching a table and a partitioned table: no
#      db.opt, no mysql/, every partition, no MyISAM/Aria file of shop.
#   3. --tables-file (one name with the filename encoding) and
#      --databases-file: the exact files.
#   4. --databases-exclude="bank churn" --tables-exclude=REGEX: everything but;
#      an empty database directory is kept as an empty db.opt.
#   5. --stream=xbstream --compress --databases=...: extracted, the same files,
#      prepared, restored; (ours) --stream=tar --encrypt --tables=...: the same.
#   6. a partial incremental on a partial full backup, prepared by ours:
#      checksums.
#   7. ours prepares mariabackup's partial backup; the result restores.
#   8. errors: an invalid regex (--tables and --tables-exclude) and a missing
#      --tables-file are refused naming the option and the value; no backup.
#   9. a full (not partial) backup with a tablespace file removed is still
#      refused by --prepare.
# With XB=mariabackup the oracle takes the backups (its copies of tables are
# .new files: compared as .ibd) and its own error words are asserted.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"
# shellcheck source=../inc/incremental.sh
. "$(dirname "$0")/../inc/incremental.sh"

put_init
build_xb_load || fail "building xb_load failed"
server_start src
sql src "CREATE DATABASE shop; USE shop;
         CREATE TABLE shop.orders (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO shop.orders SELECT seq, MD5(seq) FROM seq_1_to_20000;
         CREATE TABLE shop.msg (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
         INSERT INTO shop.msg SELECT seq, MD5(seq) FROM seq_1_to_3000;
         CREATE TABLE shop.ar (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=Aria;
         INSERT INTO shop.ar SELECT seq, MD5(seq) FROM seq_1_to_3000;
         CREATE TABLE shop.p (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB PARTITION BY HASH(id) PARTITIONS 4;
         INSERT INTO shop.p SELECT seq, MD5(seq) FROM seq_1_to_8000;
         CREATE DATABASE \`my-db\`;
         CREATE TABLE \`my-db\`.\`t-1\` (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO \`my-db\`.\`t-1\` SELECT seq, MD5(seq) FROM seq_1_to_5000;
         CREATE TABLE \`my-db\`.t2 (id INT PRIMARY KEY) ENGINE=InnoDB;
         INSERT INTO \`my-db\`.t2 SELECT seq FROM seq_1_to_100;" || fail "setup failed"
xb_load src --accounts=2000 setup || fail "xb_load setup failed"
mkdir "$(datadir_of src)/emptydb"   # a database directory without a file: kept with an empty db.opt
STOP=$T/stop
xb_load src --accounts=2000 --threads=2 --seconds=600 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
bg_track $!
ddl_loop src churn "$STOP"
at_exit "touch $STOP"
sleep 2

# The checksums of the tables that are not written (shop, my-db).
sums() { checksum_all "$1" | grep -E '^(shop|my-db)\.'; }
SRC_SUMS=$(sums src)
[[ $(wc -l <<< "$SRC_SUMS") -eq 6 ]] || fail "expected 6 checksummed tables, got: $SRC_SUMS"

# files DIR - the files of the database directories of backup DIR, sorted, with
# mariabackup's .new copies named .ibd; mysql/ as one line "mysql/".
files() {
    (cd "$1" && find . -mindepth 2 -type f | sed 's|^\./||; s|\.new$|.ibd|' \
        | sed 's|^mysql/.*|mysql/|; s|^performance_schema/.*|performance_schema/|; s|^sys/.*|sys/|' | LC_ALL=C sort -u)
}
# expect WHAT DIR LIST... - the files of DIR are exactly LIST (and the backup is partial and whole).
expect() {
    local what=$1 dir=$2; shift 2
    assert_eq "$(printf '%s\n' "$@" | LC_ALL=C sort)" "$(files "$dir")" "$what: files of the database directories"
    assert_file "$dir/ibdata1"
    assert_file "$dir/ib_logfile0"
    assert_file "$dir/xtrabackup_checkpoints"
    assert_contains "$dir/xtrabackup_info" '^partial = Y$' "$what: xtrabackup_info"
}
# restore_partial DIR NAME LEFT_OUT - copy prepared backup DIR into a new datadir and
# start server NAME on it (as restore_prepared, which wants a clean error log). The
# server finds no file for the InnoDB tables left out, whose databases match the
# regex LEFT_OUT, and says so: those [ERROR] lines are expected, no other, and no
# crash recovery.
restore_partial() {
    local dir=$1 name=$2 left=$3 datadir=$T/$2/data e
    mkdir -p "$datadir"
    cp -a "$dir/." "$datadir/" || fail "restore_partial: copying $dir failed"
    rm -f "$datadir"/xtrabackup_* "$datadir/backup-my.cnf"
    server_start_on "$name" "$datadir"
    e=$(errlog_of "$name")
    assert_not_contains "$e" 'crash recovery|Recovering after a crash|[Cc]orrupt' "restored partial backup $dir"
    grep '\[ERROR\]' "$e" | grep -vE "Operating system error number 2 in a file operation|Error number 2 means|Cannot open datafile for read-only: '\./($left)/|Could not find a valid tablespace file for ($left)/" \
        > "$T/$name.errors"
    [[ -s $T/$name.errors ]] && { sed 's/^/  | /' "$T/$name.errors" >&2; fail "restored partial backup $dir: unexpected errors"; }
    log "restored $dir as $name: $(grep -c '\[ERROR\]' "$e") error lines, all about the tables left out"
}
SHOP=(shop/ar.MAD shop/ar.MAI shop/ar.frm shop/db.opt shop/msg.MYD shop/msg.MYI shop/msg.frm
      shop/orders.frm shop/orders.ibd shop/p#P#p0.ibd shop/p#P#p1.ibd shop/p#P#p2.ibd shop/p#P#p3.ibd
      shop/p.frm shop/p.par)
MYDB=(my@002ddb/db.opt my@002ddb/t2.frm my@002ddb/t2.ibd my@002ddb/t@002d1.frm my@002ddb/t@002d1.ibd)

# ---------------------------------------------------------------- 1. --databases
log "--- 1. --databases with a name in the filename encoding, under load and DDL"
xb_backup src "$T/b1" --databases="mysql shop my@002ddb"
assert_ok "$XB_RC" "$XB_ERR" "--databases backup"
expect "--databases" "$T/b1" "${SHOP[@]}" "${MYDB[@]}" mysql/
cp -a "$T/b1" "$T/b1-oracle"
cp -a "$T/b1" "$T/b1-base"
prep_run "$PUT" "$T/b1"
assert_ok "$PREP_RC" "$PREP_ERR" "ours prepares the --databases backup"
if [[ $PUT_KIND == xtrabackup ]]; then
    assert_contains "$PREP_ERR" "is not in this partial backup: its redo records \(from LSN [0-9]+\) are passed over" \
        "prepare: the bank's redo is passed over"
fi
prep_run mariabackup "$T/b1-oracle"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup prepares the --databases backup"
rm -rf "${T:?}/b1-oracle"
restore_partial "$T/b1" r1 "bank|churn"
assert_eq "$SRC_SUMS" "$(sums r1)" "restored --databases backup: checksums of shop and my-db"
sql r1 "SELECT COUNT(*) FROM bank.accounts" > "$T/r1.bank" 2>&1 && fail "bank.accounts exists on the restored partial backup"
assert_contains "$T/r1.bank" "doesn't exist" "bank.accounts on the restored partial backup"
server_stop r1; rm -rf "${T:?}/r1"   # disk space: the rest of the run does not need it

# ---------------------------------------------------------------- 2. --tables
log "--- 2. --tables: a regex list, a partitioned table"
xb_backup src "$T/b2" '--tables=^shop[.]orders$,shop[.]p$'
assert_ok "$XB_RC" "$XB_ERR" "--tables backup"
# (--tables leaves no database out as a whole: the empty one is kept, as its db.opt)
expect "--tables" "$T/b2" shop/orders.frm shop/orders.ibd shop/p#P#p0.ibd shop/p#P#p1.ibd shop/p#P#p2.ibd \
    shop/p#P#p3.ibd shop/p.frm shop/p.par emptydb/db.opt
prep_run "$PUT" "$T/b2"
assert_ok "$PREP_RC" "$PREP_ERR" "ours prepares the --tables backup"
rm -rf "${T:?}/b2"

# ---------------------------------------------------------------- 3. the files
log "--- 3. --tables-file and --databases-file"
printf 'shop.msg\nmy@002ddb.t@002d1\n' > "$T/tables.txt"
xb_backup src "$T/b3" --tables-file="$T/tables.txt"
assert_ok "$XB_RC" "$XB_ERR" "--tables-file backup"
expect "--tables-file" "$T/b3" shop/msg.MYD shop/msg.MYI shop/msg.frm my@002ddb/t@002d1.frm my@002ddb/t@002d1.ibd
printf 'my@002ddb\nshop.ar\n' > "$T/dbs.txt"
xb_backup src "$T/b3d" --databases-file="$T/dbs.txt"
assert_ok "$XB_RC" "$XB_ERR" "--databases-file backup"
expect "--databases-file" "$T/b3d" "${MYDB[@]}" shop/ar.MAD shop/ar.MAI shop/ar.frm

# ---------------------------------------------------------------- 4. exclusions
log "--- 4. --databases-exclude and --tables-exclude"
xb_backup src "$T/b4" --databases-exclude="bank churn" '--tables-exclude=^shop[.](ar|msg)$'
assert_ok "$XB_RC" "$XB_ERR" "exclusion backup"
expect "exclusions" "$T/b4" shop/db.opt shop/orders.frm shop/orders.ibd shop/p#P#p0.ibd shop/p#P#p1.ibd \
    shop/p#P#p2.ibd shop/p#P#p3.ibd shop/p.frm shop/p.par "${MYDB[@]}" mysql/ performance_schema/ sys/ emptydb/db.opt
[[ -s $T/b4/emptydb/db.opt ]] && fail "emptydb/db.opt is not empty"
prep_run "$PUT" "$T/b4"
assert_ok "$PREP_RC" "$PREP_ERR" "ours prepares the exclusion backup"
restore_partial "$T/b4" r4 "bank|churn"
assert_eq "$(sums src | grep -v '^shop\.\(ar\|msg\) ')" "$(sums r4)" "restored exclusion backup: checksums"
server_stop r4; rm -rf "${T:?}/r4"

# ---------------------------------------------------------------- 5. xbstream
log "--- 5. a partial backup streamed as xbstream"
mkdir -p "$T/b5"
xb_run --defaults-file="$(cnf_of src)" --backup --stream=xbstream --target-dir="$T/b5tmp" \
    --databases="mysql shop" --compress
assert_ok "$XB_RC" "$XB_ERR" "streamed partial backup"
(cd "$T/b5" && mbstream -x < "$XB_OUT") || fail "extracting the stream failed"
"$PUT" --decompress --remove-original --target-dir="$T/b5" > "$T/b5.decomp" 2>&1 || { cat "$T/b5.decomp" >&2; fail "--decompress failed"; }
expect "xbstream" "$T/b5" "${SHOP[@]}" mysql/
prep_run "$PUT" "$T/b5"
assert_ok "$PREP_RC" "$PREP_ERR" "ours prepares the streamed partial backup"
restore_partial "$T/b5" r5 "bank|churn|my@002ddb"
assert_eq "$(grep '^shop\.' <<< "$SRC_SUMS")" "$(sums r5)" "restored streamed backup: checksums of shop"
server_stop r5; rm -rf "${T:?}/r5"

if [[ $XB_KIND == xtrabackup ]]; then   # mariabackup 10.11 has no --encrypt
    log "--- 5b. a partial backup streamed as tar, encrypted"
    (umask 077; openssl rand -hex 32 > "$T/key")
    mkdir -p "$T/b5b"
    xb_run --defaults-file="$(cnf_of src)" --backup --stream=tar --target-dir="$T/b5btmp" \
        '--tables=^shop[.](orders|p)$' --encrypt=AES256 --encrypt-key-file="$T/key"
    assert_ok "$XB_RC" "$XB_ERR" "tar, encrypted partial backup"
    tar -xf "$XB_OUT" -C "$T/b5b" || fail "tar -x of the partial backup failed"
    "$PUT" --decrypt=AES256 --encrypt-key-file="$T/key" --remove-original --target-dir="$T/b5b" > "$T/b5b.dec" 2>&1 \
        || { cat "$T/b5b.dec" >&2; fail "--decrypt failed"; }
    expect "tar, encrypted" "$T/b5b" shop/orders.frm shop/orders.ibd shop/p#P#p0.ibd shop/p#P#p1.ibd shop/p#P#p2.ibd \
        shop/p#P#p3.ibd shop/p.frm shop/p.par emptydb/db.opt
    prep_run "$PUT" "$T/b5b"
    assert_ok "$PREP_RC" "$PREP_ERR" "ours prepares the tar, encrypted partial backup"
    rm -rf "${T:?}/b5b" "$XB_OUT"
fi

# ---------------------------------------------------------------- 6. incremental
log "--- 6. a partial incremental on a partial full backup"
sql src "UPDATE shop.orders SET v = 'inc' WHERE id % 7 = 0" || fail "update of shop.orders"
SRC_SUMS6=$(sums src)
inc_checkpoint src
inc_backup src "$T/i6" "$T/b1-base" --databases="mysql shop my@002ddb"
assert_contains "$T/i6/xtrabackup_info" '^partial = Y$' "incremental: xtrabackup_info"
[[ -e $T/i6/bank ]] && fail "the partial incremental holds bank/"
inc_prepare_chain "$PUT" "$T/b1-base" "$T/i6"
restore_partial "$T/b1-base" r6 "bank|churn"
assert_eq "$SRC_SUMS6" "$(sums r6)" "restored partial incremental chain: checksums"
server_stop r6; rm -rf "${T:?}/r6"

# ---------------------------------------------------------------- 7. mariabackup's
log "--- 7. ours prepares mariabackup's partial backup"
mariabackup --defaults-file="$(cnf_of src)" --backup --target-dir="$T/b7" --databases="mysql shop my@002ddb" \
    > "$T/b7.log" 2>&1 || { tail -n 5 "$T/b7.log" >&2; fail "mariabackup's partial backup failed"; }
prep_run "$PUT" "$T/b7"
assert_ok "$PREP_RC" "$PREP_ERR" "ours prepares mariabackup's partial backup"
restore_partial "$T/b7" r7 "bank|churn"
assert_eq "$SRC_SUMS6" "$(sums r7)" "restored mariabackup's partial backup: checksums"
server_stop r7; rm -rf "${T:?}/r7"

# ---------------------------------------------------------------- 8. errors
log "--- 8. bad input"
xb_backup src "$T/b8" '--tables=shop[.](orders'
assert_failed "$XB_RC" "$XB_ERR" "invalid --tables regex"
[[ -e $T/b8/xtrabackup_checkpoints ]] && fail "invalid regex: a backup was written"
if [[ $XB_KIND == mariabackup ]]; then
    assert_contains "$XB_ERR" 'error: tables regcomp\(shop\[\.\]\(orders\)' "invalid --tables regex: message"
else
    assert_error USAGE "$XB_RC" "$XB_ERR" "invalid --tables regex"
    assert_contains "$XB_ERR" 'Error: \[002\] --tables: shop\[\.\]\(orders is not a valid regular expression: ' \
        "invalid --tables regex: message"
    assert_contains "$XB_ERR" 'HINT: give POSIX extended regular expressions' "invalid regex: hint"
fi
xb_backup src "$T/b8b" '--tables-exclude=a{1'
assert_failed "$XB_RC" "$XB_ERR" "invalid --tables-exclude regex"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$XB_ERR" 'Error: \[002\] --tables-exclude: a\{1 is not a valid regular expression' \
        "invalid --tables-exclude regex: message"
fi
xb_backup src "$T/b8c" --tables-file="$T/no-such-list"
assert_failed "$XB_RC" "$XB_ERR" "missing --tables-file"
[[ -e $T/b8c/xtrabackup_checkpoints ]] && fail "missing --tables-file: a backup was written"
if [[ $XB_KIND == mariabackup ]]; then
    assert_contains "$XB_ERR" "Can't open $T/no-such-list" "missing --tables-file: message"
else
    assert_error USAGE "$XB_RC" "$XB_ERR" "missing --tables-file"
    assert_contains "$XB_ERR" "--tables-file=$T/no-such-list: cannot open the file: No such file or directory" \
        "missing --tables-file: message"
fi

# ---------------------------------------------------------------- 9. full backups
if [[ $PUT_KIND == xtrabackup ]]; then
    log "--- 9. a full backup missing a tablespace is still refused"
    xb_backup src "$T/b9"
    assert_ok "$XB_RC" "$XB_ERR" "full backup"
    assert_contains "$T/b9/xtrabackup_info" '^partial = N$' "full backup: xtrabackup_info"
    rm -f "$T/b9/bank/ledger.ibd" "$T/b9/bank/ledger.new" "$T/b9/xtrabackup_manifest.pmap"
    # the transfers write bank.ledger all along: the redo copy has records of it
    prep_run "$PUT" "$T/b9"
    assert_error MISSING_FILE "$PREP_RC" "$PREP_ERR" "prepare of a full backup without bank/ledger.ibd"
    assert_contains "$PREP_ERR" 'tablespace [0-9]+ \(.*bank/ledger.*\) has redo records from LSN [0-9]+ but its file is not in the backup' \
        "full backup without a tablespace: message"
    assert_not_contains "$PREP_ERR" 'completed OK' "full backup without a tablespace: not prepared"
fi

touch "$STOP"
wait_for 60 grep -q 'ddl_loop done' "$T/ddl_loop.churn.out" || fail "the DDL loop did not end"
xb_load src --accounts=2000 check > /dev/null || fail "the source fails the bank check"
log "PASS"
