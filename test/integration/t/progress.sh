#!/usr/bin/env bash
# progress.sh - the progress display: with --progress=numeric, "PROGRESS done total"
# lines whose done never decreases and never passes total; on a terminal (a pty
# made by script(1)) a meter with percent, MB/s, ETA and redo headroom, cleared
# before the log lines so "completed OK!" is still the last line. The copy is
# slowed with --throttle so the display has time to show. A table that grows
# during the copy: the totals follow it, percent stays at most 100, an ETA is
# shown. Our tool only.
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

# A table that grows during the copy (the largest, so copied first, while rows
# go into it): the totals follow it, done never passes total, and the meter
# shows an ETA all along. Each run gets its own growth.
sql src "CREATE TABLE p.g (id INT AUTO_INCREMENT PRIMARY KEY, pad VARCHAR(1000)) ENGINE=InnoDB;
         INSERT INTO p.g (pad) SELECT REPEAT(MD5(seq), 30) FROM p.seq_1_to_25000" || fail "growing table"
grow() { # 25 MB more in steps, while the copy runs
    local i
    for ((i = 0; i < 10; i++)); do
        sql src "INSERT INTO p.g (pad) SELECT REPEAT(MD5(seq), 30) FROM p.seq_1_to_2500" || return 1
        sleep 0.3
    done
}
start_growing() { # PROGRESS_FILE - once the copy of p.g started
    wait_for 60 grep -q "Copying .*p/g.ibd" "$1" || fail "the copy of p/g.ibd never started"
    grow &
    GROW_PID=$!
    bg_track "$GROW_PID"
}

xb_backup_bg src "$T/b3" --throttle=4 --progress=numeric
start_growing "$XB_ERR"
xb_wait
wait "$GROW_PID" || fail "growing p.g failed"
assert_ok "$XB_RC" "$XB_ERR" "backup of a growing table with --progress=numeric"
grep -E '^PROGRESS [0-9]+ [0-9]+$' "$XB_ERR" > "$T/g.txt" || fail "no PROGRESS lines (growing table)"
awk 'NR == 1 { first = $3 }
     { if ($2 > $3) { print "done " $2 " past total " $3; bad = 1 }
       if ($3 < prev) { print "total went down: " prev " -> " $3; bad = 1 }
       prev = $3 }
     END { if (prev <= first) { print "total never grew: " first " -> " prev; bad = 1 }; exit bad }' "$T/g.txt" \
    || fail "PROGRESS lines of a growing table: $(cat "$T/g.txt")"
log "growing table: total $(head -n 1 "$T/g.txt" | cut -d' ' -f3) -> $(tail -n 1 "$T/g.txt" | cut -d' ' -f3)"

script -qec "'$XB' --defaults-file='$(cnf_of src)' --backup --target-dir='$T/b4' --throttle=4" /dev/null \
    > "$T/tty4.out" 2>&1 < /dev/null &
SCRIPT_PID=$!
bg_track "$SCRIPT_PID"
start_growing "$T/tty4.out"
wait "$SCRIPT_PID" || fail "the meter run under script(1) failed"
wait "$GROW_PID" || fail "growing p.g failed (meter run)"
assert_file "$T/b4/xtrabackup_checkpoints"
tr '\r' '\n' < "$T/tty4.out" | sed 's/\x1b\[K//g' | grep -E '^ *[0-9]+% ' > "$T/meter4.txt" || fail "no meter line (growing table)"
awk '{ if ($1 + 0 > 100) { print "percent " $1; bad = 1 } } END { exit bad }' "$T/meter4.txt" \
    || fail "the meter passed 100%: $(cat "$T/meter4.txt")"
assert_contains "$T/meter4.txt" 'ETA [0-9]+:[0-9][0-9] ' "an ETA while a table grows"
# the totals shown grow with the table (the text after "/" changes)
[[ $(sed -E 's/.* \/ ([0-9.]+ [KMG]?i?B) .*/\1/' "$T/meter4.txt" | sort -u | wc -l) -ge 2 ]] \
    || fail "the meter's total never changed: $(cat "$T/meter4.txt")"
log "meter lines: $(wc -l < "$T/meter4.txt"), last: $(tail -n 1 "$T/meter4.txt")"
