# shellcheck shell=bash
# incremental.sh - helpers of the incremental-backup scenarios
# (test/integration/t/incremental_*.sh) and bench/incremental.sh, sourced after
# common.sh.
#
# A chain is a full backup and incrementals, each taken with --incremental-basedir
# set to the previous one. inc_backup takes one and checks its xtrabackup_checkpoints
# against its base (backup_type = incremental, from_lsn = the base's to_lsn);
# inc_prepare_chain prepares a chain in place with a given preparer (the full
# backup, then each incremental with --incremental-dir, in order) and checks that
# every step ends with "completed OK!" and that the result is log-applied at the
# last incremental's to_lsn. inc_copy_chain copies a chain so two preparers can
# each work on their own copy. inc_delta_pages counts the pages the .delta files of
# a backup hold, from their sizes alone (a delta of S page-sized slots is made of
# blocks of at most page_size/4 slots, the first slot of each a header, so it holds
# S - ceil(S / (page_size/4)) pages; doc/backup-directory.md §17). ddl_loop is a
# background stream of CREATE/INSERT/RENAME/DROP in one database until a stop file
# exists.
#
# The preparer of "ours" is $INC_PUT: PREPARE_UNDER_TEST (default build/xtrabackup);
# PREPARE_UNDER_TEST=mariabackup with XB=mariabackup runs a scenario with the oracle
# on both sides, to check the scenario's own logic.

