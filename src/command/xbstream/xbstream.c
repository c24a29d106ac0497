/*
 * xbstream.c - the xbstream tool: xbstream -x and --list, and mbstream's
 * command line.
 *
 * The program invoked as xbstream reads an xbstream stream on stdin. -x
 * extracts it into --directory (-C, default the current directory) through
 * a directory sink in its untrusted mode: no name may leave the directory,
 * no symbolic link in it is followed, no file already there is replaced,
 * and a file appears under its name only once complete. --decompress and
 * --decrypt put the zstd, qpress and AES-GCM decoders in front of that sink,
 * so the *.zst and *.xbcrypt files of our own backups and the *.qp files of
 * mariabackup --compress come out decoded. --list
 * checks the whole stream the same way without writing and prints each
 * file's name and size. The engine is in extract.c.
 *
 * mbstream's options are accepted as they are: -x, -C DIR, -p N (--parallel,
 * where our -p is --password), -v (nothing: we always log), grouped or not
 * (-xvC dir). -c FILE... (create) writes the named files as a stream on
 * stdout: Galera's SST script sends its state files that way (a backup
 * streams itself with --backup --stream).
 */
#include "command/command.h"

#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/log.h"
#include "common/path.h"
#include "info/checkpoints.h"
#include "info/manifest.h"
#include "platform/clock.h"
#include "platform/dir.h"
#include "platform/file.h"
#include "settings.h"
#include "sink/sink_crypt.h"
#include "sink/sink_qpress.h"
#include "sink/sink_xbstream.h"
#include "stream/xbstream_reader.h"
#include "sink/sink_zstd.h"
#include "xbstream_int.h"

/* The rewritten command line and the strings made for it; kept reachable
 * for the life of the process (a later call releases them). */
static char **xbstream_args;
static char **xbstream_made;

static char *dupcat(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	char *s = malloc(la + lb + 1);
	if (s) {
		memcpy(s, a, la);
		memcpy(s + la, b, lb + 1);
	}
	return s;
}

char **xbstream_argv(int *argc, char **argv)
{
	/* each argument becomes at most as many as it has letters */
	size_t cap = 1;
	for (int i = 0; i < *argc; i++)
		cap += strlen(argv[i]) + 1;
	if (xbstream_made)
		for (char **m = xbstream_made; *m; m++)
			free(*m);
	free(xbstream_made);
	free(xbstream_args);
	xbstream_args = xbstream_made = NULL;
	char **out = calloc(cap, sizeof *out), **made = calloc(cap, sizeof *made);
	if (!out || !made) {
		free(out);
		free(made);
		return argv;
	}
	xbstream_args = out;
	xbstream_made = made;
	int n = 0, nmade = 0;
	bool plain = false; /* after "--" */
	for (int i = 0; i < *argc; i++) {
		const char *a = argv[i];
		if (i == 0 || plain || a[0] != '-' || a[1] == '\0') {
			out[n++] = argv[i];
			continue;
		}
		if (a[1] == '-') {
			if (!a[2])
				plain = true;
			if (strcmp(a, "--verbose"))
				out[n++] = argv[i];
			continue;
		}
		/* a group of mbstream's short options */
		for (const char *p = a + 1; *p; p++) {
			const char *value = NULL;
			switch (*p) {
			case 'x':
				out[n++] = "--extract";
				continue;
			case 'c':
				out[n++] = "--create";
				continue;
			case 'v':
				continue;
			case '?':
				out[n++] = "--help";
				continue;
			case 'C':
			case 'p':
				value = p[1] ? p + 1 : i + 1 < *argc ? argv[++i] : NULL;
				/* no value: our parser says it is missing */
				out[n] = value ? dupcat(*p == 'C' ? "--directory=" : "--parallel=", value)
					       : dupcat(*p == 'C' ? "--directory" : "--parallel", "");
				if (!(made[nmade++] = out[n++]))
					return argv;
				break;
			default:
				/* not mbstream's: our parser says what is wrong with it */
				if (!(made[nmade++] = out[n++] = dupcat("-", p)))
					return argv;
				break;
			}
			break;
		}
	}
	out[n] = NULL;
	*argc = n;
	return out;
}

