#!/usr/bin/env bash
# prepare_diff.sh - the differential check of --prepare: the preparer under test
# (PREPARE_UNDER_TEST, default build/xtrabackup) must leave every page of every
# InnoDB file exactly as `mariabackup --prepare` does.
#
# One server holds tables of every page format a 10.11 backup meets: REDUNDANT,
# COMPACT, DYNAMIC, ROW_FORMAT=COMPRESSED with KEY_BLOCK_SIZE 8 and 4,
# PAGE_COMPRESSED=1 (zlib), two tables created under innodb_checksum_algorithm=crc32
# (the legacy, non-full_crc32 layout, one of them page_compressed), a partitioned
# table, secondary indexes, off-page BLOBs and xb_load's bank tables, with two undo
# tablespaces (undo001/undo002) that purge truncates during the first backup (a read
# view held early lets them grow past innodb_max_undo_log_size). While two
# backups are taken one after the other, one by the tool under test ($XB) and one by
# mariabackup, both throttled so their copy phase lasts, xb_load commits transfers
# and a DML stream inserts, updates (growing rows: page splits), deletes ranges
# (page merges and frees) and rewrites BLOBs in every table; once each copy has
# begun a DDL batch runs (CREATE, DROP, RENAME, TRUNCATE, ALTER ALGORITHM=COPY,
# ALTER ADD INDEX, CREATE+DROP), so the redo copy holds file operations and the
# backups .new/.ren/.del files. Each backup is copied twice (cp -a): copy A is
# prepared by mariabackup, copy B by the preparer under test; then xb_pagecmp
# compares every page of ibdata*, undo* and **/*.ibd of A and B and reports files,
# page numbers and size differences. Any difference fails, except the one
# difference known to be harmless, which is logged (TAIL lines), never hidden:
#   a page of a page_compressed tablespace that is in compressed form on both sides
#   with byte-identical images (same length: the type field gives it) and differs
#   only in the bytes after the image (xb_pagecmp --pc-tail). Nothing reads those
#   bytes: the CRC-32C (full_crc32) or the stream length (legacy) ends the image,
#   and decompression stops there. They are left over from an earlier, longer image
#   of the page, because such a page is written only up to its image rounded up to
#   the block size: mariabackup's copy keeps the backup's old tail, a preparer that
#   wrote the page in an earlier batch keeps that batch's (seen: 3 pages of t_pc).
# B's prepare must also end with "completed OK!",
# leave backup_type = log-applied and no .new/.ren/.del file, and (our tool) write
# --stats-file with the contract's keys and records > 0.
#
# env: PREPARE_UNDER_TEST (default build/xtrabackup; mariabackup while developing),
# COPY_SECS (15: target length of each throttled copy) or THROTTLE (its --throttle).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

put_init
build_xb_load || fail "cannot build xb_load"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"

ACCOUNTS=2000
ROWS=12000            # initial rows of each row-format table
COPY_SECS=${COPY_SECS:-15}   # how long each backup's throttled copy phase should last

# Two undo tablespaces (undo001, undo002) that the load makes the server truncate
# (TRIM_PAGES in the redo) once they pass innodb_max_undo_log_size.
UNDO_OPTS=(--innodb-undo-tablespaces=2)
SERVER_INSTALL_OPTS="${UNDO_OPTS[*]}" server_start src "${UNDO_OPTS[@]}" --innodb-undo-log-truncate=ON \
    --innodb-max-undo-log-size=10M --innodb_log_file_size=64M --innodb_buffer_pool_size=64M
sql src "DROP DATABASE sys" || fail "dropping sys failed"   # fewer small files to copy
assert_eq zlib "$(sql src "SELECT LOWER(@@innodb_compression_algorithm)")" "page_compressed algorithm"
CHECKSUM_ALG=$(sql src "SELECT @@innodb_checksum_algorithm") || fail "reading innodb_checksum_algorithm"

