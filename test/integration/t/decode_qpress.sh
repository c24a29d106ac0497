#!/usr/bin/env bash
# decode_qpress.sh - mariabackup's own compressed backups (--compress: QuickLZ in qpress
# archives, every file x becomes x.qp) read by our tool, end to end:
#  (a) mariabackup --backup --compress of a server with InnoDB, MyISAM and Aria tables;
#      our --decompress --remove-original --parallel=2 leaves no .qp and decodes a zstd
#      file placed next to them as well; our --prepare, our --copy-back into a fresh
#      datadir, the server starts cleanly and CHECKSUM TABLE matches the source;
#  (b) mariabackup --backup --stream=xbstream --compress piped to our xbstream -x
#      --decompress, and the same stream through our binary invoked as mbstream: both
#      trees hold no .qp and are identical; prepared, copied back, same checksums;
#  (c) damage: a .qp with a flipped byte, a truncated .qp and one that is not a qpress
#      archive each stop --decompress with STREAM_CORRUPT (exit status 1 as mariabackup's,
#      [018] in the error line; 18 itself with --exit-status=detailed), a one-line message
#      naming the file, and the damaged file kept with no decoded copy beside it;
#      the same flipped file in a stream stops xbstream -x the same way; a directory
#      with no compressed file is still "nothing to decode", exit 0; --prepare of a
#      directory of .qp files fails with MISSING_FILE and the --decompress to run.
# Our tool only (mariabackup --decompress needs the external qpress binary).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "decoding .qp files with our tool is what is tested"
XBSTREAM=$(dirname "$XB")/xbstream
[[ -x $XBSTREAM ]] || fail "no xbstream next to $XB"
command -v mariabackup >/dev/null || fail "mariabackup is missing (make deps installs mariadb-backup)"
command -v zstd >/dev/null || fail "zstd is missing (make deps installs it)"

server_start src
sql src "CREATE DATABASE s; USE s;
         CREATE TABLE i (id INT PRIMARY KEY, v VARCHAR(64), b BLOB) ENGINE=InnoDB;
         INSERT INTO i SELECT seq, MD5(seq), IF(seq % 10 = 0, RANDOM_BYTES(200), REPEAT('x', seq % 300))
             FROM seq_1_to_60000;
         CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
         INSERT INTO m SELECT seq, MD5(seq) FROM seq_1_to_5000;
         CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=Aria;
         INSERT INTO a SELECT seq, SHA1(seq) FROM seq_1_to_5000" || fail "creating the tables failed"
src_sums=$(checksum_all src)
[[ $(wc -l <<< "$src_sums") -eq 3 ]] || fail "expected 3 tables, got: $src_sums"

# restore_ours DIR NAME - our --prepare, our --copy-back into $T/NAME/data, start, compare.
restore_ours() {
    local dir=$1 name=$2
    prep_run "$XB" "$dir"
    assert_ok "$PREP_RC" "$PREP_ERR" "our --prepare of $dir"
    write_cnf "$name" "$T/$name/data"
    xb_run --defaults-file="$(cnf_of "$name")" --copy-back --target-dir="$dir"
    assert_ok "$XB_RC" "$XB_ERR" "our --copy-back of $dir"
    server_start_on "$name" "$T/$name/data"
    check_clean_start "$name"
    assert_eq "$src_sums" "$(checksum_all "$name")" "CHECKSUM TABLE of $name (restored from $dir)"
    server_stop "$name"
}

# no_qp DIR WHAT - no .qp file and no temporary left in DIR.
no_qp() {
    [[ -z $(find "$1" -name '*.qp' | head -3) ]] || fail "$2: .qp files left: $(find "$1" -name '*.qp' | head -3)"
    [[ -z $(find "$1" -name '*.xbtmp') ]] || fail "$2: temporary files left"
}

# ---------------------------------------------------------------- (a) a --compress directory
log "(a) mariabackup --backup --compress -> our --decompress --remove-original"
mariabackup --defaults-file="$src_CNF" --backup --compress --compress-threads=2 --parallel=2 \
    --target-dir="$T/qp" > "$T/mb.out" 2> "$T/mb.err" < /dev/null