/* The sinks extraction writes through: the directory, then the decoders. */
static int open_sinks(const xbstream_settings *s, xbx_conf *c, xb_error *err)
{
	c->decompress = s->decompress;
	c->decrypt = s->decrypt;
	c->dir = xb_sink_dir_open_ex(s->dir, XB_SINK_DIR_UNTRUSTED | XB_SINK_DIR_NOREPLACE, err);
	if (!c->dir)
		return err && err->code ? err->code : XB_E_TARGET;
	if (!c->decompress && !c->decrypt)
		return 0;
	xb_sink *top = xb_sink_ref(c->dir);
	if (c->decompress) {
		xb_sink *q = xb_sink_unqpress_open(top, err);
		if (!q) {
			xb_sink_free(top);
			return err && err->code ? err->code : XB_E_INTERNAL;
		}
		top = q;
		xb_sink *z = xb_sink_unzstd_open(top, err);
		if (!z) {
			xb_sink_free(top);
			return err && err->code ? err->code : XB_E_INTERNAL;
		}
		top = z;
	}
	if (c->decrypt) {
		uint8_t key[XB_CRYPT_KEY_LEN];
		int rc = xb_crypt_key_load(&s->crypt, key, err);
		xb_sink *d = rc ? NULL : xb_sink_decrypt_open(top, key, err);
		memset(key, 0, sizeof key);
		if (!d) {
			xb_sink_free(top);
			return rc ? rc : err && err->code ? err->code : XB_E_INTERNAL;
		}
		top = d;
	}
	c->chain = top;
	return 0;
}

/* stdin, read so that a signal stops a read that waits (read() is not
 * restarted: the handlers are installed without SA_RESTART). */
static ssize_t read_stdin(void *arg, void *buf, size_t len)
{
	for (;;) {
		ssize_t n = read(STDIN_FILENO, buf, len);
		if (n >= 0 || errno != EINTR)
			return n;
		if (command_interrupted(NULL)) {
			errno = ECANCELED;
			return -1;
		}
	}
}

static int check_input(xb_error *err)
{
	if (isatty(STDIN_FILENO))
		return xb_err_set(err, XB_E_USAGE, "the stream is read from stdin, which is a terminal"),
		       xb_err_hint(err, "e.g. xbstream -x -C /backups/x < backup.xbs");
	return 0;
}

/* A backup's stream ends with xtrabackup_checkpoints, written last: a stream
 * without it comes from a backup that did not complete. xbstream is a general
 * archive format, so this is a warning, not an error. */
static void warn_if_incomplete(const char *dir)
{
	static const char *const names[] = {XB_CHECKPOINTS_FILE, XB_CHECKPOINTS_FILE ".xbcrypt"};
	for (size_t i = 0; i < sizeof names / sizeof names[0]; i++) {
		char path[PATH_MAX];
		if (xb_path_join(path, sizeof path, dir, names[i], NULL) == 0 && access(path, F_OK) == 0)
			return;
	}
	xb_warn("%s has no " XB_CHECKPOINTS_FILE ": if the stream is a backup, the backup did not complete "
		"(its completion marker is written last); do not restore it", dir);
}

/* The top-level names of the directory before the extraction. */
typedef struct names {
	char **v;
	size_t n, cap;
} names;

static int note_name(void *ctx, const xb_dirent *e, xb_error *err)
{
	names *l = ctx;
	if (l->n == l->cap) {
		size_t nc = l->cap ? 2 * l->cap : 16;
		char **nv = realloc(l->v, nc * sizeof *nv);
		if (!nv)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		l->v = nv, l->cap = nc;
	}
	if (!(l->v[l->n] = strdup(e->name)))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	l->n++;
	return 0;
}