log "creating tables"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
ROWT="t_redundant t_compact t_dynamic t_zip8 t_zip4 t_pc t_crc32 t_crc32_pc t_part"
COLS="id INT PRIMARY KEY, a INT NOT NULL, b VARCHAR(200), c TEXT, KEY ka (a), KEY kb (b(20))"
sql src "
CREATE DATABASE pd;
USE pd;
CREATE TABLE t_redundant ($COLS) ENGINE=InnoDB ROW_FORMAT=REDUNDANT;
CREATE TABLE t_compact   ($COLS) ENGINE=InnoDB ROW_FORMAT=COMPACT;
CREATE TABLE t_dynamic   ($COLS) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE t_zip8      ($COLS) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
CREATE TABLE t_zip4      ($COLS) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=4;
CREATE TABLE t_pc        ($COLS) ENGINE=InnoDB PAGE_COMPRESSED=1;
SET GLOBAL innodb_checksum_algorithm = crc32;
CREATE TABLE t_crc32     ($COLS) ENGINE=InnoDB;
CREATE TABLE t_crc32_pc  ($COLS) ENGINE=InnoDB PAGE_COMPRESSED=1;
SET GLOBAL innodb_checksum_algorithm = $CHECKSUM_ALG;
CREATE TABLE t_part      ($COLS) ENGINE=InnoDB PARTITION BY HASH (id) PARTITIONS 4;
CREATE TABLE t_blob (id INT PRIMARY KEY, a INT NOT NULL, b LONGBLOB, KEY ka (a)) ENGINE=InnoDB ROW_FORMAT=DYNAMIC;
CREATE TABLE t_big (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
INSERT INTO t_big SELECT seq, REPEAT(MD5(seq), 7) FROM seq_1_to_40000;
INSERT INTO t_blob SELECT seq, seq % 13, REPEAT(MD5(seq), 200 + seq % 300) FROM seq_1_to_600;
" || fail "creating the tables failed"
for t in $ROWT; do
    sql src "INSERT INTO pd.$t SELECT seq, seq % 97, MD5(seq), IF(seq % 50 = 0, REPEAT(MD5(seq), 300), REPEAT('c', seq % 300))
             FROM pd.seq_1_to_$ROWS" || fail "filling pd.$t failed"
done
for n in 1 2; do
    for t in d_drop d_ren d_trunc d_copy d_idx d_zipcopy; do
        opt=; [[ $t == d_zipcopy ]] && opt="ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8"
        sql src "CREATE TABLE pd.${t}_$n (id INT PRIMARY KEY, a VARCHAR(64)) ENGINE=InnoDB $opt;
                 INSERT INTO pd.${t}_$n SELECT seq, MD5(seq) FROM pd.seq_1_to_3000" || fail "creating pd.${t}_$n failed"
    done
done
# The formats really are what the test claims (checked on the source files).
D=$(datadir_of src)
info() { "$XB_PAGECMP" --info "$D/pd/$1.ibd" || fail "xb_pagecmp --info $1 failed"; }
[[ $(info t_zip8) == *" physical=8192 "* ]] || fail "t_zip8 is not 8 KiB compressed: $(info t_zip8)"
[[ $(info t_zip4) == *" physical=4096 "* ]] || fail "t_zip4 is not 4 KiB compressed: $(info t_zip4)"
[[ $(info t_pc) == *" page_compressed=1 "* ]] || fail "t_pc is not page_compressed: $(info t_pc)"
[[ $(info t_crc32) == *" full_crc32=0 "* ]] || fail "t_crc32 is in the full_crc32 format: $(info t_crc32)"
[[ $(info t_crc32_pc) == *" full_crc32=0 zip=0 page_compressed=1 "* ]] || fail "t_crc32_pc: $(info t_crc32_pc)"
log "formats: t_zip4 $(info t_zip4); t_crc32_pc $(info t_crc32_pc)"
# Both tools' --throttle count 1 MiB reads per second (mariabackup: I/O operations of
# up to 1 MiB), so datadir MiB / COPY_SECS stretches each copy to about COPY_SECS.
DATA_MB=$(find "$D" \( -name '*.ibd' -o -name 'ibdata*' -o -name 'undo*' \) -printf '%s\n' | awk '{ s += $1 } END { printf "%d", s / 1048576 }')
THROTTLE=${THROTTLE:-$(( DATA_MB / COPY_SECS > 0 ? DATA_MB / COPY_SECS : 1 ))}
log "InnoDB files: $DATA_MB MiB; --throttle=$THROTTLE"

# ---- load: bank transfers plus a DML stream over every table
STOP=$T/stop-load
# The binary itself in the background (not the xb_load function in a subshell), so
# $! is its pid and the exit trap stops it on every path.
"$XB_LOAD" --defaults-file="$(cnf_of src)" --accounts=$ACCOUNTS --threads=1 --seconds=300 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
dml_stream() {
    local i=0 t next=$((ROWS + 1)) r d
    echo "USE pd;"
    while [[ ! -e $STOP ]]; do
        i=$((i + 1))
        for t in $ROWT; do
            r=$((RANDOM % ROWS + 1)); d=$((RANDOM % ROWS + 1))
            echo "INSERT INTO $t SELECT seq, seq % 97, MD5(seq), IF(seq % 10 = 0, REPEAT(MD5(seq), 250), 'new')
                  FROM seq_${next}_to_$((next + 19));"
            echo "UPDATE $t SET a = a + 1, b = CONCAT(b, 'grow-$i') WHERE id BETWEEN $r AND $((r + 15));"
            echo "DELETE FROM $t WHERE id BETWEEN $d AND $((d + 80));"
        done
        next=$((next + 20))
        r=$((RANDOM % 600 + 1))
        echo "UPDATE t_blob SET b = REPEAT(CHAR(65 + $i % 26), $((8000 + RANDOM % 30000))), a = a + 1 WHERE id = $r;"
        echo "DELETE FROM t_blob WHERE id = $((RANDOM % 600 + 1));"
        echo "REPLACE INTO t_blob VALUES ($((600 + i)), $i, REPEAT('z', $((5000 + RANDOM % 40000))));"
        r=$((RANDOM % 39000 + 1))
        echo "UPDATE t_big SET pad = REVERSE(pad) WHERE id BETWEEN $r AND $((r + 30));"
        sleep 0.25
    done
}
dml_stream | mariadb --defaults-file="$(cnf_of src)" --force > "$T/dml.out" 2>&1 &
DML_PID=$!
bg_track "$DML_PID"
# A read view held for a while keeps purge from reusing undo pages, so the undo
# tablespaces grow past innodb_max_undo_log_size; once it ends, purge truncates them
# while backup 1 copies (undo truncation in the redo copy, when it happens in time).
sql src "START TRANSACTION WITH CONSISTENT SNAPSHOT; SELECT COUNT(*) FROM bank.accounts; SELECT SLEEP($((COPY_SECS / 2 + 4))); COMMIT" \
    > /dev/null 2>&1 &
bg_track $!
sleep 2
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }

ddl_batch() { # N
    local n=$1
    sql src "
SET SESSION lock_wait_timeout = 60;
USE pd;
CREATE TABLE d_created_$n (id INT PRIMARY KEY, a VARCHAR(64), KEY ka (a)) ENGINE=InnoDB;
INSERT INTO d_created_$n SELECT seq, MD5(seq) FROM seq_1_to_3000;
DROP TABLE d_drop_$n;
RENAME TABLE d_ren_$n TO d_renamed_$n;
TRUNCATE TABLE d_trunc_$n;
INSERT INTO d_trunc_$n SELECT seq, SHA1(seq) FROM seq_1_to_700;
ALTER TABLE d_copy_$n ADD COLUMN c INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
ALTER TABLE d_zipcopy_$n ADD COLUMN c INT NOT NULL DEFAULT 7, ALGORITHM=COPY;
ALTER TABLE d_idx_$n ADD INDEX ia (a), ALGORITHM=INPLACE;
ALTER TABLE t_compact ADD INDEX ib$n (b(10), a), ALGORITHM=INPLACE;
CREATE TABLE d_transient_$n (id INT PRIMARY KEY) ENGINE=InnoDB;
INSERT INTO d_transient_$n SELECT seq FROM seq_1_to_100;
DROP TABLE d_transient_$n;
UPDATE d_created_$n SET a = REVERSE(a) WHERE id % 3 = 0;
"
}

