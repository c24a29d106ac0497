/*
 * meta.c - the metadata files of a backup, in mariabackup 10.11's formats.
 *
 * xtrabackup_binlog_info, xtrabackup_slave_info, xtrabackup_galera_info,
 * backup-my.cnf and xtrabackup_info are written before the completion
 * marker xtrabackup_checkpoints, which is written last: a directory without
 * it is an incomplete backup, and both mariabackup --prepare and ours refuse
 * it. xtrabackup_info records the command line with secrets masked.
 */
#include "backup_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "innodb/inventory.h"

typedef struct strbuf {
	char *s;      /* text */
	size_t n, cap; /* length and capacity */
} strbuf;

static void sb_printf(strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void sb_printf(strbuf *b, const char *fmt, ...)
{
	va_list ap;
	for (;;) {
		va_start(ap, fmt);
		int m = vsnprintf(b->s ? b->s + b->n : NULL, b->s ? b->cap - b->n : 0, fmt, ap);
		va_end(ap);
		if (m < 0)
			return;
		if (b->s && b->n + (size_t)m < b->cap) {
			b->n += (size_t)m;
			return;
		}
		size_t cap = (b->cap + (size_t)m + 256) * 2;
		char *s = realloc(b->s, cap);
		if (!s)
			return;
		b->s = s;
		b->cap = cap;
	}
}

static int extra_lsndir_put(backup_ctx *c, const char *name, const strbuf *b, xb_error *err)
{
	const char *dir = c->set.extra_lsndir;
	if (!dir)
		return 0;
	xb_sink *s = xb_sink_dir_open(dir, err);
	if (!s)
		return err ? err->code : XB_E_TARGET;
	/* the extra directory may hold an older copy: replace it */
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	remove(path);
	int rc = xb_sink_put(s, name, b->s ? b->s : "", b->n, err);
	xb_sink_free(s);
	return rc;
}

/* Write a metadata file into the backup, and its plain copy into --extra-lsndir. */
static int put(backup_ctx *c, const char *name, strbuf *b, xb_error *err)
{
	int rc = extra_lsndir_put(c, name, b, err);
	if (!rc)
		rc = xb_sink_put(c->meta_sink, name, b->s ? b->s : "", b->n, err);
	free(b->s);
	return rc;
}

int meta_write_binlog_info(backup_ctx *c, xb_error *err)
{
	if (!c->have_binlog)
		return 0;
	strbuf b = {0};
	if (c->gtid[0])
		sb_printf(&b, "%s\t%llu\t%s\n", c->binlog_file, c->binlog_pos, c->gtid);
	else
		sb_printf(&b, "%s\t%llu\n", c->binlog_file, c->binlog_pos);
	return put(c, "xtrabackup_binlog_info", &b, err);
}

typedef struct slave_rows {
	strbuf b;      /* SQL being built */
	int n;         /* connections seen */
	char *gtid_slave_pos; /* @@gtid_slave_pos */
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
	const char *conn = col(n, names, values, "Connection_name");
	const char *file = col(n, names, values, "Relay_Master_Log_File");
	const char *pos = col(n, names, values, "Exec_Master_Log_Pos");
	const char *using_gtid = col(n, names, values, "Using_Gtid");
	char name[300] = "";
	if (conn[0])
		snprintf(name, sizeof name, "'%s' ", conn);
	if (using_gtid[0] && strcasecmp(using_gtid, "No") != 0) {
		if (s->n == 0)
			sb_printf(&s->b, "SET GLOBAL gtid_slave_pos = '%s';\n", s->gtid_slave_pos ? s->gtid_slave_pos : "");
		sb_printf(&s->b, "CHANGE MASTER %sTO master_use_gtid = slave_pos;\n", name);
	} else {
		sb_printf(&s->b, "CHANGE MASTER %sTO MASTER_LOG_FILE='%s', MASTER_LOG_POS=%s;\n", name, file, pos);
	}
	s->n++;
	return 0;
}

int meta_write_slave_info(backup_ctx *c, xb_error *err)
{
	if (!c->set.slave_info)
		return 0;
	slave_rows s = {0};
	int rc = xb_server_variable(&c->srv, "gtid_slave_pos", &s.gtid_slave_pos, err);
	if (!rc)
		rc = xb_server_rows(&c->srv, "SHOW ALL SLAVES STATUS", slave_row, &s, err);
	free(s.gtid_slave_pos);
	if (rc) {
		free(s.b.s);
		return rc;
	}
	if (s.n == 0) {
		xb_warn("--slave-info given but the server is not a replica: no xtrabackup_slave_info written");
		free(s.b.s);
		return 0;
	}
	xb_info("Writing xtrabackup_slave_info");
	return put(c, "xtrabackup_slave_info", &s.b, err);
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
		xb_warn("--galera-info given but the server is not a Galera node: no xtrabackup_galera_info written");
	} else if (!rc) {
		strbuf b = {0};
		sb_printf(&b, "%s:%s\n", uuid, seqno);
		rc = put(c, "xtrabackup_galera_info", &b, err);
	}
	free(uuid);
	free(seqno);
	return rc;
}

