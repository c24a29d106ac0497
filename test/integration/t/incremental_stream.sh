#!/usr/bin/env bash
# incremental_stream.sh - incremental backups through streams: a chain whose full
# backup and incrementals go to stdout and are extracted with our `xbstream -x`
# (tar streams with GNU tar), each next incremental based on the previous one's
# --extra-lsndir (only xtrabackup_checkpoints is needed there), prepares with the
# preparer under test and restores to exactly the source.
#
# The chain (xb_load commits transfers during the first four backups and is stopped
# before the last, so the last one holds the source's final state):
#   full  --stream=xbstream
#   inc1  --stream=xbstream
#   inc2  --stream=xbstream --compress (extracted with --decompress; the raw
#         extraction holds compressed deltas, .delta.zst for ours, .delta.qp for
#         mariabackup's qpress)
#   inc3  --stream=xbstream --encrypt=AES256 --encrypt-key-file (ours only: the key
#         in a file, never on a command line; raw files all .xbcrypt, no plaintext
#         marker anywhere; extracted with --decrypt and the same key file)
#   inc4  --stream=tar (ours only; mariabackup 10.11 has no tar stream)
# Every extracted incremental has backup_type = incremental, from_lsn = the previous
# to_lsn and the same checkpoints as its --extra-lsndir; no encoded file is left
# after decoding. The restored server passes the bank check and every table's
# CHECKSUM TABLE EXTENDED equals the source's.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"
# shellcheck source=../inc/incremental.sh
. "$(dirname "$0")/../inc/incremental.sh"

put_init
build_xb_load || fail "cannot build xb_load"
XBSTREAM=$(dirname "$XB")/xbstream   # next to the tool under test; the oracle has none
[[ -x $XBSTREAM ]] || XBSTREAM=$TOP/build/xbstream
[[ -x $XBSTREAM ]] || fail "no $XBSTREAM (run make)"
ACCOUNTS=1000

