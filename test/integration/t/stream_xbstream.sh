#!/usr/bin/env bash
# stream_xbstream.sh - MariaDB's xbstream format both ways, against MariaDB's own
# tools, and streams built to attack the extractor:
#  (a) mariabackup --backup --stream=xbstream of a server with InnoDB, MyISAM and
#      Aria tables: our xbstream -x (given mbstream's options: -x -v -p 2 -C DIR)
#      and mbstream -x extract identical trees; xbstream --list names every file;
#  (b) our --backup --stream=xbstream: mbstream -x and our xbstream -x
#      --parallel=4 extract identical trees, mariabackup --prepare works on ours
#      and the restored server has the source's tables; a backup whose stream
#      reader goes away fails with IO_WRITE and says so;
#  (c) hostile streams (written by mbstream -c, so they are well-formed apart
#      from what is wrong on purpose): a ../ path, an absolute path, a symbolic
#      link planted in the -C directory, a flipped data byte, a truncated stream.
#      Each fails with STREAM_CORRUPT (18), a message naming the problem, nothing
#      written outside the target directory and no temporary file left.
# Our tool only (the extractor is ours; mariabackup has none).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the xbstream extractor is ours"
XBSTREAM=$(dirname "$XB")/xbstream
[[ -x $XBSTREAM ]] || fail "no xbstream next to $XB"
command -v mbstream >/dev/null || fail "mbstream is missing (make deps installs mariadb-backup)"

