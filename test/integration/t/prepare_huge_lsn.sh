#!/usr/bin/env bash
# prepare_huge_lsn.sh - a server whose LSN is past 2^44 (17596481011216, as
# MariaDB's mariabackup.huge_lsn test sets up, without its encryption): backup,
# prepare by the preparer under test (PREPARE_UNDER_TEST, default build/xtrabackup),
# restore, and the restored server must start without crash recovery and hold
# the row committed before the backup, not the one committed after it.
# Two ways to get there, each on its own server:
#   log     the server stopped, ib_logfile0 rewritten (4 MiB, checkpoint at
#           17596481011216 - 139820*15, then 139820 FILE_MODIFY records, more
#           than 2 MiB, to the end LSN, wrapping around the file), started again
#   flush   a crc32 (not full_crc32) server stopped, the flushed LSN of ibdata1's
#           page 0 (bytes 26..33, outside that format's checksum) set to
#           17596481010687 and ib_logfile0 emptied: the server makes a new log at
#           that LSN
# crc32.pl (MariaDB's test helper for CRC-32C) comes with mariadb-test.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

put_init
CRC_PL=/usr/share/mysql/mysql-test/suite/innodb/include/crc32.pl
[[ -f $CRC_PL ]] || skip "$CRC_PL not found: install mariadb-test (make deps)"
HUGE=$((1 << 44))

# fake_log DATADIR - the redo log of the "log" variant (layout: doc/redo-log.md).
fake_log() {
    perl - "$1/ib_logfile0" "$CRC_PL" <<'PERL' || fail "writing the fake redo log failed"
my ($file, $crc) = @ARGV;
do $crc;
open(my $f, ">", $file) or die "cannot open $file";
binmode $f;
my $repeat = 139820;
my $size = 4 << 20;
my ($hi, $lo) = (4096, 0xfffffe00 - $repeat * 15);
my $poly = 0x82f63b78;
my $header = "Phys" . pack("x[4]NN", $hi, $lo - $size + 0x300f) . "xtrabackup test" . pack("x[477]");
$header .= pack("Nx[3584]", mycrc32($header, 0, $poly));
my $cp = pack("NNNNx[44]", $hi, $lo, $hi, $lo);
$cp .= pack("Nx[8128]", mycrc32($cp, 0, $poly));
my $end = pack("CxxNN", 0xfa, $hi, $lo);
$end .= pack("CN", 0, mycrc32($end, 0, $poly));
my $mod = pack("CCxa*", 0xb9, 127, "a/b.ibd");
$mod .= pack("CN", 0, mycrc32($mod, 0, $poly));
print $f $header, $cp, $mod x ($repeat - 1), $end;
seek($f, $size - 15, 0);
$mod = pack("CCxa*", 0xb9, 127, "c/d.ibd");
$mod .= pack("CN", 1, mycrc32($mod, 0, $poly));
print $f $mod;
close($f) or die;
PERL
}

# fake_flush_lsn DATADIR - the "flush" variant.
fake_flush_lsn() {
    perl - "$1/ibdata1" <<'PERL' || fail "setting the flushed LSN of ibdata1 failed"
my $file = shift;
open(my $f, "+<", $file) or die "cannot open $file";
binmode $f;
sysread($f, my $page, 38) == 38 or die;
substr($page, 26, 8) = pack("NN", 4096, 0xfffffbff);
sysseek($f, 0, 0) or die;
syswrite($f, $page, 38) == 38 or die;
close($f) or die;
PERL
    : > "$1/ib_logfile0"
}

for v in log flush; do
    opts=(--innodb-log-file-size=4M)
    [[ $v == flush ]] && opts+=(--innodb-checksum-algorithm=crc32)
    SERVER_INSTALL_OPTS="${opts[*]}" server_start "$v" "${opts[@]}"
    server_stop "$v"
    if [[ $v == log ]]; then fake_log "$(datadir_of "$v")"; else fake_flush_lsn "$(datadir_of "$v")"; fi
    server_start_on "$v" "$(datadir_of "$v")" "${opts[@]}"
    LSN=$(sql "$v" "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS WHERE VARIABLE_NAME = 'INNODB_LSN_CURRENT'")
    ((LSN > HUGE)) || fail "$v: precondition: the server's LSN $LSN is not past 2^44"
    log "$v: the server runs at LSN $LSN"
    sql "$v" "CREATE DATABASE h; CREATE TABLE h.t (i INT) ENGINE=InnoDB; INSERT INTO h.t VALUES (1)" \
        || fail "$v: creating the table failed"
    B=$T/backup_$v
    xb_backup "$v" "$B" --parallel=4
    assert_ok "$XB_RC" "$XB_ERR" "$v: backup at a huge LSN"
    sql "$v" "INSERT INTO h.t VALUES (2)" || fail "$v: the insert after the backup failed"
    prep_run "$PUT" "$B"
    assert_ok "$PREP_RC" "$PREP_ERR" "$v: prepare at a huge LSN"
    LAST=$(checkpoints_value "$B" last_lsn)
    ((LAST > HUGE)) || fail "$v: last_lsn $LAST of the prepared backup is not past 2^44"
    restore_prepared "$B" "${v}_restored" "${opts[@]}"
    assert_eq 1 "$(sql "${v}_restored" "SELECT GROUP_CONCAT(i) FROM h.t")" "$v: the restored rows"
    check_all_tables "${v}_restored"
    log "case ok: $v"
done
log "prepare_huge_lsn: ok"
