/*
 * layout.c - where the server keeps its files, learned from the server.
 *
 * The datadir, the InnoDB directories (data home, undo, log), the Aria log
 * directory and the InnoDB settings a backup records in backup-my.cnf are
 * read from the running server's variables; a directory given on our command
 * line wins (a datadir seen through another mount, say). Relative
 * directories are taken from the datadir, as the server takes them.
 */
#include "backup_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "common/log.h"
#include "common/path.h"
#include "innodb/inventory.h"
#include "innodb/pagecomp.h"

/* A directory variable: unset, empty or "." is base itself. */
static int resolve_dir(char *out, size_t n, const char *base, const char *v, xb_error *err)
{
	return xb_path_resolve(out, n, base, v && *v ? v : ".", err);
}

static int get_var(backup_ctx *c, const char *name, char *out, size_t n, xb_error *err)
{
	char *v = NULL;
	int rc = xb_server_variable(&c->srv, name, &v, err);
	if (rc)
		return rc;
	snprintf(out, n, "%s", v ? v : "");
	free(v);
	return 0;
}

/* A directory: our option when given, else the server's variable. */
static int get_dir(backup_ctx *c, const char *name, const char *option, const char *base, char *out, size_t n,
		   xb_error *err)
{
	char v[4096];
	int rc = get_var(c, name, v, sizeof v, err);
	return rc ? rc : resolve_dir(out, n, base, option ? option : v, err);
}

static void layout_done(server_layout *l, const xb_server *srv)
{
	snprintf(l->version, sizeof l->version, "%s", srv->version);
	if (srv->version_num < 100800 || srv->version_num >= 110000)
		xb_warn("server version %s: this tool is made for MariaDB 10.11 (10.8 redo format)", srv->version);
	xb_info("Server %s, datadir %s, InnoDB page size %u, redo log %s (%llu bytes)", srv->version, l->datadir,
		l->page_size, l->log_file, (unsigned long long)l->log_file_size);
}

/*
 * A server started without InnoDB (skip-innodb) shows no innodb_* variable.
 * Its InnoDB files, when the datadir has them, lie still: they are copied as
 * they are, as mariabackup does, so the restored directory is the source's
 * and InnoDB can be enabled again later. What backup-my.cnf records comes from
 * the option files the server was started with, else from the files: the redo
 * log's size, and the defaults (16 KiB pages).
 */
static int layout_without_innodb(backup_ctx *c, xb_error *err)
{
	server_layout *l = &c->lay;
	const innodb_cnf_settings *ic = &c->set.innodb_cnf;
	l->innodb_off = true;
	snprintf(l->data_file_path, sizeof l->data_file_path, "%s", ic->data_file_path ? ic->data_file_path : "");
	snprintf(l->checksum_algorithm, sizeof l->checksum_algorithm, "%s",
		 ic->checksum_algorithm ? ic->checksum_algorithm : "");
	l->page_size = ic->page_size ? (uint32_t)ic->page_size : 16384;
	l->undo_tablespaces = ic->undo_tablespaces;
	l->compression_level = ic->compression_level >= 0 ? ic->compression_level : 6;
	char v[64];
	int rc = get_var(c, "log_bin", v, sizeof v, err);
	if (rc)
		return rc;
	l->log_bin = !strcasecmp(v, "ON") || !strcmp(v, "1");
	if ((rc = inv_redo_file(l->log_file, sizeof l->log_file, l->log_dir, err)))
		return rc;
	struct stat st;
	l->log_file_size = ic->log_file_size ? ic->log_file_size : !stat(l->log_file, &st) ? (uint64_t)st.st_size : 0;
	xb_info("InnoDB is disabled on the server (skip-innodb): its files in the datadir are copied as they lie, "
		"its settings taken from the option files");
	layout_done(l, &c->srv);
	return 0;
}

static int provider_row(void *ctx, unsigned n, char **names, char **values)
{
	unsigned *mask = ctx;
	for (uint32_t a = PAGECOMP_ZLIB + 1; a <= PAGECOMP_SNAPPY; a++)
		if (n > 0 && values[0] && !strncasecmp(values[0], "provider_", 9) &&
		    !strcasecmp(values[0] + 9, pagecomp_algo_name(a)))
			*mask |= 1u << a;
	return 0;
}

/* Which page_compressed algorithms the server can read: zlib is built in,
 * the others come with their provider_ plugins (MariaDB 10.7 and later). */
static int read_providers(backup_ctx *c, xb_error *err)
{
	c->lay.pagecomp_readable = 1u << PAGECOMP_ZLIB;
	return xb_server_rows(&c->srv,
			      "SELECT PLUGIN_NAME FROM information_schema.PLUGINS "
			      "WHERE PLUGIN_NAME LIKE 'provider\\_%' AND PLUGIN_STATUS = 'ACTIVE'",
			      provider_row, &c->lay.pagecomp_readable, err);
}

int layout_read(backup_ctx *c, xb_error *err)
{
	server_layout *l = &c->lay;
	char v[4096];
	int rc;
	if ((rc = get_dir(c, "datadir", c->set.datadir, "/", l->datadir, sizeof l->datadir, err)) ||
	    (rc = get_dir(c, "innodb_data_home_dir", c->set.data_home_dir, l->datadir, l->data_home_dir,
			  sizeof l->data_home_dir, err)) ||
	    (rc = get_var(c, "innodb_data_file_path", l->data_file_path, sizeof l->data_file_path, err)) ||
	    (rc = get_dir(c, "innodb_undo_directory", c->set.undo_dir, l->datadir, l->undo_dir, sizeof l->undo_dir,
			  err)) ||
	    (rc = get_dir(c, "innodb_log_group_home_dir", c->set.log_dir, l->datadir, l->log_dir, sizeof l->log_dir,
			  err)) ||
	    (rc = get_dir(c, "aria_log_dir_path", NULL, l->datadir, l->aria_log_dir, sizeof l->aria_log_dir, err)))
		return rc;
	if ((rc = get_var(c, "innodb_page_size", v, sizeof v, err)))
		return rc;
	if (!*v)
		return layout_without_innodb(c, err);
	l->page_size = (uint32_t)strtoul(v, NULL, 10);
	if ((rc = get_var(c, "innodb_log_file_size", v, sizeof v, err)))
		return rc;
	l->log_file_size = strtoull(v, NULL, 10);
	if ((rc = get_var(c, "innodb_checksum_algorithm", l->checksum_algorithm, sizeof l->checksum_algorithm, err)))
		return rc;
	if ((rc = get_var(c, "innodb_undo_tablespaces", v, sizeof v, err)))
		return rc;
	l->undo_tablespaces = atoi(v);
	if ((rc = get_var(c, "innodb_compression_level", v, sizeof v, err)))
		return rc;
	l->compression_level = *v ? atoi(v) : 6;
	if ((rc = get_var(c, "log_bin", v, sizeof v, err)))
		return rc;
	l->log_bin = !strcasecmp(v, "ON") || !strcmp(v, "1");
	if ((rc = read_providers(c, err)))
		return rc;
	if ((rc = inv_redo_file(l->log_file, sizeof l->log_file, l->log_dir, err)))
		return rc;
	layout_done(l, &c->srv);
	return 0;
}
