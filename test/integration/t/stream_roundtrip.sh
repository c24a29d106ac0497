#!/usr/bin/env bash
# stream_roundtrip.sh - every combination of container (xbstream on stdout, tar on
# stdout, a directory) x --compress x --encrypt, taken while a transfer workload
# runs, comes back whole:
#   backup -> extract (xbstream -x, decoding on the fly with --decompress/--decrypt;
#   GNU tar -x) -> --decrypt/--decompress --remove-original -> --prepare -> restore
#   -> the restored server passes the bank invariant (constant total, every account
#   equal to its ledger) and the static tables (InnoDB, MyISAM, Aria) have the
#   source's CHECKSUM TABLE.
# Along the way: compressed files are named .zst and the zstd CLI tests them;
# encrypted files are named .xbcrypt and hold no plaintext; metadata is never
# compressed; --extra-lsndir keeps a plain xtrabackup_checkpoints equal to the one
# in the stream, and xtrabackup_info, nothing else (mariabackup's set); stdout
# carries nothing but the stream (the extractor parses all of it); --prepare on
# a backup still encoded refuses with the command to run.
# Our tool only (mariabackup has no zstd or authenticated encryption).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "streams compressed and encrypted with our formats"
XBSTREAM=$(dirname "$XB")/xbstream
[[ -x $XBSTREAM ]] || fail "no xbstream next to $XB"
command -v zstd >/dev/null || fail "the zstd CLI is missing (make deps installs it)"

