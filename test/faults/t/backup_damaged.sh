#!/usr/bin/env bash
# backup_damaged.sh - damage done to a backup after it was written is caught by
# its manifest (xtrabackup_manifest.pmap, doc/backup-directory.md §13) before
# --prepare or --copy-back change anything, and by --verify:
#  - a backup of a real server (an InnoDB table left alone since before the
#    backup, whose pages no redo of the copy touches; one updated just before it,
#    whose page the copied redo does touch; a MyISAM table) is checked by --verify
#    ("verified N files"), prepared and checked again;
#  - then, each on a fresh copy of the backup (unprepared for --verify and
#    --prepare, prepared for --copy-back): a byte flipped in a page no redo
#    touches, a byte flipped in a page the redo touches, a deleted .ibd, a file cut
#    short, an extra file (which --prepare names and takes in, as mariabackup
#    prepares such a directory), a garbage manifest: each command exits with
#    BACKUP_DAMAGED naming the file (or the manifest line), the backup is unchanged
#    (tree_sums) and --copy-back created no datadir; a missing manifest is an error
#    for --verify (MISSING_FILE) and one warning for --prepare and --copy-back,
#    which go on (a backup by mariabackup has none);
#  - once the damage is undone, --prepare and --copy-back succeed, and the
#    restored server's CHECKSUM TABLE equals the source's;
#  - an interrupted --prepare (killed before its marker, after its first batch of
#    pages written, and once the check is done) is rerun without a refusal, and its manifest then describes the prepared tree;
#  - a backup streamed as xbstream, compressed and encrypted, carries the
#    manifest: after extraction with decoding --verify passes, and a flipped byte
#    is caught; extracted still encoded, --verify (given the key) decodes it in
#    memory and passes, names a deleted file, and a flipped byte fails the
#    decryption (DECRYPT, the file named).
#  - a log file the shell created in the target before the backup is a foreign
#    entry of the manifest: not checked, its growth after the backup is no damage.
# Our tool only.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the manifest is ours"
XBSTREAM=$(dirname "$XB")/xbstream
MF=xtrabackup_manifest.pmap

