# common.sh - the integration test harness, sourced by every test/integration/t/*.sh.
#
# Each test gets a private temp dir ($T, removed at exit unless KEEP=1) and starts
# its own throwaway mariadbd servers in it, each known by a NAME (a shell word such
# as src or dst). A server has its own datadir, socket, free TCP port on 127.0.0.1,
# error log and a generated option file whose [client] section lets the test, the
# tool under test ($XB) and xb_load connect with --defaults-file only, so no
# password is on their command lines (text given to `sql` does reach the client's
# argv: a statement holding a password goes on stdin instead). An EXIT trap kills every server the test started (by
# its recorded pid, never by name) and removes the temp dir. Assertions print what
# differed and exit 1; a test exits 0 pass, 1 fail, 77 skip.
#
# Environment: XB (tool under test, default build/xtrabackup; XB=mariabackup runs
# the scenarios against the oracle), XB_KIND (mariabackup|xtrabackup, guessed from
# XB's name), PREPARE_BIN (preparer, default mariabackup), MARIADBD, KEEP=1 (keep
# $T), SERVER_USER (OS user mariadbd runs as when root), RESTORE_BINLOG_FROM.
#
# API (details above each function):
#   servers     server_start NAME [opts], server_start_on NAME DATADIR [opts],
#               server_stop NAME, server_kill NAME; cnf_of/datadir_of/sock_of/
#               port_of/errlog_of/pid_of NAME; $CNF $DATADIR $SOCK $PORT (last
#               server) and $NAME_CNF $NAME_DATADIR $NAME_SOCK $NAME_PORT
#   SQL         sql NAME STMT, checksum_all NAME, table_list NAME
#   the tool    xb_run ARGS, xb_backup NAME TARGET [opts], xb_backup_bg + xb_wait
#               ($XB_RC $XB_OUT $XB_ERR $XB_PID), prepare_backup DIR,
#               restore_backup DIR NAME [opts], check_clean_start NAME
#   workload    build_xb_load, xb_load NAME ARGS, bg_track PID, signal_tree SIG PID,
#               lock_holder SERVER NAME STMTS (a session holding locks until released),
#               wait_for SECS CMD, gtid_seq GTIDS, at_exit CMD (never trap EXIT)
#   assertions  fail, skip, assert_eq, assert_contains, assert_not_contains,
#               assert_file, assert_ok RC ERRLOG WHAT, assert_failed RC ERRLOG WHAT,
#               last_line FILE, log
#   prepare     put_init (sets $PUT $PUT_KIND from PREPARE_UNDER_TEST, default
#   tests       build/xtrabackup; skips while --prepare is not available),
#               prepare_kind BIN, prep_run BIN DIR [opts] ($PREP_RC $PREP_OUT
#               $PREP_ERR), error_code_of NAME (exit code from error.def),
#               checkpoints_value DIR KEY, json_num FILE KEY, tree_sums DIR (md5 of
#               every file), build_xb_pagecmp + assert_pages_equal A B WHAT [opts]
#               (test/tools/xb_pagecmp.c), restore_prepared DIR NAME [opts] (restore
#               without preparing), assert_no_crash_recovery NAME LAST_LSN,
#               check_all_tables NAME (CHECK TABLE ... EXTENDED on every InnoDB
#               table), xb_wait_max SECS WHAT (xb_wait with a time limit)

set -u -o pipefail

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)
XB=${XB:-$TOP/build/xtrabackup}
PREPARE_BIN=${PREPARE_BIN:-mariabackup}
MARIADBD=${MARIADBD:-/usr/sbin/mariadbd}
XB_LOAD=${XB_LOAD:-$TOP/build/xb_load}
START_TIMEOUT=${START_TIMEOUT:-60}
TEST_NAME=$(basename "$0" .sh)