assert_ok $? "$T/mb.err" "mariabackup --backup --compress"
assert_file "$T/qp/ibdata1.qp" "$T/qp/ib_logfile0.qp" "$T/qp/s/m.MYD.qp" "$T/qp/s/a.MAD.qp" "$T/qp/xtrabackup_checkpoints"
[[ ! -e $T/qp/ib_logfile0 ]] || fail "mariabackup --compress left an uncompressed ib_logfile0"
nqp=$(find "$T/qp" -name '*.qp' | wc -l)
cp -a "$T/qp" "$T/qp_orig"   # for (c)
# a zstd file among the .qp ones: decoded by the same run
printf 'compressed by zstd, not by mariabackup\n' > "$T/extra.txt"
zstd -q "$T/extra.txt" -o "$T/qp/extra.txt.zst" || fail "zstd failed"
xb_run --decompress --remove-original --parallel=2 --target-dir="$T/qp"
assert_ok "$XB_RC" "$XB_ERR" "our --decompress of mariabackup's .qp files"
assert_contains "$XB_ERR" "Decoded $((nqp + 1)) files in" "all $nqp .qp files and the .zst decoded"
no_qp "$T/qp" "--decompress --remove-original"
[[ ! -e $T/qp/extra.txt.zst ]] || fail "--remove-original left extra.txt.zst"
cmp -s "$T/extra.txt" "$T/qp/extra.txt" || fail "the .zst next to the .qp files was not decoded right"
rm -f "$T/qp/extra.txt"
assert_file "$T/qp/ib_logfile0" "$T/qp/ibdata1" "$T/qp/backup-my.cnf" "$T/qp/xtrabackup_info"
log "decoded $nqp .qp files: $(du -sk "$T/qp_orig" | cut -f1) KiB -> $(du -sk "$T/qp" | cut -f1) KiB"
restore_ours "$T/qp" dst_a

# ---------------------------------------------------------------- (b) a compressed stream
log "(b) mariabackup --stream=xbstream --compress -> our xbstream -x --decompress, and as mbstream"
mariabackup --defaults-file="$src_CNF" --backup --stream=xbstream --compress --parallel=2 \
    > "$T/qp.xbs" 2> "$T/mbs.err" < /dev/null
assert_ok $? "$T/mbs.err" "mariabackup --backup --stream=xbstream --compress"
mkdir -p "$T/sx" "$T/sm"
"$XBSTREAM" -x --decompress --parallel=2 -C "$T/sx" < "$T/qp.xbs" 2> "$T/sx.err"
assert_ok $? "$T/sx.err" "our xbstream -x --decompress"
assert_contains "$T/sx.err" 'decompressing \*\.zst and \*\.qp' "xbstream -x --decompress log"
ln -s "$XB" "$T/mbstream"
"$T/mbstream" -x -v -p 2 --decompress -C "$T/sm" < "$T/qp.xbs" 2> "$T/sm.err"
assert_ok $? "$T/sm.err" "our binary as mbstream -x --decompress"
no_qp "$T/sx" "xbstream -x --decompress"
no_qp "$T/sm" "mbstream -x --decompress"
diff -r "$T/sx" "$T/sm" > "$T/diff.out" 2>&1 || { head -20 "$T/diff.out"; fail "xbstream and mbstream extractions differ"; }
assert_file "$T/sx/ib_logfile0" "$T/sx/ibdata1" "$T/sx/s/m.MYD" "$T/sx/xtrabackup_checkpoints"
restore_ours "$T/sx" dst_b

