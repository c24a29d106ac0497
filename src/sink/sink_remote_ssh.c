/*
 * sink_remote_ssh.c - the libcurl half of the remote sink (sink_remote.c has
 * the design): parsing the URL, finding the keys, and every request an
 * uploader makes over its persistent easy handles.
 *
 * Each request resets its easy handle (curl_easy_reset keeps the connection),
 * sets the shared options (user, key authentication only, known_hosts checked
 * by a key callback that also records what the host offered, timeouts, the
 * error buffer) and runs on the uploader's multi handle (perform), so a paused
 * upload can be resumed from the same thread when its writer brings data
 * (curl_multi_wakeup) and a transfer that stops moving is noticed. SFTP
 * commands (mkdir, rename, rm) are quote commands of a request without body;
 * a listing is a DIRLISTONLY request; a file's size is a request without body
 * on its URL (libcurl stats it: CURLINFO_CONTENT_LENGTH_DOWNLOAD_T). A resumed
 * SFTP upload sets CURLOPT_RESUME_FROM_LARGE to the temporary's size: libcurl
 * (7.88, lib/vssh/libssh2.c) then opens it WRITE|APPEND, without CREAT or
 * TRUNC, calls the seek callback, and writes from that offset. Paths are kept decoded; URLs are built
 * percent-encoded, a home-relative target as "/~/..." (as libcurl reads it)
 * and quote-command paths quoted as libcurl parses them.
 */
#include "sink_remote_int.h"

#include <errno.h>
#include <limits.h>
#include <openssl/evp.h>
#include <pwd.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "common/path.h"
#include "platform/clock.h"

/* ---- paths, URLs, keys ---------------------------------------------------- */

char *rs_join(const char *dir, const char *name)
{
	size_t l = strlen(dir);
	char *p = malloc(l + strlen(name) + 2);
	if (p)
		sprintf(p, "%s%s%s", dir, l && dir[l - 1] != '/' ? "/" : "", name);
	return p;
}

/* The URL of a remote path, percent-encoded. */
static char *url_of(const rsink *s, bool scp, const char *path, bool dir)
{
	const char *o = s->origin[scp];
	char *u = malloc(strlen(o) + 3 * strlen(path) + 8);
	if (!u)
		return NULL;
	char *w = u + sprintf(u, "%s%s", o, s->home ? "/~/" : (path[0] == '/' ? "" : "/"));
	for (const unsigned char *p = (const unsigned char *)path; *p; p++)
		if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
		    strchr("/-._~", *p))
			*w++ = (char)*p;
		else
			w += sprintf(w, "%%%02X", *p);
	if (dir && w[-1] != '/')
		*w++ = '/';
	*w = '\0';
	return u;
}

/* Append `CMD "p1" ["p2"]` to a quote list ('"' and '\' escaped). */
static bool add_cmd(struct curl_slist **l, const char *cmd, const char *p1, const char *p2)
{
	char *q = malloc(strlen(cmd) + 2 * (strlen(p1) + (p2 ? strlen(p2) : 0)) + 8), *w = q;
	if (!q)
		return false;
	w += sprintf(w, "%s", cmd);
	for (const char *p = p1; p; p = p == p1 ? p2 : NULL) {
		*w++ = ' ';
		*w++ = '"';
		for (const char *c = p; *c; c++) {
			if (*c == '"' || *c == '\\')
				*w++ = '\\';
			*w++ = *c;
		}
		*w++ = '"';
	}
	*w = '\0';
	struct curl_slist *n = curl_slist_append(*l, q);
	free(q);
	if (n)
		*l = n;
	return n != NULL;
}