static void names_free(names *l)
{
	for (size_t i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
}

/* What the directory held before the backup was extracted into it (the log
 * the shell created for "2> DIR/backup.log"): foreign entries of the
 * extracted manifest, as the backup makes them for a directory target, so
 * that they are neither taken as damage nor restored. An encrypted manifest
 * is left as it is. */
static void claim_foreign(const char *dir, const names *pre)
{
	char path[PATH_MAX];
	xb_manifest m;
	xb_error e;
	xb_err_clear(&e);
	if (!pre->n || xb_path_join(path, sizeof path, dir, XB_MANIFEST_FILE, NULL) || access(path, F_OK) ||
	    xb_manifest_read(dir, &m, &e))
		return;
	xb_manifest_sort(&m);
	size_t ours = m.n, added = 0;
	const char *first = NULL;
	for (size_t i = 0; i < pre->n; i++)
		if (!xb_manifest_is_foreign(&m, pre->v[i]) && xb_manifest_note_foreign(&m, ours, pre->v[i])) {
			added++;
			first = first ? first : pre->v[i];
		}
	if (added && !m.nomem && !xb_manifest_rewrite(dir, &m, &e))
		xb_info("%zu entries of %s were there before the extraction (not checked later): %s%s", added, dir,
			first, added > 1 ? ", ..." : "");
	else if (added)
		xb_warn("%s (its entries there before the extraction will be taken as extra files)", e.msg);
	xb_manifest_free(&m);
}

int cmd_xbstream_extract(const xb_options *o, xb_error *err)
{
	xbstream_settings s;
	int rc = check_input(err);
	if (rc || (rc = xbstream_settings_resolve(o, &s, err)))
		return rc;
	int workers = s.workers;
	xbx_conf c;
	memset(&c, 0, sizeof c);
	c.workers = workers;
	if ((rc = open_sinks(&s, &c, err))) {
		xb_sink_free(c.dir);
		return rc;
	}
	xb_info("xbstream: extracting stdin into %s%s%s%s", c.dir->name, workers > 1 ? " in parallel" : "",
		c.decompress ? ", decompressing *.zst and *.qp" : "", c.decrypt ? ", decrypting *.xbcrypt" : "");
	names pre = {0};
	(void)xb_dir_each(c.dir->name, XB_DIR_MISSING_OK, note_name, &pre, NULL);
	xbs_reader *r = xbs_reader_new(read_stdin, NULL, "stdin", err);
	xbx_stats st;
	memset(&st, 0, sizeof st);
	double t0 = xb_clock_sec();
	rc = r ? xbx_run(&c, r, &st, err) : XB_E_INTERNAL;
	if (!rc && c.chain)
		rc = xb_sink_finish(c.chain, err);
	if (!rc)
		rc = xb_sink_finish(c.dir, err); /* every file durable before completed OK! */
	uint64_t written = c.dir ? c.dir->bytes_written : 0;
	if (!rc && c.dir) {
		warn_if_incomplete(c.dir->name);
		claim_foreign(c.dir->name, &pre);
	}
	names_free(&pre);
	xbs_reader_free(r);
	xb_sink_free(c.chain);
	xb_sink_free(c.dir);
	if (rc)
		return rc;
	double secs = xb_clock_sec() - t0;
	xb_info("xbstream: %llu files, %.1f MiB written (%.1f MiB of payload) from a %.1f MiB stream in %.1f s "
		"(%.1f MiB/s of stream)", (unsigned long long)st.files, written / 1048576.0, st.bytes / 1048576.0,
		st.stream / 1048576.0, secs, secs > 0 ? st.stream / 1048576.0 / secs : 0.0);
	if (st.dropped || st.removed || st.renamed)
		xb_info("xbstream: as the stream asked, %llu aborted files left out, %llu removed, %llu renamed",
			(unsigned long long)st.dropped, (unsigned long long)st.removed, (unsigned long long)st.renamed);
	return 0;
}

int cmd_xbstream_list(const xb_options *o, xb_error *err)
{
	int rc = check_input(err);
	if (rc)
		return rc;
	xbx_conf c;
	memset(&c, 0, sizeof c);
	c.workers = 1;
	c.list = stdout;
	xbs_reader *r = xbs_reader_new(read_stdin, NULL, "stdin", err);
	if (!r)
		return err && err->code ? err->code : XB_E_INTERNAL;
	xbx_stats st;
	rc = xbx_run(&c, r, &st, err);
	xbs_reader_free(r);
	if (fflush(stdout) && !rc)
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot write the list to stdout");
	if (!rc)
		xb_info("xbstream: %llu files, %.1f MiB in a %.1f MiB stream; every checksum verified",
			(unsigned long long)st.files, st.bytes / 1048576.0, st.stream / 1048576.0);
	return rc;
}

/* One file of xbstream -c into the stream, under the name given (relative,
 * without ".."; the extractor would refuse anything else). */
static int xbstream_put_file(xb_sink *out, const char *name, xb_error *err)
{
	/* the extractor's own rule: what it would refuse is not written */
	if (xbs_path_check(name, false, err)) {
		xb_err_prefix(err, "xbstream -c");
		if (err)
			err->code = XB_E_USAGE;
		return XB_E_USAGE;
	}
	int fd = xb_file_open(XB_FILE_CWD, name, 0, 0, NULL);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "xbstream -c: cannot open %s: %s", name, strerror(errno));
	int rc = xb_sink_put_fd(out, name, fd, name, NULL, NULL, err);
	close(fd);
	return rc;
}

int cmd_xbstream_create(const xb_options *o, xb_error *err)
{
	if (o->noperands == 0)
		return xb_err_set(err, XB_E_USAGE, "xbstream -c: no file named"),
		       xb_err_hint(err, "e.g. xbstream -c xtrabackup_galera_info > state.xbs");
	if (isatty(STDOUT_FILENO))
		return xb_err_set(err, XB_E_USAGE, "the stream goes to stdout, which is a terminal"),
		       xb_err_hint(err, "redirect it: > files.xbs, or | socat ...");
	xb_sink *out = xb_sink_xbstream_open(STDOUT_FILENO, err);
	if (!out)
		return err && err->code ? err->code : XB_E_INTERNAL;
	int rc = 0;
	for (int i = 0; i < o->noperands && !rc; i++)
		rc = xbstream_put_file(out, o->operands[i], err);
	if (!rc)
		rc = xb_sink_finish(out, err);
	xb_sink_free(out);
	if (!rc)
		xb_info("xbstream: %d file%s written to stdout", o->noperands, o->noperands == 1 ? "" : "s");
	return rc;
}