ACCOUNTS=2000
server_start src
build_xb_load || fail "cannot build xb_load"
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
sql src "CREATE DATABASE s; USE s;
         CREATE TABLE s.i (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO s.i SELECT seq, CONCAT('plaintext-marker-', seq) FROM seq_1_to_30000;
         CREATE TABLE s.m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
         INSERT INTO s.m SELECT seq, MD5(seq) FROM seq_1_to_3000;
         CREATE TABLE s.a (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=Aria;
         INSERT INTO s.a SELECT seq, SHA1(seq) FROM seq_1_to_3000" || fail "creating the static tables failed"
static_sums() { sql "$1" "CHECKSUM TABLE s.i, s.m, s.a EXTENDED"; }
src_static=$(static_sums src)

STOP=$T/load.stop
xb_load src --accounts=$ACCOUNTS --threads=2 --seconds=600 --stop-file="$STOP" transfer > "$T/load.out" 2>&1 &
LOAD_PID=$!
bg_track "$LOAD_PID"
sleep 1
kill -0 "$LOAD_PID" 2>/dev/null || { cat "$T/load.out"; fail "xb_load transfer died"; }

(umask 077; openssl rand -hex 32 > "$T/key")
KEY=$T/key

# encoded FILE_SUFFIX DIR - how many files under DIR end in FILE_SUFFIX
encoded() { find "$2" -type f -name "*$1" | wc -l; }

n=0
for container in xbstream tar dir; do
  for comp in 0 1; do
    for enc in 0 1; do
      n=$((n + 1))
      what="$container compress=$comp encrypt=$enc"
      log "=== $what"
      opts=()
      [[ $comp == 1 ]] && opts+=(--compress --compress-threads=2)
      [[ $enc == 1 ]] && opts+=(--encrypt=AES256 --encrypt-key-file="$KEY")
      out=$T/r$n
      mkdir -p "$out"
      raw=$out/raw     # what arrived, still encoded
      case $container in
        xbstream|tar)
          XB_RUN=$((XB_RUN + 1)); XB_ERR=$T/xb.$XB_RUN.err
          log "run: $(basename "$XB") --backup --stream=$container ${opts[*]} --extra-lsndir=$out/lsn > $out/backup.$container"
          "$XB" --defaults-file="$src_CNF" --backup --stream=$container "${opts[@]}" --extra-lsndir="$out/lsn" \
              > "$out/backup.$container" 2> "$XB_ERR" < /dev/null
          XB_RC=$?
          assert_ok "$XB_RC" "$XB_ERR" "$what: backup"
          mkdir -p "$raw"
          if [[ $container == tar ]]; then
              tar -xf "$out/backup.tar" -C "$raw" || fail "$what: GNU tar cannot extract our stream"
          else
              "$XBSTREAM" -x -C "$raw" < "$out/backup.xbstream" 2> "$out/x.err" \
                  || { cat "$out/x.err"; fail "$what: xbstream -x failed"; }
          fi
          assert_file "$out/lsn/xtrabackup_checkpoints"
          ;;
        dir)
          xb_backup src "$raw" "${opts[@]}"
          assert_ok "$XB_RC" "$XB_ERR" "$what: backup"
          ;;
      esac
      # what the raw backup looks like
      if [[ $comp == 1 ]]; then
          z=$(find "$raw" -name 'ibdata1.zst*' | head -n 1)
          [[ -n $z ]] || fail "$what: no ibdata1.zst in the backup"
          [[ -e $raw/ib_logfile0.zst || -e $raw/ib_logfile0.zst.xbcrypt ]] || fail "$what: the redo copy is not compressed"
          if [[ $enc == 0 ]]; then
              zstd -q -t "$raw/ibdata1.zst" || fail "$what: zstd -t rejects ibdata1.zst"
          fi
          [[ $(encoded .zst "$raw") -gt 0 || $(encoded .zst.xbcrypt "$raw") -gt 0 ]] || fail "$what: no .zst files"
          ls "$raw" | grep -q '^xtrabackup_checkpoints\(\.xbcrypt\)\?$' || fail "$what: metadata was compressed"
      else
          [[ $(encoded .zst "$raw") -eq 0 ]] || fail "$what: .zst files without --compress"
      fi
      if [[ $enc == 1 ]]; then
          assert_file "$raw/xtrabackup_checkpoints.xbcrypt"
          [[ -e $raw/xtrabackup_checkpoints ]] && fail "$what: a plain xtrabackup_checkpoints in an encrypted backup"
          if grep -rqa 'plaintext-marker-' "$raw"; then fail "$what: plaintext found in the encrypted backup"; fi
          [[ $(find "$raw" -type f ! -name '*.xbcrypt' | wc -l) -eq 0 ]] || fail "$what: files left unencrypted"
      fi
      # a backup still encoded is refused by --prepare with the command to run
      if [[ $comp == 1 || $enc == 1 ]]; then
          prep_run "$XB" "$raw"
          assert_error MISSING_FILE "$PREP_RC" "$PREP_ERR" "$what: prepare of an encoded backup"
          if [[ $enc == 1 ]]; then
              assert_contains "$PREP_ERR" "holds encrypted files \(\*\.xbcrypt\): decrypt it first" "$what: prepare message"
          else
              assert_contains "$PREP_ERR" "holds compressed files \(\*\.zst\): decompress it first" "$what: prepare message"
          fi
      fi
      # hostile input to the decoders: a wrong key, a flipped byte, a file cut short
      if [[ $container == xbstream && $comp == 1 && $enc == 1 ]]; then
          (umask 077; openssl rand -hex 32 > "$T/wrongkey")
          mkdir -p "$out/bad1"
          "$XBSTREAM" -x -C "$out/bad1" --decompress --decrypt=AES256 --encrypt-key-file="$T/wrongkey" \
              < "$out/backup.xbstream" 2> "$out/bad1.err"
          rc=$?
          assert_error DECRYPT "$rc" "$out/bad1.err" "wrong key at extraction"
          assert_contains "$out/bad1.err" "wrong key or altered data" "wrong key at extraction: message"
          [[ -z $(find "$out/bad1" -type f ! -name '*.xbcrypt' -size +0 2>/dev/null | grep -v xbtmp | head -1) ]] \
              || fail "wrong key at extraction: decoded files were written"
          cp -a "$raw" "$out/bad2"
          xb_run --decrypt=AES256 --encrypt-key-file="$T/wrongkey" --decompress --target-dir="$out/bad2"
          assert_error DECRYPT "$XB_RC" "$XB_ERR" "wrong key in place"
          assert_contains "$XB_ERR" "wrong key or altered data" "wrong key in place: message"
          # the largest file: more than one 256 KiB chunk of the encryption format
          victim=$(find "$out/bad2" -name '*.zst.xbcrypt' -printf '%s %p\n' | sort -n | tail -n 1 | cut -d' ' -f2-)
          size=$(stat -c %s "$victim")
          [[ $size -gt $((40 + 2 * 262160)) ]] || fail "no encrypted file of 2 chunks to tamper with ($victim: $size bytes)"
          rm -rf "$out/bad3"; cp -a "$raw" "$out/bad3"; victim=${victim/bad2/bad3}
          # the byte's complement: a fixed value would change nothing one time in 256
          old=$(dd if="$victim" bs=1 skip=$((size / 2)) count=1 status=none | od -An -tu1 | tr -d ' ')
          printf "\\x$(printf %02x $(( old ^ 0xff )))" | dd of="$victim" bs=1 seek=$((size / 2)) conv=notrunc status=none
          xb_run --decrypt=AES256 --encrypt-key-file="$KEY" --decompress --target-dir="$out/bad3"
          assert_error DECRYPT "$XB_RC" "$XB_ERR" "flipped byte"
          assert_contains "$XB_ERR" "${victim##*/}" "flipped byte: message names the file"
          [[ -e ${victim%.zst.xbcrypt} ]] && fail "flipped byte: a decoded file was published"
          rm -rf "$out/bad3"; cp -a "$raw" "$out/bad3"
          truncate -s $((40 + 262160)) "$victim"   # the header and the first chunk only
          xb_run --decrypt=AES256 --encrypt-key-file="$KEY" --decompress --target-dir="$out/bad3"
          assert_failed "$XB_RC" "$XB_ERR" "truncated encrypted file"
          assert_contains "$XB_ERR" "is truncated" "truncated encrypted file: message"
          [[ -e ${victim%.zst.xbcrypt} ]] && fail "truncated file: a decoded file was published"
          head -c $(( $(stat -c %s "$out/backup.xbstream") / 2 )) "$out/backup.xbstream" > "$out/half.xbs"
          mkdir -p "$out/bad4"
          "$XBSTREAM" -x -C "$out/bad4" --decompress --decrypt=AES256 --encrypt-key-file="$KEY" \
              < "$out/half.xbs" 2> "$out/bad4.err"
          rc=$?
          assert_error STREAM_CORRUPT "$rc" "$out/bad4.err" "truncated stream"
          [[ -e $out/bad4/xtrabackup_checkpoints ]] && fail "truncated stream: looks complete"
          log "case ok: wrong key, flipped byte, truncated file and stream refused"
          rm -rf "$out"/bad*
      fi
      # decode: while extracting (xbstream) or in place (tar, dir)
      dec=()
      [[ $comp == 1 ]] && dec+=(--decompress)
      [[ $enc == 1 ]] && dec+=(--decrypt=AES256 --encrypt-key-file="$KEY")
      if [[ ${#dec[@]} -gt 0 ]]; then
          if [[ $container == xbstream ]]; then
              rm -rf "$raw"; mkdir -p "$raw"
              "$XBSTREAM" -x -C "$raw" --parallel=2 "${dec[@]}" < "$out/backup.xbstream" 2> "$out/x2.err" \
                  || { cat "$out/x2.err"; fail "$what: xbstream -x ${dec[*]} failed"; }
          else
              xb_run "${dec[@]}" --target-dir="$raw" --parallel=2 --remove-original
              assert_ok "$XB_RC" "$XB_ERR" "$what: ${dec[*]}"
          fi
          [[ $(encoded .zst "$raw") -eq 0 && $(encoded .xbcrypt "$raw") -eq 0 ]] \
              || fail "$what: encoded files left after decoding: $(find "$raw" -name '*.zst' -o -name '*.xbcrypt' | head -3)"
      fi
      if [[ $container != dir ]]; then
          assert_eq "$(checkpoints_value "$out/lsn" to_lsn)" "$(checkpoints_value "$raw" to_lsn)" \
              "$what: --extra-lsndir to_lsn"
          # exactly mariabackup's set, though the server logs binlogs (no
          # xtrabackup_binlog_info, no backup-my.cnf there)
          assert_eq "$(ls "$out/lsn" | tr '\n' ' ')" "xtrabackup_checkpoints xtrabackup_info " \
              "$what: files in --extra-lsndir"
      fi
      assert_eq "$(checkpoints_value "$raw" backup_type)" "full-backuped" "$what: backup_type"
      prep_run "$XB" "$raw"
      assert_ok "$PREP_RC" "$PREP_ERR" "$what: prepare"
      restore_prepared "$raw" "dst$n"
      xb_load "dst$n" --accounts=$ACCOUNTS check > "$out/check.out" 2>&1 \
          || { cat "$out/check.out"; fail "$what: restored server fails the bank check"; }
      assert_eq "$src_static" "$(static_sums "dst$n")" "$what: static tables"
      log "case ok: $what: $(cat "$out/check.out")"
      server_stop "dst$n"
      rm -rf "$out" "$T/dst$n"
    done
  done
done

touch "$STOP"
wait "$LOAD_PID" || fail "xb_load transfer failed: $(cat "$T/load.out")"
log "all $n combinations restored"