int rs_parse_url(rsink *s, const char *url, xb_error *err)
{
	CURLU *h = curl_url();
	char *scheme = NULL, *user = NULL, *pass = NULL, *host = NULL, *port = NULL, *path = NULL, *q = NULL, *fr = NULL;
	int rc = 0;
	if (!h)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	CURLUcode uc = curl_url_set(h, CURLUPART_URL, url, CURLU_NON_SUPPORT_SCHEME);
	if (uc || curl_url_get(h, CURLUPART_SCHEME, &scheme, 0) || curl_url_get(h, CURLUPART_HOST, &host, 0) ||
	    curl_url_get(h, CURLUPART_PORT, &port, CURLU_DEFAULT_PORT) ||
	    curl_url_get(h, CURLUPART_PATH, &path, CURLU_URLDECODE)) {
		rc = xb_err_set(err, XB_E_USAGE, "invalid --target-dir URL %s%s%s", url, uc ? ": " : "",
				uc ? curl_url_strerror(uc) : "");
		xb_err_hint(err, "e.g. --target-dir=sftp://backup@host:22/backups/$(date +%%F) (%%XX for special characters)");
		goto out;
	}
	curl_url_get(h, CURLUPART_USER, &user, CURLU_URLDECODE);
	curl_url_get(h, CURLUPART_PASSWORD, &pass, 0);
	curl_url_get(h, CURLUPART_QUERY, &q, 0);
	curl_url_get(h, CURLUPART_FRAGMENT, &fr, 0);
	if (pass) {
		rc = xb_err_set(err, XB_E_USAGE, "a password in --target-dir is not supported: the upload authenticates with a key");
		xb_err_hint(err, "remove ':password' from the URL and give the key with --ssh-key-file");
		goto out;
	}
	if (q || fr) {
		rc = xb_err_set(err, XB_E_USAGE, "--target-dir URL %s has a '%c' part: write it in the path as %s", url,
				q ? '?' : '#', q ? "%3F" : "%23");
		goto out;
	}
	s->scp = !strcasecmp(scheme, "scp");
	s->port = strtol(port, NULL, 10);
	char *p = path;
	s->home = !strncmp(p, "/~/", 3) || !strcmp(p, "/~"); /* relative to the login directory */
	if (s->home)
		p += p[2] ? 3 : 2;
	size_t l = strlen(p);
	while (l > 1 && p[l - 1] == '/')
		p[--l] = '\0';
	if (s->home && !strcmp(p, "/"))
		p[0] = '\0';
	const char *u = user;
	if (!u || !*u) {
		struct passwd *pw = getpwuid(geteuid());
		u = pw ? pw->pw_name : getenv("USER");
	}
	s->user = strdup(u ? u : "root");
	s->host = strdup(host);
	s->root = strdup(*p || s->home ? p : "/");
	size_t n = strlen(host) + 32;
	if ((s->origin[0] = malloc(n)))
		snprintf(s->origin[0], n, "sftp://%s:%ld", host, s->port);
	if ((s->origin[1] = malloc(n)))
		snprintf(s->origin[1], n, "scp://%s:%ld", host, s->port);
	n = strlen(s->user ? s->user : "") + strlen(host) + strlen(s->root ? s->root : "") + 40;
	if ((s->shown = malloc(n)))
		snprintf(s->shown, n, "%s://%s@%s:%ld%s%s", s->scp ? "scp" : "sftp", s->user, host, s->port,
			 s->home ? "/~/" : "", s->root);
	if (!s->user || !s->host || !s->root || !s->origin[0] || !s->origin[1] || !s->shown)
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
out:
	curl_free(scheme), curl_free(user), curl_free(pass), curl_free(host), curl_free(port);
	curl_free(path), curl_free(q), curl_free(fr);
	curl_url_cleanup(h);
	return rc;
}

