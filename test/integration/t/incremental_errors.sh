#!/usr/bin/env bash
# incremental_errors.sh - bad incremental input is refused with a clear message and
# changes nothing.
#
# --backup (each: exit status, the message, no completion marker in the target, the
# base's files unchanged by tree_sums):
#   - --incremental-basedir naming a directory that does not exist;
#   - a base that is not a backup (an empty directory; one whose
#     xtrabackup_checkpoints is not a checkpoints file);
#   - a base whose to_lsn is newer than the server's current LSN (a backup of
#     another, busier server): pages of the server are all older than the base, so
#     an incremental would silently hold nothing;
#   - a base from another server with another innodb_page_size (ours only);
#   - --incremental-lsn that is not a number.
# --prepare (each: exit status, the message, the target's files unchanged):
#   - incrementals in the wrong order (inc2 onto a full backup prepared alone):
#     refused naming both LSNs (the target's to_lsn, the incremental's from_lsn)
#     and both directories;
#   - --incremental-dir onto a full backup that was never prepared;
#   - --prepare --target-dir=INC alone (an incremental is not a backup to prepare
#     by itself).
# Messages are our tool's; with XB=mariabackup the oracle's words are asserted
# where it refuses, and where it does not refuse (a base newer than the server)
# what it does instead is asserted.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"
# shellcheck source=../inc/incremental.sh
. "$(dirname "$0")/../inc/incremental.sh"

put_init
server_start src
sql src "CREATE DATABASE e; CREATE TABLE e.t (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO e.t SELECT seq, MD5(seq) FROM e.seq_1_to_20000" || fail "creating e.t failed"
B=$T/b
mkdir -p "$B"
xb_backup src "$B/full"
assert_ok "$XB_RC" "$XB_ERR" "full backup"
sql src "UPDATE e.t SET v = 'one' WHERE id % 3 = 0" || fail "update 1"
inc_checkpoint src   # to_lsn is the checkpoint at the start: make it move
inc_backup src "$B/inc1" "$B/full"
sql src "UPDATE e.t SET v = 'two' WHERE id % 5 = 0" || fail "update 2"
inc_checkpoint src
inc_backup src "$B/inc2" "$B/inc1"
cp -a "$B/inc1" "$T/inc-alone"   # inc1 as taken, for --prepare of an incremental alone

# refused_backup WHAT TARGET BASE_DIR_OR_EMPTY - the run just made failed, wrote no
# completion marker into TARGET, and left BASE (when given) as it was.
refused_backup() {
    local what=$1 target=$2 base=$3 before=${4:-}
    assert_failed "$XB_RC" "$XB_ERR" "$what"
    [[ -e $target/xtrabackup_checkpoints ]] && fail "$what: $target/xtrabackup_checkpoints written"
    if [[ -n $base ]]; then assert_eq "$before" "$(tree_sums "$base")" "$what: the base changed"; fi
    log "refused as expected: $what: $(grep -E 'Error|error' "$XB_ERR" | tail -n 1)"
}
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|/]/\\&/g'; }

# ---------------------------------------------------------------- --backup
log "--- a base directory that does not exist"
xb_backup src "$B/x1" --incremental-basedir="$T/no-such-dir"
refused_backup "missing base" "$B/x1" ""
if [[ $XB_KIND == mariabackup ]]; then
    assert_contains "$XB_ERR" "error: failed to read metadata from $(re "$T/no-such-dir")/+xtrabackup_checkpoints" "missing base: message"
else
    assert_error TARGET "$XB_RC" "$XB_ERR" "missing base"
    assert_contains "$XB_ERR" "--incremental-basedir=$(re "$T/no-such-dir"): $(re "$T/no-such-dir") is not a backup: cannot open $(re "$T/no-such-dir")/xtrabackup_checkpoints: No such file or directory" \
        "missing base: message"
    assert_contains "$XB_ERR" "HINT: give the directory of a complete backup \(full or incremental\), or the --extra-lsndir it wrote, as --incremental-basedir" \
        "missing base: hint"
