#!/usr/bin/env bash
# galera_sst.sh - a Galera state snapshot transfer made by our binary standing in
# for mariabackup. wsrep_sst_method=mariabackup runs the server's
# /usr/bin/wsrep_sst_mariabackup, which finds mariadb-backup and mbstream in the
# server's PATH: a directory of symlinks to $XB put first in it makes ours the one
# run (asserted from the SST logs). Node 1 bootstraps a cluster on loopback with
# InnoDB, Aria and MyISAM tables; node 2 joins and gets its data by SST: on the
# donor `--backup --galera-info --stream=mbstream` into socat, on the joiner
# `mbstream -x` into $datadir/.sst, `--prepare`, then `--move-back
# --force-non-empty-directories --galera-info` from $datadir/.sst into the datadir
# itself. Node 2 must reach Synced with CHECKSUM TABLE equal to node 1's, and
# replicate a write made after the join. Every wait has a time limit; both nodes
# and the SST helpers they started are stopped at exit.
# shellcheck source-path=SCRIPTDIR source=../inc/common.sh
. "$(dirname "$0")/../inc/common.sh"

PROVIDER=/usr/lib/galera/libgalera_smm.so
[[ -e $PROVIDER ]] || skip "no Galera provider at $PROVIDER (make deps installs galera-4)"
[[ -x /usr/bin/wsrep_sst_mariabackup ]] || skip "no /usr/bin/wsrep_sst_mariabackup"
command -v socat > /dev/null || skip "no socat (make deps installs it)"

# The server runs wsrep_sst_mariabackup with PATH="<basedir>/bin:$PATH", and the
# script runs the mariadb-backup and mbstream it finds there. So each node gets
# basedir=$T/base: share/ and lib/ are the installed server's, bin/ holds the SST
# scripts (wsrep_sst_mariabackup sources wsrep_sst_common from its own directory)
# and our tool under every name the script uses; our bin/ is first in PATH too.
BASE=$T/base
mkdir -p "$BASE/bin"
ln -s /usr/share "$BASE/share"
ln -s /usr/lib "$BASE/lib"
for n in mariabackup mariadb-backup mbstream; do ln -s "$XB" "$BASE/bin/$n"; done
for n in wsrep_sst_mariabackup wsrep_sst_common; do ln -s "/usr/bin/$n" "$BASE/bin/$n"; done
export PATH="$BASE/bin:$PATH"
[[ $(command -v mariadb-backup) == "$BASE/bin/mariadb-backup" ]] || fail "mariadb-backup in PATH is not ours"

# node_opts PORT IST_PORT SST_PORT - the wsrep options of a node on loopback.
node_opts() {
    echo "basedir=$BASE" "wsrep_on=ON" "wsrep_provider=$PROVIDER" "wsrep_cluster_name=xbtest" \
        "wsrep_node_address=127.0.0.1" \
        "wsrep_provider_options=\"base_port=$1;gmcast.listen_addr=tcp://127.0.0.1:$1;ist.recv_addr=127.0.0.1:$2;evs.suspect_timeout=PT10S\"" \
        "wsrep_sst_receive_address=127.0.0.1:$3" "wsrep_sst_method=mariabackup" "wsrep_sst_auth=root:" \
        "binlog_format=ROW" "innodb_autoinc_lock_mode=2" "default_storage_engine=InnoDB" \
        "innodb_flush_log_at_trx_commit=2"
}

# Stop the SST helpers a node started (the script, socat, the tool) along with it.
at_exit 'for n in n1 n2; do p=$(pid_of "$n"); [[ -n $p ]] && signal_tree KILL "$p"; done'

G1=$(free_port); G2=$(free_port); I1=$(free_port); I2=$(free_port); S1=$(free_port); S2=$(free_port)
read -ra OPTS1 <<< "$(node_opts "$G1" "$I1" "$S1")"
read -ra OPTS2 <<< "$(node_opts "$G2" "$I2" "$S2")"
# (read -a splits on spaces only: the provider options hold none)