int rs_find_keys(rsink *s, const xb_remote_settings *rs, xb_error *err)
{
	const char *home = getenv("HOME");
	struct passwd *pw = home && *home ? NULL : getpwuid(geteuid());
	home = home && *home ? home : pw ? pw->pw_dir : "/";
	char ssh[4096], buf[4096], pub[4200];
	xb_error too_long; /* a path under ~/.ssh that does not fit: no key there, and no known_hosts */
	xb_err_clear(&too_long);
	bool have_ssh = xb_path_join(ssh, sizeof ssh, home, ".ssh", &too_long) == 0;
	const char *key = rs->key_file;
	if (!key) { /* as ssh does */
		static const char *const names[] = {"id_ed25519", "id_ecdsa", "id_rsa"};
		for (size_t i = 0; i < 3 && !key && have_ssh; i++)
			if (xb_path_join(buf, sizeof buf, ssh, names[i], NULL) == 0 && access(buf, F_OK) == 0)
				key = buf;
		if (!key)
			return xb_err_set(err, XB_E_REMOTE, "no SSH key to log in to %s: none of %s/.ssh/id_ed25519, id_ecdsa, "
					  "id_rsa exists", s->host, home),
			       xb_err_hint(err, "give one with --ssh-key-file=FILE; its public half must be in the host's "
					   "~%s/.ssh/authorized_keys", s->user);
	}
	if (access(key, R_OK))
		return xb_err_set(err, XB_E_REMOTE, "cannot read the SSH key %s: %s", key, strerror(errno)),
		       xb_err_hint(err, "check the file and its permissions (readable by this user, mode 600)");
	bool have_pub = snprintf(pub, sizeof pub, "%s.pub", key) < (int)sizeof pub && access(pub, R_OK) == 0;
	s->key = strdup(key);
	s->pub = strdup(have_pub ? pub : ""); /* "": libssh2 derives it from the private key */
	const char *kh = rs->known_hosts;
	if (!kh && (!have_ssh || xb_path_join(buf, sizeof buf, ssh, "known_hosts", &too_long))) {
		if (err)
			*err = too_long;
		return too_long.code;
	}
	s->known = strdup(kh ? kh : buf);
	if (!s->key || !s->pub || !s->known)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	return 0;
}

/* ---- requests --------------------------------------------------------------- */

static int keyfunc(CURL *e, const struct curl_khkey *known, const struct curl_khkey *found,
		   enum curl_khmatch match, void *arg)
{
	uploader *up = arg;
	up->khmatch = (int)match;
	const char *type = found->keytype == CURLKHTYPE_ED25519 ? "ssh-ed25519"
			   : found->keytype == CURLKHTYPE_ECDSA ? "ecdsa-sha2"
			   : found->keytype == CURLKHTYPE_RSA ? "ssh-rsa" : "ssh-dss";
	unsigned char md[EVP_MAX_MD_SIZE], b64[2 * EVP_MAX_MD_SIZE];
	unsigned int mdlen = 0;
	if (found->len && EVP_Digest(found->key, found->len, md, &mdlen, EVP_sha256(), NULL)) {
		int n = EVP_EncodeBlock(b64, md, (int)mdlen); /* as ssh shows it: base64, no padding */
		while (n > 0 && b64[n - 1] == '=')
			b64[--n] = '\0';
		snprintf(up->khfp, sizeof up->khfp, "%s SHA256:%s", type, (char *)b64);
	} else {
		snprintf(up->khfp, sizeof up->khfp, "%s", type);
	}
	return match == CURLKHMATCH_OK ? CURLKHSTAT_FINE : CURLKHSTAT_REJECT;
}

/* Keeps libcurl's last line about a failure (its error buffer misses some). */
static int debugfunc(CURL *e, curl_infotype t, char *data, size_t n, void *arg)
{
	uploader *up = arg;
	if (t == CURLINFO_TEXT && n > 1 && (memmem(data, n, "ailed", 5) || memmem(data, n, "rror", 4) ||
					    memmem(data, n, "ould not", 8) || memmem(data, n, "denied", 6) ||
					    memmem(data, n, "nable to", 8))) {
		size_t k = n < sizeof up->info - 1 ? n : sizeof up->info - 1;
		memcpy(up->info, data, k);
		while (k && (up->info[k - 1] == '\n' || up->info[k - 1] == '\r'))
			k--;
		up->info[k] = '\0';
	}
	return 0;
}

/* A directory listing: sets *nonempty when it names anything but . and .. */
static size_t list_cb(char *p, size_t sz, size_t n, void *arg)
{
	bool *nonempty = arg;
	for (char *line = p, *end = p + sz * n; line < end;) {
		char *nl = memchr(line, '\n', (size_t)(end - line)), *stop = nl ? nl : end;
		size_t l = (size_t)(stop - line);
		if (l && line[l - 1] == '\r')
			l--;
		if (l && !(l == 1 && line[0] == '.') && !(l == 2 && line[0] == '.' && line[1] == '.'))
			*nonempty = true;
		line = stop + 1;
	}
	return sz * n;
}

static long limit_of(const rsink *s, bool quick)
{
	return quick && s->timeout > QUICK_TIMEOUT ? QUICK_TIMEOUT : s->timeout;
}

