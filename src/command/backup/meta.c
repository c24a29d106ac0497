/*
 * meta.c - the metadata files of a backup, in mariabackup 10.11's formats.
 *
 * xtrabackup_binlog_info, xtrabackup_slave_info, xtrabackup_galera_info,
 * backup-my.cnf and xtrabackup_info are written before the completion
 * marker xtrabackup_checkpoints, which is written last: a directory without
 * it is an incomplete backup, and both mariabackup --prepare and ours refuse
 * it. The manifest (info/manifest.h) is written just before the marker: it
 * lists every file the sinks published, with the size and CRC-32C the
 * checksumming filter (sink/sink_sum.h) computed as the bytes went out.
 * xtrabackup_info records the command line with secrets masked; what
 * it says stays in the context for the --history row (history.c).
 * Here the values are gathered from the backup and the server; each file's
 * format is its module's in src/info/.
 */
#include "backup_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "common/path.h"
#include "info/backup_cnf.h"
#include "info/binlog_info.h"
#include "info/checkpoints.h"
#include "info/galera_info.h"
#include "info/manifest.h"
#include "info/statcache.h"
#include "info/slave_info.h"
#include "info/xbinfo.h"
#include "common/tablefilter.h"
#include "innodb/inventory.h"
#include "innodb/page.h"
#include "platform/dir.h"

static int extra_lsndir_put(backup_ctx *c, const char *name, const xb_text *t, xb_error *err)
{
	const char *dir = c->set.extra_lsndir;
	if (!dir)
		return 0;
	xb_sink *s = xb_sink_dir_open(dir, err);
	if (!s)
		return err ? err->code : XB_E_TARGET;
	/* the extra directory may hold an older copy: replace it */
	char path[4096];
	int rc = xb_path_join(path, sizeof path, dir, name, err);
	if (!rc) {
		remove(path);
		rc = xb_metafile_put(s, name, t, err);
	}
	xb_sink_free(s);
	return rc;
}

/*
 * Write a metadata file into the backup. --extra-lsndir gets a plain copy of
 * xtrabackup_checkpoints and xtrabackup_info only, the set mariabackup 10.11
 * writes there (what mariabackup's --incremental-basedir and a
 * catalogue script read): mirror says which.
 */
static int put_file(backup_ctx *c, const char *name, xb_text *t, bool mirror, xb_error *err)
{
	int rc = mirror ? extra_lsndir_put(c, name, t, err) : 0;
	if (!rc)
		rc = xb_metafile_put(c->meta_sink, name, t, err);
	xb_text_free(t);
	return rc;
}

static int put(backup_ctx *c, const char *name, xb_text *t, xb_error *err)
{
	return put_file(c, name, t, false, err);
}

int meta_write_binlog_info(backup_ctx *c, xb_error *err)
{
	if (!c->have_binlog || !c->set.binlog_info)
		return 0;
	xb_binlog_info bi = {.pos = c->binlog_pos};
	snprintf(bi.file, sizeof bi.file, "%s", c->binlog_file);
	snprintf(bi.gtid, sizeof bi.gtid, "%s", c->gtid);
	xb_text t = {0};
	xb_binlog_info_format(&bi, &t);
	return put(c, XB_BINLOG_INFO_FILE, &t, err);
}

typedef struct slave_rows {
	xb_slave_info si;     /* the connections seen */
	int rc;               /* the first error */
	xb_error *err;        /* where it is described */
} slave_rows;

static const char *col(unsigned n, char **names, char **values, const char *want)
{
	for (unsigned i = 0; i < n; i++)
		if (!strcmp(names[i], want))
			return values[i] ? values[i] : "";
	return "";
}

static int slave_row(void *ctx, unsigned n, char **names, char **values)
{
	slave_rows *s = ctx;
	const char *using_gtid = col(n, names, values, "Using_Gtid");
	xb_slave_channel ch = {.use_gtid = using_gtid[0] && strcasecmp(using_gtid, "No") != 0};
	snprintf(ch.name, sizeof ch.name, "%s", col(n, names, values, "Connection_name"));
	snprintf(ch.file, sizeof ch.file, "%s", col(n, names, values, "Relay_Master_Log_File"));
	ch.pos = strtoull(col(n, names, values, "Exec_Master_Log_Pos"), NULL, 10);
	if (!s->rc)
		s->rc = xb_slave_info_add(&s->si, &ch, s->err);
	return 0;
}

