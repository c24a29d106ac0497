#!/usr/bin/env bash
# stream_remote.sh - --target-dir=sftp://... and scp://... upload a whole backup to
# a real OpenSSH server (test/integration/inc/sshd.sh: this host, key login, its own
# known_hosts; never a password):
#  - over sftp:// and over scp://: the backup arrives complete (xtrabackup_checkpoints,
#    no .xbtmp temporary left), --prepare and --copy-back into a fresh datadir work,
#    the server starts on it and CHECKSUM TABLE equals the source's; scp:// says that
#    files too large to be sent whole over SCP went over SFTP;
#  - sshd killed in the middle of a large file (the copy slowed down with --throttle,
#    the kill once big.ibd's temporary is past the 12 MiB its buffer holds whole) and
#    restarted a second later: the upload resumes where the host's temporary ends
#    ("resuming ... at N bytes"), the backup completes, is prepared and restored, and
#    CHECKSUM TABLE equals the source's;
#  - sshd killed there and not restarted: exit REMOTE with the message naming the URL
#    (user, host, port, path) of the file, how much was sent, and why the upload was
#    not resumed; the remote directory has no xtrabackup_checkpoints;
#  - an unknown host key (empty known_hosts): exit REMOTE, the key's fingerprint and
#    the ssh-keyscan hint, no retry, nothing created on the host;
#  - a non-empty remote directory: exit TARGET, nothing written into it;
#  - sshd down when the backup starts and started once the backup has said it is
#    retrying: the retries carry the backup through.
# Our tool only (mariabackup has no remote targets).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"
# shellcheck source=../inc/sshd.sh
. "$(dirname "$0")/../inc/sshd.sh"

[[ $XB_KIND == xtrabackup ]] || skip "remote targets (sftp://, scp://) are our tool's"

expect() { # WHAT ERROR_NAME ERE
    assert_failed "$XB_RC" "$XB_ERR" "$1"
    assert_error "$2" "$XB_RC" "$XB_ERR" "$1"
    assert_contains "$XB_ERR" "$3" "$1: message"
    log "case ok: $1"
}
re() { printf '%s' "$1" | sed 's/[][\.*^$+?(){}|]/\\&/g'; }