/* Reset an easy handle to the options every request shares (its connection stays). */
static void setup(uploader *up, CURL *e, const char *url, bool quick)
{
	rsink *s = up->s;
	curl_easy_reset(e);
	curl_easy_setopt(e, CURLOPT_URL, url);
	curl_easy_setopt(e, CURLOPT_NOSIGNAL, 1L);
	curl_easy_setopt(e, CURLOPT_USERNAME, s->user);
	curl_easy_setopt(e, CURLOPT_SSH_AUTH_TYPES, (long)CURLSSH_AUTH_PUBLICKEY);
	curl_easy_setopt(e, CURLOPT_SSH_PRIVATE_KEYFILE, s->key);
	curl_easy_setopt(e, CURLOPT_SSH_PUBLIC_KEYFILE, s->pub);
	curl_easy_setopt(e, CURLOPT_SSH_KNOWNHOSTS, s->known);
	curl_easy_setopt(e, CURLOPT_SSH_KEYFUNCTION, keyfunc);
	curl_easy_setopt(e, CURLOPT_SSH_KEYDATA, up);
	curl_easy_setopt(e, CURLOPT_CONNECTTIMEOUT, limit_of(s, quick));
	curl_easy_setopt(e, CURLOPT_TCP_KEEPALIVE, 1L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPIDLE, 30L);
	curl_easy_setopt(e, CURLOPT_TCP_KEEPINTVL, 10L);
	curl_easy_setopt(e, CURLOPT_ERRORBUFFER, up->errbuf);
	curl_easy_setopt(e, CURLOPT_VERBOSE, 1L); /* to debugfunc: the last line is kept for errors */
	curl_easy_setopt(e, CURLOPT_DEBUGFUNCTION, debugfunc);
	curl_easy_setopt(e, CURLOPT_DEBUGDATA, up);
	curl_easy_setopt(e, CURLOPT_NEW_FILE_PERMS, 0640L);
	curl_easy_setopt(e, CURLOPT_NEW_DIRECTORY_PERMS, 0750L);
	up->errbuf[0] = up->info[0] = '\0';
	up->khmatch = -1;
	up->khfp[0] = '\0';
	up->sent = up->from = 0;
	up->oserr = 0;
	up->last = e;
}

/* Run one request on the uploader's multi handle. With f: resume the paused
 * upload once its writer has brought data or ended it; give up when nothing
 * moves for --remote-timeout seconds (quick: QUICK_TIMEOUT) while the
 * request has work to do; stop when f is aborted or the uploader stopped.
 * libcurl closes an SFTP file, runs post-quote commands and ends an SCP
 * channel in a blocking loop bounded only by its own timeouts: its low-speed
 * limit guards them, set once the data is complete (before, the transfer
 * pauses while waiting for its writer, and libcurl would count that), and a
 * transfer given up is removed with a timeout already passed. */
static CURLcode perform(uploader *up, CURL *e, rfile *f, bool quick)
{
	long limit = limit_of(up->s, quick);
	double last = xb_clock_sec();
	uint64_t seen = 0;
	curl_off_t seen_sent = 0;
	CURLcode res = CURLE_OK;
	const char *why = NULL;
	bool guarded = false;
	curl_multi_add_handle(up->multi, e);
	for (;;) {
		int running = 0, left;
		CURLMcode mc = curl_multi_perform(up->multi, &running);
		CURLMsg *m;
		bool done = false;
		while ((m = curl_multi_info_read(up->multi, &left)))
			if (m->msg == CURLMSG_DONE && m->easy_handle == e)
				res = m->data.result, done = true;
		curl_easy_getinfo(e, CURLINFO_SIZE_UPLOAD_T, &up->sent);
		if (done)
			break;
		if (mc) {
			snprintf(up->errbuf, sizeof up->errbuf, "%s", curl_multi_strerror(mc));
			res = CURLE_SEND_ERROR;
			break;
		}
		bool stop, resume = false, ended = !f;
		pthread_mutex_lock(&up->s->mu);
		stop = up->stop || (f && f->aborted);
		if (f) {
			ended = f->eof;
			resume = f->paused && (f->written > f->consumed || f->eof);
			if (resume)
				f->paused = false;
			if (f->consumed != seen || f->paused) /* moving, or waiting for its writer */
				seen = f->consumed, last = xb_clock_sec();
		}
		pthread_mutex_unlock(&up->s->mu);
		if (stop) {
			res = CURLE_ABORTED_BY_CALLBACK;
			break;
		}
		if (ended && !guarded) {
			curl_easy_setopt(e, CURLOPT_LOW_SPEED_LIMIT, 1L);
			curl_easy_setopt(e, CURLOPT_LOW_SPEED_TIME, limit);
			guarded = true;
		}
		if (resume) {
			curl_easy_pause(e, CURLPAUSE_CONT);
			last = xb_clock_sec();
			continue;
		}
		if (up->sent != seen_sent)
			seen_sent = up->sent, last = xb_clock_sec();
		if (xb_clock_sec() - last > (double)limit) {
			why = "no progress";
			res = CURLE_OPERATION_TIMEDOUT;
			break;
		}
		curl_multi_poll(up->multi, NULL, 0, 1000, NULL);
	}
	if (res == CURLE_ABORTED_BY_CALLBACK || why) /* given up: no blocking close */
		curl_easy_setopt(e, CURLOPT_TIMEOUT_MS, 1L);
	curl_multi_remove_handle(up->multi, e); /* mid-transfer, this also closes the connection */
	if (why)
		snprintf(up->errbuf, sizeof up->errbuf, "%s for %ld s", why, limit);
	return res;
}

