#!/usr/bin/env bash
# backup_fresh_tables.sh - tables created just before the backup (issue 16).
# FRESH (default 40) InnoDB tables are created and filled right before the backup,
# so the server has not flushed their page 0 yet (it may not for minutes): such a
# file is empty, short, or starts with a page of zeros. That is no torn page and
# must not be waited for: the backup copies those files as they are at once (no
# "not ready" deferral, no re-reads) and takes seconds, not FRESH x 2 s. The redo
# log holds their creation, so a prepare must rebuild them: the backup is prepared
# twice, by our --prepare and, on a copy made before, by the installed mariabackup
# --prepare; each is restored and CHECKSUM TABLE of every table must equal the
# source's. A table flushed long before (old.t) is copied the normal way beside them.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

FRESH=${FRESH:-40}
OURS=$TOP/build/xtrabackup
command -v mariabackup >/dev/null || skip "mariabackup is not installed (the second preparer)"

server_start src
sql src "CREATE DATABASE old; CREATE TABLE old.t (id INT PRIMARY KEY, pad VARCHAR(200)) ENGINE=InnoDB;
         INSERT INTO old.t SELECT seq, REPEAT(MD5(seq), 5) FROM old.seq_1_to_20000;
         SET GLOBAL innodb_max_dirty_pages_pct = 0" || fail "old table"
# let the page cleaner write old.t (and everything before it), then stop flushing
few_dirty() { [[ $(sql src "SHOW GLOBAL STATUS LIKE 'Innodb_buffer_pool_pages_dirty'" | cut -f2) -lt 5 ]]; }
wait_for 30 few_dirty ||
    log "the server still has dirty pages (not a failure: old.t is only the control)"
sql src "SET GLOBAL innodb_max_dirty_pages_pct = 90" || fail "innodb_max_dirty_pages_pct"

log "creating $FRESH tables"
{
    echo "CREATE DATABASE fresh; USE fresh;"
    for i in $(seq "$FRESH"); do
        echo "CREATE TABLE t$i (id INT PRIMARY KEY, a VARCHAR(64), b INT) ENGINE=InnoDB;"
        echo "INSERT INTO t$i SELECT seq, MD5(seq + $i), seq * $i FROM seq_1_to_$((50 + i * 10));"
    done
    # a compressed one: its page size is written nowhere but in page 0
    echo "CREATE TABLE tz (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;"
    echo "INSERT INTO tz SELECT seq, MD5(seq) FROM seq_1_to_3000;"
    echo "CREATE TABLE empty_one (id INT PRIMARY KEY) ENGINE=InnoDB;"
} > "$T/create.sql"
sql src "$(cat "$T/create.sql")" || fail "creating the fresh tables failed"

unwritten=0
for f in "$(datadir_of src)"/fresh/*.ibd; do
    if [[ $(stat -c %s "$f") -lt 16384 ]] || ! head -c 16384 "$f" | tr -d '\0' | read -r -n 1; then
        unwritten=$((unwritten + 1))
    fi
done
log "$unwritten of $((FRESH + 2)) fresh tablespaces have no page 0 on disk yet"
[[ $unwritten -gt 0 ]] || fail "sanity: the server wrote page 0 of every fresh table already: nothing tested"

B=$T/backup
T0=$(date +%s.%N)
xb_backup src "$B" --parallel=2
SECS=$(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN{printf "%.1f", b-a}')
assert_ok "$XB_RC" "$XB_ERR" "backup with $FRESH fresh tables"
log "backup took $SECS s; $(grep -c 'as it is' "$XB_ERR") files copied as they are"
assert_not_contains "$XB_ERR" 'is not ready|re-read' "fresh tables are not waited for"
[[ $(grep -c 'as it is' "$XB_ERR") -ge $unwritten ]] || fail "fewer files copied as they are than found unwritten"
assert_contains "$XB_ERR" 'DDL was blocked for [0-9]+ ms' "BLOCK_DDL hold time logged"
log "$(grep -o 'DDL was blocked for [0-9]* ms' "$XB_ERR")"
# 40 tables once cost 52 s here (2 x 1 s of re-reads each); a prepare-free bound
awk -v s="$SECS" -v n="$FRESH" 'BEGIN{exit !(s < 10 + n * 0.05)}' || fail "backup took $SECS s for $FRESH fresh tables"

EXPECTED=$(checksum_all src)
[[ $(wc -l <<< "$EXPECTED") -eq $((FRESH + 3)) ]] || fail "sanity: $((FRESH + 3)) tables expected on the source"

cp -a "$B" "$T/backup_mb" || fail "copying the backup"
prep_run "$OURS" "$B"
assert_ok "$PREP_RC" "$PREP_ERR" "our prepare"
restore_prepared "$B" dst
assert_eq "$EXPECTED" "$(checksum_all dst)" "checksums after our prepare"
check_all_tables dst
server_stop dst

prep_run mariabackup "$T/backup_mb"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup --prepare"
restore_prepared "$T/backup_mb" dst2
assert_eq "$EXPECTED" "$(checksum_all dst2)" "checksums after mariabackup --prepare"
log "backup_fresh_tables: ok ($((FRESH + 3)) tables, $unwritten unwritten at the backup, backup $SECS s)"
