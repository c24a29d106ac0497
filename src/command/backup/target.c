/*
 * target.c - where a backup goes: the chain of sinks built from the options.
 *
 * target_resolve() reads the target's options once, at the start of the
 * command, into a kind of container and its settings (settings.h); the rest
 * of this file builds the chain from those settings alone, and the sinks get
 * plain values, never the options.
 *
 * One container receives every file: a local directory (--target-dir=DIR),
 * a remote one (--target-dir=sftp://... or scp://...), or a stream on
 * stdout (--stream=xbstream or tar). Two filter chains lead into it:
 *   data files and the redo copy:  zstd (--compress) -> AES-GCM (--encrypt)
 *   metadata files:                                    AES-GCM (--encrypt)
 * Both chains start with the checksumming filter (sink/sink_sum.h), which
 * reports every published file's size and CRC-32C of its plain bytes to the
 * manifest (meta_note_file), whatever follows it.
 * Metadata (xtrabackup_checkpoints, xtrabackup_info, backup-my.cnf, ...) is
 * never compressed, as with mariabackup, so tools read it without a
 * decompressor; with --encrypt it is encrypted like everything else, and
 * --extra-lsndir keeps a plain copy of xtrabackup_checkpoints and
 * xtrabackup_info.
 */
#include "backup_int.h"

#include <stdbool.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command/crypt_settings.h"
#include "common/log.h"
#include "common/path.h"
#include "info/backup_cnf.h"
#include "info/checkpoints.h"
#include "info/xbinfo.h"
#include "innodb/inventory.h"
#include "platform/dir.h"
#include "sink/sink_crypt.h"
#include "sink/sink_remote.h"
#include "sink/sink_sum.h"
#include "sink/sink_tar.h"
#include "sink/sink_xbstream.h"
#include "sink/sink_zstd.h"

/* Stops a listing at its first entry. */
static int any_entry(void *ctx, const xb_dirent *e, xb_error *err)
{
	return 1;
}

/* What in a target directory would mix two backups: an earlier backup's
 * metadata, InnoDB files, or a database directory holding files. */
static int mixes_backups(void *ctx, const xb_dirent *e, xb_error *err)
{
	const char *n = e->name;
	bool found = !strcmp(n, XB_CHECKPOINTS_FILE) || !strcmp(n, XB_XBINFO_FILE) || !strcmp(n, XB_BACKUP_CNF_FILE) ||
		     inv_is_innodb_name(n) ||
		     (e->is_dir && inv_is_database_name(n) && xb_dir_each(e->path, 0, any_entry, NULL, NULL) == 1);
	if (found)
		snprintf(ctx, 256, "%s", n);
	return found;
}

/* A target directory may hold anything (the log the shell created for
 * "2> $D/backup.log", lost+found of a mount point, marker files) except what
 * would mix two backups. */
static int check_target_dir(const char *dir, xb_error *err)
{
	char found[256] = "";
	int rc = xb_dir_each(dir, XB_DIR_MISSING_OK, mixes_backups, found, err);
	if (rc && !found[0]) {
		/* xb_dir_each said "cannot open DIR: reason"; a target that cannot be read is unusable */
		if (err)
			err->code = XB_E_TARGET;
		return XB_E_TARGET;
	}
	if (found[0])
		return xb_err_set(err, XB_E_TARGET, "target directory %s already holds a backup or datafiles (%s)", dir,
				  found),
		       xb_err_hint(err, "give each backup a new directory, e.g. --target-dir=/backups/$(date +%%F_%%H-%%M-%%S)");
	return 0;
}

