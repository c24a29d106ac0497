#!/usr/bin/env bash
# progress.sh - the progress display: with --progress=numeric, "PROGRESS done total"
# lines whose done never decreases and never passes total; on a terminal (a pty
# made by script(1)) a meter with percent, MB/s, ETA and redo headroom, cleared
# before the log lines so "completed OK!" is still the last line. The copy is
# slowed with --throttle so the display has time to show. Our tool only.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

[[ $XB_KIND == xtrabackup ]] || skip "the progress display is our tool's"
command -v script > /dev/null || skip "script(1) is missing"
server_start src
sql src "CREATE DATABASE p; CREATE TABLE p.t (id INT PRIMARY KEY, pad VARCHAR(255)) ENGINE=InnoDB;
         INSERT INTO p.t SELECT seq, REPEAT(MD5(seq), 7) FROM p.seq_1_to_60000" || fail "sample data"

xb_backup src "$T/b1" --throttle=10 --progress=numeric
assert_ok "$XB_RC" "$XB_ERR" "backup with --progress=numeric"
grep -E '^PROGRESS [0-9]+ [0-9]+$' "$XB_ERR" > "$T/p.txt" || fail "no PROGRESS lines"
awk 'BEGIN { prev = -1 }
     { if ($2 < prev) { print "done went down: " prev " -> " $2; bad = 1 }
       if ($3 <= 0) { print "total is " $3; bad = 1 }
       prev = $2 }
     END { exit bad }' "$T/p.txt" || fail "PROGRESS lines inconsistent: $(cat "$T/p.txt")"
log "PROGRESS lines: $(wc -l < "$T/p.txt"), last: $(tail -n 1 "$T/p.txt")"

# On a terminal: script(1) gives the tool a pty; its stderr is what the terminal shows.
script -qec "'$XB' --defaults-file='$(cnf_of src)' --backup --target-dir='$T/b2' --throttle=10" /dev/null \
    > "$T/tty.out" 2>&1 < /dev/null
tr '\r' '\n' < "$T/tty.out" | sed 's/\x1b\[K//g' > "$T/tty.txt"
assert_contains "$T/tty.txt" '^ *[0-9]+% [0-9.]+ [KMG]?i?B / [0-9.]+ [KMG]?i?B +[0-9.]+ MB/s +ETA [0-9:-]+ +redo headroom [0-9]+%' "the meter line"
assert_eq "completed OK!" "$(grep -v '^[[:space:]]*$' "$T/tty.txt" | tail -n 1)" "last line on the terminal"
assert_file "$T/b2/xtrabackup_checkpoints"