server_start src --innodb_log_file_size=64M
sql src "CREATE DATABASE d; USE d;
         CREATE TABLE quiet (id INT PRIMARY KEY, v VARCHAR(200)) ENGINE=InnoDB;
         INSERT INTO quiet SELECT seq, REPEAT(MD5(seq), 5) FROM seq_1_to_20000;
         CREATE TABLE hot (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO hot SELECT seq, MD5(seq) FROM seq_1_to_20;
         CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
         INSERT INTO m SELECT seq, SHA1(seq) FROM seq_1_to_2000;
         SET GLOBAL innodb_max_dirty_pages_pct=0;" || fail "creating the data failed"
# quiet's pages reach the disk and a checkpoint passes them; hot changes after
clean() {
    [[ $(sql src "SELECT variable_value FROM information_schema.global_status
                  WHERE variable_name='INNODB_BUFFER_POOL_PAGES_DIRTY'") -eq 0 ]]
}
wait_for 30 clean || fail "the buffer pool was not flushed"
sql src "SET GLOBAL innodb_log_checkpoint_now=ON" 2>/dev/null
sql src "SET GLOBAL innodb_max_dirty_pages_pct=90; UPDATE d.hot SET v = CONCAT('after-', id)" || fail "update failed"
src_sums=$(checksum_all src)

# a target holding the log the shell created for 2> DIR/backup.log, written on after the backup
mkdir -p "$T/pristine"; echo "started" > "$T/pristine/backup.log"
xb_backup src "$T/pristine"
assert_ok "$XB_RC" "$XB_ERR" "backup"
echo "completed OK!" >> "$T/pristine/backup.log"
assert_contains "$T/pristine/$MF" "^-------- - - - backup\.log$" "the stray log: a foreign entry"
assert_file "$T/pristine/$MF"
assert_contains "$T/pristine/$MF" "^xtrabackup-manifest 1 backup to_lsn=[0-9]+$" "manifest header"
assert_contains "$T/pristine/$MF" "^[0-9a-f]{8} [0-9]+ [0-9]+ [0-9]+ d/quiet\.ibd$" "manifest line of d/quiet.ibd"
assert_contains "$T/pristine/$MF" "^[0-9a-f]{8} [0-9]+ - - d/m\.MYD$" "manifest line of d/m.MYD"
assert_contains "$T/pristine/$MF" "^end [0-9]+$" "manifest trailer"
grep -q "xtrabackup_checkpoints" "$T/pristine/$MF" && fail "the manifest lists xtrabackup_checkpoints"
SC=xtrabackup_statcache.pmap
assert_file "$T/pristine/$SC"
nfiles=$(find "$T/pristine" -type f ! -name "$MF" ! -name "$SC" ! -name xtrabackup_checkpoints ! -name backup.log | wc -l)
server_stop src

xb_run --verify --target-dir="$T/pristine"
assert_ok "$XB_RC" "$XB_ERR" "--verify of the backup"
assert_contains "$XB_ERR" "^verified $nfiles files, [0-9]+ bytes" "--verify of the backup: count"

# the page of d.hot the copied redo touches: its root (page 3), and the redo names it
page=$(( $(sed -n 's/.* \([0-9]*\) d\/hot\.ibd$/\1/p' "$T/pristine/$MF") ))
[[ $page -gt 3 ]] || fail "d/hot.ibd has $page pages"
ps=$(( $(stat -c %s "$T/pristine/d/hot.ibd") / page ))

cp -a "$T/pristine" "$T/prepared"
prep_run "$XB" "$T/prepared"
assert_ok "$PREP_RC" "$PREP_ERR" "prepare of the backup"
assert_contains "$PREP_ERR" "Checked .* against its manifest: $nfiles files" "prepare: the check"
assert_contains "$T/prepared/$MF" "^xtrabackup-manifest 1 prepared to_lsn=[0-9]+$" "manifest of the prepared backup"
xb_run --verify --target-dir="$T/prepared"
assert_ok "$XB_RC" "$XB_ERR" "--verify of the prepared backup"

# damage NAME DIR: apply damage NAME to backup DIR
damage() {
    case $1 in
        flip_quiet) flip "$2/d/quiet.ibd" $(( 5 * ps + 3000 )) ;;
        flip_hot)   flip "$2/d/hot.ibd" $(( 3 * ps + 200 )) ;;
        delete)     rm "$2/d/quiet.ibd" ;;
        truncate)   truncate -s -"$ps" "$2/d/quiet.ibd" ;;
        extra)      echo "stray" > "$2/d/stray.frm" ;;
        garbage)    printf 'not a manifest\n' > "$2/$MF" ;;
        missing)    rm "$2/$MF" ;;
    esac
}
# undo NAME DIR FROM: put back what damage NAME changed, from FROM
undo() {
    case $1 in
        flip_quiet|delete|truncate) cp -a "$3/d/quiet.ibd" "$2/d/quiet.ibd" ;;
        flip_hot) cp -a "$3/d/hot.ibd" "$2/d/hot.ibd" ;;
        extra)    rm "$2/d/stray.frm" ;;
        garbage|missing) cp -a "$3/$MF" "$2/$MF" ;;
    esac
}