# Resolve XB to a path; XB_KIND is "mariabackup" for the oracle, "xtrabackup" otherwise,
# so tests can branch where only the wording of a message differs.
if [[ $XB != */* ]]; then
    XB=$(command -v "$XB" || echo "$XB")
fi
if [[ -z ${XB_KIND:-} ]]; then
    case "$(basename "$XB")" in
        mariabackup|mariadb-backup) XB_KIND=mariabackup ;;
        *) XB_KIND=xtrabackup ;;
    esac
fi

T=$(mktemp -d "${TMPDIR:-/tmp}/xbtest.XXXX") || { echo "FAIL: mktemp failed" >&2; exit 1; }
chmod 711 "$T"   # lets a server or tool run as another user traverse it

declare -a SERVERS=()       # names of servers started by this test
declare -A SRV_DATADIR=()   # NAME -> datadir
declare -A SRV_CNF=()       # NAME -> generated option file
declare -A SRV_SOCK=()      # NAME -> unix socket
declare -A SRV_PORT=()      # NAME -> TCP port on 127.0.0.1
declare -A SRV_PID=()       # NAME -> mariadbd pid (empty when stopped)
declare -A SRV_ERRLOG=()    # NAME -> error log
declare -A SRV_USER=()      # NAME -> OS user mariadbd runs as
declare -a BG_PIDS=()       # background helpers (load, DDL) killed at exit
SERVER_ID_NEXT=1

# ---------------------------------------------------------------- logging, assertions

log()  { printf '# %s %s\n' "$(date +%H:%M:%S)" "$*"; }

# fail MSG / skip MSG - end the test (exit 1 / 77). Called inside $(...) they also
# end the main shell: the subshell signals it, and the TERM trap exits.
fail() {
    printf 'FAIL: %s\n' "$*" >&2
    [[ $BASHPID != "$$" ]] && kill -TERM "$$"
    exit 1
}
skip() {
    printf 'SKIP: %s\n' "$*" >&2
    [[ $BASHPID != "$$" ]] && { : > "$T/.skip"; kill -TERM "$$"; }
    exit 77
}

# assert_eq EXPECTED ACTUAL MSG - multi-line values are shown as a unified diff.
assert_eq() {
    local exp=$1 act=$2 msg=$3
    [[ "$exp" == "$act" ]] && return 0
    printf 'FAIL: %s\n' "$msg" >&2
    if [[ $exp == *$'\n'* || $act == *$'\n'* ]]; then
        diff -u --label expected --label actual <(printf '%s\n' "$exp") <(printf '%s\n' "$act") | sed 's/^/  /' >&2
    else
        printf '  expected: %s\n  actual:   %s\n' "$exp" "$act" >&2
    fi
    exit 1
}

# assert_contains FILE ERE MSG - FILE has a line matching the extended regexp.
assert_contains() {
    local file=$1 pat=$2 msg=$3
    [[ -f $file ]] || fail "$msg: $file does not exist"
    grep -Eq -- "$pat" "$file" && return 0
    printf 'FAIL: %s: no line of %s matches /%s/; its last lines:\n' "$msg" "$file" "$pat" >&2
    tail -n 15 "$file" | sed 's/^/  | /' >&2
    exit 1
}

# assert_not_contains FILE ERE MSG
assert_not_contains() {
    local file=$1 pat=$2 msg=$3
    [[ -f $file ]] || return 0
    grep -Eq -- "$pat" "$file" || return 0
    printf 'FAIL: %s: %s has lines matching /%s/:\n' "$msg" "$file" "$pat" >&2
    grep -E -- "$pat" "$file" | head -n 10 | sed 's/^/  | /' >&2
    exit 1
}

assert_file() {
    local f
    for f in "$@"; do [[ -e $f ]] || fail "expected file missing: $f"; done
}

# last_line FILE - the last non-empty line.
last_line() { grep -v '^[[:space:]]*$' "$1" | tail -n 1; }

# The success line: mariabackup prefixes it with "[00] date time ", our tool may not.
OK_LINE_RE='^(\[[0-9]+\] [0-9]{4}-[0-9]{2}-[0-9]{2} [0-9:]{8} )?completed OK!$'

# assert_ok RC LOG WHAT - exit code 0 and the last stderr line is "completed OK!".
assert_ok() {
    local rc=$1 errlog=$2 what=$3
    if [[ $rc -ne 0 ]] || ! last_line "$errlog" | grep -Eq "$OK_LINE_RE"; then
        printf 'FAIL: %s: exit code %s, last line %q; log tail:\n' "$what" "$rc" "$(last_line "$errlog")" >&2
        tail -n 25 "$errlog" | sed 's/^/  | /' >&2
        exit 1
    fi
}

# assert_failed RC LOG WHAT - non-zero exit and no "completed OK!" as the last line.
assert_failed() {
    local rc=$1 errlog=$2 what=$3
    [[ $rc -ne 0 ]] || { tail -n 10 "$errlog" | sed 's/^/  | /' >&2; fail "$what: expected a non-zero exit code, got 0"; }
    if last_line "$errlog" | grep -Eq "$OK_LINE_RE"; then
        fail "$what: failed with exit code $rc but the last line still says completed OK!"
    fi
    [[ $rc -lt 126 ]] || fail "$what: exit code $rc means the tool crashed or could not be run"
}

# ---------------------------------------------------------------- servers

cnf_of()     { echo "${SRV_CNF[$1]}"; }
datadir_of() { echo "${SRV_DATADIR[$1]}"; }
sock_of()    { echo "${SRV_SOCK[$1]}"; }
port_of()    { echo "${SRV_PORT[$1]}"; }
errlog_of()  { echo "${SRV_ERRLOG[$1]}"; }
pid_of()     { echo "${SRV_PID[$1]:-}"; }

# free_port - a TCP port nobody listens on (another process may still take it
# before the server binds; server_start_on retries on a bind failure).
free_port() {
    local p i
    for i in $(seq 1 50); do
        p=$(( 20000 + (RANDOM * 32768 + RANDOM) % 40000 ))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            echo "$p"; return 0
        fi
    done
    fail "no free TCP port found"
}

_srv_user() {
    if [[ $(id -u) -eq 0 ]]; then echo "${SERVER_USER:-root}"; else id -un; fi
}

# write_cnf NAME DATADIR [mysqld options...] - (re)generates $T/NAME/my.cnf.
# Extra options ("--opt=val" or "opt=val") go last in [mysqld] so they win.
write_cnf() {
    local name=$1 datadir=$2; shift 2
    local dir=$T/$name cnf=$T/$name/my.cnf port opt
    mkdir -p "$dir/tmp"
    port=$(free_port)
    SRV_DATADIR[$name]=$datadir
    SRV_CNF[$name]=$cnf
    SRV_SOCK[$name]=$dir/mysqld.sock
    SRV_PORT[$name]=$port
    SRV_ERRLOG[$name]=$dir/error.log
    SRV_USER[$name]=$(_srv_user)
    {
        echo "[client]"
        echo "user=root"
        echo "socket=$dir/mysqld.sock"
        echo "port=$port"
        echo
        echo "[mysqld]"
        echo "user=${SRV_USER[$name]}"
        echo "datadir=$datadir"
        echo "socket=$dir/mysqld.sock"
        echo "port=$port"
        echo "bind-address=127.0.0.1"
        echo "pid-file=$dir/mysqld.pid"
        echo "log-error=$dir/error.log"
        echo "tmpdir=$dir/tmp"
        echo "log-bin=mysql-bin"
        echo "server-id=$SERVER_ID_NEXT"
        echo "innodb_log_file_size=64M"
        echo "innodb_buffer_pool_size=128M"
        for opt in "$@"; do echo "${opt#--}"; done
    } > "$cnf"
    SERVER_ID_NEXT=$((SERVER_ID_NEXT + 1))
    chmod 644 "$cnf"
    if [[ ${SRV_USER[$name]} != "$(id -un)" ]]; then
        chown -R "${SRV_USER[$name]}" "$dir"
    fi
    # Convenience variables: the last configured server, and NAME_CNF etc.
    # shellcheck disable=SC2034
    declare -g DATADIR=$datadir CNF=$cnf SOCK=$dir/mysqld.sock PORT=$port
    if [[ $name =~ ^[A-Za-z_][A-Za-z0-9_]*$ ]]; then
        printf -v "${name}_DATADIR" '%s' "$datadir"
        printf -v "${name}_CNF" '%s' "$cnf"
        printf -v "${name}_SOCK" '%s' "$dir/mysqld.sock"
        printf -v "${name}_PORT" '%s' "$port"
    fi
}

# server_start NAME [mysqld options...] - fresh datadir, then server_start_on.
# (SERVER_INSTALL_OPTS="--opt=v ..." passes options to mariadb-install-db too.)
server_start() {
    local name=$1; shift
    local datadir=$T/$name/data
    [[ -e $datadir ]] && fail "server_start $name: $datadir already exists"
    mkdir -p "$T/$name/tmp"
    local u attempt; u=$(_srv_user)
    [[ $u != "$(id -un)" ]] && chown -R "$u" "$T/$name"
    # A private TMPDIR: the bootstrap server's temporary tables must not meet
    # those of tests running in parallel in /tmp. SERVER_INSTALL_OPTS: extra
    # server options for the bootstrap (an InnoDB file layout), space separated.
    local -a install_opts=()
    read -ra install_opts <<< "${SERVER_INSTALL_OPTS:-}"
    for attempt in 1 2; do
        TMPDIR=$T/$name/tmp mariadb-install-db --no-defaults --datadir="$datadir" --user="$u" \
            --auth-root-authentication-method=normal --skip-test-db "${install_opts[@]}" \
            > "$T/$name/install.log" 2>&1 && break
        if [[ $attempt -eq 2 ]]; then
            cat "$T/$name/install.log" >&2
            fail "mariadb-install-db for $name failed"
        fi
        log "mariadb-install-db for $name failed, retrying once"
        rm -rf "$datadir"
    done
    server_start_on "$name" "$datadir" "$@"
}

# server_start_on NAME DATADIR [mysqld options...] - start mariadbd on an existing
# datadir and wait until it accepts connections.
server_start_on() {
    local name=$1 datadir=$2; shift 2
    local attempt
    for attempt in 1 2 3; do
        write_cnf "$name" "$datadir" "$@"
        [[ ${SRV_USER[$name]} != "$(id -un)" ]] && chown -R "${SRV_USER[$name]}" "$datadir"
        : > "${SRV_ERRLOG[$name]}"
        [[ ${SRV_USER[$name]} != "$(id -un)" ]] && chown "${SRV_USER[$name]}" "${SRV_ERRLOG[$name]}"
        "$MARIADBD" --defaults-file="${SRV_CNF[$name]}" >> "$T/$name/stdout.log" 2>&1 < /dev/null &
        SRV_PID[$name]=$!
        disown "${SRV_PID[$name]}"   # no job-control chatter when it is killed
        [[ " ${SERVERS[*]} " == *" $name "* ]] || SERVERS+=("$name")
        if _wait_ready "$name"; then
            log "server $name up (pid ${SRV_PID[$name]}, port ${SRV_PORT[$name]}, datadir $datadir)"
            return 0
        fi
        if grep -q 'Bind on TCP/IP port' "${SRV_ERRLOG[$name]}"; then
            log "server $name: port ${SRV_PORT[$name]} taken, retrying"
            continue
        fi
        break
    done
    echo "error log of $name (${SRV_ERRLOG[$name]}):" >&2
    tail -n 40 "${SRV_ERRLOG[$name]}" | sed 's/^/  | /' >&2
    fail "server $name did not start"
}

_wait_ready() {
    local name=$1 pid=${SRV_PID[$1]} i
    for ((i = 0; i < START_TIMEOUT * 5; i++)); do
        if ! kill -0 "$pid" 2>/dev/null; then
            wait "$pid" 2>/dev/null
            SRV_PID[$name]=
            return 1
        fi
        if mariadb --defaults-file="${SRV_CNF[$name]}" -N -B -e 'SELECT 1' >/dev/null 2>&1; then
            return 0
        fi
        sleep 0.2
    done
    echo "server $name not ready after ${START_TIMEOUT}s" >&2
    kill -9 "$pid" 2>/dev/null
    SRV_PID[$name]=
    return 1
}

_wait_gone() {
    local pid=$1 secs=$2 i
    for ((i = 0; i < secs * 10; i++)); do
        kill -0 "$pid" 2>/dev/null || { wait "$pid" 2>/dev/null; return 0; }
        sleep 0.1
    done
    return 1
}

# server_stop NAME - clean shutdown (SIGTERM), waits up to 120s.
server_stop() {
    local name=$1 pid=${SRV_PID[$1]:-}
    [[ -n $pid ]] || return 0
    kill -TERM "$pid" 2>/dev/null
    if ! _wait_gone "$pid" 120; then
        kill -9 "$pid" 2>/dev/null
        fail "server $name (pid $pid) did not shut down within 120s"
    fi
    SRV_PID[$name]=
    log "server $name stopped"
}

# server_kill NAME - SIGKILL, no shutdown.
server_kill() {
    local name=$1 pid=${SRV_PID[$1]:-}
    [[ -n $pid ]] || return 0
    kill -9 "$pid" 2>/dev/null
    _wait_gone "$pid" 30
    SRV_PID[$name]=
}

# sql NAME STATEMENT... - batch mode, no column names; returns the client's exit code.
sql() {
    local name=$1; shift
    mariadb --defaults-file="${SRV_CNF[$name]}" -N -B -e "$*"
}

# checksum_all NAME - "db.table checksum" for every base table outside the system
# schemas, sorted.
checksum_all() {
    local name=$1 list
    list=$(sql "$name" "SET SESSION group_concat_max_len = 1048576; SELECT GROUP_CONCAT(CONCAT('\`', REPLACE(table_schema, '\`', '\`\`'), '\`.\`',
                REPLACE(table_name, '\`', '\`\`'), '\`') ORDER BY table_schema, table_name SEPARATOR ', ')
            FROM information_schema.tables WHERE table_type = 'BASE TABLE'
            AND table_schema NOT IN ('mysql', 'sys', 'information_schema', 'performance_schema')") \
        || fail "checksum_all $name: listing tables failed"
    [[ -z $list || $list == NULL ]] && return 0
    sql "$name" "CHECKSUM TABLE $list EXTENDED" \
        | awk -F'\t' '{ print $1 " " $2 }' | LC_ALL=C sort
}

# table_list NAME - "db.table engine" for every base table outside the system schemas.
table_list() {
    sql "$1" "SELECT CONCAT(table_schema, '.', table_name, ' ', engine) FROM information_schema.tables
              WHERE table_type = 'BASE TABLE'
              AND table_schema NOT IN ('mysql', 'sys', 'information_schema', 'performance_schema')
              ORDER BY 1" | LC_ALL=C sort
}

# lock_holder SERVER NAME STATEMENTS... - a client session of SERVER in the
# background that runs the statements, then stays connected (holding what they
# took) until $T/NAME.release exists (or the test ends), then runs
# "SELECT 'holder NAME alive', COUNT(*) FROM test.t" (the session still works),
# commits and unlocks. Its output goes to $T/NAME.out, unbuffered; its pid is
# $HOLDER_PID.
lock_holder() {
    local srv=$1 name=$2; shift 2
    (
        printf '%s\n' "$@"
        while [[ ! -e $T/$name.release && -d $T ]] && kill -0 $$ 2>/dev/null; do sleep 0.2; done
        echo "SELECT 'holder $name alive', COUNT(*) FROM test.t;"
        echo "COMMIT; UNLOCK TABLES;"
    ) | mariadb --defaults-file="${SRV_CNF[$srv]}" -N -B --unbuffered > "$T/$name.out" 2>&1 &
    HOLDER_PID=$!
    bg_track "$HOLDER_PID"
}

# ---------------------------------------------------------------- backup and restore

# xb_backup NAME TARGET [extra options...] - run "$XB --defaults-file=CNF --backup
# --target-dir=TARGET ..." with stdout in $XB_OUT and stderr in $XB_ERR; returns
# the tool's exit code (sets XB_RC too).
XB_RUN=0
xb_backup() {
    local name=$1 target=$2; shift 2
    xb_run --defaults-file="${SRV_CNF[$name]}" --backup --target-dir="$target" "$@"
}

# xb_run ARGS... - run $XB with ARGS, stdout to $XB_OUT, stderr to $XB_ERR.
xb_run() {
    XB_RUN=$((XB_RUN + 1))
    XB_OUT=$T/xb.$XB_RUN.out
    XB_ERR=$T/xb.$XB_RUN.err
    log "run: $(basename "$XB") $*"
    "$XB" "$@" > "$XB_OUT" 2> "$XB_ERR" < /dev/null
    XB_RC=$?
    log "exit code $XB_RC, last line: $(last_line "$XB_ERR" 2>/dev/null)"
    return $XB_RC
}

# xb_backup_bg NAME TARGET [extra options...] - like xb_backup but in the
# background: sets XB_PID, XB_OUT, XB_ERR; collect it with xb_wait.
xb_backup_bg() {
    local name=$1 target=$2; shift 2
    XB_RUN=$((XB_RUN + 1))
    XB_OUT=$T/xb.$XB_RUN.out
    XB_ERR=$T/xb.$XB_RUN.err
    log "run in background: $(basename "$XB") --defaults-file=${SRV_CNF[$name]} --backup --target-dir=$target $*"
    # default dispositions: whoever started the tests may ignore SIGINT, which
    # the tool honours, and the scenarios send it on purpose
    env --default-signal=INT,TERM,HUP "$XB" --defaults-file="${SRV_CNF[$name]}" --backup --target-dir="$target" "$@" \
        > "$XB_OUT" 2> "$XB_ERR" < /dev/null &
    XB_PID=$!
    bg_track "$XB_PID"
}

# xb_wait - wait for the xb_backup_bg run; sets and returns XB_RC.
xb_wait() {
    wait "$XB_PID"
    XB_RC=$?
    log "exit code $XB_RC, last line: $(last_line "$XB_ERR" 2>/dev/null)"
    return $XB_RC
}

# prepare_backup DIR - $PREPARE_BIN --prepare on DIR (in place).
prepare_backup() {
    local dir=$1 plog=$T/prepare.$RANDOM.log rc
    log "prepare: $(basename "$PREPARE_BIN") --prepare --target-dir=$dir"
    "$PREPARE_BIN" --prepare --target-dir="$dir" > "$plog" 2>&1 < /dev/null
    rc=$?
    assert_ok "$rc" "$plog" "prepare of $dir"
}

# restore_backup DIR NAME [mysqld options...] - prepare DIR, copy it into a new
# datadir $T/NAME/data (minus the xtrabackup_* files and backup-my.cnf; tablespaces
# named by .isl files are moved under $T/NAME/ext/ and the .isl rewritten, so the
# restored server never shares a file with the source), start server NAME on it and
# check its error log for crash recovery or errors. With RESTORE_BINLOG_FROM=SRC
# the binary logs of server SRC, cut at the position in DIR/xtrabackup_binlog_info,
# are installed too (a point-in-time restore), so the restored @@gtid_binlog_pos
# comes from real binlog events.
restore_backup() {
    local dir=$1 name=$2; shift 2
    local datadir=$T/$name/data isl target rel
    [[ -d $dir ]] || fail "restore_backup: no backup directory $dir"
    [[ -e $datadir ]] && fail "restore_backup: $datadir already exists"
    prepare_backup "$dir"
    mkdir -p "$datadir"
    cp -a "$dir/." "$datadir/" || fail "restore_backup: copying $dir failed"
    rm -f "$datadir"/xtrabackup_* "$datadir/backup-my.cnf"
    while IFS= read -r -d '' isl; do
        target=$(tr -d '\n' < "$isl")
        rel=${isl#"$datadir"/}; rel=${rel%.isl}
        [[ -f $datadir/$rel.ibd ]] || fail "restore_backup: $rel.isl but no $rel.ibd in the backup"
        mkdir -p "$T/$name/ext$(dirname "$target")"
        mv "$datadir/$rel.ibd" "$T/$name/ext$target"
        printf '%s' "$T/$name/ext$target" > "$isl"
    done < <(find "$datadir" -name '*.isl' -print0)
    if [[ -n ${RESTORE_BINLOG_FROM:-} ]]; then
        install_binlog_upto "$RESTORE_BINLOG_FROM" "$dir/xtrabackup_binlog_info" "$datadir"
    fi
    server_start_on "$name" "$datadir" "$@"
    check_clean_start "$name"
}

# check_clean_start NAME - the error log shows no crash recovery and no error.
check_clean_start() {
    local e=${SRV_ERRLOG[$1]}
    assert_not_contains "$e" 'crash recovery|Recovering after a crash|\[ERROR\]|[Cc]orrupt' \
        "restored server $1 did not start cleanly"
}

# install_binlog_upto SRC BINLOG_INFO DATADIR - copy the binlogs of server SRC up to
# the file named in BINLOG_INFO, cut the last one at the recorded position, mark it
# closed and write the index, so a server on DATADIR resumes exactly there.
install_binlog_upto() {
    local src=$1 info=$2 datadir=$3 file pos f base
    read -r file pos _ < "$info" || fail "cannot read $info"
    [[ -n $file && $pos =~ ^[0-9]+$ ]] || fail "bad binlog info in $info: $(cat "$info")"
    file=$(basename "$file")
    local srcdir=${SRV_DATADIR[$src]}
    [[ -f $srcdir/$file ]] || fail "binlog $file named in $info is not in $srcdir"
    : > "$datadir/mysql-bin.index"
    while read -r f; do
        base=$(basename "$f")
        cp "$srcdir/$base" "$datadir/$base"
        echo "./$base" >> "$datadir/mysql-bin.index"
        [[ $base == "$file" ]] && break
    done < "$srcdir/mysql-bin.index"
    truncate -s "$pos" "$datadir/$file"
    # Clear LOG_EVENT_BINLOG_IN_USE_F (flags of the format description event at
    # offset 4 + 17) so the server sees a cleanly closed log.
    local flags
    flags=$(od -An -tu1 -j21 -N1 "$datadir/$file" | tr -d ' ')
    # shellcheck disable=SC2059
    printf "\\$(printf '%03o' $((flags & ~1)))" | dd of="$datadir/$file" bs=1 seek=21 conv=notrunc status=none
    rm -f "$datadir"/mysql-bin.state
}

# ---------------------------------------------------------------- workload helpers

# build_xb_load - compile test/tools/xb_load.c into build/xb_load when missing or stale.
build_xb_load() {
    local src=$TOP/test/tools/xb_load.c
    if [[ ! -x $XB_LOAD || $src -nt $XB_LOAD ]]; then
        mkdir -p "$(dirname "$XB_LOAD")"
        # shellcheck disable=SC2046
        if ! gcc -O2 -Wall -o "$XB_LOAD.tmp.$$" "$src" $(pkg-config --cflags --libs libmariadb) -lpthread \
                || ! mv -f "$XB_LOAD.tmp.$$" "$XB_LOAD"; then
            rm -f "$XB_LOAD.tmp.$$"
            return 1
        fi
    fi
}

# xb_load NAME ARGS... - run the workload tool against server NAME.
xb_load() {
    local name=$1; shift
    "$XB_LOAD" --defaults-file="${SRV_CNF[$name]}" "$@"
}

# signal_tree SIGNAL PID - send SIGNAL to PID and all its descendants (so a wrapper
# script around the tool under test is frozen or resumed along with the tool).
signal_tree() {
    local sig=$1 pid=$2 child
    for child in $(pgrep -P "$pid" 2>/dev/null); do signal_tree "$sig" "$child"; done
    kill "-$sig" "$pid" 2>/dev/null
}

# bg_track PID - kill PID (and wait for it) at exit if it is still running.
bg_track() { BG_PIDS+=("$1"); }

# wait_for SECONDS COMMAND... - poll COMMAND every 0.1s until it succeeds.
wait_for() {
    local secs=$1 i; shift
    for ((i = 0; i < secs * 10; i++)); do
        "$@" && return 0
        sleep 0.1
    done
    return 1
}

# gtid_seq GTID_LIST - the sequence number of domain 0 in a GTID list ("0-1-42" -> 42).
gtid_seq() {
    local g
    IFS=',' read -ra g <<< "$1"
    for g in "${g[@]}"; do
        g=${g// /}
        [[ $g == 0-* ]] && { echo "${g##*-}"; return 0; }
    done
    echo 0
}

# ---------------------------------------------------------------- cleanup

_cleanup() {
    local rc=$? name pid hook
    trap - EXIT INT TERM
    for hook in "${EXIT_HOOKS[@]}"; do eval "$hook"; done
    for pid in "${BG_PIDS[@]}"; do
        # a backgrounded shell function is a subshell: its children go first
        pkill -TERM -P "$pid" 2>/dev/null || true
        kill -TERM "$pid" 2>/dev/null && { _wait_gone "$pid" 10 || kill -9 "$pid" 2>/dev/null; }
    done
    for name in "${SERVERS[@]}"; do
        pid=${SRV_PID[$name]:-}
        [[ -n $pid ]] && { kill -9 "$pid" 2>/dev/null; _wait_gone "$pid" 30; }
    done
    if [[ $rc -ne 0 && $rc -ne 77 && -n ${TEST_ARTIFACTS:-} ]]; then
        # Keep the small logs (tool output, prepare, server error logs) for a post-mortem.
        mkdir -p "$TEST_ARTIFACTS"
        (cd "$T" && find . -maxdepth 2 -type f \( -name '*.err' -o -name '*.out' -o -name '*.log' \
            -o -name '*.cnf' -o -name 'xtrabackup_*' \) -size -2M -print0 \
            | xargs -0 -r cp --parents -t "$TEST_ARTIFACTS") 2>/dev/null
        echo "# logs of the failed test kept in $TEST_ARTIFACTS" >&2
    fi
    if [[ ${KEEP:-0} == 1 ]]; then
        echo "# KEEP=1: test files kept in $T" >&2
    else
        chmod -R u+rwX "$T" 2>/dev/null
        rm -rf "$T"
    fi
    exit "$rc"
}
# at_exit CMD - run CMD (a shell string) when the test ends, before the servers are
# stopped; never set an EXIT trap of your own (it would replace the cleanup).
EXIT_HOOKS=()
at_exit() { EXIT_HOOKS+=("$1"); }
trap _cleanup EXIT
trap 'if [[ -e $T/.skip ]]; then exit 77; else exit 1; fi' INT TERM

# Preconditions every test shares.
[[ -x $XB ]] || fail "tool under test not found or not executable: $XB (build it with make, or run with XB=mariabackup)"
command -v "$PREPARE_BIN" >/dev/null || fail "preparer not found: $PREPARE_BIN"
[[ -x $MARIADBD ]] || skip "no mariadbd at $MARIADBD"
log "test $TEST_NAME: XB=$XB ($XB_KIND), PREPARE_BIN=$PREPARE_BIN, temp dir $T"

# ---------------------------------------------------------------- prepare tests
# Helpers of the --prepare scenarios (prepare_diff, prepare_restart, prepare_errors)
# and bench/prepare.sh. The preparer under test is PREPARE_UNDER_TEST (default
# build/xtrabackup; PREPARE_UNDER_TEST=mariabackup runs the scenarios with the
# oracle on both sides); put_init resolves it into $PUT and $PUT_KIND.

# put_init - set PUT (path of the preparer under test) and PUT_KIND (mariabackup|
# xtrabackup); skip the test while that binary says --prepare is not available.
put_init() {
    PUT=${PREPARE_UNDER_TEST:-$TOP/build/xtrabackup}
    [[ $PUT != */* ]] && PUT=$(command -v "$PUT" || echo "$PUT")
    [[ -x $PUT ]] || fail "preparer under test not found or not executable: $PUT"
    PUT_KIND=$(prepare_kind "$PUT")
    if [[ $PUT_KIND == xtrabackup ]] && mkdir -p "$T/put_probe" &&
            "$PUT" --prepare --target-dir="$T/put_probe" 2>&1 < /dev/null | grep -q 'prepare is not available'; then
        skip "$PUT says --prepare is not available in this version (set PREPARE_UNDER_TEST=mariabackup to run with the oracle)"
    fi
    log "preparer under test: $PUT ($PUT_KIND)"
}