fi

log "--- a base that is not a backup: an empty directory, then a bad xtrabackup_checkpoints"
mkdir -p "$T/notabackup"
xb_backup src "$B/x2" --incremental-basedir="$T/notabackup"
refused_backup "empty base" "$B/x2" "$T/notabackup" ""
if [[ $XB_KIND == mariabackup ]]; then
    assert_contains "$XB_ERR" "error: failed to read metadata from $(re "$T/notabackup")/+xtrabackup_checkpoints" "empty base: message"
else
    assert_error TARGET "$XB_RC" "$XB_ERR" "empty base"
    assert_contains "$XB_ERR" "--incremental-basedir=$(re "$T/notabackup"): $(re "$T/notabackup") is not a backup: cannot open" "empty base: message"
fi
printf 'this is not a checkpoints file\n' > "$T/notabackup/xtrabackup_checkpoints"
NB_SUMS=$(tree_sums "$T/notabackup")
xb_backup src "$B/x3" --incremental-basedir="$T/notabackup"
refused_backup "garbage checkpoints in the base" "$B/x3" "$T/notabackup" "$NB_SUMS"
if [[ $XB_KIND == mariabackup ]]; then
    assert_contains "$XB_ERR" "error: failed to read metadata from $(re "$T/notabackup")/+xtrabackup_checkpoints" "garbage base: message"
else
    assert_error TARGET "$XB_RC" "$XB_ERR" "garbage base"
    assert_contains "$XB_ERR" "$(re "$T/notabackup")/xtrabackup_checkpoints: line 1: expected \"key = value\", got \"this is not a checkpoints file\"" \
        "garbage base: message names the file, the line and what is wrong"
fi

log "--- a base newer than the server: a backup of a busier server"
server_start busy
sql busy "CREATE DATABASE b; CREATE TABLE b.t (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
          INSERT INTO b.t SELECT seq, REPEAT(MD5(seq), 7) FROM b.seq_1_to_150000;
          UPDATE b.t SET pad = REVERSE(pad)" || fail "loading busy failed"
inc_checkpoint busy
xb_backup busy "$B/busyfull"
assert_ok "$XB_RC" "$XB_ERR" "full backup of the busy server"
server_stop busy
BUSY_LSN=$(checkpoints_value "$B/busyfull" to_lsn)
SRC_LSN=$(sql src "SHOW ENGINE INNODB STATUS\G" | sed -n 's/^Log sequence number *//p')
(( BUSY_LSN > SRC_LSN + 1000000 )) || fail "the busy server's to_lsn $BUSY_LSN is not well past src's LSN $SRC_LSN"
BUSY_SUMS=$(tree_sums "$B/busyfull")
xb_backup src "$B/x4" --incremental-basedir="$B/busyfull"
if [[ $XB_KIND == mariabackup ]]; then
    # mariabackup does not check: it completes an incremental that holds no page
    # (every page of src is older than from_lsn), whose to_lsn is before its from_lsn.
    assert_ok "$XB_RC" "$XB_ERR" "mariabackup: incremental on a base newer than the server"
    assert_eq 0 "$(inc_delta_pages "$B/x4")" "mariabackup: pages in the deltas of an incremental on a newer base"
    (( $(checkpoints_value "$B/x4" to_lsn) < $(checkpoints_value "$B/x4" from_lsn) )) \
        || fail "mariabackup: to_lsn of the incremental on a newer base is not before its from_lsn"
    log "mariabackup takes an empty incremental on a base newer than the server (to_lsn < from_lsn)"