n=0
for what in flip_quiet flip_hot delete truncate extra garbage missing; do
    n=$((n + 1))
    case $what in
        # the prepared copy's d/hot.ibd was written by the prepare: checked by its pages
        flip_quiet|flip_hot) pat="d/(quiet|hot)\.ibd changed: (CRC-32C [0-9a-f]{8}, the manifest says [0-9a-f]{8}|page 3 is damaged \(.+\))" ;;
        delete)   pat="d/quiet\.ibd is missing" ;;
        truncate) pat="d/quiet\.ibd changed: [0-9]+ bytes, the manifest says [0-9]+" ;;
        extra)    pat="d/stray\.frm is not in the manifest" ;;
        garbage)  pat="$MF: line 1: expected \"xtrabackup-manifest 1 STATE \[to_lsn=N\]\", got \"not a manifest\"" ;;
        missing)  pat="" ;;
    esac
    log "--- damage: $what"
    W=$T/w$n; P=$T/p$n
    cp -a "$T/pristine" "$W"; cp -a "$T/prepared" "$P"
    damage "$what" "$W"; damage "$what" "$P"
    sums_w=$(tree_sums "$W"); sums_p=$(tree_sums "$P")

    xb_run --verify --target-dir="$W"
    if [[ $what == missing ]]; then
        assert_error MISSING_FILE "$XB_RC" "$XB_ERR" "$what: --verify"
        assert_contains "$XB_ERR" "$MF: no manifest, so the backup cannot be checked" "$what: --verify message"
    else
        assert_error BACKUP_DAMAGED "$XB_RC" "$XB_ERR" "$what: --verify"
        assert_contains "$XB_ERR" "$pat" "$what: --verify names the file"
        assert_contains "$XB_ERR" "HINT: " "$what: --verify hint"
    fi
    assert_eq "$sums_w" "$(tree_sums "$W")" "$what: the backup after --verify"

    if [[ $what == missing ]]; then
        # no manifest: prepared and restored as before, with a warning
        prep_run "$XB" "$W"
        assert_ok "$PREP_RC" "$PREP_ERR" "$what: --prepare"
        assert_contains "$PREP_ERR" "holds no $MF .*: its files cannot be checked" "$what: --prepare warning"
        write_cnf "dst$n" "$T/dst$n/data"
        xb_run --defaults-file="$(cnf_of "dst$n")" --copy-back --target-dir="$P"
        assert_ok "$XB_RC" "$XB_ERR" "$what: --copy-back"
        assert_contains "$XB_ERR" "holds no $MF .*: its files cannot be checked" "$what: --copy-back warning"
    else
        if [[ $what == extra ]]; then
            # a file put beside the backup's own is no damage to them: --prepare
            # names it and counts it in the backup from then on (as mariabackup
            # prepares such a directory); --verify and the restores refuse it
            cp -a "$W" "$W.x"
            prep_run "$XB" "$W.x"
            assert_ok "$PREP_RC" "$PREP_ERR" "$what: --prepare"
            assert_contains "$PREP_ERR" "holds 1 file\(s\) the backup did not write: d/stray\.frm; --prepare leaves them" \
                "$what: --prepare names the file"
            xb_run --verify --target-dir="$W.x"
            assert_ok "$XB_RC" "$XB_ERR" "$what: --verify after the --prepare that counted it"
            rm -rf "$W.x"
        else
            prep_run "$XB" "$W"
            assert_error BACKUP_DAMAGED "$PREP_RC" "$PREP_ERR" "$what: --prepare"
            assert_contains "$PREP_ERR" "$pat" "$what: --prepare names the file"
            assert_contains "$PREP_ERR" "--prepare changed nothing" "$what: --prepare message"
            assert_eq "$sums_w" "$(tree_sums "$W")" "$what: the backup after --prepare"
        fi

        write_cnf "dst$n" "$T/dst$n/data"
        xb_run --defaults-file="$(cnf_of "dst$n")" --copy-back --target-dir="$P"
        assert_error BACKUP_DAMAGED "$XB_RC" "$XB_ERR" "$what: --copy-back"
        assert_contains "$XB_ERR" "$pat" "$what: --copy-back names the file"
        assert_eq "$sums_p" "$(tree_sums "$P")" "$what: the backup after --copy-back"
        [[ -e $T/dst$n/data ]] && fail "$what: the refused --copy-back created the datadir"

        # undone: both succeed, the data is the source's
        undo "$what" "$W" "$T/pristine"; undo "$what" "$P" "$T/prepared"
        prep_run "$XB" "$W"
        assert_ok "$PREP_RC" "$PREP_ERR" "$what undone: --prepare"
        xb_run --defaults-file="$(cnf_of "dst$n")" --copy-back --target-dir="$W"
        assert_ok "$XB_RC" "$XB_ERR" "$what undone: --copy-back"
    fi
    [[ -e $T/dst$n/data/$MF ]] && fail "$what: the manifest was restored into the datadir"
    server_start_on "dst$n" "$T/dst$n/data"
    check_clean_start "dst$n"
    assert_eq "$src_sums" "$(checksum_all "dst$n")" "$what: CHECKSUM TABLE of the restored server"
    server_stop "dst$n"
    rm -rf "$W" "$P" "$T/dst$n"
done

