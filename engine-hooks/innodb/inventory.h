/*
 * inventory.h - the InnoDB files of a server or of a backup: which there
 * are, what each one is and where it lives.
 *
 * This is the one place that knows how InnoDB names and places its files:
 *   - the system tablespace, in one or more parts that innodb_data_file_path
 *     names ("name:size[:autoextend[:max:size]];...", in
 *     innodb_data_home_dir unless a name is absolute); its pages are
 *     numbered across the parts;
 *   - the undo tablespaces, undo001 to undo127, in innodb_undo_directory;
 *   - the file-per-table tablespaces, db/t.ibd in the datadir's database
 *     directories;
 *   - the tablespaces created with DATA DIRECTORY: the datadir holds a link
 *     file db/t.isl with the path of their .ibd (a backup keeps the .ibd as
 *     db/t.ibd, beside the link file, which says where to restore it);
 *   - the redo log, ib_logfile0 in innodb_log_group_home_dir.
 * inv_scan_server() lists a live server's files (what a backup copies),
 * inv_scan_backup() those of a backup directory (what prepare recovers); both
 * read page 0 of the tablespaces for their space id and format. The name
 * helpers answer what a name is and spell the names of the files of a table,
 * so that no other module writes an InnoDB file name or ending itself.
 */
#ifndef XB_INNODB_INVENTORY_H
#define XB_INNODB_INVENTORY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/page.h"

/* The server's innodb_data_file_path when none is set. */
#define INV_DATA_FILE_PATH_DEFAULT "ibdata1:12M:autoextend"
#define INV_REDO_NAME "ib_logfile0" /* the redo log, on the server and in a backup */

/* ---- innodb_data_file_path */

/* One file of the system tablespace, as innodb_data_file_path gives it. */
typedef struct inv_sys_part {
	char *name;          /* file name as written; may hold '/', and an absolute one ignores innodb_data_home_dir */
	char *opts;          /* what follows the name, as written (":12M:autoextend") */
	uint64_t size;       /* bytes (a bare number is bytes; K, M, G multiply) */
	uint64_t first_page; /* number of its first page: the pages of the files before it, by their sizes here */
	bool autoextend;     /* may grow (the last file only) */
	uint64_t max;        /* autoextend limit in bytes, 0 for none */
	bool raw;            /* a raw partition ("newraw" or "raw" after the size) */
} inv_sys_part;

/* A parsed innodb_data_file_path. */
typedef struct inv_dfp {
	inv_sys_part *part;  /* the files, in order (the first holds page 0) */
	int n;               /* how many (at least 1) */
} inv_dfp;

/* Parse spec (NULL or "": the default). page_size numbers the first pages
 * (0: 16384). Empty parts (";;", a trailing ';') are skipped. A spec the
 * server would not take is refused: XB_E_CONFIG "cannot parse
 * innodb_data_file_path 'SPEC': why". out is empty after a failure. */
int inv_dfp_parse(const char *spec, uint32_t page_size, inv_dfp *out, xb_error *err);
void inv_dfp_free(inv_dfp *d);

/* The innodb_data_file_path a backup records: the same files with only the
 * last component of their names (a backup holds them at its top), each with
 * its size and options exactly as spec writes them. */
int inv_dfp_for_backup(const char *spec, char *out, size_t n, xb_error *err);

/* ---- the files */

typedef enum inv_kind {
	INV_SYSTEM = 1, /* a file of the system tablespace */
	INV_UNDO,       /* an undo tablespace */
	INV_TABLE,      /* a file-per-table tablespace in a database directory */
	INV_REMOTE,     /* a DATA DIRECTORY tablespace, found through its link file */
	INV_REDO,       /* the redo log */
} inv_kind;

typedef struct inv_file {
	inv_kind kind;          /* what it is */
	char *path;             /* where it is */
	char *rel;              /* its path in a backup ("db/t.ibd"; the file name alone at the top) */
	uint64_t size;          /* bytes when scanned (0 when it could not be looked at) */
	uint32_t fs_block;      /* with identified: the file system's block size for it (512..65536) */
	int part;               /* INV_SYSTEM: its index in innodb_data_file_path */
	uint64_t first_page;    /* INV_SYSTEM: number of its first page, from the sizes of the files before it */
	bool identified;        /* page 0 was read and is valid: info holds it */
	innodb_space_info info; /* with identified: page 0 (space id, page size, format) */
	uint32_t space_id;      /* 0 for the system tablespace; else from page 0, UINT32_MAX when not identified */
	uint64_t dev, ino;      /* the file's device and inode when its page 0 was read (0 when it was not) */
} inv_file;

typedef struct inventory {
	inv_file *v;            /* system files in order, undo tablespaces, tables (directory order), the redo log */
	size_t n, cap;          /* count, allocated */
	uint32_t page_size;     /* page size the system files were numbered with (0: no system file found) */
} inventory;