int meta_write_slave_info(backup_ctx *c, xb_error *err)
{
	if (!c->set.slave_info)
		return 0;
	slave_rows s = {.err = err};
	char *gtid_slave_pos = NULL;
	int rc = xb_server_variable(&c->srv, "gtid_slave_pos", &gtid_slave_pos, err);
	if (!rc)
		rc = xb_server_rows(&c->srv, "SHOW ALL SLAVES STATUS", slave_row, &s, err);
	if (!rc)
		rc = s.rc;
	if (!rc)
		xb_slave_info_settle(&s.si, gtid_slave_pos);
	free(gtid_slave_pos);
	if (!rc && s.si.n == 0)
		/* mariabackup's words, which scripts look for */
		xb_info("Failed to get master binlog coordinates from SHOW SLAVE STATUS.This means that the server "
			"is not a replication slave. Ignoring the --slave-info option");
	if (!rc && s.si.n) {
		xb_text t = {0};
		xb_slave_info_describe(&s.si, &t);
		xb_info("%s", t.s);
		xb_text_free(&t);
		xb_slave_info_format(&s.si, &t);
		rc = put(c, XB_SLAVE_INFO_FILE, &t, err);
	}
	xb_slave_info_free(&s.si);
	return rc;
}

int meta_write_galera_info(backup_ctx *c, xb_error *err)
{
	if (!c->set.galera_info)
		return 0;
	char *uuid = NULL, *seqno = NULL;
	int rc = xb_server_value(&c->srv, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
					  "WHERE VARIABLE_NAME = 'WSREP_LOCAL_STATE_UUID'", &uuid, err);
	if (!rc)
		rc = xb_server_value(&c->srv, "SELECT VARIABLE_VALUE FROM information_schema.GLOBAL_STATUS "
					      "WHERE VARIABLE_NAME = 'WSREP_LAST_COMMITTED'", &seqno, err);
	if (!rc && (!uuid || !seqno)) {
		xb_warn("--galera-info given but the server is not a Galera node: no " XB_GALERA_INFO_FILE " written");
	} else if (!rc) {
		xb_galera_info g;
		snprintf(g.uuid, sizeof g.uuid, "%s", uuid);
		snprintf(g.seqno, sizeof g.seqno, "%s", seqno);
		xb_text t = {0};
		xb_galera_info_format(&g, &t);
		rc = put(c, XB_GALERA_INFO_FILE, &t, err);
	}
	free(uuid);
	free(seqno);
	return rc;
}

int meta_write_backup_cnf(backup_ctx *c, xb_error *err)
{
	xb_backup_cnf cnf = {.log_file_size = c->lay.log_file_size,
			     .page_size = c->lay.page_size,
			     .undo_directory = "./",
			     .undo_tablespaces = c->lay.undo_tablespaces,
			     .compression_level = c->lay.compression_level};
	snprintf(cnf.checksum_algorithm, sizeof cnf.checksum_algorithm, "%s",
		 c->lay.checksum_algorithm[0] ? c->lay.checksum_algorithm : "crc32");
	/* data file names only: the files are at the top of the backup */
	char out[1024];
	int rc = inv_dfp_for_backup(c->lay.data_file_path, out, sizeof out, err);
	if (rc)
		return rc;
	snprintf(cnf.data_file_path, sizeof cnf.data_file_path, "%s", out);
	xb_text t = {0};
	xb_backup_cnf_format(&cnf, &t);
	return put(c, XB_BACKUP_CNF_FILE, &t, err);
}

static void make_uuid(char *buf, size_t n)
{
	FILE *f = fopen("/proc/sys/kernel/random/uuid", "r");
	buf[0] = '\0';
	if (f) {
		if (!fgets(buf, (int)n, f))
			buf[0] = '\0';
		fclose(f);
	}
	buf[strcspn(buf, "\n")] = '\0';
}

int meta_write_info(backup_ctx *c, xb_error *err)
{
	const char *stream = c->set.target.stream;
	xb_xbinfo *x = &c->info;
	*x = (xb_xbinfo){.tool_name = "xtrabackup",
			 .tool_command = c->set.tool_command,
			 .tool_version = XB_VERSION,
			 .ibbackup_version = XB_VERSION,
			 .start_time = c->start_time,
			 .end_time = c->end_time,
			 .lock_time = c->lock_seconds,
			 .has_binlog = c->have_binlog,
			 .to_lsn = (unsigned long long)c->to_lsn,
			 .compressed = c->set.target.compress,
			 .incremental = c->set.incremental,
			 .partial = tablefilter_partial(c->filter),
			 .from_lsn = c->set.incremental ? (unsigned long long)c->inc_lsn : 0,
			 .encrypted = c->set.target.encrypt};
	make_uuid(x->uuid, sizeof x->uuid);
	snprintf(x->name, sizeof x->name, "%s", c->set.history_name);
	snprintf(x->server_version, sizeof x->server_version, "%s", c->lay.version);
	snprintf(x->binlog.file, sizeof x->binlog.file, "%s", c->binlog_file);
	x->binlog.pos = c->binlog_pos;
	snprintf(x->binlog.gtid, sizeof x->binlog.gtid, "%s", c->gtid);
	snprintf(x->format, sizeof x->format, "%s", stream ? stream : "file");
	xb_text t = {0};
	xb_xbinfo_format(x, &t);
	return put_file(c, XB_XBINFO_FILE, &t, true, err);
}