# --- the stat cache (doc/backup-directory.md §18): a prepare reads only what changed
C=$T/cached
cp -a "$T/pristine" "$C"
xb_run --verify --target-dir="$C"      # a copy: read whole once, its stamps recorded
assert_ok "$XB_RC" "$XB_ERR" "--verify of a copy"
assert_file "$C/$SC"
sums_c=$(tree_sums "$C")
# a byte flipped in place, the modification time put back (touch -r): the change time tells
flip "$C/d/quiet.ibd" $(( 5 * ps + 3000 ))
touch -r "$T/pristine/d/quiet.ibd" "$C/d/quiet.ibd"
prep_run "$XB" "$C"
assert_error BACKUP_DAMAGED "$PREP_RC" "$PREP_ERR" "stat cache: a flip with its mtime put back"
assert_contains "$PREP_ERR" "d/quiet\.ibd changed: CRC-32C [0-9a-f]{8}, the manifest says [0-9a-f]{8}" "stat cache: the flip named"
flip "$C/d/quiet.ibd" $(( 5 * ps + 3000 ))
# undone in place: the stamp still differs from the cache's, so the file is read, found good
prep_run "$XB" "$C"
assert_ok "$PREP_RC" "$PREP_ERR" "stat cache: prepare after the flip was undone"
assert_contains "$PREP_ERR" "Checked .* against its manifest: $nfiles files, $((nfiles - 1)) of them unchanged since they were last checked or written" "stat cache: one file read"
assert_contains "$C/$MF" "^pages [0-9]+ [0-9]+ [0-9]+ d/hot\.ibd$" "stat cache: d/hot.ibd, written by the prepare, is checked by its pages"
assert_contains "$C/$MF" "^[0-9a-f]{8} [0-9]+ [0-9]+ [0-9]+ d/quiet\.ibd$" "stat cache: d/quiet.ibd keeps its CRC-32C"
# prepared again: nothing read
prep_run "$XB" "$C"
assert_ok "$PREP_RC" "$PREP_ERR" "stat cache: prepare of the prepared backup"
assert_contains "$PREP_ERR" "Checked .* against its manifest: ([0-9]+) files, \1 of them unchanged since they were last checked or written \($SC\), 0 bytes read" "stat cache: nothing read"
# a garbage cache: not used, the files are read, the prepare works
printf 'garbage\n' > "$C/$SC"
prep_run "$XB" "$C"
assert_ok "$PREP_RC" "$PREP_ERR" "stat cache: garbage cache"
assert_contains "$PREP_ERR" "$SC: line 1: expected \"xtrabackup-statcache 1\".*\(not used: the files are read\)" "stat cache: garbage named"
assert_not_contains "$PREP_ERR" "of them unchanged" "stat cache: garbage cache vouches for nothing"
# a page of a "pages" tablespace damaged after the prepare: --verify and --copy-back name the page
sums_c=$(tree_sums "$C")
cp -a "$C/d/hot.ibd" "$T/hot.keep"
flip "$C/d/hot.ibd" $(( 3 * ps + 200 ))
xb_run --verify --target-dir="$C"
assert_error BACKUP_DAMAGED "$XB_RC" "$XB_ERR" "pages: --verify of a damaged page"
assert_contains "$XB_ERR" "d/hot\.ibd changed: page 3 is damaged \(.+\)" "pages: --verify names the page"
write_cnf dstc "$T/dstc/data"
xb_run --defaults-file="$(cnf_of dstc)" --copy-back --target-dir="$C"
assert_error BACKUP_DAMAGED "$XB_RC" "$XB_ERR" "pages: --copy-back of a damaged page"
assert_contains "$XB_ERR" "d/hot\.ibd changed: page 3 is damaged" "pages: --copy-back names the page"
[[ -e $T/dstc/data ]] && fail "pages: the refused --copy-back created the datadir"
cp -a "$T/hot.keep" "$C/d/hot.ibd"
xb_run --defaults-file="$(cnf_of dstc)" --copy-back --target-dir="$C"
assert_ok "$XB_RC" "$XB_ERR" "pages: --copy-back once the page is put back"
[[ -e $T/dstc/data/$SC ]] && fail "the stat cache was restored into the datadir"
server_start_on dstc "$T/dstc/data"
check_clean_start dstc
assert_eq "$src_sums" "$(checksum_all dstc)" "stat cache: CHECKSUM TABLE of the restored server"
server_stop dstc
rm -rf "$C" "$T/dstc" "$T/hot.keep"