# prepare_kind BIN - "mariabackup" when BIN is the oracle, else "xtrabackup".
prepare_kind() {
    case "$(basename "$1")" in
        mariabackup|mariadb-backup) echo mariabackup ;;
        *) echo xtrabackup ;;
    esac
}

# prep_run BIN DIR [options...] - "BIN --prepare --target-dir=DIR options..." with
# stdout in $PREP_OUT and stderr in $PREP_ERR; sets and returns PREP_RC. Never fails
# the test by itself (assert_ok/assert_failed on $PREP_RC $PREP_ERR do).
PREP_RUN=0
prep_run() {
    local bin=$1 dir=$2; shift 2
    PREP_RUN=$((PREP_RUN + 1))
    PREP_OUT=$T/prep.$PREP_RUN.out
    PREP_ERR=$T/prep.$PREP_RUN.err
    log "prepare: $(basename "$bin") --prepare --target-dir=$dir $*"
    "$bin" --prepare --target-dir="$dir" "$@" > "$PREP_OUT" 2> "$PREP_ERR" < /dev/null
    PREP_RC=$?
    log "prepare exit code $PREP_RC, last line: $(last_line "$PREP_ERR" 2>/dev/null)"
    return $PREP_RC
}

# assert_error NAME RC ERRFILE WHAT - a run of our tool failed with error NAME
# (CORRUPT_PAGE...): exit status 1, as mariabackup's (the default
# --exit-status), and the code of NAME in the last "Error: [NNN]" line of ERRFILE.
assert_error() {
    local want got
    want=$(printf '%03d' "$(error_code_of "$1")")
    assert_eq 1 "$2" "$4: exit status (mariabackup's: 1 for a failed run)"
    got=$(sed -n 's/.*Error: \[\([0-9]*\)\].*/\1/p' "$3" | tail -n 1)
    assert_eq "$want" "$got" "$4: error code $1 in the error line"
}