else
    refused_backup "base newer than the server" "$B/x4" "$B/busyfull" "$BUSY_SUMS"
    assert_error SERVER_STATE "$XB_RC" "$XB_ERR" "base newer than the server"
    assert_contains "$XB_ERR" "the base of the incremental backup, the full-backuped backup in $(re "$B/busyfull"), ends at LSN $BUSY_LSN, ahead of the server's current LSN [0-9]+: it is not a backup of this server as it is now" \
        "base newer than the server: message names the base, its to_lsn and the server's LSN"
    assert_contains "$XB_ERR" "HINT: base the incremental backup on a backup of this server" "base newer than the server: hint"
fi

if [[ $XB_KIND == xtrabackup ]]; then
    log "--- a base from another server with another page size (its LSN below this server's)"
    SERVER_INSTALL_OPTS=--innodb-page-size=8k server_start other --innodb-page-size=8k
    xb_backup other "$B/otherfull"
    assert_ok "$XB_RC" "$XB_ERR" "full backup of the 8k server"
    server_stop other
    OTHER_SUMS=$(tree_sums "$B/otherfull")
    xb_backup src "$B/x6" --incremental-basedir="$B/otherfull"
    refused_backup "base of another server" "$B/x6" "$B/otherfull" "$OTHER_SUMS"
    assert_error SERVER_STATE "$XB_RC" "$XB_ERR" "base of another server"
    assert_contains "$XB_ERR" "--incremental-basedir=$(re "$B/otherfull"): the base was taken of a server with innodb_page_size=8192 .*, this server has 16384: it is not a backup of this server" \
        "base of another server: message names the base and both page sizes"
fi

log "--- --incremental-lsn that is not a number"
xb_backup src "$B/x5" --incremental-lsn=12abc
refused_backup "--incremental-lsn=12abc" "$B/x5" ""
if [[ $XB_KIND == mariabackup ]]; then
    assert_contains "$XB_ERR" "value '12abc' may be wrong format for incremental option" "--incremental-lsn=12abc: message"
else
    assert_error USAGE "$XB_RC" "$XB_ERR" "--incremental-lsn=12abc"
    assert_contains "$XB_ERR" "--incremental-lsn=12abc \(command line\) is not an LSN" "--incremental-lsn=12abc: message names the option and the value"
fi

# ---------------------------------------------------------------- --prepare
log "--- an incremental onto a full backup that was never prepared"
cp -a "$B/full" "$T/unprep"
cp -a "$B/inc1" "$T/unprep-inc1"
U_SUMS=$(tree_sums "$T/unprep"); UI_SUMS=$(tree_sums "$T/unprep-inc1")
prep_run "$INC_PUT" "$T/unprep" --incremental-dir="$T/unprep-inc1"
assert_failed "$PREP_RC" "$PREP_ERR" "--incremental-dir onto an unprepared full backup"
if [[ $(prepare_kind "$INC_PUT") == mariabackup ]]; then
    assert_contains "$PREP_ERR" "error: applying incremental backup needs a prepared target" "unprepared target: message"
else
    assert_error NOT_PREPARED "$PREP_RC" "$PREP_ERR" "unprepared target"
    assert_contains "$PREP_ERR" "applying incremental backup needs a prepared target: $(re "$T/unprep") is not prepared \(backup_type = full-backuped\), $(re "$T/unprep-inc1") was not applied" \
        "unprepared target: message names the target and the incremental"
    assert_contains "$PREP_ERR" "HINT: prepare the full backup first: xtrabackup --prepare --target-dir=$(re "$T/unprep"), then" "unprepared target: hint"
fi
assert_eq "$U_SUMS" "$(tree_sums "$T/unprep")" "unprepared target changed"
assert_eq "$UI_SUMS" "$(tree_sums "$T/unprep-inc1")" "incremental changed by a refused prepare"

