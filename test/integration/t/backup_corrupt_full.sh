#!/usr/bin/env bash
# backup_corrupt_full.sh - two failures a backup must report, never hide:
#  1. a datafile page that is really corrupt on disk (a byte flipped while the
#     server was down; the server has not read that page since): the backup fails
#     with CORRUPT_PAGE naming the file and the page, after its re-reads, and
#     leaves no xtrabackup_checkpoints;
#  2. a target file system that fills up (a 24 MiB tmpfs): the backup fails with
#     IO_WRITE and the "file system is full" hint, no "completed OK!", no
#     xtrabackup_checkpoints. Case 2 needs root to mount a tmpfs; without it the
#     case is reported as skipped and case 1 still decides the result.
# mariabackup reports both too, in its own words; only the failure is checked then.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"


server_start src
sql src "CREATE DATABASE c;
         CREATE TABLE c.victim (id INT PRIMARY KEY, pad CHAR(200)) ENGINE=InnoDB;
         INSERT INTO c.victim SELECT seq, REPEAT('v', 200) FROM c.seq_1_to_20000;
         CREATE TABLE c.bulk (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO c.bulk SELECT seq, REPEAT(MD5(seq), 7) FROM c.seq_1_to_150000" || fail "sample data"
server_stop src
# Flip one byte in the middle of page 5 of c.victim (a leaf page of the clustered index).
F=$(datadir_of src)/c/victim.ibd
printf '\xAA' | dd of="$F" bs=1 seek=$((5 * 16384 + 8000)) conv=notrunc status=none
server_start_on src "$(datadir_of src)"

# 1. corrupt page
xb_backup src "$T/b1"
assert_failed "$XB_RC" "$XB_ERR" "backup of a corrupt tablespace"
[[ -e $T/b1/xtrabackup_checkpoints ]] && fail "a failed backup left xtrabackup_checkpoints"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_error CORRUPT_PAGE "$XB_RC" "$XB_ERR" "a corrupt page"
    assert_contains "$XB_ERR" "page 5 of .*c/victim\.ibd is corrupt" "the error names file and page"
    assert_contains "$XB_ERR" "HINT: .*innochecksum" "the hint says how to check the file"
fi
log "case ok: corrupt page"

# 2. full target
if [[ $(id -u) -ne 0 ]]; then
    log "SKIPPED case: full target (needs root to mount a tmpfs)"
    exit 0
fi
M=$T/small
mkdir -p "$M"
mount -t tmpfs -o size=24M tmpfs "$M" || { log "SKIPPED case: full target (mount failed)"; exit 0; }
at_exit 'umount "$M" 2>/dev/null'
# repair the victim first so the only problem left is space
server_stop src
server_start_on src "$(datadir_of src)"
sql src "DROP TABLE c.victim" || fail "dropping the corrupt table"
xb_backup src "$M/b2"
assert_failed "$XB_RC" "$XB_ERR" "backup to a full file system"
[[ -e $M/b2/xtrabackup_checkpoints ]] && fail "a backup to a full disk left xtrabackup_checkpoints"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_error IO_WRITE "$XB_RC" "$XB_ERR" "a full target"
    assert_contains "$XB_ERR" "No space left on device" "the error says the disk is full"
    assert_contains "$XB_ERR" "HINT: the target file system is full" "the hint"
fi
log "case ok: full target"