int meta_write_checkpoints(backup_ctx *c, xb_error *err)
{
	xb_checkpoints cp = {.backup_type = "full-backuped",
			     .from_lsn = c->set.incremental ? (unsigned long long)c->inc_lsn : 0,
			     .to_lsn = (unsigned long long)c->to_lsn,
			     .last_lsn = (unsigned long long)c->last_lsn};
	if (c->set.incremental)
		snprintf(cp.backup_type, sizeof cp.backup_type, "incremental");
	xb_text t = {0};
	xb_checkpoints_format(&cp, &t);
	return put_file(c, XB_CHECKPOINTS_FILE, &t, true, err);
}

void meta_note_file(void *ctx, const char *relpath, uint64_t size, uint32_t crc, const uint8_t *head, size_t head_len)
{
	backup_ctx *c = ctx;
	if (!strcmp(relpath, XB_MANIFEST_FILE) || !strcmp(relpath, XB_CHECKPOINTS_FILE))
		return;
	const char *base = xb_path_base(relpath);
	uint32_t space = XB_MANIFEST_NO_SPACE, physical = 0;
	uint64_t pages = 0;
	if (inv_is_innodb_name(base) && !inv_is_redo_name(base)) {
		uint32_t fallback = c->lay.page_size ? c->lay.page_size : 16384;
		/* only a .ibd has its own page 0; the system and undo files use the server's page size */
		if (innodb_page0_head(head, head_len, fallback, &space, &physical)) {
			if (!inv_is_table_file(base))
				physical = fallback;
			pages = size / physical;
		} else {
			space = XB_MANIFEST_NO_SPACE;
		}
	}
	pthread_mutex_lock(&c->manifest_lock);
	xb_manifest_put(&c->manifest, relpath, size, crc, space, pages);
	pthread_mutex_unlock(&c->manifest_lock);
}

/* A top-level entry of the target directory the backup did not write (the
 * log the shell created for "2> DIR/backup.log", lost+found): foreign. */
typedef struct foreign_walk {
	xb_manifest *m; /* the manifest, its first `ours` entries sorted */
	size_t ours;    /* how many entries the backup wrote */
} foreign_walk;

static int note_foreign(void *ctx, const xb_dirent *e, xb_error *err)
{
	foreign_walk *w = ctx;
	if (strcmp(e->name, XB_CHECKPOINTS_FILE))
		xb_manifest_note_foreign(w->m, w->ours, e->name);
	return 0;
}

/* A plain directory target: the stamp of every file the backup wrote, so
 * that the --prepare that follows need not read them to check them
 * (info/statcache.h). Compressed or encrypted files are not listed (a
 * backup in that form is decoded before it is prepared). Best effort: a
 * cache that cannot be written costs that prepare a read. */
static void record_stamps(backup_ctx *c)
{
	xb_statcache sc;
	xb_statcache_init(&sc);
	const char *dir = c->set.target.dir;
	for (size_t i = 0; i < c->manifest.n; i++) {
		const xb_manifest_entry *e = &c->manifest.v[i];
		char path[4200];
		xb_file_stamp st;
		if (e->foreign || xb_path_join(path, sizeof path, dir, e->path, NULL) || xb_file_stamp_of(path, &st) ||
		    st.size != e->size)
			continue;
		xb_statcache_put(&sc, e->path, &st, e->crc, false);
	}
	xb_error e;
	xb_err_clear(&e);
	if (sc.n && xb_statcache_write(dir, &sc, &e))
		xb_info("%s (the first --prepare reads every file to check it)", e.msg);
	xb_statcache_free(&sc);
}

int meta_write_manifest(backup_ctx *c, xb_error *err)
{
	xb_text t = {0};
	pthread_mutex_lock(&c->manifest_lock);
	if (c->set.target.kind == TARGET_DIR) {
		xb_manifest_sort(&c->manifest);
		size_t ours = c->manifest.n;
		foreign_walk w = {&c->manifest, ours};
		xb_dir_each(c->set.target.dir, XB_DIR_MISSING_OK, note_foreign, &w, NULL);
		if (c->manifest.n > ours)
			xb_info("%zu entries of %s were there before the backup (not checked later): %s%s",
				c->manifest.n - ours, c->set.target.dir, c->manifest.v[ours].path,
				c->manifest.n - ours > 1 ? ", ..." : "");
	}
	c->manifest.state = XB_MANIFEST_BACKUP;
	c->manifest.to_lsn = c->to_lsn;
	xb_manifest_format(&c->manifest, &t);
	size_t n = 0;
	uint64_t bytes = 0;
	for (size_t i = 0; i < c->manifest.n; i++)
		if (!c->manifest.v[i].foreign) {
			n++;
			bytes += c->manifest.v[i].size;
		}
	pthread_mutex_unlock(&c->manifest_lock);
	int rc = put(c, XB_MANIFEST_FILE, &t, err);
	if (!rc)
		xb_info("Manifest %s: %zu files, %llu bytes, with their CRC-32C", XB_MANIFEST_FILE, n,
			(unsigned long long)bytes);
	if (!rc && c->set.target.kind == TARGET_DIR)
		record_stamps(c);
	return rc;
}