/* An SFTP request without data: quote commands, or the listing of dir. */
static CURLcode sftp_op(uploader *up, struct curl_slist *cmds, const char *dir, bool *nonempty, bool quick)
{
	char *url = url_of(up->s, false, dir ? dir : (up->s->home ? "" : "/"), true);
	if (!url)
		return CURLE_OUT_OF_MEMORY;
	setup(up, up->sftp, url, quick);
	if (dir) {
		curl_easy_setopt(up->sftp, CURLOPT_DIRLISTONLY, 1L);
		curl_easy_setopt(up->sftp, CURLOPT_WRITEFUNCTION, list_cb);
		curl_easy_setopt(up->sftp, CURLOPT_WRITEDATA, nonempty);
	} else {
		curl_easy_setopt(up->sftp, CURLOPT_NOBODY, 1L);
		curl_easy_setopt(up->sftp, CURLOPT_QUOTE, cmds);
	}
	CURLcode c = perform(up, up->sftp, NULL, quick);
	free(url);
	return c;
}

CURLcode rs_list(uploader *up, const char *dir, bool *nonempty)
{
	*nonempty = false;
	return sftp_op(up, NULL, dir, nonempty, false);
}

CURLcode rs_mkdirs(uploader *up, const char *path, const char *below, bool must)
{
	struct curl_slist *l = NULL;
	char *p = strdup(path);
	bool ok = p != NULL;
	size_t from = below ? strlen(below) : 0;
	for (char *c = p ? p + from + 1 : NULL; ok && c && (c = strchr(c, '/')); c++) {
		*c = '\0';
		if (*p)
			ok = add_cmd(&l, "*mkdir", p, NULL); /* '*': a failure is ignored (it exists) */
		*c = '/';
	}
	if (ok)
		ok = add_cmd(&l, must ? "mkdir" : "*mkdir", p, NULL);
	CURLcode c = ok ? sftp_op(up, l, NULL, NULL, false) : CURLE_OUT_OF_MEMORY;
	curl_slist_free_all(l);
	free(p);
	return c;
}

void rs_remove(uploader *up, const char *path)
{
	struct curl_slist *l = NULL;
	if (add_cmd(&l, "*rm", path, NULL))
		sftp_op(up, l, NULL, NULL, true);
	curl_slist_free_all(l);
}

/* scp://: make sure the directory of f exists (over SFTP, once per directory). */
static CURLcode scp_dirs(uploader *up, rfile *f)
{
	rsink *s = up->s;
	char *dir = strdup(f->path), *slash = dir ? strrchr(dir, '/') : NULL;
	if (!dir)
		return CURLE_OUT_OF_MEMORY;
	if (slash)
		*slash = '\0';
	bool known = !slash || strlen(dir) <= strlen(s->root);
	pthread_mutex_lock(&s->mu);
	for (size_t i = 0; i < s->ndirs && !known; i++)
		known = !strcmp(s->dirs[i], dir);
	pthread_mutex_unlock(&s->mu);
	CURLcode c = known ? CURLE_OK : rs_mkdirs(up, dir, s->root, false);
	if (!known && !c) {
		pthread_mutex_lock(&s->mu);
		char **v = realloc(s->dirs, (s->ndirs + 1) * sizeof *v);
		if (v) {
			s->dirs = v;
			v[s->ndirs++] = dir;
			dir = NULL;
		}
		pthread_mutex_unlock(&s->mu);
	}
	free(dir);
	return c;
}

