#!/usr/bin/env bash
# backup_aria_logs.sh - Aria tables and several Aria log files, the logs in an
# aria_log_dir_path outside the datadir, aria_log_purge_type=external (the
# server keeps every old log file on disk). The backup holds aria_log_control
# and exactly the log files the server still needs (SHOW ENGINE aria logs
# says "in use"; the "free" ones before them are left out, as mariabackup
# --prepare drops them; mariabackup's own backup holds every log file), while
# a write load on an Aria table runs during the backup. Both mariabackup
# --prepare and ours work on the backup; --copy-back puts the logs in the
# restored server's aria_log_dir_path; the restored server starts cleanly,
# lists no free log file, and CHECKSUM TABLE equals the source's (the loaded
# table: its rows up to the number the restore holds).
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

mkdir -p "$T/arialog"
ARIA=(--aria-log-file-size=8388608 --aria-log-purge-type=external --aria-log-dir-path="$T/arialog")
SERVER_INSTALL_OPTS="${ARIA[*]}" server_start src "${ARIA[@]}"
sql src "CREATE DATABASE a; CREATE TABLE a.big (id INT PRIMARY KEY, txt LONGTEXT) ENGINE=Aria;
         CREATE TABLE a.small (id INT PRIMARY KEY, v VARCHAR(64)) ENGINE=Aria TRANSACTIONAL=1" || fail "tables"
# one statement a row: an INSERT ... SELECT into an empty Aria table is not logged
for i in $(seq 1 25); do
    sql src "INSERT INTO a.big VALUES ($i, REPEAT('$((i % 10))', 1024 * 1024))" || fail "insert $i"
done
sql src "SET GLOBAL aria_checkpoint_interval = DEFAULT" || fail "checkpoint"   # setting it takes a checkpoint
sql src "SHOW ENGINE aria logs" > "$T/logs.before"
sed 's/^/  /' "$T/logs.before"
grep -q $'\tfree$' "$T/logs.before" || fail "no free Aria log file before the backup: nothing to leave out"
[[ -f $(datadir_of src)/aria_log_control ]] && fail "aria_log_control is in the datadir, not in aria_log_dir_path"
needed=$(awk -F'\t' '$3 == "in use" { n = split($2, p, "/"); print p[n] }' "$T/logs.before" | LC_ALL=C sort)
[[ -n $needed ]] || fail "the server names no Aria log file in use"

# a small write load on an Aria table during the backup (autocommit rows)
( i=0; while [[ ! -e $T/stop ]]; do i=$((i + 1));
      sql src "INSERT INTO a.small VALUES ($i, MD5($i))" > /dev/null 2>&1 || break; done ) &
bg_track $!
xb_backup src "$T/b"
touch "$T/stop"; wait
assert_ok "$XB_RC" "$XB_ERR" "backup"
assert_file "$T/b/aria_log_control"
got=$(cd "$T/b" && ls aria_log.* | LC_ALL=C sort)
# the load may have switched to a new file, which the backup then holds too
now=$(sql src "SHOW ENGINE aria logs" | awk -F'\t' '$3 == "in use" { n = split($2, p, "/"); print p[n] }' | LC_ALL=C sort)
if [[ $XB_KIND == mariabackup ]]; then
    # mariabackup copies every log file; its --prepare drops the free ones
    assert_eq "$(cd "$T/arialog" && ls aria_log.* | LC_ALL=C sort)" "$got" "Aria log files in mariabackup's backup"
elif [[ $got != "$needed" ]]; then
    assert_eq "$now" "$got" "Aria log files in the backup (the server's needed ones)"
fi
log "Aria log files in the backup: $(echo $got)"
[[ $XB_KIND == xtrabackup ]] && assert_contains "$XB_ERR" "Aria log files the server still needs: from aria_log\.[0-9]{8} on" \
    "backup log: the needed Aria logs"

# mariabackup --prepare on a copy, ours (PREPARE_BIN) in restore_backup
cp -a "$T/b" "$T/b2"
prep_run mariabackup "$T/b2"
assert_ok "$PREP_RC" "$PREP_ERR" "mariabackup --prepare of the backup"
prep_run "$XB" "$T/b"
assert_ok "$PREP_RC" "$PREP_ERR" "--prepare of the backup"

# --copy-back into a datadir and an aria_log_dir_path of the restored server
mkdir -p "$T/dst/arialog"
write_cnf dst "$T/dst/data" --aria-log-file-size=8388608 --aria-log-purge-type=external --aria-log-dir-path="$T/dst/arialog"
xb_run --defaults-file="$dst_CNF" --copy-back --target-dir="$T/b"
assert_ok "$XB_RC" "$XB_ERR" "copy-back"
assert_file "$T/dst/arialog/aria_log_control"
ls "$T/dst/data"/aria_log* > /dev/null 2>&1 && fail "Aria log files landed in the datadir"
server_start_on dst "$T/dst/data" --aria-log-file-size=8388608 --aria-log-purge-type=external --aria-log-dir-path="$T/dst/arialog"
check_clean_start dst
sql dst "SHOW ENGINE aria logs" > "$T/logs.after"
sed 's/^/  /' "$T/logs.after"
grep -q $'\tfree$' "$T/logs.after" && fail "the restored server lists free Aria log files"
rows=$(sql dst "SELECT COUNT(*) FROM a.small")
log "a.small: $rows rows in the restore"
assert_eq "$(sql src "CHECKSUM TABLE a.big EXTENDED" | cut -f2)" "$(sql dst "CHECKSUM TABLE a.big EXTENDED" | cut -f2)" "CHECKSUM TABLE a.big"
sql src "CREATE TABLE a.small_at AS SELECT * FROM a.small WHERE id <= $rows" || fail "a.small as of the backup"
assert_eq "$(sql src "CHECKSUM TABLE a.small_at EXTENDED" | cut -f2)" \
    "$(sql dst "CREATE TABLE a.small_at AS SELECT * FROM a.small; CHECKSUM TABLE a.small_at EXTENDED" | tail -n 1 | cut -f2)" \
    "CHECKSUM TABLE a.small (the rows as of the backup)"
sql dst "SELECT COUNT(*) FROM a.big" | grep -qx 25 || fail "a.big lacks rows after the restore"
server_stop dst