# error_code_of NAME - the code of error NAME (CORRUPT_PAGE...) from error.def.
error_code_of() {
    local c
    c=$(sed -n "s/^XB_ERROR($1, *\([0-9][0-9]*\),.*/\1/p" "$TOP/src/common/error.def")
    [[ -n $c ]] || fail "error_code_of: no error $1 in src/common/error.def"
    echo "$c"
}

# checkpoints_value DIR KEY - a value of DIR/xtrabackup_checkpoints ("backup_type"...).
checkpoints_value() {
    sed -n "s/^$2 *= *//p" "$1/xtrabackup_checkpoints" 2>/dev/null | head -n 1
}

# json_num FILE KEY - the first number given to "KEY" in a JSON file (no jq needed;
# "records" does not match "records_by_type"). Empty when absent.
json_num() {
    grep -oE "\"$2\"[[:space:]]*:[[:space:]]*-?[0-9]+(\\.[0-9]+)?([eE][-+]?[0-9]+)?" "$1" 2>/dev/null \
        | head -n 1 | sed -E 's/.*:[[:space:]]*//'
}

# tree_sums DIR - "md5  path" of every regular file under DIR (paths relative, sorted),
# for "nothing changed" checks; file names alone show up too, so a new or removed
# file is a difference.
# flip FILE OFFSET - invert one byte.
flip() {
    local b
    b=$(od -An -tu1 -j"$2" -N1 "$1" | tr -d ' ')
    [[ -n $b ]] || fail "flip: no byte at $2 of $1"
    # shellcheck disable=SC2059
    printf "\\$(printf '%03o' $((b ^ 0xFF)))" | dd of="$1" bs=1 seek="$2" conv=notrunc status=none
}

