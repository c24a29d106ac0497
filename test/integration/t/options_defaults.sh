#!/usr/bin/env bash
# options_defaults.sh - the tool finds the server and its own settings through
# option files only, as MariaDB clients do: a --defaults-file with just a [client]
# socket; a file that only does !includedir of a directory whose *.cnf holds a
# [client-server] group (other files there are ignored); --defaults-group-suffix
# selecting [client_alt]; --target-dir taken from the [xtrabackup] group;
# --print-defaults printing the effective arguments on stdout (with the suffix
# groups applied last); unknown options in the server's [mysqld] group tolerated,
# an unknown option in [xtrabackup] or [mariabackup] or on the command line an
# error naming it, a loose- prefixed one accepted.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

server_start src
S=$(sock_of src)

# backup_ok WHAT ARGS... - a backup with ARGS succeeds and produces a backup in $1's target.
backup_ok() {
    local what=$1 target=$2; shift 2
    xb_run "$@"
    assert_ok "$XB_RC" "$XB_ERR" "$what"
    assert_file "$target/xtrabackup_checkpoints" "$target/backup-my.cnf"
    log "case ok: $what"
}

# expect_usage_error WHAT NEEDLE - the last run failed, naming NEEDLE; our tool with XB_E_USAGE.
expect_usage_error() {
    local what=$1 needle=$2
    assert_failed "$XB_RC" "$XB_ERR" "$what"
    assert_contains "$XB_ERR" "$needle" "$what: the message names the option"
    if [[ $XB_KIND == xtrabackup ]]; then
        # mariabackup's statuses for a bad option: my_getopt's (2, 4, 5, 7, 13) or 1
        [[ " 1 2 4 5 7 13 " == *" $XB_RC "* ]] || fail "$what: exit status $XB_RC is not one of mariabackup's"
        assert_eq 002 "$(sed -n 's/.*Error: \[\([0-9]*\)\].*/\1/p' "$XB_ERR" | tail -n 1)" \
            "$what: error code USAGE in the error line"
    fi
    log "case ok: $what (exit code $XB_RC)"
}

# 1. Only a [client] group: socket and user. No datadir anywhere: the tool asks the server.
printf '[client]\nsocket=%s\nuser=root\n' "$S" > "$T/client.cnf"
backup_ok "[client] socket only" "$T/b1" --defaults-file="$T/client.cnf" --backup --target-dir="$T/b1"

# 2. !includedir; the included *.cnf has [client-server]; a non-.cnf file there is ignored.
mkdir "$T/conf.d"
printf '[client-server]\nsocket=%s\nuser=root\n' "$S" > "$T/conf.d/10-client.cnf"
printf 'this is not an option file = [\n' > "$T/conf.d/README"
printf '# main file\n!includedir %s/conf.d\n' "$T" > "$T/include.cnf"
backup_ok "[client-server] via !includedir" "$T/b2" --defaults-file="$T/include.cnf" --backup --target-dir="$T/b2"

# 3. --defaults-group-suffix: [client] is wrong, [client_alt] right.
printf '[client]\nsocket=%s/wrong.sock\nport=1\nuser=root\n[client_alt]\nsocket=%s\n' "$T" "$S" > "$T/suffix.cnf"
backup_ok "--defaults-group-suffix=_alt" "$T/b3" --defaults-file="$T/suffix.cnf" --defaults-group-suffix=_alt \
    --backup --target-dir="$T/b3"
xb_run --defaults-file="$T/suffix.cnf" --backup --target-dir="$T/b3-nosuffix"
assert_failed "$XB_RC" "$XB_ERR" "without the suffix the wrong [client] socket is used"
assert_contains "$XB_ERR" "$T/wrong\\.sock" "without the suffix: the message names the socket"

# 4. --target-dir from the [xtrabackup] group.
printf '[client]\nsocket=%s\nuser=root\n[xtrabackup]\ntarget-dir=%s\n' "$S" "$T/b4" > "$T/target.cnf"
backup_ok "--target-dir from [xtrabackup]" "$T/b4" --defaults-file="$T/target.cnf" --backup

# 5. Options in [mysqld] the tool does not know are the server's business.
{ printf '[client]\nsocket=%s\nuser=root\n' "$S"
  printf '[mysqld]\ntotally_unknown_server_option=1\nmax_connections=77\ncharacter-set-server=utf8mb4\n'; } > "$T/mysqld.cnf"
backup_ok "unknown options in [mysqld] tolerated" "$T/b5" --defaults-file="$T/mysqld.cnf" --backup --target-dir="$T/b5"

# 6. Unknown option in the tool's own groups and on the command line: an error.
for grp in xtrabackup mariabackup; do
    printf '[client]\nsocket=%s\nuser=root\n[%s]\nno-such-option=1\n' "$S" "$grp" > "$T/unknown-$grp.cnf"
    xb_run --defaults-file="$T/unknown-$grp.cnf" --backup --target-dir="$T/b6-$grp"
    expect_usage_error "unknown option in [$grp]" 'no-such-option'
