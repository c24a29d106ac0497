#!/usr/bin/env bash
# backup_cnf.sh - --prepare of a backup whose backup-my.cnf is damaged,
# missing or partial.
#
# Three servers, each backed up by the tool under test ($XB) while rows
# change (so the redo copy has records to apply), then stopped:
#   def   the defaults (16 KiB pages, ibdata1:12M:autoextend)
#   p8k   innodb_page_size=8k
#   two   innodb_data_file_path=ibdata1:12M;ibdata2:12M:autoextend
# The reference for each is mariabackup's prepare of an intact copy. On
# copies of the backup without their manifest (as mariabackup's backups come),
# backup-my.cnf is replaced by garbage, removed, or cut to a [mysqld] group
# without the page size and the system tablespace:
#   def: a warning naming backup-my.cnf and what was wrong, the prepare
#        succeeds and its pages equal the reference (xb_pagecmp);
#   p8k, two: refused before anything changes (md5 of every file), exit 1,
#        error 3 CONFIG naming backup-my.cnf and the setting needed
#        (innodb_page_size=8k / innodb_data_file_path), the hint says to
#        restore backup-my.cnf from the original backup; and with the file
#        intact the prepare succeeds with the reference's pages (ibdata1 and
#        ibdata2 of two compared byte for byte: ibdata2 has no page 0).
# With the manifest kept, a garbage or missing backup-my.cnf is refused as
# BACKUP_DAMAGED (22) naming the file, the backup unchanged.
# shellcheck source-path=SCRIPTDIR source=../../integration/inc/common.sh
. "$(dirname "$0")/../../integration/inc/common.sh"

put_init
[[ $PUT_KIND == xtrabackup ]] || skip "the checks are our tool's"
build_xb_pagecmp || fail "cannot build xb_pagecmp (needs build/libxb.a: run make)"

# make_backup NAME [server options...] - server NAME, a table changed during the backup into $T/NAME.bk.
make_backup() {
    local name=$1; shift
    SERVER_INSTALL_OPTS="$*" server_start "$name" "$@"
    sql "$name" "CREATE DATABASE e;
        CREATE TABLE e.t (id INT PRIMARY KEY, v INT NOT NULL, pad VARCHAR(200)) ENGINE=InnoDB;
        INSERT INTO e.t SELECT seq, 0, REPEAT('x', 150) FROM e.seq_1_to_20000" || fail "$name: creating the table failed"
    XB_FAULT=backup-datafiles-done:stop xb_backup_bg "$name" "$T/$name.bk"
    wait_for 120 grep -q 'fault point backup-datafiles-done reached' "$XB_ERR" \
        || fail "$name: the backup did not reach backup-datafiles-done"
    sql "$name" "UPDATE e.t SET v = v + 1" || fail "$name: update failed"
    kill -CONT "$XB_PID"
    xb_wait_max 120 "$name: the backup"
    assert_ok "$XB_RC" "$XB_ERR" "$name: the backup"
    server_stop "$name"
    cp -a "$T/$name.bk" "$T/$name.ref" || fail "copying failed"
    prep_run mariabackup "$T/$name.ref"
    assert_ok "$PREP_RC" "$PREP_ERR" "$name: reference prepare (mariabackup)"
}

# damage HOW DIR - garbage, missing or partial backup-my.cnf, in a backup
# without a manifest (as mariabackup's or an older version's): with one, the
# manifest check refuses the change first (the last case below).
damage() {
    rm -f "$2/xtrabackup_manifest.pmap"
    case $1 in
        garbage) printf '\x01\x02 not an option file\n[[mysqld\n=\xff\xfe=\n' > "$2/backup-my.cnf" ;;
        missing) rm -f "$2/backup-my.cnf" ;;
        partial) printf '[mysqld]\ninnodb_checksum_algorithm=full_crc32\n' > "$2/backup-my.cnf" ;;
    esac
}