tree_sums() {
    (cd "$1" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 -r md5sum)
}

# build_xb_pagecmp - compile test/tools/xb_pagecmp.c against build/libxb.a into
# $XB_PAGECMP (default build/xb_pagecmp) when missing or older than its inputs;
# builds build/libxb.a with make when it is missing. Returns 1 on failure.
XB_PAGECMP=${XB_PAGECMP:-$TOP/build/xb_pagecmp}
build_xb_pagecmp() {
    local src=$TOP/test/tools/xb_pagecmp.c lib=$TOP/build/libxb.a
    [[ -f $lib ]] || make -C "$TOP" --no-print-directory build/libxb.a >/dev/null || return 1
    if [[ ! -x $XB_PAGECMP || $src -nt $XB_PAGECMP || $lib -nt $XB_PAGECMP ]]; then
        # shellcheck disable=SC2046
        if ! ${CC:-gcc} -O2 -g -Wall -Wextra -Wno-unused-parameter -D_GNU_SOURCE -I"$TOP/src" -I"$TOP/engine-hooks" \
                -o "$XB_PAGECMP.tmp.$$" "$src" "$lib" \
                $(pkg-config --libs libmariadb libzstd libcrypto zlib 2>/dev/null) -laio -lpthread -lm \
                || ! mv -f "$XB_PAGECMP.tmp.$$" "$XB_PAGECMP"; then
            rm -f "$XB_PAGECMP.tmp.$$"
            return 1
        fi
    fi
}