log "--- the incrementals in the wrong order: inc2 before inc1"
prep_run "$INC_PUT" "$B/full"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare of the full backup"
P_SUMS=$(tree_sums "$B/full"); I2_SUMS=$(tree_sums "$B/inc2")
TO=$(checkpoints_value "$B/full" to_lsn); FROM2=$(checkpoints_value "$B/inc2" from_lsn)
[[ $TO != "$FROM2" ]] || fail "inc2's from_lsn equals the full backup's to_lsn: the test cannot tell the order"
prep_run "$INC_PUT" "$B/full" --incremental-dir="$B/inc2"
assert_failed "$PREP_RC" "$PREP_ERR" "inc2 before inc1"
if [[ $(prepare_kind "$INC_PUT") == mariabackup ]]; then
    assert_contains "$PREP_ERR" "error: This incremental backup seems not to be proper for the target" "wrong order: message"
else
    assert_error TARGET "$PREP_RC" "$PREP_ERR" "wrong order"
    assert_contains "$PREP_ERR" "This incremental backup seems not to be proper for the target.*: to_lsn of $(re "$B/full") is $TO, from_lsn of $(re "$B/inc2") is $FROM2" \
        "wrong order: message names both directories and both LSNs"
    assert_contains "$PREP_ERR" "HINT: apply the incrementals of a chain in order" "wrong order: hint"
fi
assert_eq "$P_SUMS" "$(tree_sums "$B/full")" "wrong order: target changed"
assert_eq "$I2_SUMS" "$(tree_sums "$B/inc2")" "wrong order: incremental changed"
# the right order still works after the refusal
inc_prepare_chain "$INC_PUT" "$T/unprep" "$T/unprep-inc1"
prep_run "$INC_PUT" "$B/full" --incremental-dir="$B/inc1"
assert_ok "$PREP_RC" "$PREP_ERR" "inc1 after the refused inc2"
prep_run "$INC_PUT" "$B/full" --incremental-dir="$B/inc2"
assert_ok "$PREP_RC" "$PREP_ERR" "inc2 after inc1"

log "--- --prepare --target-dir=INC alone"
IA_SUMS=$(tree_sums "$T/inc-alone")
prep_run "$INC_PUT" "$T/inc-alone"
assert_failed "$PREP_RC" "$PREP_ERR" "--prepare of an incremental alone"
if [[ $(prepare_kind "$INC_PUT") == mariabackup ]]; then
    assert_contains "$PREP_ERR" "This target does not have correct metadata" "incremental alone: message"
else
    assert_error TARGET "$PREP_RC" "$PREP_ERR" "incremental alone"
    assert_contains "$PREP_ERR" "$(re "$T/inc-alone") is an incremental backup: it is prepared by applying it to its prepared full backup" \
        "incremental alone: message"
    assert_contains "$PREP_ERR" "HINT: .*--prepare --target-dir=FULL --incremental-dir=$(re "$T/inc-alone")" "incremental alone: hint"
fi
assert_eq "$IA_SUMS" "$(tree_sums "$T/inc-alone")" "incremental alone: changed"

if [[ $XB_KIND == xtrabackup ]]; then
    log "--- --copy-back --target-dir=INC"
    xb_run --copy-back --target-dir="$T/inc-alone" --datadir="$T/nowhere"
    assert_error NOT_PREPARED "$XB_RC" "$XB_ERR" "--copy-back of an incremental"
    assert_contains "$XB_ERR" "$(re "$T/inc-alone") is an incremental backup: nothing was restored" \
        "--copy-back of an incremental: message"
    assert_contains "$XB_ERR" "HINT: .*--incremental-dir=$(re "$T/inc-alone")" "--copy-back of an incremental: hint"
    [[ ! -e $T/nowhere ]] || fail "--copy-back of an incremental created $T/nowhere"
    assert_eq "$IA_SUMS" "$(tree_sums "$T/inc-alone")" "--copy-back of an incremental: changed"
fi

restore_prepared "$B/full" dst
assert_eq "$(sql src "CHECKSUM TABLE e.t EXTENDED" | cut -f2)" "$(sql dst "CHECKSUM TABLE e.t EXTENDED" | cut -f2)" \
    "e.t restored from the chain prepared after the refusals"
log "incremental_errors: ok"
