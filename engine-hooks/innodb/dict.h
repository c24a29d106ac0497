/*
 * dict.h - the InnoDB data dictionary of a (prepared) backup, read from its
 * system tablespace.
 *
 * InnoDB keeps its table definitions in four tables of the system tablespace,
 * SYS_TABLES, SYS_COLUMNS, SYS_INDEXES and SYS_FIELDS, whose clustered-index
 * roots the dictionary header (page 7) names (doc/export.md §1). Their records
 * are in the REDUNDANT format. dict_read() walks each B-tree from its root
 * down to the leftmost leaf and along the leaf level, page by page through
 * sys_space (which checks every page's checksum and refuses a page that is
 * not an index page of the expected index, or a walk that comes back to a
 * page: a loop), skips delete-marked records and builds one dict_table per
 * SYS_TABLES record: its columns in position order, its indexes in id order
 * with their fields. dict_build_index() then derives what the server's cache
 * holds for an index (the system columns and the primary key fields added,
 * fixed lengths, the counts): the .cfg writer (cfg.h) writes that.
 * Nothing here changes a file.
 */
#ifndef XB_INNODB_DICT_H
#define XB_INNODB_DICT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"

/* Column types and flags the dictionary stores (doc/export.md §2). */
#define DICT_MTYPE_VARCHAR 1
#define DICT_MTYPE_CHAR 2
#define DICT_MTYPE_FIXBINARY 3
#define DICT_MTYPE_BINARY 4
#define DICT_MTYPE_BLOB 5
#define DICT_MTYPE_INT 6
#define DICT_MTYPE_SYS 8
#define DICT_MTYPE_FLOAT 9
#define DICT_MTYPE_DOUBLE 10
#define DICT_MTYPE_DECIMAL 11
#define DICT_MTYPE_VARMYSQL 12
#define DICT_MTYPE_MYSQL 13
#define DICT_MTYPE_GEOMETRY 14
#define DICT_PRTYPE_NOT_NULL 256u
#define DICT_PRTYPE_BINARY_TYPE 1024u
#define DICT_PRTYPE_VIRTUAL 8192u

/* SYS_INDEXES.TYPE bits. */
#define DICT_INDEX_CLUSTERED 1u
#define DICT_INDEX_UNIQUE 2u
#define DICT_INDEX_FTS 32u
#define DICT_INDEX_SPATIAL 64u

/* Table flags (dict_table.flags). */
#define DICT_TF_COMPACT 1u
#define DICT_N_COLS_COMPACT 0x80000000u /* SYS_TABLES.N_COLS: not ROW_FORMAT=REDUNDANT */

/* One column, as SYS_COLUMNS stores it. */
typedef struct dict_col {
	char *name;      /* column name */
	uint32_t pos;    /* SYS_COLUMNS.POS (virtual columns: (nth virtual + 1) << 16 | position in the table) */
	uint32_t mtype;  /* main type (DICT_MTYPE_*) */
	uint32_t prtype; /* precise type: SQL type, NOT NULL, UNSIGNED, charset-collation << 16 ... */
	uint32_t len;    /* length in bytes */
	uint32_t prec;   /* SYS_COLUMNS.PREC (virtual columns: number of base columns) */
} dict_col;

/* One field of an index as SYS_FIELDS stores it. */
typedef struct dict_field {
	char *col_name;      /* the column it indexes */
	uint32_t prefix_len; /* bytes of a column prefix, 0 for the whole column */
	bool descending;     /* DESC order */
} dict_field;

/* One index, as SYS_INDEXES stores it, with its SYS_FIELDS. */
typedef struct dict_index {
	uint64_t id;              /* index id */
	char *name;               /* index name ("PRIMARY", "GEN_CLUST_INDEX", ...) */
	uint32_t type;            /* DICT_INDEX_* bits */
	uint32_t n_fields;        /* user-defined fields (SYS_INDEXES.N_FIELDS) */
	uint32_t space;           /* SYS_INDEXES.SPACE */
	uint32_t page;            /* root page number */
	dict_field *field;        /* the SYS_FIELDS records read, in position order */
	uint32_t n_field;         /* how many were read (== n_fields for a sound dictionary) */
} dict_index;

/* One table: its SYS_TABLES record, columns and indexes. */
typedef struct dict_table {
	char *name;          /* "db/table" as InnoDB spells it ("db/t#P#p0" for a partition) */
	uint64_t id;         /* table id */
	uint32_t n_cols_raw; /* SYS_TABLES.N_COLS as stored (DICT_N_COLS_COMPACT, virtual count << 16, count) */
	uint32_t type;       /* SYS_TABLES.TYPE as stored */
	uint32_t flags2;     /* SYS_TABLES.MIX_LEN: the table's flags2 */
	uint32_t space;      /* tablespace id */
	uint32_t flags;      /* the server's table flags derived from TYPE and N_COLS (what a .cfg carries) */
	uint32_t n_cols;     /* non-virtual user columns */
	uint32_t n_v_cols;   /* virtual columns */
	dict_col *col;       /* the columns: non-virtual in position order, then virtual ones */
	uint32_t n_col;      /* how many were read */
	dict_index *index;   /* the indexes in id order (the clustered one first) */
	uint32_t n_index;    /* how many */
} dict_table;

/* A backup's dictionary. */
typedef struct dict {
	dict_table *table;   /* the tables, in name order (SYS_TABLES' key) */
	size_t n;            /* how many */
	uint32_t page_size;  /* the system tablespace's logical page size */
} dict;

