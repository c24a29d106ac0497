/*
 * scan.c - find the files a backup copies.
 *
 * InnoDB: the system tablespace files named by innodb_data_file_path (in
 * innodb_data_home_dir), the undo tablespaces undoNNN (in
 * innodb_undo_directory), and every .ibd in the database directories of the
 * datadir; a .isl file points to a table created with DATA DIRECTORY, whose
 * .ibd is copied into the database directory of the backup like any other.
 * Other files: the table-definition and non-InnoDB table files of each
 * database directory, chosen by extension (engine-hooks/filerules.c), and the
 * Aria control file and logs; Aria files and the log tables (mysql.general_log,
 * mysql.slow_log), which keep changing until commits are blocked, are marked
 * for copying under BLOCK_COMMIT. Binary and relay logs, the temporary
 * tablespace, pid and socket files are not part of a backup.
 */
#include "backup_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/log.h"
#include "filerules.h"
#include "innodb/page.h"

int bfile_add(bfile_list *l, const char *src, const char *rel, int kind, xb_error *err)
{
	if (l->n == l->cap) {
		size_t cap = l->cap ? l->cap * 2 : 64;
		bfile *v = realloc(l->v, cap * sizeof *v);
		if (!v)
			return xb_err_set(err, XB_E_INTERNAL, "out of memory");
		l->v = v;
		l->cap = cap;
	}
	bfile *f = &l->v[l->n];
	memset(f, 0, sizeof *f);
	f->src = strdup(src);
	f->rel = strdup(rel);
	f->kind = kind;
	f->space_id = UINT32_MAX;
	struct stat st;
	if (stat(src, &st) == 0)
		f->size = (uint64_t)st.st_size;
	if (!f->src || !f->rel)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	l->n++;
	return 0;
}

void bfile_list_free(bfile_list *l)
{
	for (size_t i = 0; i < l->n; i++) {
		free(l->v[i].src);
		free(l->v[i].rel);
	}
	free(l->v);
	memset(l, 0, sizeof *l);
}

int read_space_id(const char *path, uint32_t *space_id)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	uint8_t buf[65536];
	ssize_t n = pread(fd, buf, sizeof buf, 0);
	close(fd);
	if (n < 4096)
		return -1;
	innodb_space_info si;
	if (innodb_page0_parse(buf, (size_t)n, &si, NULL))
		return -1;
	*space_id = si.space_id;
	return 0;
}

/* dir/name, or name when it is absolute; silently truncated paths are never used:
 * PATH_MAX-long paths cannot be opened anyway and fail with a clear error there. */
static void join(char *out, size_t n, const char *dir, const char *name)
{
	int m = name[0] == '/' ? snprintf(out, n, "%s", name) : snprintf(out, n, "%s/%s", dir, name);
	if (m < 0 || (size_t)m >= n)
		out[0] = '\0';
}

/* innodb_data_file_path: "ibdata1:12M;ibdata2:50M:autoextend" */
static int scan_system(backup_ctx *c, bfile_list *out, xb_error *err)
{
	char spec[1024];
	snprintf(spec, sizeof spec, "%s", c->lay.data_file_path[0] ? c->lay.data_file_path : "ibdata1:12M:autoextend");
	uint32_t page_no = 0;
	char *save = NULL;
	for (char *part = strtok_r(spec, ";", &save); part; part = strtok_r(NULL, ";", &save)) {
		char *colon = strchr(part, ':');
		if (!colon)
			return xb_err_set(err, XB_E_CONFIG, "cannot parse innodb_data_file_path '%s'", c->lay.data_file_path);
		*colon = '\0';
		char src[4096];
		join(src, sizeof src, c->lay.data_home_dir, part);
		const char *base = strrchr(part, '/') ? strrchr(part, '/') + 1 : part;
		int rc = bfile_add(out, src, base, BF_INNODB, err);
		if (rc)
			return rc;
		bfile *f = &out->v[out->n - 1];
		f->system_space = true;
		f->first_page_no = page_no;
		f->space_id = 0;
		if (access(src, R_OK))
			return xb_err_set(err, XB_E_IO_READ, "cannot read system tablespace file %s: %s", src, strerror(errno)),
			       xb_err_hint(err, "run the backup as a user that can read the server's datadir (e.g. mysql or root)");
		page_no += (uint32_t)(f->size / (c->lay.page_size ? c->lay.page_size : 16384));
	}
	return 0;
}

static int scan_undo(backup_ctx *c, bfile_list *out, xb_error *err)
{
	DIR *d = opendir(c->lay.undo_dir);
	if (!d)
		return xb_err_set(err, XB_E_IO_READ, "cannot open innodb_undo_directory %s: %s", c->lay.undo_dir, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		if (strncmp(e->d_name, "undo", 4) || strlen(e->d_name) != 7 ||
		    strspn(e->d_name + 4, "0123456789") != 3)
			continue;
		char src[4096];
		join(src, sizeof src, c->lay.undo_dir, e->d_name);
		rc = bfile_add(out, src, e->d_name, BF_INNODB, err);
		if (!rc)
			read_space_id(src, &out->v[out->n - 1].space_id);
	}
	closedir(d);
	return rc;
}