server_start src
xb_load src --accounts=$ACCOUNTS setup || fail "xb_load setup failed"
sql src "CREATE DATABASE s; USE s;
         CREATE TABLE i (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB;
         INSERT INTO i SELECT seq, CONCAT('plaintext-marker-', seq) FROM seq_1_to_30000;
         CREATE TABLE z (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=InnoDB ROW_FORMAT=COMPRESSED KEY_BLOCK_SIZE=8;
         INSERT INTO z SELECT seq, MD5(seq) FROM seq_1_to_20000;
         CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=MyISAM;
         INSERT INTO m SELECT seq, MD5(seq) FROM seq_1_to_3000" || fail "creating the tables failed"

inc_start_transfers

(umask 077; openssl rand -hex 32 > "$T/key")
KEY=$T/key

STEPS=(full inc1 inc2)
[[ $XB_KIND == xtrabackup ]] && STEPS+=(inc3 inc4)
LAST=${STEPS[${#STEPS[@]} - 1]}
S=$T/s
mkdir -p "$S"
prev=
for step in "${STEPS[@]}"; do
    case $step in
        inc1) sql src "UPDATE s.i SET v = CONCAT('plaintext-marker-one-', id) WHERE id % 4 = 0; INSERT INTO s.m VALUES (5000, 'one')" ;;
        inc2) sql src "UPDATE s.z SET v = 'two' WHERE id % 3 = 0; CREATE TABLE s.n2 (id INT PRIMARY KEY) ENGINE=InnoDB;
                       INSERT INTO s.n2 SELECT seq FROM s.seq_1_to_5000" ;;
        inc3) sql src "UPDATE s.i SET v = CONCAT('plaintext-marker-three-', id) WHERE id % 5 = 0; DROP TABLE s.n2;
                       RENAME TABLE s.z TO s.z3" ;;
        inc4) sql src "TRUNCATE TABLE s.m; INSERT INTO s.m VALUES (1, 'four'); ALTER TABLE s.i ADD COLUMN w INT, ALGORITHM=COPY" ;;
    esac || fail "changes before $step failed"
    [[ $step != full ]] && inc_checkpoint src   # each incremental from a checkpoint past these changes
    if [[ $step == "$LAST" ]]; then
        touch "$STOP"
        wait "$LOAD_PID" || { cat "$T/load.out"; fail "xb_load transfer failed"; }
        cat "$T/load.out"
    fi
    container=xbstream opts=() dec=()
    case $step in
        inc2) opts=(--compress); dec=(--decompress) ;;
        inc3) opts=(--encrypt=AES256 --encrypt-key-file="$KEY"); dec=(--decrypt=AES256 --encrypt-key-file="$KEY") ;;
        inc4) container=tar ;;
    esac
    [[ -n $prev ]] && opts+=(--incremental-basedir="$S/$prev.lsn")
    what="$step (--stream=$container ${opts[*]})"
    XB_RUN=$((XB_RUN + 1)); XB_ERR=$T/xb.$XB_RUN.err
    log "run: $(basename "$XB") --backup --stream=$container ${opts[*]} --extra-lsndir=$S/$step.lsn > $S/$step.$container"
    "$XB" --defaults-file="$(cnf_of src)" --backup --stream=$container "${opts[@]}" --extra-lsndir="$S/$step.lsn" \
        > "$S/$step.$container" 2> "$XB_ERR" < /dev/null
    XB_RC=$?
    assert_ok "$XB_RC" "$XB_ERR" "$what"
    raw=$S/$step.raw out=$S/$step
    mkdir -p "$raw" "$out"
    if [[ $container == tar ]]; then
        tar -xf "$S/$step.tar" -C "$out" || fail "$what: GNU tar cannot extract the stream"
    else
        "$XBSTREAM" -x -C "$raw" < "$S/$step.xbstream" 2> "$raw.err" || { cat "$raw.err"; fail "$what: xbstream -x failed"; }
        if [[ ${#dec[@]} -gt 0 ]]; then
            "$XBSTREAM" -x -C "$out" --parallel=2 "${dec[@]}" < "$S/$step.xbstream" 2> "$out.err" \
                || { cat "$out.err"; fail "$what: xbstream -x ${dec[*]} failed"; }
        else
            cp -a "$raw/." "$out/"
        fi
    fi
    case $step in
        inc2) [[ -n $(find "$raw" -name '*.delta.zst' -o -name '*.delta.qp' | head -1) ]] \
                  || fail "$what: no compressed delta in the raw stream: $(cd "$raw" && find . -name '*.delta*' | head -3)" ;;
        inc3) [[ $(find "$raw" -type f ! -name '*.xbcrypt' | wc -l) -eq 0 ]] \
                  || fail "$what: files left unencrypted: $(find "$raw" -type f ! -name '*.xbcrypt' | head -3)"
              [[ -n $(find "$raw" -name '*.delta.xbcrypt' | head -1) ]] || fail "$what: no encrypted delta"
              if grep -rqa 'plaintext-marker-' "$raw"; then fail "$what: plaintext found in the encrypted stream"; fi ;;
    esac
    [[ -z $(find "$out" -name '*.zst' -o -name '*.qp' -o -name '*.xbcrypt' | head -1) ]] \
        || fail "$what: encoded files left after decoding: $(find "$out" -name '*.zst' -o -name '*.qp' -o -name '*.xbcrypt' | head -3)"
    assert_eq "$(cat "$S/$step.lsn/xtrabackup_checkpoints")" "$(cat "$out/xtrabackup_checkpoints")" \
        "$what: --extra-lsndir checkpoints vs the stream's"
    if [[ -n $prev ]]; then
        inc_check_link "$S/$prev" "$out"
    else
        assert_eq full-backuped "$(checkpoints_value "$out" backup_type)" "$what: backup_type"
    fi
    rm -rf "$raw" "$S/$step.$container"
    prev=$step
done

xb_load src --accounts=$ACCOUNTS check || fail "the source fails the bank check"
SRC_SUMS=$(checksum_all src)
incs=()
for step in "${STEPS[@]:1}"; do incs+=("$S/$step"); done
inc_prepare_chain "$PUT" "$S/full" "${incs[@]}"
restore_prepared "$S/full" dst
xb_load dst --accounts=$ACCOUNTS check || fail "restored server fails the bank check"
assert_eq "$SRC_SUMS" "$(checksum_all dst)" "CHECKSUM TABLE of every table, restored from the streamed chain vs source"
log "incremental_stream: ok (${STEPS[*]})"