/* Read the dictionary of the backup in dir whose system tablespace is
 * data_file_path (NULL or "": the default "ibdata1..."), its files found and
 * numbered as the recovery does (spaces.h, which opens them read-write:
 * nothing is written). Errors: XB_E_MISSING_FILE / XB_E_IO_READ for
 * the files, XB_E_CORRUPT_PAGE naming the file and the page for a damaged
 * page, a page beyond the end of the files, a B-tree that loops or is not
 * what the dictionary header says, XB_E_CORRUPT_PAGE for a record that
 * breaks the layout of its table. *out is empty after a failure. */
int dict_read(const char *dir, const char *data_file_path, dict *out, xb_error *err);

void dict_free(dict *d);

/* The table named "db/t" in d, NULL when none. */
const dict_table *dict_find(const dict *d, const char *name);

/* The non-virtual column whose name is name, its index (0-based), -1 when none. */
int dict_col_index(const dict_table *t, const char *name);

/* ---- instant ALTER metadata (doc/export.md §3.3)
 *
 * After an instant DROP COLUMN or a reordering ADD COLUMN the clustered index
 * keeps its old field order: the order, and the dropped columns, are in a
 * metadata record (the first record of the leftmost leaf, marked minimum and
 * deleted) whose off-page value maps every field after DB_ROLL_PTR to a
 * column or a dropped one. The root page of such an index has type 18. */

/* One entry of the map: bit 15 dropped (bit 14 NOT NULL, low bits 0
 * variable length up to 255 bytes, 1 longer, else fixed length + 1), else
 * the column's position among the table's non-virtual columns. */
typedef struct dict_instant {
	uint16_t *map;   /* the fields after DB_ROLL_PTR, in index order */
	uint32_t n;      /* how many; 0: the index has the plain column order */
} dict_instant;

/* Read one logical page (page_size bytes) of a table's tablespace. */
typedef int (*dict_page_fn)(void *ctx, uint32_t page_no, uint8_t *page, xb_error *err);

/* Read t's instant ALTER metadata through read: out->n == 0 when the
 * clustered index has none or only instant ADD COLUMN at the end (its column
 * order is the plain one). Errors: XB_E_CORRUPT_PAGE naming the table and
 * the page for a metadata record, node pointer or map that is not sound (a
 * page of the map that cannot be read: read's error, prefixed). */
int dict_instant_read(const dict_table *t, uint32_t page_size, dict_page_fn read, void *ctx, dict_instant *out,
		      xb_error *err);

/* The same from the tablespace file path (its pages checked, page_compressed
 * ones decompressed). An encrypted tablespace is XB_E_USAGE: its pages
 * cannot be read without the keys. */
int dict_instant_read_file(const dict_table *t, const char *path, dict_instant *out, xb_error *err);

void dict_instant_free(dict_instant *i);

/* ---- the server's in-memory form of a table (what a .cfg describes) */

/* A column as the server's cache holds it: the user's non-virtual columns,
 * then DB_ROW_ID, DB_TRX_ID, DB_ROLL_PTR. */
typedef struct dict_mcol {
	const char *name;    /* column name (points into the dict_table or a constant) */
	uint32_t mtype;      /* main type */
	uint32_t prtype;     /* precise type */
	uint32_t len;        /* length */
	uint32_t mbminlen;   /* shortest character of its character set (0 for non-strings) */
	uint32_t mbmaxlen;   /* longest character */
	uint32_t ind;        /* its position in this list */
	uint32_t ord_part;   /* 1 when some index orders by it */
	uint32_t max_prefix; /* the longest prefix an ordering index takes, 0 for the whole column */
} dict_mcol;

/* One field of an index as the server's cache holds it. */
typedef struct dict_mfield {
	const char *name;    /* column name ("" for a column dropped by instant ALTER) */
	uint32_t prefix_len; /* prefix bytes, 0 for the whole column */
	uint32_t fixed_len;  /* bytes when of fixed size (and at most 768), else 0 */
	bool descending;     /* DESC order */
	int col;             /* index into the table's dict_mcol list, -1 for a virtual column */
} dict_mfield;

/* An index as the server's cache holds it. */
typedef struct dict_mindex {
	const dict_index *def;       /* its dictionary record */
	dict_mfield *field;          /* the fields: user-defined, then what the server adds */
	uint32_t n_fields;           /* how many */
	uint32_t n_user_defined_cols;/* user-defined fields */
	uint32_t n_uniq;             /* fields that identify a record */
	uint32_t n_nullable;         /* fields that may be NULL */
	uint32_t trx_id_offset;      /* clustered index: byte offset of DB_TRX_ID when fixed, else 0 */
} dict_mindex;

/* A table as the server's cache holds it. */
typedef struct dict_mtable {
	const dict_table *def;  /* its dictionary record */
	dict_mcol *col;         /* columns (n_cols of them) */
	uint32_t n_cols;        /* user non-virtual columns + 3 */
	dict_mindex *index;     /* indexes, clustered first */
	uint32_t n_index;       /* how many */
} dict_mtable;

/* Build t's in-memory form as the server does when it opens the table
 * (doc/export.md §3); inst (NULL or empty: none) orders the clustered index's
 * fields after DB_ROLL_PTR and adds its dropped ones. XB_E_CORRUPT_PAGE when
 * the definition is inconsistent (a field naming no column, no clustered
 * index first, a map that does not cover the columns), naming the table;
 * XB_E_USAGE for what this module does not build: an unknown character set,
 * FULLTEXT or SPATIAL indexes. */
int dict_build(const dict_table *t, const dict_instant *inst, dict_mtable *out, xb_error *err);

void dict_mtable_free(dict_mtable *m);

/* The character widths of collation id coll (prtype >> 16 & 0xffff) of a
 * string column: true and *mbmin, *mbmax when known. */
bool dict_charset_width(uint32_t coll, uint32_t *mbmin, uint32_t *mbmax);

#endif