/* The size of a remote file: a request without body on its URL (libcurl stats it). */
static CURLcode stat_size(uploader *up, const char *path, curl_off_t *size)
{
	char *url = url_of(up->s, false, path, false);
	CURLcode c = CURLE_OUT_OF_MEMORY;
	*size = -1;
	if (url) {
		setup(up, up->sftp, url, false);
		curl_easy_setopt(up->sftp, CURLOPT_NOBODY, 1L);
		if (!(c = perform(up, up->sftp, NULL, false)))
			curl_easy_getinfo(up->sftp, CURLINFO_CONTENT_LENGTH_DOWNLOAD_T, size);
	}
	free(url);
	return c;
}

CURLcode rs_size(uploader *up, const char *path, curl_off_t *size, char *why, size_t len)
{
	/* keep the record of the failure being recovered from: it makes the message if this fails */
	char errbuf[CURL_ERROR_SIZE], info[sizeof up->info];
	long oserr = up->oserr;
	curl_off_t sent = up->sent, from = up->from;
	if (!oserr && up->last)
		curl_easy_getinfo(up->last, CURLINFO_OS_ERRNO, &oserr);
	memcpy(errbuf, up->errbuf, sizeof errbuf);
	memcpy(info, up->info, sizeof info);
	CURLcode c = stat_size(up, path, size);
	char d[CURL_ERROR_SIZE + 300];
	if (c)
		snprintf(why, len, "cannot read its size there: %s (%s)", curl_easy_strerror(c), rs_detail(up, c, d, sizeof d));
	else if (*size < 0)
		snprintf(why, len, "the host did not tell its size"), c = CURLE_REMOTE_FILE_NOT_FOUND;
	memcpy(up->errbuf, errbuf, sizeof errbuf);
	memcpy(up->info, info, sizeof info);
	up->oserr = oserr ? oserr : -1; /* -1: none (not the handle's, which is now the stat's) */
	up->sent = sent, up->from = from;
	return c;
}

CURLcode rs_upload(uploader *up, rfile *f, bool scp, curl_read_callback read, curl_seek_callback seek,
		   curl_off_t from)
{
	rsink *s = up->s;
	struct curl_slist *rename = NULL;
	char *url = url_of(s, scp, f->tmp, false);
	CURLcode c = CURLE_OUT_OF_MEMORY;
	if (!url || !add_cmd(&rename, "rename", f->tmp, f->path) || (scp && (c = scp_dirs(up, f))))
		goto out;
	CURL *e = scp ? up->scp : up->sftp;
	setup(up, e, url, false);
	curl_easy_setopt(e, CURLOPT_UPLOAD, 1L);
	curl_easy_setopt(e, CURLOPT_READFUNCTION, read);
	curl_easy_setopt(e, CURLOPT_READDATA, f);
	curl_easy_setopt(e, CURLOPT_UPLOAD_BUFFERSIZE, 1L << 20); /* libssh2 pipelines SFTP writes within it */
	if (from > 0 && !scp) {
		/* libcurl opens the file without O_TRUNC (WRITE|APPEND: from must be its
		 * size), asks seek to position the data, and writes from there */
		curl_easy_setopt(e, CURLOPT_RESUME_FROM_LARGE, from);
		curl_easy_setopt(e, CURLOPT_SEEKFUNCTION, seek);
		curl_easy_setopt(e, CURLOPT_SEEKDATA, f);
		up->from = from;
	}
	if (scp) {
		curl_easy_setopt(e, CURLOPT_INFILESIZE_LARGE, (curl_off_t)f->written);
	} else {
		curl_easy_setopt(e, CURLOPT_FTP_CREATE_MISSING_DIRS, (long)CURLFTP_CREATE_DIR);
		curl_easy_setopt(e, CURLOPT_POSTQUOTE, rename); /* after the close: a whole file */
	}
	f->touched = true;
	c = perform(up, e, f, false);
	if (!c && scp) {
		/* libcurl never reads scp -t's last answer (nor its exit status): check
		 * the size over SFTP (a write error on the host leaves it short) */
		curl_off_t sent = up->sent, size = -1;
		c = stat_size(up, f->tmp, &size);
		if (!c && size != (curl_off_t)f->written && !(size < 0 && !f->written)) {
			snprintf(up->errbuf, sizeof up->errbuf, "the host wrote %lld of %llu bytes", (long long)size,
				 (unsigned long long)f->written);
			c = CURLE_PARTIAL_FILE;
		}
		if (!c)
			c = sftp_op(up, rename, NULL, NULL, false);
		up->sent = sent;
	} else if (!c) {
		/* the file under its name must hold every byte sent: a short file
		 * published as whole would make a backup that looks complete and is
		 * not (checked after the rename: nothing may cut it between) */
		curl_off_t sent = up->sent, from0 = up->from, size = -1;
		c = stat_size(up, f->path, &size);
		if (!c && size != (curl_off_t)f->written && !(size < 0 && !f->written)) {
			snprintf(up->errbuf, sizeof up->errbuf, "after the upload the host has %lld of its %llu bytes",
				 (long long)size, (unsigned long long)f->written);
			c = CURLE_PARTIAL_FILE;
		}
		up->sent = sent, up->from = from0;
	}
out:
	curl_slist_free_all(rename);
	free(url);
	return c;
}

