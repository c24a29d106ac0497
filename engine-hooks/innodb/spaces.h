/*
 * spaces.h - the InnoDB tablespace files of a backup directory, by space id.
 *
 * spaces_scan() takes the files the inventory finds in the directory
 * (innodb/inventory.h: the system tablespace files innodb_data_file_path
 * names, the undo tablespaces, the tables of the directory and of its
 * database subdirectories, with page 0 read) and keys each by the space id
 * of its page 0. A file whose page 0 is not valid
 * (a tablespace created during the backup whose first page was not yet
 * written) is kept aside under its name; recovery can claim it by the name
 * the redo log gives the space. The system tablespace may span several files:
 * spaces_locate() maps a page number to the file part and offset. Files are
 * opened read-write on first use and kept open; spaces_sync() fsyncs those
 * written to.
 */
#ifndef XB_INNODB_SPACES_H
#define XB_INNODB_SPACES_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "common/error.h"
#include "innodb/page.h"

#define SPACES_MAX_PARTS 16

/* One part of a tablespace (one file). */
typedef struct space_part {
	char *path;         /* path of the file */
	int fd;             /* -1 until opened */
	uint64_t first_page; /* first page of the tablespace stored in this file */
	uint64_t n_pages;   /* pages in this file (the last part grows) */
} space_part;

typedef struct space_file {
	uint32_t space_id;
	innodb_space_info info; /* from page 0 (or from the log's flags for an unidentified file) */
	space_part part[SPACES_MAX_PARTS];
	int n_parts;
	char *rel;          /* name relative to the backup directory (the inventory's rel) */
	uint32_t io_block;  /* the file system's block size: page_compressed pages are written in these units */
	bool identified;    /* page 0 gave the space id */
	bool written;       /* needs fsync */
	uint8_t *written_map; /* a bit per page written (and checked) by this recovery */
	uint64_t map_pages;   /* pages the map covers */
	bool used;          /* hash slot in use (internal) */
} space_file;

typedef struct spaces {
	space_file *v;      /* open-addressing table keyed by space id */
	size_t cap, n;
	space_file *unknown; /* files whose page 0 is not valid, by name */
	size_t n_unknown;
	char *dir;
} spaces;

/* Scan dir. data_file_path: the system tablespace spec (NULL: the server's default;
 * one the server would not take is XB_E_CONFIG). Two files with the same space id
 * are an error (XB_E_CORRUPT_PAGE naming both). */
int spaces_scan(spaces *s, const char *dir, const char *data_file_path, xb_error *err);
void spaces_free(spaces *s);

/* The file of a space id, NULL when not in the backup. */
space_file *spaces_find(const spaces *s, uint32_t space_id);

/* Claim an unidentified file by the server's name for the space ("./db/t.ibd");
 * flags (from the log) give its page size. NULL when no such file. */
space_file *spaces_claim(spaces *s, uint32_t space_id, const char *server_name, uint32_t flags);

/* True when an unidentified file has the server's name for a space. */
bool spaces_has_unknown(const spaces *s, const char *server_name);

/* Where page_no lives: file descriptor (opened on demand), byte offset, and
 * how many pages from there on are in the same file (at least 1; pages beyond
 * the end of the last part count as in it). */
int spaces_locate(space_file *f, uint64_t page_no, int *fd, off_t *off, uint64_t *run_max, xb_error *err);

/* The path of the file (part) that holds page_no. */
const char *spaces_path_of(const space_file *f, uint64_t page_no);

/* Size of the tablespace in pages (sum over its parts, from the files' sizes). */
uint64_t spaces_size_pages(const space_file *f);

/* Make the (last part of the) tablespace exactly / at least n_pages long. */
int spaces_extend(space_file *f, uint64_t n_pages, xb_error *err);
int spaces_truncate(space_file *f, uint64_t n_pages, xb_error *err);

/* The pages this recovery wrote, each checked after apply: a later batch
 * that reads one back need not check it again. spaces_map_pages() makes the
 * map cover the file's current size (before the workers start: it may move
 * the map); marking and testing are safe from several threads at once. */
int spaces_map_pages(space_file *f);
bool spaces_page_written(const space_file *f, uint32_t page_no);
void spaces_mark_written(space_file *f, uint32_t page_no);

/* fsync every file written to, 16 at once (threads is not used: fsyncs wait on the disk, not the CPU). */
int spaces_sync(spaces *s, int threads, xb_error *err);

/* fn(ctx, path) for every file of every tablespace written (or resized)
 * since the last spaces_sync(): what this recovery changed. */
void spaces_each_written(const spaces *s, void (*fn)(void *ctx, const char *path), void *ctx);

/* Iterate: the i-th identified file for i < s->cap (NULL for empty slots). */
static inline space_file *spaces_at(const spaces *s, size_t i)
{
	return s->v[i].used ? &s->v[i] : NULL;
}

#endif
