#!/usr/bin/env bash
# secrets.sh - a password or an encryption key given on the command line never
# shows: not in ps or /proc/PID/cmdline once the tool runs (it is overwritten at
# the start of main; checked with the tool frozen at backup-connected), not in
# the log, not in any file of the backup (xtrabackup_info's tool_command), not in
# the --history row; the recorded command line shows *** (-pPW as -p***). Error
# paths do not echo them either: "--password PW" before an unknown option, a
# wrong password, "-p PW" (a space after -p, refused). The secrets are a
# throwaway user's and a throwaway key: putting them on a command line is what
# this scenario tests.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the fault point is our tool's"

server_start src
PW=Zq7pass9Secret
KEY=$(printf '5ec7e75ec7e7%052d' 0)
mariadb --defaults-file="$(cnf_of src)" <<SQL || fail "the user"
CREATE USER sec@localhost IDENTIFIED BY '$PW';
GRANT ALL ON *.* TO sec@localhost;
CREATE DATABASE s; CREATE TABLE s.t (id INT PRIMARY KEY) ENGINE=InnoDB; INSERT INTO s.t VALUES (1),(2);
SQL

no_secret() { # FILE-or-DIR WHAT
    if grep -rqaF -e "$PW" -e "$KEY" "$1"; then
        grep -raF -e "$PW" -e "$KEY" "$1" | head -n 3 | sed 's/^/  | /' >&2
        fail "$2: a secret shows"
    fi
}

n=0
run_case() { # WHAT ARGS... - frozen at backup-connected: look at ps, then let it finish
    local what=$1; shift
    n=$((n + 1))
    local dir=$T/b$n
    XB_FAULT=backup-connected:stop xb_backup_bg src "$dir" --user=sec --history=sec "$@"
    wait_for 60 grep -q "fault point backup-connected reached" "$XB_ERR" || { xb_wait; fail "$what: never connected"; }
    tr '\0' ' ' < "/proc/$XB_PID/cmdline" > "$T/cmdline.$n"
    ps -o args= -p "$XB_PID" > "$T/ps.$n"
    kill -CONT "$XB_PID"
    xb_wait
    assert_ok "$XB_RC" "$XB_ERR" "$what"
    no_secret "$T/cmdline.$n" "$what: /proc/PID/cmdline"
    no_secret "$T/ps.$n" "$what: ps -o args"
    no_secret "$XB_ERR" "$what: the log"
    no_secret "$XB_OUT" "$what: stdout"
    no_secret "$dir" "$what: the backup's files"
    sql src "SELECT tool_command FROM mysql.mariadb_backup_history" > "$T/history.$n" || fail "$what: history"
    no_secret "$T/history.$n" "$what: the history table"
    log "case ok: $what ($(cat "$T/ps.$n" | cut -c1-120))"
}

run_case "--password=PW" --password="$PW"
assert_contains "$XB_ERR" "command line: .*--password=\*\*\*" "--password=PW recorded as --password=***"
run_case "--password PW" --password "$PW"
assert_contains "$XB_ERR" "command line: .*--password \*\*\*" "--password PW recorded as --password ***"
run_case "-pPW" -p"$PW"
assert_contains "$XB_ERR" "command line: .*-p\*\*\*\)" "-pPW recorded as -p***"
assert_contains "$T/b3/xtrabackup_info" "^tool_command = .*-p\*\*\*$" "-pPW in xtrabackup_info"
run_case "--loose-password=PW" --loose-password="$PW"
run_case "--encrypt-key=HEX" --password="$PW" --encrypt=AES256 --encrypt-key="$KEY"
assert_contains "$XB_ERR" "command line: .*--encrypt-key=\*\*\*" "--encrypt-key recorded as ***"
run_case "--encrypt-key HEX" --password="$PW" --encrypt=AES256 --encrypt-key "$KEY"
assert_eq 6 "$(sql src "SELECT COUNT(*) FROM mysql.mariadb_backup_history")" "one history row a backup"

# error paths
xb_backup src "$T/e1" --user=sec --password "$PW" --no-such-option
assert_failed "$XB_RC" "$XB_ERR" "--password PW --no-such-option"
assert_contains "$XB_ERR" "unknown option '--no-such-option'" "the unknown option named"
no_secret "$XB_ERR" "--password PW --no-such-option"
xb_backup src "$T/e2" --user=sec -p "$PW"
assert_failed "$XB_RC" "$XB_ERR" "-p PW"
assert_contains "$XB_ERR" "unexpected argument after -p" "-p PW refused"
no_secret "$XB_ERR" "-p PW"
xb_backup src "$T/e3" --user=sec --password="${PW}Wrong"
assert_error CONNECT "$XB_RC" "$XB_ERR" "a wrong password"
no_secret "$XB_ERR" "a wrong password"
[[ -e $T/e3 ]] && no_secret "$T/e3" "a wrong password: the target"
xb_backup src "$T/e4" --user=sec --no-such-option --password="$PW"
assert_failed "$XB_RC" "$XB_ERR" "--no-such-option --password=PW"
no_secret "$XB_ERR" "--no-such-option --password=PW"
xb_backup src "$T/e5" --user=sec --password="$PW" --parallel=0
assert_failed "$XB_RC" "$XB_ERR" "--password=PW --parallel=0"
no_secret "$XB_ERR" "--password=PW with a bad value elsewhere"
log "case ok: error paths"
