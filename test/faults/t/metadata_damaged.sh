#!/usr/bin/env bash
# metadata_damaged.sh - a backup whose own metadata or redo copy is damaged is
# refused by --prepare before anything changes, with a message naming the file:
# xtrabackup_checkpoints emptied, filled with garbage, with a backup_type or an
# LSN that makes no sense; the redo copy (ib_logfile0) cut short, its header or
# its checkpoint blocks overwritten, a record in the middle flipped. Each time
# the backup is left byte-identical (a rerun on the original succeeds) and no
# "completed OK" is printed. Then the undamaged backup prepares and restores.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the scenario checks our --prepare"

server_start src
sql src "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, v INT, pad VARCHAR(200)) ENGINE=InnoDB;
         INSERT INTO d.t SELECT seq, seq, REPEAT(MD5(seq), 6) FROM d.seq_1_to_30000" || fail "sample data"
# redo to apply: changes made while the copy runs
xb_backup_bg src "$T/base" --throttle=20
sql src "UPDATE d.t SET v = v + 1 WHERE id % 7 = 0; INSERT INTO d.t SELECT seq, 0, 'late' FROM d.seq_30001_to_31000"
xb_wait
assert_ok "$XB_RC" "$XB_ERR" "the base backup"
want=$(checksum_all src)

put_init
n=0
# damaged WHAT CMD - a copy of the base backup, damaged by CMD (run in the copy),
# must be refused by --prepare, naming FILE, and left as it was.
damaged() {
    local what=$1 file=$2 cmd=$3
    n=$((n + 1))
    local B=$T/c$n
    cp -a "$T/base" "$B"
    (cd "$B" && eval "$cmd") || fail "$what: damaging the copy failed"
    local before; before=$(tree_sums "$B")
    prep_run "$PUT" "$B"
    assert_failed "$PREP_RC" "$PREP_ERR" "$what"
    assert_contains "$PREP_ERR" "Error: \[[0-9]+\] .*$file" "$what: the error names $file"
    assert_contains "$PREP_ERR" "HINT: " "$what: a hint"
    assert_not_contains "$PREP_ERR" "completed OK" "$what: no success line"
    assert_eq "$before" "$(tree_sums "$B")" "$what: the backup is unchanged"
    log "case ok: $what: $(grep -m1 'Error: \[' "$PREP_ERR" | sed 's/.*Error: //')"
}

damaged "xtrabackup_checkpoints empty" xtrabackup_checkpoints ': > xtrabackup_checkpoints'
damaged "xtrabackup_checkpoints garbage" xtrabackup_checkpoints 'head -c 300 /dev/urandom > xtrabackup_checkpoints'
damaged "xtrabackup_checkpoints unknown backup_type" xtrabackup_checkpoints \
    'sed -i "s/^backup_type = .*/backup_type = half-done/" xtrabackup_checkpoints'
damaged "xtrabackup_checkpoints to_lsn past the redo copy" "ib_logfile0|xtrabackup_checkpoints" \
    'sed -i "s/^last_lsn = .*/last_lsn = 999999999999/" xtrabackup_checkpoints'
damaged "ib_logfile0 missing" ib_logfile0 'rm ib_logfile0'
damaged "ib_logfile0 cut short" ib_logfile0 'truncate -s 100000 ib_logfile0'
damaged "ib_logfile0 header garbage" ib_logfile0 'head -c 512 /dev/urandom | dd of=ib_logfile0 conv=notrunc status=none'
damaged "ib_logfile0 checkpoint blocks garbage" ib_logfile0 \
    'head -c 8192 /dev/urandom | dd of=ib_logfile0 bs=4096 seek=1 conv=notrunc status=none'
damaged "ib_logfile0 a record flipped" ib_logfile0 \
    'printf "\xa5" | dd of=ib_logfile0 bs=1 seek=$((12288 + 3000)) conv=notrunc status=none'

prep_run "$PUT" "$T/base"
assert_ok "$PREP_RC" "$PREP_ERR" "the undamaged backup"
restore_backup "$T/base" dst
assert_eq "$want" "$(checksum_all dst)" "restored data equals the source"
log "case ok: the undamaged backup prepares and restores ($n damaged copies refused)"