/* Database directories of the datadir. */
static int for_each_db(backup_ctx *c, int (*fn)(backup_ctx *, const char *db, const char *path, bfile_list *, xb_error *),
		       bfile_list *out, xb_error *err)
{
	DIR *d = opendir(c->lay.datadir);
	if (!d)
		return xb_err_set(err, XB_E_IO_READ, "cannot open datadir %s: %s", c->lay.datadir, strerror(errno)),
		       xb_err_hint(err, "run the backup as a user that can read the server's datadir (e.g. mysql or root)");
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		if (e->d_name[0] == '.' || !strcmp(e->d_name, "lost+found") || e->d_name[0] == '#')
			continue;
		char path[4096];
		join(path, sizeof path, c->lay.datadir, e->d_name);
		struct stat st;
		if (stat(path, &st) || !S_ISDIR(st.st_mode))
			continue;
		rc = fn(c, e->d_name, path, out, err);
	}
	closedir(d);
	return rc;
}

static int db_innodb(backup_ctx *c, const char *db, const char *path, bfile_list *out, xb_error *err)
{
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		size_t l = strlen(e->d_name);
		char src[4096], rel[4096];
		if (l > 4 && !strcmp(e->d_name + l - 4, ".ibd")) {
			join(src, sizeof src, path, e->d_name);
		} else if (l > 4 && !strcmp(e->d_name + l - 4, ".isl")) {
			/* DATA DIRECTORY table: the .isl holds the path of the .ibd */
			char isl[4096];
			join(isl, sizeof isl, path, e->d_name);
			FILE *f = fopen(isl, "r");
			if (!f)
				continue;
			char target[4096] = "";
			if (!fgets(target, sizeof target, f))
				target[0] = '\0';
			fclose(f);
			target[strcspn(target, "\r\n")] = '\0';
			if (!target[0])
				continue;
			snprintf(src, sizeof src, "%s", target);
			memcpy(e->d_name + l - 4, ".ibd", 4);
		} else {
			continue;
		}
		snprintf(rel, sizeof rel, "%s/%s", db, e->d_name);
		bool dup = false;
		for (size_t i = 0; i < out->n && !dup; i++)
			dup = !strcmp(out->v[i].rel, rel);
		if (dup)
			continue;
		struct stat st;
		if (stat(src, &st))
			continue;
		rc = bfile_add(out, src, rel, BF_INNODB, err);
		if (!rc)
			read_space_id(src, &out->v[out->n - 1].space_id);
	}
	closedir(d);
	return rc;
}

int scan_innodb(backup_ctx *c, bfile_list *out, xb_error *err)
{
	int rc = scan_system(c, out, err);
	if (!rc)
		rc = scan_undo(c, out, err);
	if (!rc)
		rc = for_each_db(c, db_innodb, out, err);
	return rc;
}

static int db_other(backup_ctx *c, const char *db, const char *path, bfile_list *out, xb_error *err)
{
	DIR *d = opendir(path);
	if (!d)
		return errno == ENOENT ? 0 : xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	struct dirent *e;
	int rc = 0;
	while (!rc && (e = readdir(d))) {
		int kind = filerule_classify(e->d_name);
		if (kind == FR_ARIA || kind == FR_PLAIN) {
			char src[4096], rel[4096];
			join(src, sizeof src, path, e->d_name);
			snprintf(rel, sizeof rel, "%s/%s", db, e->d_name);
			/* the general and slow query log tables are written until commits are blocked */
			bool log_table = !strcmp(db, "mysql") &&
					 (!strncmp(e->d_name, "general_log.", 12) || !strncmp(e->d_name, "slow_log.", 9));
			rc = bfile_add(out, src, rel, kind == FR_ARIA || log_table ? BF_AT_COMMIT : BF_PLAIN, err);
		}
	}
	closedir(d);
	return rc;
}

int scan_other(backup_ctx *c, bfile_list *out, xb_error *err)
{
	int rc = for_each_db(c, db_other, out, err);
	if (rc)
		return rc;
	/* Aria control file and logs */
	DIR *d = opendir(c->lay.aria_log_dir);
	if (!d)
		return 0;
	struct dirent *e;
	while (!rc && (e = readdir(d))) {
		if (filerule_is_aria_log(e->d_name)) {
			char src[4096];
			join(src, sizeof src, c->lay.aria_log_dir, e->d_name);
			rc = bfile_add(out, src, e->d_name, BF_AT_COMMIT, err);
		}
	}
	closedir(d);
	return rc;
}