# take_backup TOOL TARGET N - a throttled backup with DDL batch N run once the
# copy phase has begun (a file in a database directory of the target).
take_backup() {
    local tool=$1 target=$2 n=$3
    XB=$tool xb_backup_bg src "$target" --throttle="$THROTTLE"
    copying() { [[ -n $(find "$target" -mindepth 2 -maxdepth 2 -type f -print -quit 2>/dev/null) ]]; }
    if ! wait_for 90 copying; then
        kill -0 "$XB_PID" 2>/dev/null || { xb_wait; tail -n 20 "$XB_ERR" >&2; fail "backup $n ended before copying"; }
        fail "backup $n copied nothing within 90s"
    fi
    ddl_batch "$n" > "$T/ddl$n.out" 2>&1 || { cat "$T/ddl$n.out" >&2; fail "DDL batch $n failed"; }
    kill -0 "$XB_PID" 2>/dev/null || fail "backup $n ended before its DDL batch did (copy phase too short: lower the throttle)"
    log "DDL batch $n done while backup $n copies"
    XB=$tool xb_wait_max 120 "backup $n"
    assert_ok "$XB_RC" "$XB_ERR" "backup $n ($(basename "$tool"))"
    local redo=$(( $(stat -c %s "$target/ib_logfile0") - 12288 ))
    log "backup $n: $((redo / 1048576)) MiB of redo; $(find "$target" -name '*.new' -o -name '*.ren' -o -name '*.del' | wc -l) .new/.ren/.del files"
    (( redo >= 4 * 1048576 )) || fail "backup $n holds only $redo bytes of redo: the load did not write enough during it"
}

take_backup "$XB" "$T/b_xb" 1
take_backup "$(command -v mariabackup)" "$T/b_mb" 2
touch "$STOP"
wait "$LOAD_PID"; LRC=$?
wait "$DML_PID"
[[ $LRC -eq 0 ]] || { cat "$T/load.out"; fail "xb_load transfer exited with $LRC"; }
log "load: $(tail -n 1 "$T/load.out"); DML errors: $(grep -c '^ERROR' "$T/dml.out")"
log "undo truncations during the test: $(grep -c 'InnoDB: Truncat' "$(errlog_of src)")"

# ---- prepare each backup twice and compare
REQUIRED_KEYS='"log_bytes" "mtrs" "records" "pages" "read" "written" "created" "freed" "skipped_current"
               "records_by_type" "applied" "skipped" "phases_ms" "total" "redo_mb_per_s" "peak_memory_bytes" "top_tablespaces"'