make_backup def
make_backup p8k --innodb-page-size=8k
make_backup two "--innodb-data-file-path=ibdata1:12M;ibdata2:12M:autoextend"
assert_file "$T/two.bk/ibdata2"

for how in garbage missing partial; do
    C=$T/def.$how
    cp -a "$T/def.bk" "$C" || fail "copying failed"
    damage "$how" "$C"
    prep_run "$PUT" "$C"
    assert_ok "$PREP_RC" "$PREP_ERR" "default backup, $how backup-my.cnf"
    assert_contains "$PREP_ERR" "Warning: .*$C/backup-my.cnf" "default backup, $how backup-my.cnf: the warning names the file"
    case $how in
        missing) assert_contains "$PREP_ERR" 'No such file' "$how: the warning says what was wrong" ;;
        partial) assert_contains "$PREP_ERR" 'has no innodb_page_size, innodb_data_file_path, innodb_compression_level' \
            "$how: the warning names the settings missing" ;;
        garbage) assert_contains "$PREP_ERR" 'line [0-9]' "$how: the warning names the line" ;;
    esac
    assert_pages_equal "$T/def.ref" "$C" "default backup, $how backup-my.cnf"
    log "case ok: def $how"
done

# with the manifest, any change to backup-my.cnf is refused before the
# settings are even read
for how in garbage missing; do
    C=$T/def.manifest.$how
    cp -a "$T/def.bk" "$C" || fail "copying failed"
    damage "$how" "$C"
    cp -a "$T/def.bk/xtrabackup_manifest.pmap" "$C/" || fail "copying the manifest failed"
    before=$(tree_sums "$C")
    prep_run "$PUT" "$C"
    assert_error BACKUP_DAMAGED "$PREP_RC" "$PREP_ERR" "default backup with its manifest, $how backup-my.cnf"
    assert_contains "$PREP_ERR" "Error: .*backup-my.cnf" "manifest, $how: the error names backup-my.cnf"
    assert_eq "$before" "$(tree_sums "$C")" "manifest, $how: the backup must be left as it was"
    log "case ok: def with its manifest, $how"
done

for name in p8k two; do
    want='innodb_page_size=8k is needed'
    [[ $name == two ]] && want='innodb_data_file_path is needed'
    for how in garbage missing partial; do
        C=$T/$name.$how
        cp -a "$T/$name.bk" "$C" || fail "copying failed"
        damage "$how" "$C"
        before=$(tree_sums "$C")
        prep_run "$PUT" "$C"
        assert_error CONFIG "$PREP_RC" "$PREP_ERR" "$name, $how backup-my.cnf"
        assert_contains "$PREP_ERR" "Error: .*$C/backup-my.cnf.*$want" "$name, $how: the error names the file and the setting"
        assert_contains "$PREP_ERR" 'HINT: restore backup-my.cnf from the original backup' "$name, $how: the hint"
        assert_not_contains "$PREP_ERR" 'completed OK!' "$name, $how: no completed OK!"
        assert_eq "$before" "$(tree_sums "$C")" "$name, $how: the backup must be left as it was"
        log "case ok: $name $how"
    done
    C=$T/$name.intact
    cp -a "$T/$name.bk" "$C" || fail "copying failed"
    prep_run "$PUT" "$C"
    assert_ok "$PREP_RC" "$PREP_ERR" "$name, intact backup-my.cnf"
    assert_not_contains "$PREP_ERR" 'Warning: .*backup-my.cnf' "$name, intact: no warning"
    if [[ $name == two ]]; then
        # xb_pagecmp takes a file with page 0; ibdata2 is the system tablespace's second part
        for f in ibdata1 ibdata2; do
            cmp -s "$T/$name.ref/$f" "$C/$f" || fail "$name, intact backup-my.cnf: $f differs from mariabackup's prepare"
        done
        assert_pages_equal "$T/$name.ref/e" "$C/e" "$name, intact backup-my.cnf (e/)"
    else
        assert_pages_equal "$T/$name.ref" "$C" "$name, intact backup-my.cnf"
    fi
done