int meta_write_backup_cnf(backup_ctx *c, xb_error *err)
{
	strbuf b = {0};
	sb_printf(&b, "# This options file was generated by innobackupex.\n\n# The server\n[mysqld]\n");
	sb_printf(&b, "innodb_checksum_algorithm=%s\n", c->lay.checksum_algorithm[0] ? c->lay.checksum_algorithm : "crc32");
	/* data file names only: the files are at the top of the backup */
	char out[1024];
	int rc = inv_dfp_for_backup(c->lay.data_file_path, out, sizeof out, err);
	if (rc) {
		free(b.s);
		return rc;
	}
	sb_printf(&b, "innodb_data_file_path=%s\n", out);
	sb_printf(&b, "innodb_log_file_size=%llu\n", (unsigned long long)c->lay.log_file_size);
	sb_printf(&b, "innodb_page_size=%u\n", c->lay.page_size);
	sb_printf(&b, "innodb_undo_directory=./\n");
	sb_printf(&b, "innodb_undo_tablespaces=%d\n", c->lay.undo_tablespaces);
	sb_printf(&b, "innodb_compression_level=%d\n", c->lay.compression_level);
	return put(c, "backup-my.cnf", &b, err);
}

static void fmt_time(char *buf, size_t n, time_t t)
{
	struct tm tm;
	localtime_r(&t, &tm);
	strftime(buf, n, "%Y-%m-%d %H:%M:%S", &tm);
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

static int info_text(backup_ctx *c, strbuf *b)
{
	char uuid[64], st[32], et[32];
	make_uuid(uuid, sizeof uuid);
	fmt_time(st, sizeof st, c->start_time);
	fmt_time(et, sizeof et, c->end_time);
	sb_printf(b, "uuid = %s\n", uuid);
	sb_printf(b, "name = \n");
	sb_printf(b, "tool_name = xtrabackup\n");
	sb_printf(b, "tool_command = %s\n", c->set.tool_command ? c->set.tool_command : "");
	sb_printf(b, "tool_version = %s\n", XB_VERSION);
	sb_printf(b, "ibbackup_version = %s\n", XB_VERSION);
	sb_printf(b, "server_version = %s\n", c->lay.version);
	sb_printf(b, "start_time = %s\n", st);
	sb_printf(b, "end_time = %s\n", et);
	sb_printf(b, "lock_time = %.0f\n", c->lock_seconds);
	if (c->have_binlog)
		sb_printf(b, "binlog_pos = filename '%s', position '%llu', GTID of the last change '%s'\n",
			  c->binlog_file, c->binlog_pos, c->gtid);
	else
		sb_printf(b, "binlog_pos = \n");
	sb_printf(b, "innodb_from_lsn = 0\n");
	sb_printf(b, "innodb_to_lsn = %llu\n", (unsigned long long)c->to_lsn);
	sb_printf(b, "partial = N\n");
	sb_printf(b, "incremental = N\n");
	const char *stream = c->set.target.stream;
	sb_printf(b, "format = %s\n", stream ? stream : "file");
	sb_printf(b, "compressed = %s\n", c->set.target.compress ? "compressed" : "N");
	sb_printf(b, "encrypted = %s\n", c->set.target.encrypt ? "Y" : "N");
	return 0;
}

int meta_write_info(backup_ctx *c, xb_error *err)
{
	strbuf b = {0};
	info_text(c, &b);
	return put(c, "xtrabackup_info", &b, err);
}

int meta_write_checkpoints(backup_ctx *c, xb_error *err)
{
	strbuf b = {0};
	sb_printf(&b, "backup_type = full-backuped\nfrom_lsn = 0\nto_lsn = %llu\nlast_lsn = %llu\nrecover_binlog_info = 0\n",
		  (unsigned long long)c->to_lsn, (unsigned long long)c->last_lsn);
	return put(c, "xtrabackup_checkpoints", &b, err);
}