/* Where a server keeps its InnoDB files (resolved directories). */
typedef struct inv_server {
	const char *datadir;        /* datadir */
	const char *data_home_dir;  /* innodb_data_home_dir (the datadir when the server has it empty) */
	const char *undo_dir;       /* innodb_undo_directory */
	const char *log_dir;        /* innodb_log_group_home_dir */
	const char *data_file_path; /* innodb_data_file_path (NULL or "": the default) */
	uint32_t page_size;         /* innodb_page_size (0: 16384) */
	int threads;                /* page 0 of the tablespaces is read by this many threads (0 or 1: the caller's) */
	/* Optional: whether a tablespace file (its path in a backup, device and
	 * inode) is one the caller knows unchanged, with its space id; its page 0
	 * is then not read (a stat instead of an open and a read). */
	bool (*known)(void *ctx, const char *rel, uint64_t dev, uint64_t ino, uint32_t *space_id);
	void *known_ctx;            /* given to known */
	/* Optional: whether a database directory (name NULL) or a file of one
	 * (its name in the directory) is left out of the listing (a partial
	 * backup); a file left out is never opened. */
	bool (*skip)(void *ctx, const char *db, const char *name);
	void *skip_ctx;             /* given to skip */
} inv_server;

/* A live server's files: every system file (each must be readable:
 * XB_E_IO_READ naming it), the undo tablespaces, the .ibd files and the
 * link files of the database directories of the datadir (not the ones
 * starting with '.' or '#', nor lost+found; a link file that cannot be read,
 * is empty or points to no file is passed over, as is a second file for one
 * table), and the redo log when it is there. Page 0 of undo tablespaces and
 * tables gives their space id (a file being created has none yet); those
 * reads, one open, fstat and read of each file, run on srv->threads workers of
 * the parallel executor once the directories are listed. A file gone by then
 * (dropped meanwhile) is not in the list. */
int inv_scan_server(const inv_server *srv, inventory *out, xb_error *err);

/* A backup directory's files: the system files named by data_file_path
 * (none when the first is missing: XB_E_MISSING_FILE when a later one is;
 * XB_E_CORRUPT_PAGE when the first has no valid page 0, whose page size
 * numbers the others), the undo tablespaces and .ibd files at the top, the
 * .ibd files of its subdirectories, and the redo log. Names starting with '.'
 * are passed over. Every tablespace's page 0 is read (a file that cannot be
 * read is an error; one with no valid page 0 is kept, not identified). */
int inv_scan_backup(const char *dir, const char *data_file_path, inventory *out, xb_error *err);

void inv_free(inventory *inv);

/* The first file of the system tablespace in inv, NULL when none. */
const inv_file *inv_system_first(const inventory *inv);

/* ---- reading */

/* Page 0 of path, checked: 0 and *info, 1 when the file holds no valid page 0
 * (short, all zero, corrupt: a tablespace being created), XB_E_IO_READ when it
 * cannot be opened or read. */
int inv_read_page0(const char *path, innodb_space_info *info, xb_error *err);

/* For a backup whose backup-my.cnf does not give them: does it fit the
 * server's defaults, 16 KiB pages (page_size) and a system tablespace of
 * one file as INV_DATA_FILE_PATH_DEFAULT makes it (data_file_path: ibdata1,
 * at least 12 MiB, holding every page FSP_SIZE counts, no ibdata2...)?
 * 0 when it does or page 0 of ibdata1 cannot tell; XB_E_CONFIG naming the
 * file, what it holds and the setting the defaults get wrong otherwise. */
int inv_backup_check_defaults(const char *dir, bool page_size, bool data_file_path, xb_error *err);

/* The path a DATA DIRECTORY link file holds (its first line), into out.
 * XB_E_IO_READ when it cannot be read; out is "" when it holds nothing. */
int inv_link_read(const char *link_path, char *out, size_t n, xb_error *err);

/* Where a DATA DIRECTORY tablespace is to be restored: the path its link file
 * holds, which must be absolute (XB_E_TARGET, with a hint, when it is not). */
int inv_link_target(const char *link_path, char *out, size_t n, xb_error *err);

/* ---- names */

bool inv_is_undo_name(const char *name);   /* an undo tablespace: "undo" and three digits */
bool inv_is_table_file(const char *name);  /* a tablespace file of a table (ends in .ibd) */
bool inv_is_link_file(const char *name);   /* a DATA DIRECTORY link file (ends in .isl) */
bool inv_is_redo_name(const char *name);   /* the redo log */
/* an InnoDB file of a datadir or a backup, by its name alone: the redo log, an
 * undo tablespace, a table's tablespace, or a system tablespace file of the
 * default innodb_data_file_path naming (ibdata and digits) */
bool inv_is_innodb_name(const char *name);
/* an entry of the datadir that can be a database directory (not '.'/'#'-led, not lost+found) */
bool inv_is_database_name(const char *name);

/* The functions below write into out (n bytes) the path dir "/" NAME, or NAME
 * alone when dir is NULL; XB_E_USAGE when it does not fit (see common/path.h). */

/* The tablespace file of table "db/t". */
int inv_table_file(char *out, size_t n, const char *dir, const char *table, xb_error *err);

/* The tablespace file a marker ("db/t.del") or any other file of a table stands for. */
int inv_table_file_of(char *out, size_t n, const char *dir, const char *name, xb_error *err);

/* The link file that goes with tablespace file "db/t.ibd". */
int inv_link_file_of(char *out, size_t n, const char *dir, const char *ibd, xb_error *err);

/* The name of a marker for tablespace file "db/t.ibd": "db/t" ending
 * (a name that is not a tablespace file keeps its whole name). */
int inv_marker_name(char *out, size_t n, const char *dir, const char *ibd, const char *ending, xb_error *err);

/* The redo log in dir. */
int inv_redo_file(char *out, size_t n, const char *dir, xb_error *err);

#endif