# ---------------------------------------------------------------- (c) damaged files
log "(c) damaged .qp files"
# damaged NAME SETUP MESSAGE_ERE - a copy of the original --compress directory, damaged by
# SETUP (run in it), must fail --decompress with STREAM_CORRUPT naming the file
damaged() {
    local name=$1 setup=$2 pat=$3 dir=$T/bad_$1
    cp -a "$T/qp_orig" "$dir"
    (cd "$dir" && eval "$setup") || fail "$name: setting up the damage failed"
    xb_run --decompress --target-dir="$dir"
    assert_failed "$XB_RC" "$XB_ERR" "$name"
    assert_error STREAM_CORRUPT "$XB_RC" "$XB_ERR" "$name"
    assert_contains "$XB_ERR" "$pat" "$name: message"
    [[ -z $(find "$dir" -name '*.xbtmp') ]] || fail "$name: temporary file left"
    [[ -f $dir/s/m.MYD.qp && ! -e $dir/s/m.MYD ]] || fail "$name: the damaged file was not kept as it was"
    log "$name: refused: $(grep -m1 'Error:' "$XB_ERR" | sed 's/^.*Error: //')"
}
size=$(stat -c %s "$T/qp_orig/s/m.MYD.qp")
damaged flipped "flip s/m.MYD.qp $((size / 2))" \
    "$T/bad_flipped/s/m.MYD.qp: corrupt qpress archive at byte [0-9]+: "
damaged truncated "truncate -s $((size - 100)) s/m.MYD.qp" \
    "$T/bad_truncated/s/m.MYD.qp is truncated: its qpress archive ends inside a block"
damaged foreign "printf 'not a qpress archive at all' > s/m.MYD.qp" \
    "$T/bad_foreign/s/m.MYD.qp: corrupt qpress archive at byte 0: no \"qpress10\" at the start"
mkdir -p "$T/detailed/s" && cp "$T/bad_flipped/s/m.MYD.qp" "$T/detailed/s/" || fail "copying the flipped file failed"
xb_run --decompress --exit-status=detailed --target-dir="$T/detailed"
assert_eq "$(error_code_of STREAM_CORRUPT)" "$XB_RC" "a damaged .qp with --exit-status=detailed: exit status"
# in a stream: mbstream -c of the flipped file
(cd "$T/bad_flipped" && mbstream -c s/m.MYD.qp > "$T/bad.xbs") || fail "mbstream -c failed"
mkdir -p "$T/bx"
"$XBSTREAM" -x --decompress -C "$T/bx" < "$T/bad.xbs" > /dev/null 2> "$T/bx.err"
rc=$?
assert_failed $rc "$T/bx.err" "xbstream -x --decompress of a damaged .qp"
assert_error STREAM_CORRUPT "$rc" "$T/bx.err" "xbstream -x --decompress of a damaged .qp"
assert_contains "$T/bx.err" 's/m\.MYD\.qp: corrupt qpress archive at byte' "xbstream -x --decompress of a damaged .qp: message"
[[ -z $(find "$T/bx" -type f) ]] || fail "files left by the failed extraction: $(find "$T/bx" -type f)"
# a --prepare before --decompress says what to do
prep_run "$XB" "$T/qp_orig"
assert_failed "$PREP_RC" "$PREP_ERR" "--prepare of a directory of .qp files"
assert_error MISSING_FILE "$PREP_RC" "$PREP_ERR" "--prepare of a directory of .qp files"
assert_contains "$PREP_ERR" 'holds compressed files \(\*\.qp, mariabackup --compress\): decompress it first' \
    "--prepare of a directory of .qp files: message"
assert_contains "$PREP_ERR" "HINT: xtrabackup --decompress --target-dir=$T/qp_orig --remove-original" \
    "--prepare of a directory of .qp files: hint"
# nothing to decode is still no error
mkdir -p "$T/none"
echo x > "$T/none/plain.txt"
xb_run --decompress --target-dir="$T/none"
assert_ok "$XB_RC" "$XB_ERR" "--decompress of a directory with nothing compressed"
assert_contains "$XB_ERR" 'Nothing to decode in .*: no \*\.zst or \*\.qp files' "nothing to decode"
log "decode_qpress: ok ($nqp .qp files, stream $(stat -c %s "$T/qp.xbs") bytes)"