# --- an interrupted prepare is rerun without refusal
for point in prepare-before-marker prepare-batch-written prepare-started; do
    R=$T/r_$point
    cp -a "$T/pristine" "$R"
    XB_FAULT=$point:kill prep_run "$XB" "$R"
    [[ $PREP_RC -eq 137 ]] || { tail -5 "$PREP_ERR"; fail "prepare killed at $point: exit $PREP_RC"; }
    prep_run "$XB" "$R"
    assert_ok "$PREP_RC" "$PREP_ERR" "prepare rerun after a kill at $point"
    assert_contains "$R/$MF" "^xtrabackup-manifest 1 prepared to_lsn=[0-9]+$" "manifest after the rerun ($point)"
    xb_run --verify --target-dir="$R"
    assert_ok "$XB_RC" "$XB_ERR" "--verify after the rerun ($point)"
    rm -rf "$R"
done

# --- streamed, compressed and encrypted: the manifest travels, describes the decoded tree
server_start_on src "$(datadir_of src)"
(umask 077; openssl rand -hex 32 > "$T/key")
XB_RUN=$((XB_RUN + 1)); XB_ERR=$T/xb.$XB_RUN.err
"$XB" --defaults-file="$src_CNF" --backup --stream=xbstream --compress --encrypt=AES256 --encrypt-key-file="$T/key" \
    > "$T/backup.xbstream" 2> "$XB_ERR" < /dev/null
assert_ok "$?" "$XB_ERR" "streamed backup"
server_stop src
mkdir -p "$T/raw" "$T/dec"
"$XBSTREAM" -x -C "$T/raw" < "$T/backup.xbstream" 2> "$T/x.err" || { cat "$T/x.err"; fail "xbstream -x failed"; }
assert_file "$T/raw/$MF.xbcrypt"
[[ -e $T/raw/$MF ]] && fail "the manifest travelled unencrypted"
"$XBSTREAM" -x -C "$T/dec" --decompress --decrypt=AES256 --encrypt-key-file="$T/key" < "$T/backup.xbstream" \
    2> "$T/x2.err" || { cat "$T/x2.err"; fail "xbstream -x with decoding failed"; }
assert_file "$T/dec/$MF"
xb_run --verify --target-dir="$T/dec"
assert_ok "$XB_RC" "$XB_ERR" "--verify of the decoded stream"
# still encoded: decoded in memory, the plain bytes checked
xb_run --verify --target-dir="$T/raw"
assert_error USAGE "$XB_RC" "$XB_ERR" "--verify of the encrypted backup without a key"
assert_contains "$XB_ERR" "is encrypted: give --decrypt=AES256 and the key" "--verify without a key: message"
xb_run --verify --decrypt=AES256 --encrypt-key-file="$T/key" --target-dir="$T/raw"
assert_ok "$XB_RC" "$XB_ERR" "--verify of the encrypted, compressed backup"
assert_contains "$XB_ERR" "compressed or encrypted files are decoded in memory" "--verify decodes in memory"
assert_eq "$(sed -n 's/^verified \([0-9]*\) files.*/\1/p' "$XB_ERR")" \
    "$(find "$T/dec" -type f ! -name "$MF" ! -name "$SC" ! -name xtrabackup_checkpoints | wc -l)" "--verify of the encoded backup: files"
cp -a "$T/raw" "$T/raw2"
rm "$T/raw2/d/quiet.ibd.zst.xbcrypt"
xb_run --verify --decrypt=AES256 --encrypt-key-file="$T/key" --target-dir="$T/raw2"
assert_error BACKUP_DAMAGED "$XB_RC" "$XB_ERR" "--verify of the encoded backup, a file deleted"
assert_contains "$XB_ERR" "d/quiet\.ibd is missing" "--verify of the encoded backup: the file named"
flip "$T/raw/d/m.MYD.zst.xbcrypt" 100
xb_run --verify --decrypt=AES256 --encrypt-key-file="$T/key" --target-dir="$T/raw"
assert_error DECRYPT "$XB_RC" "$XB_ERR" "--verify of the encoded backup, a byte flipped"
assert_contains "$XB_ERR" "d/m\.MYD" "--verify of the encoded backup, a byte flipped: the file named"
flip "$T/dec/d/m.MYD" 100
xb_run --verify --target-dir="$T/dec"
assert_error BACKUP_DAMAGED "$XB_RC" "$XB_ERR" "--verify of the decoded stream, a byte flipped"
assert_contains "$XB_ERR" "d/m\.MYD changed: CRC-32C" "--verify of the decoded stream: the file named"
log "all cases passed"
