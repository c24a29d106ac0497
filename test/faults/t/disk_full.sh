#!/usr/bin/env bash
# disk_full.sh - a backup, a prepare and a restore that run out of disk space,
# on small tmpfs file systems mounted for the test (root needed: CI runs as
# root; a machine that cannot mount fails the scenario, it is not skipped).
#
# Server src (test/faults/inc/redo_backup.sh: e.bulk, ~16 MiB, every page of
# it rewritten by the redo copy of backup B) is backed up into B.
#   (a) --backup into a 24 MiB file system: exit 1, error 9 IO_WRITE naming a
#       file of the target and "No space left on device", no
#       xtrabackup_checkpoints, the server keeps no BACKUP STAGE lock (an
#       ALTER TABLE with lock_wait_timeout=5 succeeds), and a rerun into a
#       roomy directory succeeds.
#   (b) --prepare of a sparse copy of B (cp -a --sparse=always: zero 4 KiB
#       blocks inside live pages become holes, as a copy tool may make them)
#       on a file system holding it with 128 KiB to spare: refused before
#       any page changes (md5 of every file equal, no journal left), exit 1,
#       error 9 IO_WRITE naming the file and how many MiB are missing; after
#       the file system is grown (mount -o remount,size=) the rerun succeeds
#       and its pages equal mariabackup's prepare of B (xb_pagecmp).
#   (c) --prepare of a fresh sparse copy killed -9 at the 5th run of pages
#       written in place (XB_FAULT=prepare-page-write:kill@5, mid-batch) and
#       one whose 5th write is cut after 4 KiB with ENOSPC
#       (prepare-page-write:error@5, a torn page): each rerun ends with pages
#       equal to mariabackup's prepare.
#   (d) --copy-back of the prepared backup into a datadir on a file system
#       too small for it: exit 1, error 9 IO_WRITE naming the file and
#       "No space left on device"; the datadir is left as it was before the
#       run (empty: every file the run restored is removed again, no
#       .xbrestore file); after the file system is grown a rerun succeeds and
#       a server started on the datadir has the source's CHECKSUM TABLE.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"
# shellcheck source=../inc/redo_backup.sh
. "$(dirname "$0")/../inc/redo_backup.sh"

put_init
[[ $PUT_KIND == xtrabackup ]] || skip "the checks are our tool's"
[[ $(id -u) == 0 ]] || fail "disk_full needs root to mount small tmpfs file systems (run the fault campaign as root)"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"

# small_fs DIR SIZE - a tmpfs of SIZE (mount's syntax: 24m, 1000k) on DIR, unmounted at exit.
small_fs() {
    mkdir -p "$1"
    mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" \
        || fail "cannot mount a tmpfs on $1: disk_full needs root and mount(2) (a privileged container)"
    at_exit "umount -l '$1' 2>/dev/null"
}
grow_fs() { mount -o "remount,size=$2" "$1" || fail "cannot grow the tmpfs on $1"; }
used_kb() { df --output=used -k "$1" | tail -n 1 | tr -d ' '; }

B=$T/backup
redo_backup_make src "$B"
SUM=$(redo_backup_checksum src)

# (a) --backup into a file system that fills up
F1=$T/fs1
small_fs "$F1" 24m
xb_backup src "$F1/bk"
assert_error IO_WRITE "$XB_RC" "$XB_ERR" "(a) backup into a full file system"
assert_contains "$XB_ERR" "Error: .*$F1/bk/.*No space left on device" "(a) the error names a file of the target and ENOSPC"
[[ -e $F1/bk/xtrabackup_checkpoints ]] && fail "(a) a failed backup wrote xtrabackup_checkpoints"
sql src "SET SESSION lock_wait_timeout = 5; ALTER TABLE e.small ADD COLUMN c2 INT" \
    || fail "(a) DDL after the failed backup: the server still holds a BACKUP STAGE lock"
sql src "ALTER TABLE e.small DROP COLUMN c2" || fail "(a) DDL failed"
xb_backup src "$T/roomy"
assert_ok "$XB_RC" "$XB_ERR" "(a) rerun into a roomy directory"
assert_file "$T/roomy/xtrabackup_checkpoints"
rm -rf "$T/roomy"
log "case ok: (a) backup"
server_stop src