/* statvfs output (header data): free bytes of the target's file system. */
static size_t statvfs_cb(char *p, size_t sz, size_t n, void *arg)
{
	unsigned long long *v = arg; /* f_frsize, f_bavail */
	char line[1024];
	snprintf(line, sizeof line, "%.*s", (int)(sz * n < sizeof line - 1 ? sz * n : sizeof line - 1), p);
	for (char *l = strtok(line, "\n"); l; l = strtok(NULL, "\n"))
		sscanf(l, "f_frsize: %llu", &v[0]), sscanf(l, "f_bavail: %llu", &v[1]);
	return sz * n;
}

long long rs_probe(uploader *up, char *out, size_t len)
{
	rsink *s = up->s;
	struct curl_slist *l = NULL;
	unsigned long long v[2] = {0, 0};
	long long avail = -1;
	char *url = url_of(s, false, s->home ? "" : "/", true);
	if (!url || !add_cmd(&l, "statvfs", *s->root ? s->root : ".", NULL)) {
		snprintf(out, len, "out of memory");
	} else {
		setup(up, up->sftp, url, true);
		curl_easy_setopt(up->sftp, CURLOPT_NOBODY, 1L);
		curl_easy_setopt(up->sftp, CURLOPT_QUOTE, l);
		curl_easy_setopt(up->sftp, CURLOPT_HEADERFUNCTION, statvfs_cb);
		curl_easy_setopt(up->sftp, CURLOPT_HEADERDATA, v);
		CURLcode c = perform(up, up->sftp, NULL, true);
		char d[CURL_ERROR_SIZE + 300];
		if (c && c != CURLE_QUOTE_ERROR) {
			snprintf(out, len, "the host does not answer: %s (%s)", curl_easy_strerror(c), rs_detail(up, c, d, sizeof d));
		} else if (c) {
			snprintf(out, len, "the host answers again");
			avail = LLONG_MAX;
		} else {
			avail = (long long)(v[0] * v[1]);
			snprintf(out, len, "the host answers again, %.1f MiB free there", (double)avail / (1 << 20));
		}
	}
	curl_slist_free_all(l);
	free(url);
	return avail;
}

/* ---- errors ------------------------------------------------------------------ */

bool rs_transient(uploader *up, CURLcode c)
{
	const char *d = up->errbuf[0] ? up->errbuf : up->info;
	switch (c) {
	case CURLE_COULDNT_CONNECT:
	case CURLE_OPERATION_TIMEDOUT:
	case CURLE_SEND_ERROR:
	case CURLE_RECV_ERROR:
	case CURLE_GOT_NOTHING:
		return true;
	case CURLE_SSH: /* libssh2 lost the session (or the host refused a write: told apart by a retry) */
		return true;
	case CURLE_QUOTE_ERROR: /* not an SFTP status: the session was lost */
		return strstr(d, "Unknown error in libssh2") != NULL;
	case CURLE_UPLOAD_FAILED: /* SCP: the channel died; "failed to send file" is scp -t refusing */
		return strstr(d, "SCP failure") || strstr(d, "nable to send") || strstr(d, "ocket");
	default:
		return false;
	}
}

