#!/usr/bin/env bash
# prepare_restart.sh - end to end with the preparer under test (PREPARE_UNDER_TEST,
# default build/xtrabackup): a backup taken by $XB while xb_load commits bank
# transfers and, early in the copy phase, a DML stream and a DDL batch change the
# other tables (which are then left alone until the end, so their state at the
# backup point is the source's state afterwards) is prepared by the preparer under
# test and a mariadbd started on it:
#  - the prepare ends with "completed OK!" and backup_type = log-applied; the server
#    starts at the backup's last_lsn with no crash recovery (error log: no
#    "InnoDB: Starting crash recovery", "InnoDB: To recover:", "InnoDB: Multi-batch
#    recovery", and "InnoDB: log sequence number <last_lsn>;"); CHECK TABLE ...
#    EXTENDED passes on every InnoDB table; `xb_load check` holds (constant total,
#    accounts agree with the ledger); the other tables' set, row counts and
#    CHECKSUM TABLE equal the source's;
#  - preparing again is harmless: exit 0, "completed OK!", every file of the backup
#    byte-identical before and after the second run;
#  - an interrupted prepare can be rerun: a prepare with --use-memory=16M (several
#    batches) is frozen with SIGSTOP every 20 ms until it has written a data file,
#    then killed with SIGKILL; the rerun ends OK and leaves every page as a clean
#    --use-memory=16M prepare of another copy does (xb_pagecmp), which in turn equals
#    the default-memory prepare. Both comparisons let through (and log) pages of the
#    page_compressed table q_pc that differ only after identical compressed images
#    (xb_pagecmp --pc-tail; see prepare_diff.sh: those bytes are never read and
#    depend on which earlier writes of the page happened, i.e. on the batches).
# The backup is taken by $XB (default: ours). This heavy load is also what showed
# the redo follower's need for the server's durable LSN (redo_follower.c).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

put_init
build_xb_load || fail "cannot build xb_load"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"