INC_PUT=${PREPARE_UNDER_TEST:-$TOP/build/xtrabackup}
[[ $INC_PUT != */* ]] && INC_PUT=$(command -v "$INC_PUT" || echo "$INC_PUT")

# inc_backup NAME TARGET BASE [options...] - $XB --backup --incremental-basedir=BASE
# into TARGET; asserts success, backup_type = incremental and from_lsn = BASE's to_lsn.
inc_backup() {
    local name=$1 target=$2 base=$3; shift 3
    xb_backup "$name" "$target" --incremental-basedir="$base" "$@"
    assert_ok "$XB_RC" "$XB_ERR" "incremental backup $target on $base"
    inc_check_link "$base" "$target"
}

# inc_check_link BASE INC - INC's checkpoints say it is an incremental on BASE.
inc_check_link() {
    local base=$1 inc=$2
    assert_eq incremental "$(checkpoints_value "$inc" backup_type)" "backup_type of $inc"
    assert_eq "$(checkpoints_value "$base" to_lsn)" "$(checkpoints_value "$inc" from_lsn)" \
        "from_lsn of $inc vs to_lsn of its base $base"
    local from to
    from=$(checkpoints_value "$inc" from_lsn); to=$(checkpoints_value "$inc" to_lsn)
    (( to >= from )) || fail "$inc: to_lsn $to is before from_lsn $from"
    [[ -n $(find "$inc" -name '*.delta' -print -quit) ]] || fail "$inc holds no .delta file"
    [[ -n $(find "$inc" -name '*.ibd' -print -quit) ]] && fail "$inc holds whole .ibd files: $(find "$inc" -name '*.ibd' | head -3)"
    log "$inc: incremental from_lsn $from to_lsn $to, $(find "$inc" -name '*.delta' | wc -l) deltas, $(inc_delta_pages "$inc") pages"
}

# inc_copy_chain SRC_PARENT DST_PARENT NAMES... - cp -a of each SRC_PARENT/NAME.
inc_copy_chain() {
    local src=$1 dst=$2 n; shift 2
    mkdir -p "$dst"
    for n in "$@"; do cp -a "$src/$n" "$dst/$n" || fail "copying $src/$n failed"; done
}

# inc_prepare_chain BIN FULL INC... - prepare FULL with BIN, then apply each INC in
# order; every step must succeed. Then FULL is log-applied at the last INC's to_lsn.
inc_prepare_chain() {
    local bin=$1 full=$2 inc last; shift 2
    prep_run "$bin" "$full"
    assert_ok "$PREP_RC" "$PREP_ERR" "$(basename "$bin") --prepare of the full backup $full"
    last=$full
    for inc in "$@"; do
        prep_run "$bin" "$full" --incremental-dir="$inc"
        assert_ok "$PREP_RC" "$PREP_ERR" "$(basename "$bin") --prepare --incremental-dir=$inc onto $full"
        last=$inc
    done
    assert_eq log-applied "$(checkpoints_value "$full" backup_type)" "backup_type of $full after the chain's prepare"
    assert_eq "$(checkpoints_value "$last" to_lsn)" "$(checkpoints_value "$full" to_lsn)" \
        "to_lsn of $full after the chain's prepare vs the last incremental's"
    [[ -z $(find "$full" -name '*.delta' -o -name '*.meta' | head -1) ]] \
        || fail "$full: .delta/.meta files after the chain's prepare: $(find "$full" -name '*.delta' -o -name '*.meta' | head -3)"
}

# inc_delta_pages DIR - the number of pages in DIR's .delta files (from their sizes
# and the page size of each X.meta).
inc_delta_pages() {
    local d total=0 ps slots
    while IFS= read -r -d '' d; do
        ps=$(sed -n 's/^page_size = *//p' "${d%.delta}.meta" 2>/dev/null)
        [[ $ps =~ ^[0-9]+$ && $ps -ge 1024 ]] || ps=16384
        slots=$(( $(stat -c %s "$d") / ps ))
        total=$(( total + slots - (slots + ps / 4 - 1) / (ps / 4) ))
    done < <(find "$1" -name '*.delta' -print0)
    echo "$total"
}

# ddl_loop SERVER DB STOPFILE - in the background: CREATE, fill, RENAME and DROP
# tables of DB in a loop (one client session) until STOPFILE exists; sets DDL_PID
# (the client: when it has exited, every statement is done). DB is created first.
ddl_loop() {
    local srv=$1 db=$2 stop=$3
    sql "$srv" "CREATE DATABASE IF NOT EXISTS $db" || fail "creating $db failed"
    (
        local i=0
        echo "USE $db;"
        while [[ ! -e $stop && -d $T ]]; do
            i=$((i + 1))
            echo "CREATE TABLE c_$i (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;"
            echo "INSERT INTO c_$i SELECT seq, MD5(seq) FROM seq_1_to_$((200 + RANDOM % 800));"
            echo "RENAME TABLE c_$i TO r_$i;"
            (( i > 2 )) && echo "DROP TABLE r_$((i - 2));"
            (( i % 5 == 0 )) && echo "ALTER TABLE r_$i ADD COLUMN w INT DEFAULT $i, ALGORITHM=COPY;"
            (( i % 7 == 0 )) && echo "TRUNCATE TABLE r_$((i - 1));"
            sleep 0.1
        done
        echo "SELECT 'ddl_loop done', $i;"
    ) | mariadb --defaults-file="$(cnf_of "$srv")" -N -B > "$T/ddl_loop.$db.out" 2>&1 &
    DDL_PID=$!
    bg_track "$DDL_PID"
}

# _inc_ckpt_reached SERVER LSN - the checkpoint of SERVER is at LSN or later.
_inc_ckpt_reached() {
    local c
    c=$(sql "$1" "SHOW ENGINE INNODB STATUS\G" | sed -n 's/^Last checkpoint at *//p')
    [[ $c =~ ^[0-9]+$ ]] && (( c >= $2 ))
}

# inc_checkpoint SERVER - flush every dirty page of SERVER (at up to 50000 pages a
# second for the time being) and wait (up to 300s) until its checkpoint has reached
# the LSN it had when called, so a backup taken next starts from a checkpoint past
# every change made so far (its to_lsn moves on).
inc_checkpoint() {
    local srv=$1 lsn
    lsn=$(sql "$srv" "SHOW ENGINE INNODB STATUS\G" | sed -n 's/^Log sequence number *//p')
    [[ $lsn =~ ^[0-9]+$ ]] || fail "inc_checkpoint $srv: no LSN in SHOW ENGINE INNODB STATUS"
    sql "$srv" "SET GLOBAL innodb_io_capacity_max = 100000, GLOBAL innodb_io_capacity = 50000,
                GLOBAL innodb_max_dirty_pages_pct_lwm = 0.001, GLOBAL innodb_max_dirty_pages_pct = 0" \
        || fail "inc_checkpoint $srv: setting innodb_max_dirty_pages_pct"
    wait_for 300 _inc_ckpt_reached "$srv" "$lsn" || fail "inc_checkpoint $srv: the checkpoint did not reach LSN $lsn in 300s"
    sql "$srv" "SET GLOBAL innodb_max_dirty_pages_pct_lwm = DEFAULT, GLOBAL innodb_max_dirty_pages_pct = DEFAULT,
                GLOBAL innodb_io_capacity = DEFAULT, GLOBAL innodb_io_capacity_max = DEFAULT" \
        || fail "inc_checkpoint $srv: restoring innodb_max_dirty_pages_pct"
}

# inc_start_transfers - bank transfers on server src in the background (2 threads,
# $ACCOUNTS accounts, output in $T/load.out) until the file $STOP appears; sets
# STOP and LOAD_PID.
inc_start_transfers() {
    STOP=$T/stop-load
    "$XB_LOAD" --defaults-file="$(cnf_of src)" --accounts="$ACCOUNTS" --threads=2 --seconds=600 \
        --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
    LOAD_PID=$!
    bg_track "$LOAD_PID"
    sleep 1
}