const char *rs_detail(uploader *up, CURLcode c, char *buf, size_t len)
{
	long oserr = up->oserr;
	if (!oserr && up->last)
		curl_easy_getinfo(up->last, CURLINFO_OS_ERRNO, &oserr);
	if (oserr < 0)
		oserr = 0;
	const char *d = up->errbuf[0] ? up->errbuf : up->info;
	if (!*d && c == CURLE_SSH) /* libcurl says no more when libssh2 fails mid-transfer */
		d = "the session ended: connection lost, or a write refused by the host";
	const char *os = oserr ? strerror((int)oserr) : "";
	snprintf(buf, len, "%s%s%s", d, *d && *os && !strstr(d, os) ? ": " : "", *os && !strstr(d, os) ? os : "");
	return buf;
}

int rs_describe(uploader *up, CURLcode c, const char *url, const char *what, xb_error *err)
{
	rsink *s = up->s;
	char d[CURL_ERROR_SIZE + 300], detail[CURL_ERROR_SIZE + 310] = "";
	rs_detail(up, c, d, sizeof d);
	if (*d && strcmp(d, curl_easy_strerror(c)))
		snprintf(detail, sizeof detail, " (%s)", d);
	if (c == CURLE_PEER_FAILED_VERIFICATION) {
		bool changed = up->khmatch == CURLKHMATCH_MISMATCH;
		xb_err_set(err, XB_E_REMOTE, "%s: the host key of %s port %ld %s %s%s: %s", url, s->host, s->port,
			   changed ? "does not match the one in" : "is not in", s->known,
			   access(s->known, F_OK) ? " (no such file)" : "", up->khfp[0] ? up->khfp : "no key offered");
		if (changed)
			return xb_err_hint(err, "if the host was reinstalled, check the new fingerprint with its administrator and "
					   "replace the entry (ssh-keygen -R '[%s]:%ld' -f %s); otherwise the connection may be "
					   "intercepted", s->host, s->port, s->known);
		return xb_err_hint(err, "check the fingerprint with the host's administrator, then add the key, e.g. "
				   "ssh-keyscan -p %ld %s >> %s", s->port, s->host, s->known);
	}
	xb_err_set(err, XB_E_REMOTE, "%s: %s: %s%s", url, what, curl_easy_strerror(c), detail);
	switch (c) {
	case CURLE_LOGIN_DENIED:
		return xb_err_hint(err, "the public half of %s must be in ~%s/.ssh/authorized_keys on %s; the key must have no "
				   "passphrase and be readable only by you (chmod 600); the host's sshd log says why it refused",
				   s->key, s->user, s->host);
	case CURLE_COULDNT_CONNECT:
	case CURLE_COULDNT_RESOLVE_HOST:
		return xb_err_hint(err, "check that sshd runs on %s and listens on port %ld (ssh -p %ld %s@%s), and that no "
				   "firewall is in the way", s->host, s->port, s->port, s->user, s->host);
	case CURLE_REMOTE_DISK_FULL:
		return xb_err_hint(err, "the file system on %s is full: free space there, or choose another directory",
				   s->host);
	case CURLE_REMOTE_ACCESS_DENIED:
	case CURLE_QUOTE_ERROR:
	case CURLE_UPLOAD_FAILED:
	case CURLE_REMOTE_FILE_NOT_FOUND:
		return xb_err_hint(err, "check that %s may write in that directory on %s (owner, permissions) and that its "
				   "file system has space", s->user, s->host);
	case CURLE_OPERATION_TIMEDOUT:
		return xb_err_hint(err, "%s or the network to it stalled; on a slow link raise --remote-timeout (now %ld s)",
				   s->host, s->timeout);
	default:
		if (rs_transient(up, c))
			return xb_err_hint(err, "the connection to %s broke: check the network, the host's sshd log and its disk "
					   "space, then take the backup again", s->host);
		return 0;
	}
}