REF=$T/ref
cp -a "$B" "$REF" || fail "copying the backup failed"
prep_run mariabackup "$REF"
assert_ok "$PREP_RC" "$PREP_ERR" "reference prepare (mariabackup)"

# (b) --prepare of a sparse copy on a file system too small for it
F2=$T/fs2
small_fs "$F2" 1g
S=$F2/bk
cp -a --sparse=always "$B" "$S" || fail "copying the backup failed"
log "(b) sparse copy: $(du -sk "$S" | cut -f1) KiB on disk, $(du -sk --apparent-size "$S" | cut -f1) KiB of files"
grow_fs "$F2" "$(( $(used_kb "$F2") + 128 ))k"
before=$(tree_sums "$S")
prep_run "$PUT" "$S"
assert_error IO_WRITE "$PREP_RC" "$PREP_ERR" "(b) prepare on a full file system"
assert_contains "$PREP_ERR" 'Error: .*no space left on device for .*: applying this batch needs [0-9.]+ MiB more disk space' \
    "(b) the error names the file and the space missing"
assert_contains "$PREP_ERR" 'no page was changed' "(b) the error says the backup is unchanged"
assert_contains "$PREP_ERR" 'HINT: free at least' "(b) the hint"
assert_eq "$before" "$(tree_sums "$S")" "(b) the refused prepare must leave every file as it was"
assert_eq full-backuped "$(checkpoints_value "$S" backup_type)" "(b) not marked prepared"
grow_fs "$F2" 1g
prep_run "$PUT" "$S"
assert_ok "$PREP_RC" "$PREP_ERR" "(b) rerun after space was freed"
assert_pages_equal "$REF" "$S" "(b) rerun vs mariabackup's prepare"
log "case ok: (b) prepare on a full disk"

# (c) kill -9 and a torn write in the middle of a batch, on sparse copies
for fault in prepare-page-write:kill@5 prepare-page-write:error@5; do
    C=$F2/c
    rm -rf "$C"
    cp -a --sparse=always "$B" "$C" || fail "copying the backup failed"
    XB_FAULT=$fault prep_run "$PUT" "$C" --use-memory=24M
    if [[ $fault == *kill* ]]; then
        assert_eq 137 "$PREP_RC" "(c) $fault: killed"
    else
        assert_error IO_WRITE "$PREP_RC" "$PREP_ERR" "(c) $fault"
        assert_contains "$PREP_ERR" 'No space left on device' "(c) $fault: the error"
    fi
    assert_file "$C/xtrabackup_prepare_journal"
    prep_run "$PUT" "$C" --use-memory=24M
    assert_ok "$PREP_RC" "$PREP_ERR" "(c) $fault: rerun"
    assert_contains "$PREP_ERR" 'writing them in place again' "(c) $fault: the rerun replays the journal"
    assert_pages_equal "$REF" "$C" "(c) $fault: rerun vs mariabackup's prepare"
    log "case ok: (c) $fault"
done
rm -rf "$F2/c"

# (d) --copy-back into a datadir on a file system that fills up
F3=$T/fs3
small_fs "$F3" 8m   # e/bulk.ibd alone holds more
write_cnf dst "$F3/data"
log "(d) $(du -sk "$S" | cut -f1) KiB to restore; $(df -k --output=size,avail "$F3" | tail -n 1) KiB on the datadir's file system"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$S"
assert_error IO_WRITE "$XB_RC" "$XB_ERR" "(d) copy-back into a full file system"
assert_contains "$XB_ERR" "Error: .*$F3/data/.*No space left on device" "(d) the error names the file and ENOSPC"
left=$(find "$F3/data" -mindepth 1 2>/dev/null | head -n 5)
[[ -z $left ]] || fail "(d) the failed --copy-back left files in the datadir: $left"
grow_fs "$F3" 1g
rmdir "$F3/data" 2>/dev/null
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$S"
assert_ok "$XB_RC" "$XB_ERR" "(d) rerun after space was freed"
u=$(_srv_user)
[[ $u != "$(id -un)" ]] && chown -R "$u" "$F3"
server_start_on dst "$F3/data"
check_clean_start dst
assert_eq "$SUM" "$(redo_backup_checksum dst)" "(d) CHECKSUM TABLE of the restored server"
log "case ok: (d) copy-back on a full disk"