# assert_pages_equal A B WHAT [xb_pagecmp options] - xb_pagecmp A B (files or
# directories) finds no difference; otherwise prints its report and fails. Pages
# an option lets through (--pc-tail: TAIL lines) are logged, never hidden.
assert_pages_equal() {
    local a=$1 b=$2 what=$3 out=$T/pagecmp.$RANDOM.out rc; shift 3
    "$XB_PAGECMP" -v "$@" "$a" "$b" > "$out" 2>&1
    rc=$?
    if [[ $rc -ne 0 ]]; then
        printf 'FAIL: %s: pages differ (A=%s B=%s), xb_pagecmp exit code %s:\n' "$what" "$a" "$b" "$rc" >&2
        grep -v '^SAME' "$out" | head -n 60 | sed 's/^/  | /' >&2
        exit 1
    fi
    grep '^TAIL' "$out" | sed 's/^/# /'
    log "$what: $(tail -n 1 "$out")"
}

# restore_prepared DIR NAME [mysqld options...] - restore_backup for a backup that
# is already prepared: copies DIR (not modified) into $T/NAME/data the same way,
# starts server NAME on it and runs check_clean_start.
restore_prepared() {
    local dir=$1 name=$2; shift 2
    local datadir=$T/$name/data isl target rel
    [[ -d $dir ]] || fail "restore_prepared: no backup directory $dir"
    [[ -e $datadir ]] && fail "restore_prepared: $datadir already exists"
    mkdir -p "$datadir"
    cp -a "$dir/." "$datadir/" || fail "restore_prepared: copying $dir failed"
    rm -f "$datadir"/xtrabackup_* "$datadir/backup-my.cnf"
    while IFS= read -r -d '' isl; do
        target=$(tr -d '\n' < "$isl")
        rel=${isl#"$datadir"/}; rel=${rel%.isl}
        [[ -f $datadir/$rel.ibd ]] || fail "restore_prepared: $rel.isl but no $rel.ibd in the backup"
        mkdir -p "$T/$name/ext$(dirname "$target")"
        mv "$datadir/$rel.ibd" "$T/$name/ext$target"
        printf '%s' "$T/$name/ext$target" > "$isl"
    done < <(find "$datadir" -name '*.isl' -print0)
    server_start_on "$name" "$datadir" "$@"
    check_clean_start "$name"
}

# assert_no_crash_recovery NAME LSN - server NAME started on a prepared backup
# without any redo to apply: its error log has none of the 10.11 recovery lines
# ("InnoDB: Starting crash recovery from checkpoint LSN=", "InnoDB: To recover:",
# "InnoDB: Multi-batch recovery needed", "InnoDB: Recovered page") and starts at
# the backup's end: "InnoDB: log sequence number LSN;" (LSN = last_lsn).
assert_no_crash_recovery() {
    local e=${SRV_ERRLOG[$1]} lsn=$2
    check_clean_start "$1"
    assert_not_contains "$e" 'InnoDB: Starting crash recovery|InnoDB: To recover:|InnoDB: Multi-batch recovery|InnoDB: Recovered page' \
        "server $1 on a prepared backup applied redo"
    assert_contains "$e" "InnoDB: log sequence number $lsn;" "server $1 starts at the backup's last_lsn"
}

# check_all_tables NAME - CHECK TABLE ... EXTENDED on every InnoDB table of server
# NAME (system schemas included); fails unless every status is OK.
check_all_tables() {
    local name=$1 list out=$T/check.$RANDOM.out
    list=$(sql "$name" "SET SESSION group_concat_max_len = 1048576; SELECT GROUP_CONCAT(CONCAT('\`', table_schema, '\`.\`',
                table_name, '\`') ORDER BY table_schema, table_name SEPARATOR ', ')
            FROM information_schema.tables WHERE table_type = 'BASE TABLE' AND engine = 'InnoDB'") \
        || fail "check_all_tables $name: listing tables failed"
    [[ -n $list && $list != NULL ]] || fail "check_all_tables $name: no InnoDB table"
    sql "$name" "CHECK TABLE $list EXTENDED" > "$out" || fail "CHECK TABLE on $name failed"
    if awk -F'\t' '$3 == "error" || ($3 == "status" && $4 != "OK")' "$out" | grep -q .; then
        grep -v $'\tstatus\tOK$' "$out" | head -n 30 | sed 's/^/  | /' >&2
        fail "CHECK TABLE on $name reported problems"
    fi
    log "CHECK TABLE: $(grep -c $'\tstatus\tOK$' "$out") InnoDB tables OK on $name"
}

# xb_wait_max SECS WHAT - xb_wait for the xb_backup_bg run, but fail (after killing
# it and showing its last lines) when it has not ended within SECS seconds.
xb_wait_max() {
    local secs=$1 what=$2 i
    for ((i = 0; i < secs * 10; i++)); do
        kill -0 "$XB_PID" 2>/dev/null || break
        sleep 0.1
    done
    if kill -0 "$XB_PID" 2>/dev/null; then
        signal_tree KILL "$XB_PID"
        wait "$XB_PID" 2>/dev/null
        tail -n 8 "$XB_ERR" | sed 's/^/  | /' >&2
        fail "$what: $(basename "$XB") did not finish within ${secs}s"
    fi
    xb_wait
}