int target_resolve(const xb_options *o, target_settings *t, xb_error *err)
{
	memset(t, 0, sizeof *t);
	t->stream = xb_opt_str(o, XB_OPT_STREAM);
	t->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	if (t->stream) {
		if (t->dir && xb_sink_remote_url(t->dir))
			return xb_err_set(err, XB_E_USAGE, "--stream and a remote --target-dir (%s) exclude each other",
					  t->dir),
			       xb_err_hint(err, "use one: --target-dir=sftp://... uploads the files themselves");
		/* mbstream is MariaDB's name for the same format */
		t->kind = strcmp(t->stream, "tar") ? TARGET_XBSTREAM : TARGET_TAR;
		if (!xb_opt_isset(o, XB_OPT_TARGET_DIR))
			t->dir = NULL;
	} else if (strstr(t->dir, "://") && !xb_sink_remote_url(t->dir)) {
		return xb_err_set(err, XB_E_USAGE, "unsupported --target-dir %s: remote targets are sftp:// and scp://",
				  t->dir);
	} else {
		t->kind = xb_sink_remote_url(t->dir) ? TARGET_REMOTE : TARGET_DIR;
	}
	t->tmpdir = xb_opt_str(o, XB_OPT_TMPDIR);
	if (!t->tmpdir)
		t->tmpdir = getenv("TMPDIR");
	if (!t->tmpdir)
		t->tmpdir = "/tmp";
	t->compress = xb_opt_isset(o, XB_OPT_COMPRESS);
	t->compress_level = (int)xb_opt_int(o, XB_OPT_COMPRESS_LEVEL);
	t->compress_threads = (int)xb_opt_int(o, XB_OPT_COMPRESS_THREADS);
	t->compress_chunk = (size_t)xb_opt_size(o, XB_OPT_COMPRESS_CHUNK_SIZE);
	t->encrypt = xb_opt_isset(o, XB_OPT_ENCRYPT);
	if (t->encrypt)
		crypt_settings_resolve(o, &t->crypt);
	t->remote.key_file = xb_opt_str(o, XB_OPT_SSH_KEY_FILE);
	t->remote.known_hosts = xb_opt_str(o, XB_OPT_SSH_KNOWN_HOSTS);
	t->remote.retries = (int)xb_opt_int(o, XB_OPT_REMOTE_RETRIES);
	t->remote.timeout = (long)xb_opt_int(o, XB_OPT_REMOTE_TIMEOUT);
	t->remote.parallel = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	return 0;
}

/* What must be right before the server is even contacted. */
int target_check(const target_settings *t, xb_error *err)
{
	if (t->stream && isatty(STDOUT_FILENO))
		return xb_err_set(err, XB_E_USAGE, "--stream=%s writes the backup to stdout, which is a terminal",
				  t->stream),
		       xb_err_hint(err, "redirect it: > backup.xbs, or | ssh host 'xbstream -x -C /backups/x'");
	if (t->kind == TARGET_DIR)
		return check_target_dir(t->dir, err);
	return 0;
}

static xb_sink *encrypting(xb_sink *inner, const uint8_t *key, xb_error *err)
{
	if (!inner || !key)
		return inner;
	xb_sink *s = xb_sink_encrypt_open(inner, key, err);
	if (!s)
		xb_sink_free(inner);
	return s;
}

int target_open(backup_ctx *c, xb_error *err)
{
	const target_settings *t = &c->set.target;
	const char *stream = t->stream;
	const char *target = t->dir;
	uint8_t keybuf[XB_CRYPT_KEY_LEN];
	const uint8_t *key = NULL;
	int rc;
	if (t->encrypt) {
		if ((rc = xb_crypt_key_load(&t->crypt, keybuf, err)))
			return rc;
		key = keybuf;
	}
	xb_sink *box;
	if (t->kind == TARGET_XBSTREAM) {
		box = xb_sink_xbstream_open(STDOUT_FILENO, err);
	} else if (t->kind == TARGET_TAR) {
		box = xb_sink_tar_open(STDOUT_FILENO, t->tmpdir, err);
	} else if (t->kind == TARGET_REMOTE) {
		box = xb_sink_remote_open(target, &t->remote, err);
	} else {
		box = xb_sink_dir_open(target, err);
	}
	if (!box) {
		memset(keybuf, 0, sizeof keybuf);
		return err && err->code ? err->code : XB_E_TARGET;
	}
	if (stream && target)
		xb_info("--target-dir=%s is not used with --stream (the files go to stdout)", target);
	if (stream)
		xb_info("Streaming the backup to stdout as %s%s%s", stream,
			t->compress ? ", compressed (zstd)" : "", key ? ", encrypted (AES-256-GCM)" : "");
	c->meta_sink = encrypting(xb_sink_ref(box), key, err);
	c->sink = encrypting(box, key, err);
	if (c->sink && t->compress) {
		xb_sink *z = xb_sink_zstd_open(c->sink, t->compress_level, t->compress_threads, t->compress_chunk, err);
		if (!z)
			xb_sink_free(c->sink);
		c->sink = z;
	}
	if (c->sink)
		c->sink = xb_sink_sum_open(c->sink, meta_note_file, c, err);
	if (c->meta_sink)
		c->meta_sink = xb_sink_sum_open(c->meta_sink, meta_note_file, c, err);
	c->target_is_local_dir = t->kind == TARGET_DIR && !key && !t->compress;
	memset(keybuf, 0, sizeof keybuf);
	if (!c->sink || !c->meta_sink)
		return err && err->code ? err->code : XB_E_INTERNAL;
	return 0;
}

int target_finish(backup_ctx *c, xb_error *err)
{
	int rc = xb_sink_finish(c->sink, err);
	if (!rc)
		rc = xb_sink_finish(c->meta_sink, err);
	return rc;
}

void target_close(backup_ctx *c)
{
	xb_sink_free(c->sink);
	xb_sink_free(c->meta_sink);
	c->sink = c->meta_sink = NULL;
}