done
xb_run --defaults-file="$T/client.cnf" --backup --target-dir="$T/b6-cli" --no-such-cli-option
expect_usage_error "unknown command line option" 'no-such-cli-option'

# 7. loose- prefixed unknown option: accepted (a warning at most).
printf '[client]\nsocket=%s\nuser=root\n[xtrabackup]\nloose-no-such-option=1\n' "$S" > "$T/loose.cnf"
backup_ok "loose-no-such-option in [xtrabackup]" "$T/b7" --defaults-file="$T/loose.cnf" --backup --target-dir="$T/b7"

# 8. --print-defaults: effective arguments on stdout, exit 0, nothing run.
PW="Pd-secret-$RANDOM$RANDOM"
cat > "$T/print.cnf" <<CNF
[client]
socket=$S
user=root
[client-server]
port=3399
password=$PW
[mysqld]
datadir=$T/print-datadir
innodb_log_file_size=64M
[mysqld_alt]
datadir=$T/alt-datadir
[xtrabackup]
parallel=3
CNF
xb_run --defaults-file="$T/print.cnf" --print-defaults
[[ $XB_RC -eq 0 ]] || { cat "$XB_ERR" >&2; fail "--print-defaults: exit code $XB_RC"; }
assert_contains "$XB_OUT" 'would have been started with the following arguments' "--print-defaults header"
assert_contains "$XB_OUT" "--datadir=$T/print-datadir( |\$)" "--print-defaults shows [mysqld] datadir"
assert_contains "$XB_OUT" '--port=3399( |$)' "--print-defaults shows [client-server] port"
assert_contains "$XB_OUT" '--innodb[-_]log[-_]file[-_]size=64M( |$)' "--print-defaults shows innodb_log_file_size"
[[ -e $T/print-datadir || -e $T/xtrabackup_backupfiles ]] && fail "--print-defaults did something besides printing"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$XB_OUT" '--parallel=3( |$)' "--print-defaults shows the [xtrabackup] group"
    grep -qF -- "$PW" "$XB_OUT" "$XB_ERR" && fail "--print-defaults shows the password in clear"
fi
xb_run --defaults-file="$T/print.cnf" --defaults-group-suffix=_alt --print-defaults
[[ $XB_RC -eq 0 ]] || { cat "$XB_ERR" >&2; fail "--print-defaults with suffix: exit code $XB_RC"; }
tr ' ' '\n' < "$XB_OUT" | grep -- '^--datadir=' > "$T/datadirs"
assert_eq "--datadir=$T/alt-datadir" "$(tail -n 1 "$T/datadirs")" \
    "--print-defaults with --defaults-group-suffix: [mysqld_alt] comes after [mysqld]"
log "case ok: --print-defaults"
log "case ok: --print-defaults"

# 9. What a mariabackup user passes: obsolete options (ignored, said so), the server's
#    command line after --mysqld-args, --binlog-info=OFF (no xtrabackup_binlog_info),
#    --open-files-limit, --stream=mbstream, the default --target-dir.
printf '[client]\nsocket=%s\nuser=root\n[mariabackup]\nno-version-check\nrsync\n[galera]\nwsrep_on=OFF\n' "$S" > "$T/mb.cnf"
backup_ok "mariabackup's options" "$T/b9" --defaults-file="$T/mb.cnf" --backup --target-dir="$T/b9" \
    --binlog-info=OFF --open-files-limit=2048 --no-backup-locks --core-file --mysqld-args --wsrep-new-cluster --no-such
[[ -e $T/b9/xtrabackup_binlog_info ]] && fail "--binlog-info=OFF: xtrabackup_binlog_info was written"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$XB_ERR" 'Obsolete option: no-backup-locks. Ignored' "obsolete options are said to be ignored"
    assert_contains "$XB_ERR" 'Limit of open files: [0-9]+' "--open-files-limit"
fi
(cd "$T" && "$XB" --defaults-file="$T/mb.cnf" --backup > "$T/xb.default.out" 2> "$T/xb.default.err" < /dev/null)
assert_ok $? "$T/xb.default.err" "backup with the default --target-dir"
assert_file "$T/xtrabackup_backupfiles/xtrabackup_checkpoints"
mkdir -p "$T/b10"
"$XB" --defaults-file="$T/mb.cnf" --backup --stream=mbstream 2> "$T/xb.mbs.err" < /dev/null | mbstream -x -C "$T/b10"
assert_ok "${PIPESTATUS[0]}" "$T/xb.mbs.err" "--stream=mbstream into mbstream -x"
assert_file "$T/b10/xtrabackup_checkpoints"
log "case ok: mariabackup's options"
log "options_defaults: ok"
