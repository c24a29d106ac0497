#!/usr/bin/env bash
# restore_errors.sh - --copy-back and --move-back refuse what they must, change
# nothing when they refuse, and lose nothing when they fail part-way:
#  - a backup that is not prepared (exit NOT_PREPARED), a directory that is not a
#    backup, no datadir anywhere (exit USAGE), a datadir that is not empty, and with
#    --force-non-empty-directories a file of the backup that already exists (exit
#    TARGET): each with its message, the destination and the backup unchanged;
#  - --force-non-empty-directories with an unrelated file in the datadir: restored,
#    the file kept as it was;
#  - a DATA DIRECTORY tablespace is placed where its .isl file points;
#  - (root) --move-back onto another file system (a tmpfs) copies and removes: same
#    contents, and the backup keeps only its metadata, no emptied directory;
#  - a failure part-way (the .isl of a tablespace pointing where no directory can be
#    made): --copy-back says how many files it copied and which was first not
#    copied; --move-back the same, every file is then whole in exactly one of the
#    two places, and after the .isl is fixed a second --move-back with
#    --force-non-empty-directories finishes the job: the server starts and the data
#    equals the source's.
# Our tool only (mariabackup's messages and exit codes differ).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "checks our messages and exit codes"

expect() { # WHAT ERROR_NAME ERE
    assert_failed "$XB_RC" "$XB_ERR" "$1"
    assert_error "$2" "$XB_RC" "$XB_ERR" "$1"
    assert_contains "$XB_ERR" "$3" "$1: message"
    log "case ok: $1"
}
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }

server_start src
mkdir -p "$T/ext"
sql src "CREATE DATABASE r; USE r; CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
         INSERT INTO t SELECT seq, MD5(seq) FROM seq_1_to_20000;
         CREATE TABLE d (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB DATA DIRECTORY='$T/ext';
         INSERT INTO d SELECT seq, SHA1(seq) FROM seq_1_to_5000;
         CREATE TABLE m (id INT PRIMARY KEY) ENGINE=MyISAM; INSERT INTO m VALUES (1),(2)" \
    || fail "creating the data failed"
src_sums=$(checksum_all src)
xb_backup src "$T/backup" --dump-innodb-buffer-pool=0
assert_ok "$XB_RC" "$XB_ERR" "backup"
assert_file "$T/backup/r/d.isl"

# --- refusals, nothing changed
write_cnf dst "$T/dst/data"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/backup"
expect "unprepared backup" NOT_PREPARED "the backup in $(re "$T/backup") is not prepared \(backup_type = full-backuped\): nothing was restored"
assert_contains "$XB_ERR" "run xtrabackup --prepare --target-dir=" "unprepared backup: hint"
[[ -e $T/dst/data ]] && fail "the refused --copy-back created the datadir"

prep_run "$XB" "$T/backup"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare"
before=$(tree_sums "$T/backup")
server_stop src
mv "$T/ext" "$T/ext.src"   # as on a new host: the external directory is not there yet

mkdir -p "$T/notabackup"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/notabackup"
expect "not a backup" TARGET "$(re "$T/notabackup") is not a backup"

xb_run --no-defaults --copy-back --target-dir="$T/backup"
expect "no datadir" USAGE "no datadir to restore into"

mkdir -p "$T/dst/data"
echo "keep me" > "$T/dst/data/notes.txt"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/backup"
expect "datadir not empty" TARGET "the datadir $(re "$T/dst/data") is not empty \(it holds 'notes.txt'\): nothing was restored"
assert_contains "$XB_ERR" "force-non-empty-directories" "datadir not empty: hint"
assert_eq "notes.txt" "$(ls "$T/dst/data")" "the datadir after the refusal"

mkdir -p "$T/dst/data/r"
echo "mine" > "$T/dst/data/r/t.frm"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/backup" --force-non-empty-directories
expect "existing file" TARGET "1 file of the backup already exists in the destination \(first: $(re "$T/dst/data/r/t.frm")\): nothing was restored"
assert_eq "mine" "$(cat "$T/dst/data/r/t.frm")" "the existing file is untouched"
assert_eq "notes.txt r" "$(ls "$T/dst/data" | tr '\n' ' ' | sed 's/ $//')" "the datadir after the refusal"
assert_eq "$before" "$(tree_sums "$T/backup")" "the backup after the refusals"

# --- force with an unrelated file; the DATA DIRECTORY table goes where its .isl says
rm -rf "$T/dst/data/r"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/backup" --force-non-empty-directories
assert_ok "$XB_RC" "$XB_ERR" "copy-back with --force-non-empty-directories"
assert_eq "keep me" "$(cat "$T/dst/data/notes.txt")" "the unrelated file is kept"
assert_file "$T/ext/r/d.ibd"
[[ -e $T/dst/data/r/d.ibd ]] && fail "the DATA DIRECTORY tablespace was put in the datadir"
assert_eq "$before" "$(tree_sums "$T/backup")" "the backup after --copy-back"
server_start_on dst "$T/dst/data"
check_clean_start dst
assert_eq "$src_sums" "$(checksum_all dst)" "CHECKSUM TABLE after --copy-back"
server_stop dst
rm -rf "$T/ext"

# --- --move-back to another file system: copy, fsync, then remove (root: a tmpfs)
if [[ $(id -u) -eq 0 ]] && mkdir -p "$T/xfs" && mount -t tmpfs -o size=256M tmpfs "$T/xfs" 2>/dev/null; then
    at_exit 'umount "$T/xfs" 2>/dev/null'
    cp -a "$T/backup" "$T/backup3"
    rm -f "$T/backup3/r/d.isl" "$T/backup3/r/d.frm"    # only plain datadir files here
    rm -f "$T/backup3/r/d.ibd"
    rm -f "$T/backup3/xtrabackup_manifest.pmap" "$T/backup3/xtrabackup_statcache.pmap"  # files taken out on purpose: no manifest to match
    want=$(cd "$T/backup3" && find . -type f ! -name 'xtrabackup_checkpoints' ! -name 'xtrabackup_binlog_info' \
        ! -name 'backup-my.cnf' -print0 | LC_ALL=C sort -z | xargs -0 md5sum)
    write_cnf xdev "$T/xfs/data"
    xb_run --defaults-file="$xdev_CNF" --move-back --target-dir="$T/backup3"
    assert_ok "$XB_RC" "$XB_ERR" "--move-back across file systems"
    assert_eq "$want" "$(cd "$T/xfs/data" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 md5sum)" \
        "files moved across file systems (contents)"
    assert_eq "backup-my.cnf xtrabackup_binlog_info xtrabackup_checkpoints" \
        "$(cd "$T/backup3" && find . -mindepth 1 | sed 's|^\./||' | LC_ALL=C sort | tr '\n' ' ' | sed 's/ $//')" \
        "what --move-back across file systems leaves in the backup"
    umount "$T/xfs"
else
    log "SKIPPED case: --move-back across file systems (needs root to mount a tmpfs)"
fi

# --- a failure part-way
cp -a "$T/backup" "$T/backup2"
printf '%s' "/proc/xb-no-such-dir/d.ibd" > "$T/backup/r/d.isl"
write_cnf cb "$T/cb/data"
xb_run --defaults-file="$cb_CNF" --copy-back --target-dir="$T/backup"
expect "copy-back failing part-way" IO_WRITE "cannot create directory /proc/xb-no-such-dir"
assert_contains "$XB_ERR" "--copy-back stopped: [0-9]+ of [0-9]+ files copied" "copy-back failing part-way: what was copied"
assert_contains "$XB_ERR" "the first being r/d.ibd" "copy-back failing part-way: first not copied"
find "$T/cb" -name '*.xbrestore' | grep -q . && fail "a temporary .xbrestore file was left behind"

total=$(find "$T/backup2" -type f | wc -l)
printf '%s' "/proc/xb-no-such-dir/d.ibd" > "$T/backup2/r/d.isl"
write_cnf mv "$T/mv/data"
xb_run --defaults-file="$mv_CNF" --move-back --target-dir="$T/backup2" --parallel=1
expect "move-back failing part-way" IO_WRITE "cannot create directory /proc/xb-no-such-dir"
assert_contains "$XB_ERR" "--move-back stopped: [0-9]+ of [0-9]+ files moved" "move-back failing part-way: what was moved"
assert_contains "$XB_ERR" "every file is whole either in the datadir or still in" "move-back failing part-way: hint"
in_backup=$(find "$T/backup2" -type f | wc -l)
in_dst=$(find "$T/mv/data" -type f | wc -l)
log "after the failed --move-back: $in_backup files in the backup, $in_dst in the datadir (of $total)"
# the metadata left behind (3 files) are counted on both sides of the split
assert_eq "$total" "$((in_backup + in_dst))" "every file in exactly one place"
printf '%s' "$T/ext/r/d.ibd" > "$T/backup2/r/d.isl"
xb_run --defaults-file="$mv_CNF" --move-back --target-dir="$T/backup2" --force-non-empty-directories
assert_ok "$XB_RC" "$XB_ERR" "second --move-back"
assert_file "$T/ext/r/d.ibd"
server_start_on mv "$T/mv/data"
check_clean_start mv
assert_eq "$src_sums" "$(checksum_all mv)" "CHECKSUM TABLE after the resumed --move-back"
log "restore_errors: ok"
