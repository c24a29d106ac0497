/*
 * cfg.h - the .cfg file that goes with an exported InnoDB tablespace.
 *
 * FLUSH TABLES ... FOR EXPORT writes, beside each table's .ibd, a .cfg that
 * ALTER TABLE ... IMPORT TABLESPACE reads to check and adjust the imported
 * file: the exporting host, the table's name, its next AUTO_INCREMENT value,
 * page size and flags, every column of the server's in-memory table and every
 * index with its root page and fields (doc/export.md §4; version 1, the one a
 * 10.11 server writes). cfg_from_table() makes that description from a
 * dictionary table (dict.h) and the tablespace's page 0, cfg_encode() lays it
 * out byte for byte as the server does; cfg_decode() parses such a file and
 * cfg_compare() names the first field where two descriptions differ.
 * Memory only, apart from cfg_write_file() and cfg_read_file().
 */
#ifndef XB_INNODB_CFG_H
#define XB_INNODB_CFG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "innodb/dict.h"
#include "innodb/page.h"

#define CFG_VERSION_V1 1u /* the only version a 10.11 server writes and reads */

/* One column. */
typedef struct cfg_col {
	uint32_t prtype;      /* precise type */
	uint32_t mtype;       /* main type */
	uint32_t len;         /* length */
	uint32_t mbminmaxlen; /* mbmaxlen * 5 + mbminlen */
	uint32_t ind;         /* position among the table's columns */
	uint32_t ord_part;    /* 1 when an index orders by it */
	uint32_t max_prefix;  /* longest ordering prefix, 0 for the whole column */
	char *name;           /* column name */
} cfg_col;

/* One field of an index. */
typedef struct cfg_field {
	uint32_t prefix_len; /* prefix bytes, 0 for the whole column */
	uint32_t fixed_len;  /* fixed length, with bit 31 set for a descending field */
	char *name;          /* column name ("" for a dropped column) */
} cfg_field;

/* One index. */
typedef struct cfg_index {
	uint64_t id;                  /* index id */
	uint32_t space;               /* tablespace id */
	uint32_t page;                /* root page */
	uint32_t type;                /* index type bits */
	uint32_t trx_id_offset;       /* offset of DB_TRX_ID in a clustered record, 0 when variable */
	uint32_t n_user_defined_cols; /* user-defined fields */
	uint32_t n_uniq;              /* fields identifying a record */
	uint32_t n_nullable;          /* nullable fields */
	uint32_t n_fields;            /* fields */
	char *name;                   /* index name */
	cfg_field *field;             /* n_fields of them */
} cfg_index;

/* A whole .cfg. */
typedef struct cfg {
	uint32_t version;     /* CFG_VERSION_V1 */
	char *hostname;       /* the host that wrote it */
	char *table_name;     /* "db/table" */
	uint64_t autoinc;     /* next AUTO_INCREMENT value, 0 when none */
	uint32_t page_size;   /* logical page size */
	uint32_t flags;       /* the table's flags (dict_table.flags) */
	uint32_t n_cols;      /* columns, the 3 system ones included */
	cfg_col *col;         /* n_cols of them */
	uint32_t n_indexes;   /* indexes */
	cfg_index *index;     /* n_indexes of them */
} cfg;

/* The description of table t for export: its in-memory form (dict_build,
 * with inst: its instant ALTER metadata, NULL when it has none),
 * checked against page0, the parsed page 0 of its .ibd (same space id, the
 * page size of the system tablespace the dictionary came from: else
 * XB_E_CORRUPT_PAGE naming the table). hostname: what to record (NULL:
 * "Hostname unknown", as the server writes when it has none). autoinc: the next AUTO_INCREMENT value to record (see
 * cfg_autoinc()). Errors as dict_build(). */
int cfg_from_table(const dict_table *t, const dict_instant *inst, uint32_t page_size, const innodb_space_info *page0,
		   const char *hostname, uint64_t autoinc, cfg *out, xb_error *err);

/* The AUTO_INCREMENT value the server records for a table whose clustered
 * index root page is root (logical page): the value it persists there plus 1
 * when has_autoinc (the table has an AUTO_INCREMENT column: the dictionary
 * does not say so, the .frm does), else 0. */
uint64_t cfg_autoinc(const uint8_t *root, bool has_autoinc);

/* The bytes of c (malloc'ed into *buf, *len). */
int cfg_encode(const cfg *c, uint8_t **buf, size_t *len, xb_error *err);

/* Parse a .cfg held in buf; what names it in messages. A short or
 * inconsistent file is XB_E_STREAM_CORRUPT "WHAT: truncated in ... at byte N",
 * an unknown version is XB_E_STREAM_CORRUPT too. *out is empty after a failure. */
int cfg_decode(const uint8_t *buf, size_t len, const char *what, cfg *out, xb_error *err);

/* Write c to path (created or replaced), read and parse path. */
int cfg_write_file(const cfg *c, const char *path, xb_error *err);
int cfg_read_file(const char *path, cfg *out, xb_error *err);

void cfg_free(cfg *c);

/* What cfg_compare() passes over. */
enum {
	CFG_CMP_HOSTNAME = 1, /* the hostname */
	CFG_CMP_AUTOINC = 2,  /* the AUTO_INCREMENT value */
};

/* 0 when a and b are equal field by field (but for what ignore names);
 * else 1 and the first difference in diff ("index k_c field 1 (id):
 * fixed_len 4 != 0"). */
int cfg_compare(const cfg *a, const cfg *b, unsigned ignore, char *diff, size_t n);

#endif