server_start n1 "${OPTS1[@]}" "wsrep_cluster_address=gcomm://" "wsrep-new-cluster"
wait_for 30 bash -c "[[ \$(mariadb --defaults-file='$(cnf_of n1)' -N -B -e \"SHOW STATUS LIKE 'wsrep_local_state_comment'\" | cut -f2) == Synced ]]" \
    || fail "node 1 did not bootstrap to Synced"
sql n1 "CREATE DATABASE d;
        CREATE TABLE d.inno (id INT PRIMARY KEY, v VARCHAR(40), KEY (v)) ENGINE=InnoDB;
        INSERT INTO d.inno SELECT seq, MD5(seq) FROM d.seq_1_to_20000;
        CREATE TABLE d.aria (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=Aria;
        INSERT INTO d.aria SELECT seq, SHA1(seq) FROM d.seq_1_to_2000;
        CREATE TABLE d.mi (id INT PRIMARY KEY, v VARCHAR(40)) ENGINE=MyISAM;
        INSERT INTO d.mi SELECT seq, SHA1(seq) FROM d.seq_1_to_2000" || fail "data on node 1"

# Node 2 joins: its datadir (from mariadb-install-db) is replaced by SST before it accepts connections.
START_TIMEOUT=240 server_start n2 "${OPTS2[@]}" "wsrep_cluster_address=gcomm://127.0.0.1:$G1"
wait_for 60 bash -c "[[ \$(mariadb --defaults-file='$(cnf_of n2)' -N -B -e \"SHOW STATUS LIKE 'wsrep_local_state_comment'\" | cut -f2) == Synced ]]" \
    || fail "node 2 did not reach Synced: $(sql n2 "SHOW STATUS LIKE 'wsrep_local_state_comment'")"
assert_eq 2 "$(sql n2 "SHOW STATUS LIKE 'wsrep_cluster_size'" | cut -f2)" "cluster size seen by node 2"

# It was an SST by mariabackup, and the tool run was ours on both sides.
D1=$(datadir_of n1); D2=$(datadir_of n2)
assert_contains "$(errlog_of n2)" "SST.*mariabackup|mariabackup.*SST" "node 2 joined by a mariabackup SST"
assert_contains "$(errlog_of n2)" "SST (succeeded|complete)|mariabackup SST completed on joiner" "the joiner's SST succeeded"
assert_file "$D1/mariabackup.backup.log" "$D2/mariabackup.prepare.log" "$D2/mariabackup.move.log"
if [[ $XB_KIND == xtrabackup ]]; then
    assert_contains "$D1/mariabackup.backup.log" "xtrabackup [0-9.]+: --backup" "the donor's backup was made by our tool"
    assert_contains "$D2/mariabackup.prepare.log" "xtrabackup [0-9.]+: --prepare" "the joiner's prepare was ours"
    assert_contains "$D2/mariabackup.move.log" "xtrabackup [0-9.]+: --move-back" "the joiner's move-back was ours"
fi
for f in "$D1/mariabackup.backup.log" "$D2/mariabackup.prepare.log" "$D2/mariabackup.move.log"; do
    assert_eq "completed OK!" "$(last_line "$f" | sed -E 's/^\[[0-9]+\] [0-9-]+ [0-9:]+ //')" "last line of $f"
done
[[ -e $D2/.sst ]] && fail "the joiner's $D2/.sst is still there after the move"

# The data: equal on both nodes, and node 2 replicates what comes after.
assert_eq "$(checksum_all n1)" "$(checksum_all n2)" "CHECKSUM TABLE on both nodes after SST"
assert_eq "d.aria Aria
d.inno InnoDB
d.mi MyISAM" "$(table_list n2)" "the engines on node 2"
sql n1 "INSERT INTO d.inno VALUES (20001, 'after the join')" || fail "write on node 1"
wait_for 30 bash -c "[[ \$(mariadb --defaults-file='$(cnf_of n2)' -N -B -e 'SELECT v FROM d.inno WHERE id = 20001') == 'after the join' ]]" \
    || fail "node 2 does not replicate a write made after the join"
assert_eq "$(checksum_all n1)" "$(checksum_all n2)" "CHECKSUM TABLE on both nodes after a replicated write"

server_stop n2
server_stop n1
log "ok"
