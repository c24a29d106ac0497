/*
 * spaces.c - identify and open the tablespace files of a backup.
 *
 * The files are those the inventory finds in the backup directory
 * (inv_scan_backup, which has read page 0 of each); they are stored in a
 * hash keyed by space id. The system tablespace is one entry with a part per
 * file, numbered as the inventory numbers them (by the files' actual
 * sizes); only the last part is ever extended. Files are fsynced by the
 * parallel executor. Everything else is plain POSIX I/O.
 */
#include "innodb/spaces.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/parallel.h"
#include "innodb/inventory.h"

#define SYNC_THREADS 16 /* fsyncs at once */

static size_t id_hash(uint32_t id, size_t mask)
{
	return (size_t)(((uint64_t)id * 0x9E3779B97F4A7C15ull) >> 29) & mask;
}

static int grow(spaces *s)
{
	size_t n = s->cap ? s->cap * 2 : 256;
	space_file *v = calloc(n, sizeof *v);
	if (!v)
		return -1;
	for (size_t i = 0; i < s->cap; i++) {
		if (!s->v[i].used)
			continue;
		size_t h = id_hash(s->v[i].space_id, n - 1);
		while (v[h].used)
			h = (h + 1) & (n - 1);
		v[h] = s->v[i];
	}
	free(s->v);
	s->v = v;
	s->cap = n;
	return 0;
}

space_file *spaces_find(const spaces *s, uint32_t space_id)
{
	if (!s->cap)
		return NULL;
	size_t mask = s->cap - 1, h = id_hash(space_id, mask);
	while (s->v[h].used) {
		if (s->v[h].space_id == space_id)
			return &s->v[h];
		h = (h + 1) & mask;
	}
	return NULL;
}

static void file_free(space_file *f)
{
	for (int i = 0; i < f->n_parts; i++) {
		if (f->part[i].fd >= 0)
			close(f->part[i].fd);
		free(f->part[i].path);
	}
	free(f->rel);
	free(f->written_map);
}

void spaces_free(spaces *s)
{
	for (size_t i = 0; i < s->cap; i++)
		if (s->v[i].used)
			file_free(&s->v[i]);
	for (size_t i = 0; i < s->n_unknown; i++)
		file_free(&s->unknown[i]);
	free(s->v);
	free(s->unknown);
	free(s->dir);
	memset(s, 0, sizeof *s);
}

static int add(spaces *s, const space_file *f, xb_error *err)
{
	space_file *old = spaces_find(s, f->space_id);
	if (old)
		return xb_err_set(err, XB_E_CORRUPT_PAGE, "%s and %s both hold tablespace %u", old->rel, f->rel,
				  f->space_id);
	if ((s->n + 1) * 2 > s->cap && grow(s))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	size_t mask = s->cap - 1, h = id_hash(f->space_id, mask);
	while (s->v[h].used)
		h = (h + 1) & mask;
	s->v[h] = *f;
	s->v[h].used = true;
	s->n++;
	return 0;
}