server_start src
sql src "CREATE DATABASE s; USE s;
         CREATE TABLE i (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO i SELECT seq, MD5(seq) FROM seq_1_to_200000;
         CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
         INSERT INTO m SELECT seq, MD5(seq) FROM seq_1_to_3000;
         CREATE TABLE a (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=Aria;
         INSERT INTO a SELECT seq, SHA1(seq) FROM seq_1_to_3000" || fail "creating the tables failed"
sums() { sql "$1" "CHECKSUM TABLE s.i, s.m, s.a EXTENDED"; }
src_sums=$(sums src)

# extract_both STREAM DIR_OURS DIR_MB [our options...] - both extractors; identical trees
extract_both() {
    local stream=$1 ours=$2 theirs=$3; shift 3
    mkdir -p "$ours" "$theirs"
    "$XBSTREAM" "$@" < "$stream" 2> "$ours.err" || { tail -5 "$ours.err"; fail "xbstream $* failed"; }
    assert_contains "$ours.err" "$OK_LINE_RE" "xbstream $*"
    (cd "$theirs" && mbstream -x < "$stream") 2> "$theirs.err" || { tail -5 "$theirs.err"; fail "mbstream -x failed"; }
    diff -r "$ours" "$theirs" > "$T/diff.out" 2>&1 || { head -20 "$T/diff.out"; fail "xbstream -x and mbstream -x differ"; }
    [[ -z $(find "$ours" -name '*.xbtmp') ]] || fail "temporary files left by xbstream -x"
    log "identical trees: $(find "$ours" -type f | wc -l) files, $(du -sk "$ours" | cut -f1) KiB"
}

# ---------------------------------------------------------------- (a) mariabackup's stream
log "(a) mariabackup --stream=xbstream -> xbstream -x and mbstream -x"
mariabackup --defaults-file="$src_CNF" --backup --stream=xbstream --parallel=2 > "$T/mb.xbs" 2> "$T/mb.err" < /dev/null
assert_ok $? "$T/mb.err" "mariabackup --backup --stream=xbstream"
extract_both "$T/mb.xbs" "$T/a_ours" "$T/a_mb" -x -v -p 2 -C "$T/a_ours"
# (s/i.ibd may come as s/i.new: mariabackup re-copies a table bulk-loaded just before)
assert_file "$T/a_ours/xtrabackup_checkpoints" "$T/a_ours/ibdata1" "$T/a_ours/s/i.frm" "$T/a_ours/s/m.MYD" "$T/a_ours/s/a.MAD"
"$XBSTREAM" --list < "$T/mb.xbs" > "$T/list.out" 2> "$T/list.err" || { cat "$T/list.err"; fail "xbstream --list"; }
assert_eq "$(cd "$T/a_mb" && find . -type f | sed 's|^\./||' | LC_ALL=C sort)" "$(cut -f1 "$T/list.out" | LC_ALL=C sort)" \
    "xbstream --list names every file mbstream extracts"
assert_eq "$(stat -c %s "$T/a_mb/ibdata1")" "$(awk -F'\t' '$1 == "ibdata1" { print $2 }' "$T/list.out")" "--list size of ibdata1"

# ---------------------------------------------------------------- (b) our stream
log "(b) xtrabackup --stream=xbstream -> mbstream -x and xbstream -x --parallel=4"
"$XB" --defaults-file="$src_CNF" --backup --stream=xbstream --parallel=2 > "$T/ours.xbs" 2> "$T/ours.err" < /dev/null
rc=$?
grep -q 'not available' "$T/ours.err" && fail "--backup --stream=xbstream is not available yet: $(last_line "$T/ours.err")"
assert_ok $rc "$T/ours.err" "xtrabackup --backup --stream=xbstream"
extract_both "$T/ours.xbs" "$T/b_ours" "$T/b_mb" -x --parallel=4 --directory="$T/b_ours"
assert_eq "full-backuped" "$(checkpoints_value "$T/b_ours" backup_type)" "backup_type of the extracted stream"
prep_run mariabackup "$T/b_ours"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup --prepare of our extracted stream"
restore_prepared "$T/b_ours" dst
assert_eq "$src_sums" "$(sums dst)" "tables restored from our stream"
server_stop dst
# extracted into a directory that already holds the backup's log (2> DIR/backup.log, as
# MariaDB's suite does): a foreign entry of the extracted manifest, not damage
mkdir -p "$T/b_log" && cp "$T/ours.err" "$T/b_log/backup_stream.log"
"$XBSTREAM" -x -C "$T/b_log" < "$T/ours.xbs" 2> "$T/xlog.err" || { cat "$T/xlog.err"; fail "xbstream -x into a directory holding a log"; }
assert_contains "$T/xlog.err" "1 entries of .* were there before the extraction \(not checked later\): backup_stream\.log" \
    "xbstream -x: the log that was there is said"
assert_contains "$T/b_log/xtrabackup_manifest.pmap" "^-------- - - - backup_stream\.log$" "xbstream -x: the log is a foreign entry"
prep_run "$XB" "$T/b_log"
assert_ok "$PREP_RC" "$PREP_ERR" "our --prepare of a stream extracted next to its log"
rm -rf "$T/b_log"
# the reader of the stream goes away: a clear error, not a death by SIGPIPE
"$XB" --defaults-file="$src_CNF" --backup --stream=xbstream 2> "$T/epipe.err" < /dev/null | head -c 100000 > /dev/null
rc=${PIPESTATUS[0]}
assert_failed "$rc" "$T/epipe.err" "backup into a pipe closed early"
assert_error IO_WRITE "$rc" "$T/epipe.err" "backup into a pipe closed early"
assert_contains "$T/epipe.err" 'the stream reader went away \(stdout closed\)' "backup into a pipe closed early: message"

# ---------------------------------------------------------------- (c) hostile streams
log "(c) hostile streams"
H=$T/h
mkdir -p "$H/in/sub" "$H/in/db" "$H/outside"
printf 'the payload of an evil stream\n' > "$H/in/evil.txt"
printf 'table data\n' > "$H/in/db/t.txt"
head -c 50000 /dev/urandom > "$H/in/big.bin"
(cd "$H/in/sub" && mbstream -c ../evil.txt > "$H/dotdot.xbs") || fail "mbstream -c ../evil.txt"
printf 'x\n' > "$H/in/abs.txt"
mbstream -c "$H/in/abs.txt" > "$H/abs.xbs" || fail "mbstream -c of an absolute path"
rm -f "$H/in/abs.txt"
(cd "$H/in" && mbstream -c db/t.txt > "$H/link.xbs") || fail "mbstream -c db/t.txt"
(cd "$H/in" && mbstream -c big.bin > "$H/big.xbs") || fail "mbstream -c big.bin"
cp "$H/big.xbs" "$H/flipped.xbs"
# big.bin's data starts after the 14-byte header, its 7-byte name and 20 bytes of length, offset, checksum
byte=$(od -An -tu1 -j 20000 -N1 "$H/big.xbs" | tr -d ' ')
printf "\\$(printf %03o $(( (byte + 1) % 256 )))" | dd of="$H/flipped.xbs" bs=1 seek=20000 conv=notrunc 2>/dev/null
head -c 30000 "$H/big.xbs" > "$H/truncated.xbs"

# hostile NAME STREAM MESSAGE_ERE [setup] - xbstream -x into a fresh directory must fail
hostile() {
    local name=$1 stream=$2 pat=$3 dir=$H/x_$1
    mkdir -p "$dir"
    [[ -n ${4:-} ]] && eval "$4"
    "$XBSTREAM" -x -C "$dir" < "$stream" > "$H/$name.out" 2> "$H/$name.err"
    local rc=$?
    assert_failed $rc "$H/$name.err" "$name"
    assert_error STREAM_CORRUPT "$rc" "$H/$name.err" "$name"
    assert_contains "$H/$name.err" "$pat" "$name: message"
    [[ -z $(find "$dir" -name '*.xbtmp') ]] || fail "$name: temporary file left"
    [[ ! -s $H/$name.out ]] || fail "$name: something on stdout"
    log "$name: refused: $(grep -m1 'Error:' "$H/$name.err" | sed 's/^.*Error: //')"
}
hostile dotdot "$H/dotdot.xbs" 'unsafe path in the stream: "\.\./evil\.txt" leaves the target directory'
[[ ! -e $H/evil.txt && ! -e $H/x_evil.txt ]] || fail "dotdot: a file was written outside the target"
hostile absolute "$H/abs.xbs" "unsafe path in the stream: \"$H/in/abs.txt\" is absolute"
[[ ! -e $H/in/abs.txt ]] || fail "absolute: the absolute path was written"
hostile symlink "$H/link.xbs" "unsafe path \"db/t.txt\": .*/db is a symbolic link" 'ln -s "$H/outside" "$dir/db"'
[[ -z $(ls -A "$H/outside") ]] || fail "symlink: a file was written through the planted link: $(ls -A "$H/outside")"
hostile checksum "$H/flipped.xbs" 'stream offset 0: bad checksum in chunk of big\.bin'
[[ ! -e $H/x_checksum/big.bin ]] || fail "checksum: the corrupt file was kept"
hostile truncated "$H/truncated.xbs" 'stream offset 0: the stream ends inside the chunk of big\.bin'
[[ -z $(find "$H/x_truncated" -type f) ]] || fail "truncated: files left: $(find "$H/x_truncated" -type f)"
# the same truncated stream cut exactly after the payload (no end-of-file chunk)
head -c $(( $(stat -c %s "$H/big.xbs") - 21 )) "$H/big.xbs" > "$H/noeof.xbs"
hostile noeof "$H/noeof.xbs" 'the stream ends before the end of big\.bin'
[[ -z $(find "$H/x_noeof" -type f) ]] || fail "noeof: files left: $(find "$H/x_noeof" -type f)"
log "all hostile streams refused"
