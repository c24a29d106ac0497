/*
 * incremental.c - the base of an incremental backup.
 *
 * An incremental backup copies, of each InnoDB file, only the pages whose
 * LSN is newer than its base's (doc/incremental.md §1). The base LSN comes
 * from one of four options (settings.c lets through at most one):
 * --incremental-basedir=DIR, the to_lsn of DIR/xtrabackup_checkpoints (a
 * backup, full or itself incremental, or an --extra-lsndir copy of its
 * metadata; the rest of DIR may still be compressed or encrypted);
 * --incremental-lsn=N; --incremental-history-name=NAME, the newest
 * innodb_to_lsn of that series in the history table, or
 * --incremental-history-uuid=UUID, that backup's. A base directory whose
 * backup-my.cnf names another innodb_page_size is another server's. Once
 * connected, and before
 * anything is written, the base is checked against the server: a base whose
 * LSN is ahead of the server's current LSN was not taken of this server (or
 * of this server before a restore), and every page would look older than it:
 * the backup is refused. At the end, how many pages were read and how many
 * went into the deltas is logged.
 */
#include "backup_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "info/backup_cnf.h"
#include "info/checkpoints.h"
#include "info/history.h"

/* The to_lsn of the backup in dir. */
static int base_from_dir(backup_ctx *c, const char *dir, xb_error *err)
{
	xb_checkpoints cp;
	xb_error e;
	xb_err_clear(&e);
	int rc = xb_checkpoints_read_lsns(dir, &cp, &e);
	if (rc) {
		xb_err_set(err, XB_E_TARGET, "--incremental-basedir=%s: %s", dir, e.msg);
		return xb_err_hint(err, "give the directory of a complete backup (full or incremental), or the "
				   "--extra-lsndir it wrote, as --incremental-basedir");
	}
	if (strcmp(cp.backup_type, "full-backuped") && strcmp(cp.backup_type, "log-applied") &&
	    strcmp(cp.backup_type, "incremental")) {
		xb_err_set(err, XB_E_TARGET, "--incremental-basedir=%s: %s/%s has backup_type = %s, not a backup type",
			   dir, dir, XB_CHECKPOINTS_FILE, cp.backup_type);
		return xb_err_hint(err, "give the directory of a complete backup (backup_type full-backuped, "
				   "log-applied or incremental)");
	}
	/* a backup of a server with another page size is not this server's:
	 * its pages could not take these deltas (backup-my.cnf is absent from an
	 * --extra-lsndir and encrypted with --encrypt: then nothing to compare) */
	xb_backup_cnf bc;
	if (!xb_backup_cnf_read(dir, &bc, NULL) && (bc.have & XB_CNF_PAGE_SIZE) && c->lay.page_size &&
	    bc.page_size != c->lay.page_size) {
		xb_err_set(err, XB_E_SERVER_STATE, "--incremental-basedir=%s: the base was taken of a server with "
			   "innodb_page_size=%u (%s/%s), this server has %u: it is not a backup of this server", dir,
			   bc.page_size, dir, XB_BACKUP_CNF_FILE, c->lay.page_size);
		return xb_err_hint(err, "base the incremental backup on a backup of this server, or take a full backup");
	}
	c->inc_lsn = cp.to_lsn;
	snprintf(c->inc_base, sizeof c->inc_base, "the %s backup in %s", cp.backup_type, dir);
	return 0;
}

/* The newest innodb_to_lsn of a series, or of one backup, in the history table. */
static int base_from_history(backup_ctx *c, const char *what, const char *key, const char *sql, xb_error *err)
{
	const char *args[1] = {key};
	char *v = NULL;
	int rc = xb_server_exec_args(&c->srv, xb_history_key_sql, args, 1, err);
	if (!rc)
		rc = xb_server_value(&c->srv, sql, &v, err);
	if (rc) {
		free(v);
		return xb_err_hint(err, "the base of --incremental-history-%s is looked up in %s, which --history "
				   "fills: take the base backup with --history", what, XB_HISTORY_TABLE);
	}
	char *end = NULL;
	unsigned long long lsn = v ? strtoull(v, &end, 10) : 0;
	bool ok = v && end != v && *end == '\0';
	free(v);
	if (!ok) {
		xb_err_set(err, XB_E_TARGET, "--incremental-history-%s=%s: no backup with that %s and an innodb_to_lsn in %s",
			   what, key, what, XB_HISTORY_TABLE);
		return xb_err_hint(err, "take the base backup with --history%s%s, or base the incremental backup on "
				   "its directory with --incremental-basedir", !strcmp(what, "name") ? "=" : "",
				   !strcmp(what, "name") ? key : "");
	}
	c->inc_lsn = lsn;
	/* mariabackup's words */
	xb_info("Found and using lsn: %llu for %s %s", lsn, what, key);
	snprintf(c->inc_base, sizeof c->inc_base, "the history row of %s %s", what, key);
	return 0;
}

int incremental_resolve(backup_ctx *c, xb_error *err)
{
	const incremental_settings *in = &c->set.inc;
	int rc = 0;
	if (!c->set.incremental)
		return 0;
	if (in->basedir) {
		rc = base_from_dir(c, in->basedir, err);
	} else if (in->have_lsn) {
		c->inc_lsn = in->lsn;
		snprintf(c->inc_base, sizeof c->inc_base, "--incremental-lsn=%llu", in->lsn);
	} else if (in->history_name) {
		rc = base_from_history(c, "name", in->history_name, xb_history_base_by_name_sql, err);
	} else {
		rc = base_from_history(c, "uuid", in->history_uuid, xb_history_base_by_uuid_sql, err);
	}
	if (rc)
		return rc;
	uint64_t now = 0;
	if (c->lay.innodb_off) {
		xb_err_set(err, XB_E_SERVER_STATE, "an incremental backup (base: %s) needs InnoDB, and the server runs "
			   "without it", c->inc_base);
		return xb_err_hint(err, "take a full backup");
	}
	if ((rc = xb_server_lsn(&c->srv, &now, err)))
		return rc;
	if (c->inc_lsn > now) {
		xb_err_set(err, XB_E_SERVER_STATE, "the base of the incremental backup, %s, ends at LSN %llu, "
			   "ahead of the server's current LSN %llu: it is not a backup of this server as it is now",
			   c->inc_base, (unsigned long long)c->inc_lsn, (unsigned long long)now);
		return xb_err_hint(err, "base the incremental backup on a backup of this server (taken since it was last "
				   "restored), or take a full backup");
	}
	/* mariabackup's words first */
	xb_info("incremental backup from %llu is enabled.", (unsigned long long)c->inc_lsn);
	xb_info("Incremental backup based on %s: the pages newer than LSN %llu are copied (the server is at LSN %llu)%s",
		c->inc_base, (unsigned long long)c->inc_lsn, (unsigned long long)now,
		in->force_scan ? "; --incremental-force-scan: every page is read, as always" : "");
	return 0;
}

void incremental_report(backup_ctx *c)
{
	if (!c->set.incremental)
		return;
	uint64_t pages = atomic_load(&c->inc_pages), delta = atomic_load(&c->inc_delta_pages),
		 bytes = atomic_load(&c->inc_delta_bytes);
	xb_info("Incremental backup: %llu InnoDB pages read, %llu of them (%.1f%%) newer than LSN %llu went into the "
		"deltas (%.1f MiB written)", (unsigned long long)pages, (unsigned long long)delta,
		pages ? 100.0 * (double)delta / (double)pages : 0.0, (unsigned long long)c->inc_lsn,
		(double)bytes / 1048576.0);
}