compare_one() { # NAME BACKUP [options of the preparer under test]
    local name=$1 b=$2 a_dir=$T/$1.A b_dir=$T/$1.B stats=$T/$1.stats.json k
    shift 2
    local -a put_opts=("$@")
    cp -a "$b" "$a_dir" || fail "copying $b failed"
    cp -a "$b" "$b_dir" || fail "copying $b failed"
    prep_run mariabackup "$a_dir"
    assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup --prepare of $name (copy A)"
    if [[ $PUT_KIND == xtrabackup ]]; then
        prep_run "$PUT" "$b_dir" --stats-file="$stats" "${put_opts[@]}"
    else
        prep_run "$PUT" "$b_dir" "${put_opts[@]}"
    fi
    assert_ok "$PREP_RC" "$PREP_ERR" "$(basename "$PUT") --prepare of $name (copy B)"
    assert_eq log-applied "$(checkpoints_value "$b_dir" backup_type)" "backup_type after the prepare of $name"
    assert_eq "$(cat "$a_dir/xtrabackup_checkpoints")" "$(cat "$b_dir/xtrabackup_checkpoints")" \
        "xtrabackup_checkpoints of $name: mariabackup (A) vs preparer under test (B)"
    local left
    left=$(cd "$b_dir" && find . -name '*.new' -o -name '*.ren' -o -name '*.del')
    [[ -z $left ]] || fail "the prepare of $name left unprocessed DDL files: $left"
    local logsize; logsize=$(stat -c %s "$b_dir/ib_logfile0")
    (( logsize < 1048576 )) || fail "the prepare of $name left an ib_logfile0 of $logsize bytes (not a fresh small log)"
    if [[ $PUT_KIND == xtrabackup ]]; then
        assert_file "$stats"
        for k in $REQUIRED_KEYS; do
            grep -q "${k}[[:space:]]*:" "$stats" || fail "stats file of $name lacks key $k: $(head -c 600 "$stats")"
        done
        local recs; recs=$(json_num "$stats" records)
        if [[ -z $recs ]] || (( ${recs%%.*} <= 0 )); then fail "stats of $name: \"records\" is '$recs', expected > 0"; fi
        assert_contains "$PREP_ERR" '[Rr]ecords|[Pp]ages' "the prepare of $name printed its statistics"
        log "$name stats: records=$recs log_bytes=$(json_num "$stats" log_bytes) redo_mb_per_s=$(json_num "$stats" redo_mb_per_s)"
    else
        log "(stats checks need our tool: $PUT is mariabackup)"
    fi
    assert_pages_equal "$a_dir" "$b_dir" "pages of $name: mariabackup --prepare (A) vs $(basename "$PUT") --prepare (B)" \
        --pc-tail
    # The comparison covered the files it must have.
    local n_ibd; n_ibd=$(cd "$b_dir" && find . -name '*.ibd' | wc -l)
    (( n_ibd >= 30 )) || fail "only $n_ibd .ibd files in the prepared $name"
    rm -rf "$a_dir" "$b_dir"
}
compare_one "backup1_by_$XB_KIND" "$T/b_xb" --parallel=2
compare_one backup2_by_mariabackup "$T/b_mb" --parallel=2
# Again in small batches: each batch then leaves out the pages that the look-ahead
# saw freed or rebuilt later.
compare_one backup2_by_mariabackup_32M "$T/b_mb" --parallel=2 --use-memory=32M
if [[ $PUT_KIND == xtrabackup ]]; then
    # In batches that small the parser's memory is full long before the verifier has
    # checked the whole log: the parser checks the second half itself, and the pages
    # above are the proof that the two halves were put together right.
    assert_contains "$PREP_ERR" 'the parser checks it from LSN [0-9]+ on' "32M prepare: the parser checked part of the log"
    assert_contains "$PREP_ERR" 'log verified to LSN [0-9]+ .*the part from LSN [0-9]+ by the parser' \
        "32M prepare: the check split in two was used"
    # The same backup with one byte inverted at 7/8 of the records, in the part the
    # parser checks: a clear error naming the log, and nothing written.
    D=$T/damaged_late
    cp -a "$T/b_mb" "$D" || fail "copying the backup failed"
    size=$(stat -c %s "$D/ib_logfile0")
    flip "$D/ib_logfile0" $((12288 + (size - 12288) * 7 / 8))
    before=$(tree_sums "$D")
    prep_run "$PUT" "$D" --parallel=2 --use-memory=32M
    assert_failed "$PREP_RC" "$PREP_ERR" "32M prepare of a log damaged at 7/8"
    assert_error REDO_CORRUPT "$PREP_RC" "$PREP_ERR" "32M prepare of a log damaged at 7/8"
    assert_contains "$PREP_ERR" 'the parser checks it from LSN [0-9]+ on' "damaged at 7/8: the parser checked that part"
    assert_contains "$PREP_ERR" 'ib_logfile0.* ends at LSN [0-9]+' "damaged at 7/8: the error names the log and the LSN"
    assert_eq "$before" "$(tree_sums "$D")" "damaged at 7/8: the backup must be left as it was (md5 of every file)"
    rm -rf "$D"
fi
log "prepare_diff: ok"