static int add_unknown(spaces *s, const space_file *f, xb_error *err)
{
	space_file *v = realloc(s->unknown, (s->n_unknown + 1) * sizeof *v);
	if (!v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	s->unknown = v;
	s->unknown[s->n_unknown++] = *f;
	return 0;
}

/* The inventory's file f as a space of one part: 0 identified, 1 not (its
 * page 0 is not valid yet), else an error. */
static int from_inventory(const inv_file *in, space_file *f, xb_error *err)
{
	memset(f, 0, sizeof *f);
	f->part[0].fd = -1;
	f->part[0].path = strdup(in->path);
	f->rel = strdup(in->rel);
	f->n_parts = 1;
	if (!f->part[0].path || !f->rel)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	if (!in->identified)
		return 1;
	f->info = in->info;
	f->space_id = in->info.space_id;
	f->identified = true;
	f->io_block = in->fs_block;
	f->part[0].n_pages = in->size / f->info.physical_size;
	return 0;
}

/* The system tablespace: the first file identified by page 0, the others
 * added as parts. */
static int add_system_part(space_file *sys, const inv_file *in, xb_error *err)
{
	if (in->part == 0) {
		int rc = from_inventory(in, sys, err); /* the inventory refuses a first file not identified */
		return rc == 1 ? xb_err_set(err, XB_E_INTERNAL, "%s: the system tablespace is not identified", in->path) : rc;
	}
	if (sys->n_parts == SPACES_MAX_PARTS)
		return xb_err_set(err, XB_E_USAGE, "innodb_data_file_path has more than %d files", SPACES_MAX_PARTS);
	space_part *p = &sys->part[sys->n_parts];
	p->fd = -1;
	p->path = strdup(in->path);
	if (!p->path)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	p->first_page = in->first_page;
	p->n_pages = in->size / sys->info.physical_size;
	sys->n_parts++;
	return 0;
}

int spaces_scan(spaces *s, const char *dir, const char *data_file_path, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->dir = strdup(dir);
	if (!s->dir || grow(s))
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	inventory inv;
	int rc = inv_scan_backup(dir, data_file_path, &inv, err);
	/* the system tablespace first (the inventory lists its files first) */
	space_file sys;
	memset(&sys, 0, sizeof sys);
	size_t i = 0;
	for (; !rc && i < inv.n && inv.v[i].kind == INV_SYSTEM; i++)
		rc = add_system_part(&sys, &inv.v[i], err);
	if (!rc && sys.n_parts)
		rc = add(s, &sys, err);
	if (rc && sys.n_parts)
		file_free(&sys);
	for (; !rc && i < inv.n; i++) {
		const inv_file *in = &inv.v[i];
		if (in->kind == INV_REDO)
			continue;
		space_file f;
		rc = from_inventory(in, &f, err);
		if (rc == 0)
			rc = add(s, &f, err);
		else if (rc == 1)
			rc = add_unknown(s, &f, err);
		if (rc)
			file_free(&f);
	}
	inv_free(&inv);
	return rc;
}

/* The backup's name for a file the server names "./db/t.ibd", or by an
 * absolute path for a DATA DIRECTORY table ("/data/ext/db/t.ibd"): the backup
 * keeps those as db/t.ibd (their .isl file says where they belong). */
static const char *strip_dot(const char *n)
{
	if (!strncmp(n, "./", 2))
		return n + 2;
	if (n[0] != '/')
		return n;
	const char *last = strrchr(n, '/');
	const char *prev = last;
	while (prev > n && prev[-1] != '/')
		prev--;
	return prev > n ? prev : last + 1;
}

bool spaces_has_unknown(const spaces *s, const char *server_name)
{
	if (!server_name)
		return false;
	for (size_t i = 0; i < s->n_unknown; i++)
		if (!strcmp(s->unknown[i].rel, strip_dot(server_name)))
			return true;
	return false;
}

space_file *spaces_claim(spaces *s, uint32_t space_id, const char *server_name, uint32_t flags)
{
	if (!server_name)
		return NULL;
	const char *n = strip_dot(server_name);
	for (size_t i = 0; i < s->n_unknown; i++) {
		space_file *f = &s->unknown[i];
		if (strcmp(f->rel, n))
			continue;
		innodb_space_info info;
		memset(&info, 0, sizeof info);
		if (!innodb_flags_decode(flags, &info))
			return NULL;
		space_file g = *f;
		g.info = info;
		g.info.space_id = space_id;
		g.space_id = space_id;
		struct stat st;
		g.part[0].n_pages = stat(g.part[0].path, &st) ? 0 : (uint64_t)st.st_size / info.physical_size;
		g.io_block = st.st_blksize >= 512 && st.st_blksize <= 65536 ? (uint32_t)st.st_blksize : 4096;
		if (add(s, &g, NULL))
			return NULL;
		s->unknown[i] = s->unknown[--s->n_unknown];
		return spaces_find(s, space_id);
	}
	return NULL;
}

static int open_part(space_part *p, xb_error *err)
{
	if (p->fd >= 0)
		return 0;
	p->fd = open(p->path, O_RDWR | O_CLOEXEC);
	if (p->fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open %s for writing: %s", p->path, strerror(errno));
	return 0;
}

int spaces_locate(space_file *f, uint64_t page_no, int *fd, off_t *off, uint64_t *run_max, xb_error *err)
{
	int i = f->n_parts - 1;
	while (i > 0 && page_no < f->part[i].first_page)
		i--;
	space_part *p = &f->part[i];
	int rc = open_part(p, err);
	if (rc)
		return rc;
	uint64_t rel = page_no - p->first_page;
	*fd = p->fd;
	*off = (off_t)(rel * f->info.physical_size);
	*run_max = i == f->n_parts - 1 ? UINT64_MAX : p->n_pages - rel;
	return 0;
}

const char *spaces_path_of(const space_file *f, uint64_t page_no)
{
	int i = f->n_parts - 1;
	while (i > 0 && page_no < f->part[i].first_page)
		i--;
	return f->part[i].path;
}

uint64_t spaces_size_pages(const space_file *f)
{
	const space_part *p = &f->part[f->n_parts - 1];
	return p->first_page + p->n_pages;
}

static int resize(space_file *f, uint64_t n_pages, bool shrink, xb_error *err)
{
	space_part *p = &f->part[f->n_parts - 1];
	if (n_pages < p->first_page)
		n_pages = p->first_page;
	uint64_t want = n_pages - p->first_page;
	if (want == p->n_pages || (!shrink && want < p->n_pages))
		return 0;
	int rc = open_part(p, err);
	if (rc)
		return rc;
	if (ftruncate(p->fd, (off_t)(want * f->info.physical_size)))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot resize %s to %llu pages: %s", p->path,
				  (unsigned long long)n_pages, strerror(errno));
	p->n_pages = want;
	f->written = true;
	for (uint64_t pg = n_pages; pg < f->map_pages; pg++) /* cut off: no longer what was written */
		f->written_map[pg >> 3] &= (uint8_t)~(1u << (pg & 7));
	return 0;
}

int spaces_map_pages(space_file *f)
{
	uint64_t n = spaces_size_pages(f);
	if (n <= f->map_pages)
		return 0;
	uint8_t *m = realloc(f->written_map, (size_t)((n + 7) / 8));
	if (!m)
		return -1;
	memset(m + (f->map_pages + 7) / 8, 0, (size_t)((n + 7) / 8 - (f->map_pages + 7) / 8));
	f->written_map = m;
	f->map_pages = n;
	return 0;
}

bool spaces_page_written(const space_file *f, uint32_t page_no)
{
	return page_no < f->map_pages &&
	       (__atomic_load_n(&f->written_map[page_no >> 3], __ATOMIC_RELAXED) >> (page_no & 7) & 1);
}

void spaces_mark_written(space_file *f, uint32_t page_no)
{
	if (page_no < f->map_pages)
		__atomic_fetch_or(&f->written_map[page_no >> 3], (uint8_t)(1u << (page_no & 7)), __ATOMIC_RELAXED);
}

int spaces_extend(space_file *f, uint64_t n_pages, xb_error *err)
{
	return resize(f, n_pages, false, err);
}

int spaces_truncate(space_file *f, uint64_t n_pages, xb_error *err)
{
	return resize(f, n_pages, true, err);
}

/* The files to fsync, shared by the workers that fsync them. */
typedef struct sync_job {
	space_part **parts;   /* open parts of the files written to */
	size_t n;             /* how many */
} sync_job;

static int sync_one(xb_parallel *p, void *ctx, size_t i, int worker, void *wstate, xb_error *err)
{
	const sync_job *j = ctx;
	if (fsync(j->parts[i]->fd))
		return xb_err_set(err, XB_E_IO_WRITE, "fsync %s: %s", j->parts[i]->path, strerror(errno));
	return 0;
}

void spaces_each_written(const spaces *s, void (*fn)(void *ctx, const char *path), void *ctx)
{
	for (size_t i = 0; i < s->cap; i++) {
		space_file *f = spaces_at(s, i);
		if (f && f->written)
			for (int k = 0; k < f->n_parts; k++)
				fn(ctx, f->part[k].path);
	}
}

int spaces_sync(spaces *s, int threads, xb_error *err)
{
	sync_job j = {.parts = malloc((s->cap ? s->cap : 1) * SPACES_MAX_PARTS * sizeof(space_part *))};
	if (!j.parts)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory");
	for (size_t i = 0; i < s->cap; i++) {
		space_file *f = spaces_at(s, i);
		if (!f || !f->written)
			continue;
		for (int k = 0; k < f->n_parts; k++)
			if (f->part[k].fd >= 0)
				j.parts[j.n++] = &f->part[k];
	}
	/* Several fsyncs at once keep the device's queue full and let the file
	 * system commit them together; they wait, they do not compute, so not
	 * fewer for a prepare on fewer threads (10,000 tables: 2 threads took
	 * 1.7 s to sync) */
	xb_parallel_cfg cfg = {.threads = SYNC_THREADS, .jobs = j.n,
			       .ctx = &j, .job = sync_one};
	int rc = j.n ? xb_parallel_run(&cfg, err) : 0;
	for (size_t i = 0; !rc && i < s->cap; i++) {
		space_file *f = spaces_at(s, i);
		if (f)
			f->written = false;
	}
	free(j.parts);
	return rc;
}