server_start src
sql src "CREATE DATABASE r; USE r;
         CREATE TABLE t (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=InnoDB;
         INSERT INTO t SELECT seq, MD5(seq) FROM seq_1_to_20000;
         CREATE TABLE big (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO big SELECT seq, REPEAT(MD5(seq), 6) FROM seq_1_to_100000;
         CREATE TABLE m (id INT PRIMARY KEY, v VARCHAR(100)) ENGINE=MyISAM;
         INSERT INTO m SELECT seq, SHA1(seq) FROM seq_1_to_2000" || fail "creating the data failed"
src_sums=$(checksum_all src)

sshd_start
KEYS=(--ssh-key-file="$SSHD_KEY" --ssh-known-hosts="$SSHD_KNOWN_HOSTS")
R=$T/remote          # the host's side of the uploads (the host is this machine)
mkdir -p "$R"

# roundtrip NAME DIR - prepare the backup in DIR, copy it back into a fresh datadir,
# start a server on it and compare CHECKSUM TABLE with the source's
roundtrip() {
    local name=$1 dir=$2
    prep_run "$XB" "$dir"
    assert_ok "$PREP_RC" "$PREP_ERR" "prepare of the $name backup"
    write_cnf "d$name" "$T/d$name/data"
    xb_run --defaults-file="$(cnf_of "d$name")" --copy-back --target-dir="$dir"
    assert_ok "$XB_RC" "$XB_ERR" "copy-back of the $name backup"
    server_start_on "d$name" "$T/d$name/data"
    check_clean_start "d$name"
    assert_eq "$src_sums" "$(checksum_all "d$name")" "CHECKSUM TABLE after the $name backup"
    server_stop "d$name"
}
# big_past DIR MiB - true once DIR/r/big.ibd's temporary holds more than MiB MiB
big_past() {
    local n
    n=$(stat -c %s "$1/r/big.ibd.xbtmp" 2>/dev/null) || return 1
    ((n > $2 * 1048576))
}

# --- a whole backup over each protocol, prepared and restored
for scheme in sftp scp; do
    url=$(sshd_url "$scheme" "$R/$scheme/b1")
    start=$(date +%s.%N)
    xb_backup src "$url" "${KEYS[@]}" --parallel=2
    assert_ok "$XB_RC" "$XB_ERR" "backup to $scheme://"
    secs=$(echo "$(date +%s.%N) - $start" | bc)
    mb=$(du -sm "$R/$scheme/b1" | cut -f1)
    log "$scheme://: $mb MiB uploaded in ${secs}s"
    assert_file "$R/$scheme/b1/xtrabackup_checkpoints" "$R/$scheme/b1/r/big.ibd" "$R/$scheme/b1/r/m.MYD"
    left=$(find "$R/$scheme/b1" -name '*.xbtmp')
    [[ -z $left ]] || fail "$scheme://: temporaries left on the host: $left"
    assert_contains "$XB_ERR" "Uploading the backup to $(re "$url")" "$scheme://: the log names the target"
    if [[ $scheme == scp ]]; then
        assert_contains "$XB_ERR" "files larger than 4 MiB go over SFTP" "scp://: the SFTP fallback is said"
    fi
    roundtrip "$scheme" "$R/$scheme/b1"
    log "case ok: $scheme:// round trip"
done

# --- sshd killed in the middle of big.ibd and restarted: the upload resumes
url=$(sshd_url sftp "$R/resumed")
xb_backup_bg src "$url" "${KEYS[@]}" --throttle=4 --remote-retries=5
wait_for 30 big_past "$R/resumed" 14 || { xb_wait; fail "the throttled upload of big.ibd never passed 14 MiB"; }
sshd_stop
sleep 1
sshd_start
xb_wait_max 60 "backup with sshd restarted"
assert_ok "$XB_RC" "$XB_ERR" "backup with sshd restarted mid-upload"
assert_contains "$XB_ERR" "resuming $(re "$url")/r/big\.ibd at [0-9]+ bytes after: " "sshd restarted: big.ibd resumed"
assert_file "$R/resumed/xtrabackup_checkpoints" "$R/resumed/r/big.ibd"
left=$(find "$R/resumed" -name '*.xbtmp')
[[ -z $left ]] || fail "sshd restarted: temporaries left on the host: $left"
grep -E "retrying|resuming" "$XB_ERR" | sed 's/^/  | /'
roundtrip resumed "$R/resumed"
log "case ok: sshd restarted mid-upload, resumed"

# --- sshd killed in the middle of big.ibd, not restarted
url=$(sshd_url sftp "$R/killed")
xb_backup_bg src "$url" "${KEYS[@]}" --throttle=4 --remote-retries=1
wait_for 30 big_past "$R/killed" 14 || { xb_wait; fail "the throttled upload of big.ibd never passed 14 MiB"; }
sshd_stop
xb_wait_max 60 "backup with sshd killed"
expect "sshd killed mid-upload" REMOTE "$(re "sftp://$SSHD_USER@127.0.0.1:$SSHD_PORT$R/killed/")[^ ]+: upload failed after [0-9.]+ (bytes|KiB|MiB): "
assert_contains "$XB_ERR" "not resumed: cannot read its size there: " "sshd killed: why it was not resumed"
grep -E "retrying|upload failed" "$XB_ERR" | sed 's/^/  | /'
assert_contains "$XB_ERR" "HINT: " "sshd killed: a hint"
[[ -e $R/killed/xtrabackup_checkpoints ]] && fail "an interrupted upload has xtrabackup_checkpoints"
sshd_start

# --- an unknown host key: refused at once, nothing created
: > "$T/empty_known_hosts"
xb_backup src "$(sshd_url sftp "$R/unknown")" --ssh-key-file="$SSHD_KEY" --ssh-known-hosts="$T/empty_known_hosts"
expect "unknown host key" REMOTE "the host key of 127\.0\.0\.1 port $SSHD_PORT is not in $(re "$T/empty_known_hosts"): ssh-ed25519 SHA256:"
assert_contains "$XB_ERR" "HINT: .*ssh-keyscan -p $SSHD_PORT 127\.0\.0\.1 >> " "unknown host key: hint"
assert_not_contains "$XB_ERR" "retrying" "unknown host key: no retry"
[[ -e $R/unknown ]] && fail "the refused upload created its directory"

# --- a non-empty remote directory
mkdir -p "$R/full"
echo "keep me" > "$R/full/notes.txt"
xb_backup src "$(sshd_url sftp "$R/full")" "${KEYS[@]}"
expect "non-empty remote directory" TARGET "target directory $(re "sftp://$SSHD_USER@127.0.0.1:$SSHD_PORT$R/full") is not empty"
assert_eq "notes.txt" "$(ls "$R/full")" "the non-empty directory after the refusal"

# --- sshd down at first, started once the backup says it retries
sshd_stop
xb_backup_bg src "$(sshd_url sftp "$R/late")" "${KEYS[@]}" --remote-retries=5
wait_for 20 grep -q "retrying in" "$XB_ERR" || { xb_wait; fail "no retry while sshd was down"; }
sshd_start
xb_wait_max 60 "backup with sshd started late"
assert_ok "$XB_RC" "$XB_ERR" "backup with sshd started late"
assert_contains "$XB_ERR" "Warning: .*Connection refused.*retrying in 1 s \(1 of 5\)" "sshd started late: the retry is logged"
assert_file "$R/late/xtrabackup_checkpoints"
log "case ok: sshd started late"
log "stream_remote: ok"