ACCOUNTS=2000
server_start src --innodb_log_file_size=64M --innodb_buffer_pool_size=64M
sql src "DROP DATABASE sys" || fail "dropping sys failed"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
COLS="id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(200), c TEXT, KEY ka (a)"
sql src "
CREATE DATABASE pr;
USE pr;
CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
INSERT INTO big SELECT seq, REPEAT(MD5(seq), 7) FROM seq_1_to_80000;
CREATE TABLE q_dyn ($COLS) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE q_red ($COLS) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
CREATE TABLE q_zip ($COLS) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE q_pc  ($COLS) ENGINE=InnoDB PAGE_COMPRESSED=1;
CREATE TABLE to_drop (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE to_rename (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE to_truncate (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
CREATE TABLE alter_copy (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB;
" || fail "creating the tables failed"
for t in q_dyn q_red q_zip q_pc; do
    sql src "INSERT INTO pr.$t SELECT seq, seq % 97, MD5(seq), IF(seq % 40 = 0, REPEAT(MD5(seq), 300), 'c')
             FROM pr.seq_1_to_8000" || fail "filling pr.$t failed"
done
for t in to_drop to_rename to_truncate alter_copy; do
    sql src "INSERT INTO pr.$t SELECT seq, MD5(seq) FROM pr.seq_1_to_3000" || fail "filling pr.$t failed"
done
D=$(datadir_of src)
DATA_MB=$(find "$D" \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo*' \) -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s / 1048576 }')
COPY_SECS=${COPY_SECS:-20}
THROTTLE=${THROTTLE:-$(( DATA_MB / COPY_SECS > 0 ? DATA_MB / COPY_SECS : 1 ))}
log "InnoDB files: $DATA_MB MiB; --throttle=$THROTTLE"

STOP=$T/stop-load DML_STOP=$T/stop-dml
# The binary itself in the background (not the xb_load function in a subshell), so
# $! is its pid and the exit trap stops it on every path.
"$XB_LOAD" --defaults-file="$(cnf_of src)" --accounts=$ACCOUNTS --threads=2 --seconds=300 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
dml_stream() {
    local i=0 t r d next=8001
    echo "USE pr;"
    while [[ ! -e $DML_STOP ]]; do
        i=$((i + 1))
        for t in q_dyn q_red q_zip q_pc; do
            r=$((RANDOM % 8000 + 1)); d=$((RANDOM % 8000 + 1))
            echo "INSERT INTO $t SELECT seq, seq % 97, MD5(seq), IF(seq % 9 = 0, REPEAT(MD5(seq), 250), 'n') FROM seq_${next}_to_$((next + 19));"
            echo "UPDATE $t SET a = a + 1, b = CONCAT(b, '-$i') WHERE id BETWEEN $r AND $((r + 20));"
            echo "DELETE FROM $t WHERE id BETWEEN $d AND $((d + 60));"
        done
        next=$((next + 20))
        sleep 0.2
    done
}
dml_stream | mariadb --defaults-file="$(cnf_of src)" > "$T/dml.out" 2>&1 &
DML_PID=$!
bg_track "$DML_PID"
sleep 2
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }
kill -0 "$DML_PID" 2>/dev/null || { cat "$T/dml.out"; fail "the DML stream died"; }

B=$T/backup
xb_backup_bg src "$B" --throttle="$THROTTLE"
copying() { [[ -n $(find "$B" -mindepth 2 -maxdepth 2 -type f -print -quit 2>/dev/null) ]]; }
wait_for 90 copying || fail "the backup copied nothing within 90s"
sql src "
SET SESSION lock_wait_timeout = 60;
USE pr;
CREATE TABLE created (id INT PRIMARY KEY, a VARCHAR(64), KEY ka (a)) ENGINE=InnoDB;
INSERT INTO created SELECT seq, MD5(seq) FROM seq_1_to_2000;
DROP TABLE to_drop;
RENAME TABLE to_rename TO renamed;
TRUNCATE TABLE to_truncate;
INSERT INTO to_truncate SELECT seq, SHA1(seq) FROM seq_1_to_500;
ALTER TABLE alter_copy ADD COLUMN c INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
ALTER TABLE q_dyn ADD INDEX ib (b(12)), ALGORITHM=INPLACE;
" > "$T/ddl.out" 2>&1 || { cat "$T/ddl.out" >&2; fail "the DDL batch failed"; }
sleep 3
touch "$DML_STOP"
wait "$DML_PID" || { tail "$T/dml.out" >&2; fail "the DML stream failed"; }
kill -0 "$XB_PID" 2>/dev/null || fail "the backup ended before the DML stream stopped (copy phase too short)"
log "DDL and DML done, the non-transfer tables are quiescent; the backup still copies"
sleep 2
kill -0 "$XB_PID" 2>/dev/null || fail "the backup ended right after the DML stream stopped (copy phase too short)"
xb_wait_max 120 "the backup under load"
assert_ok "$XB_RC" "$XB_ERR" "backup under load"
touch "$STOP"
wait "$LOAD_PID" || { cat "$T/load.out"; fail "xb_load transfer failed"; }
log "load: $(tail -n 1 "$T/load.out")"
xb_load src --accounts=$ACCOUNTS check || fail "the source itself fails the bank check"

# The non-transfer tables as they were at the backup point (nothing changed them since).
others() { # NAME - table set, row counts and checksums of every table but the transfer tables
    local n=$1 t
    table_list "$n" | grep -v '^bank\.\(accounts\|ledger\) '
    for t in $(table_list "$n" | grep '^pr\.' | cut -d' ' -f1); do
        echo "$t rows=$(sql "$n" "SELECT COUNT(*) FROM $t")"
    done
    checksum_all "$n" | grep -v '^bank\.\(accounts\|ledger\) '
}
EXPECTED=$(others src)
grep -q '^pr.renamed InnoDB$' <<< "$EXPECTED" || fail "sanity: the DDL did not take effect on the source"
LAST_LSN=$(checkpoints_value "$B" last_lsn)
REDO=$(( $(stat -c %s "$B/ib_logfile0") - 12288 ))
log "backup: last_lsn $LAST_LSN, $((REDO / 1048576)) MiB of redo"
(( REDO >= 16 * 1048576 )) || fail "only $REDO bytes of redo in the backup: too little for the interrupted-prepare case"

P=$T/prepared K=$T/killed C=$T/clean16
for d in "$P" "$K" "$C"; do cp -a "$B" "$d" || fail "copying the backup to $d failed"; done

# ---- prepare, restart, verify
if [[ $PUT_KIND == xtrabackup ]]; then
    prep_run "$PUT" "$P" --stats-file="$T/stats.json"
else
    prep_run "$PUT" "$P"
fi
assert_ok "$PREP_RC" "$PREP_ERR" "prepare by the preparer under test"
assert_eq log-applied "$(checkpoints_value "$P" backup_type)" "backup_type after the prepare"
if [[ $PUT_KIND == xtrabackup ]]; then
    recs=$(json_num "$T/stats.json" records)
    if [[ -z $recs ]] || (( ${recs%%.*} <= 0 )); then fail "stats: \"records\" is '$recs', expected > 0 after a loaded backup"; fi
fi

# Preparing twice is harmless (the stat cache aside: files written again with
# the same bytes get new stamps, doc/backup-directory.md §18).
BEFORE=$(tree_sums "$P" | grep -v ' \./xtrabackup_statcache\.pmap$')
sleep 1
prep_run "$PUT" "$P"
assert_ok "$PREP_RC" "$PREP_ERR" "second prepare of the same backup"
assert_eq "$BEFORE" "$(tree_sums "$P" | grep -v ' \./xtrabackup_statcache\.pmap$')" \
    "files of the prepared backup before and after a second prepare (md5)"

restore_prepared "$P" dst
assert_no_crash_recovery dst "$LAST_LSN"
check_all_tables dst
xb_load dst --accounts=$ACCOUNTS check || fail "the restored server fails the bank check"
assert_eq "$EXPECTED" "$(others dst)" "table set, row counts and checksums of the non-transfer tables: source vs restored"
server_stop dst

# ---- interrupted prepare
prep_run "$PUT" "$C" --use-memory=16M
assert_ok "$PREP_RC" "$PREP_ERR" "clean prepare with --use-memory=16M"
assert_pages_equal "$P" "$C" "pages: default --use-memory vs --use-memory=16M" --pc-tail

MARK=$T/mark
touch "$MARK"; sleep 1.1      # files written from now on are newer than MARK (cp -a kept old mtimes)
log "interrupted prepare: $(basename "$PUT") --prepare --target-dir=$K --use-memory=16M"
"$PUT" --prepare --target-dir="$K" --use-memory=16M > "$T/killed.out" 2> "$T/killed.err" < /dev/null &
KP=$!
bg_track "$KP"
written() {
    [[ -n $(find "$K" -newer "$MARK" -type f \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo*' \) -print -quit) ]]
}
polls=0 killed=0
while kill -0 "$KP" 2>/dev/null; do
    sleep 0.02
    signal_tree STOP "$KP"
    polls=$((polls + 1))
    if kill -0 "$KP" 2>/dev/null && written; then
        signal_tree KILL "$KP"
        killed=1
        break
    fi
    signal_tree CONT "$KP"
done
wait "$KP" 2>/dev/null
[[ $killed -eq 1 ]] || fail "the prepare finished (after $polls polls) before it wrote a page: redo copy too small to interrupt it"
log "killed the prepare with SIGKILL after $polls polls, once it had written a data file"
[[ $(checkpoints_value "$K" backup_type) != log-applied ]] ||
    fail "a prepare killed mid-way already says backup_type = log-applied"
"$XB_PAGECMP" "$K" "$C" > "$T/killed.cmp" 2>&1
log "state at the kill vs the clean prepare: $(tail -n 1 "$T/killed.cmp")"
grep -q '^DIFF' "$T/killed.cmp" ||
    log "note: the data files already equalled the clean prepare's at the kill; the rerun proves less"
prep_run "$PUT" "$K"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare rerun after SIGKILL"
assert_eq log-applied "$(checkpoints_value "$K" backup_type)" "backup_type after the rerun"
assert_pages_equal "$K" "$C" "pages: killed-and-rerun prepare vs clean prepare" --pc-tail
log "prepare_restart: ok"
