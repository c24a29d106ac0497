/*
 * metafile.h - what the metadata files of a backup directory share.
 *
 * Every metadata file (xtrabackup_checkpoints, xtrabackup_info,
 * xtrabackup_binlog_info, xtrabackup_slave_info, xtrabackup_galera_info,
 * backup-my.cnf, the DDL markers, the MRU dump) has one module in src/info/
 * that owns its name, a typed struct, the writer and the reader. This is
 * their common plumbing.
 *
 * Writing: a module's xb_*_format() builds the file's bytes in an xb_text;
 * xb_metafile_put() hands them to an xb_sink (the backup's, whatever its
 * container), xb_metafile_rewrite() replaces a file that exists in a
 * directory safely (--prepare).
 *
 * Reading: the file is read whole and walked line by line, so every error
 * names the file and the line: "PATH: line N: what, got "text"". Three
 * shapes of file are read here, a module supplying only what its own lines
 * mean: "key = value" lines (xtrabackup_checkpoints, xtrabackup_info), one
 * line of separated fields (xtrabackup_binlog_info, xtrabackup_galera_info),
 * or any lines (xtrabackup_slave_info, the .ren marker).
 *
 * It also says which metadata files stay in the backup at a restore.
 */
#ifndef XB_INFO_METAFILE_H
#define XB_INFO_METAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "sink/sink.h"

/* ---- writing */

/* Text being formatted. Start with {0}; free with xb_text_free(). */
typedef struct xb_text {
	char *s;      /* the text, NUL-terminated (NULL while empty) */
	size_t n;     /* its length */
	size_t cap;   /* bytes allocated */
	bool nomem;   /* an append ran out of memory: the text is incomplete */
} xb_text;

/* Append printf-style; out of memory sets t->nomem (checked when written). */
void xb_text_add(xb_text *t, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

void xb_text_free(xb_text *t);

/* Write t as the file name into s (a whole small file, xb_sink_put()).
 * XB_E_INTERNAL when t ran out of memory. */
int xb_metafile_put(xb_sink *s, const char *name, const xb_text *t, xb_error *err);

/* Replace dir/name by t safely, for a file rewritten in a directory that
 * already holds it (prepare): the bytes go to "name.xbtmp", which is fsynced
 * and renamed over the file, then dir is fsynced; so the file is always the
 * old one or the new one, whole. (A directory sink renames first and fsyncs
 * at finish(): not enough for a file that exists.) XB_E_IO_WRITE naming the
 * file. */
int xb_metafile_rewrite(const char *dir, const char *name, const xb_text *t, xb_error *err);

/* Remove dir/name (none is fine), then fsync dir when durable. XB_E_IO_WRITE
 * naming the file. */
int xb_metafile_remove(const char *dir, const char *name, bool durable, xb_error *err);

/* ---- reading */

/* A piece of a line (not NUL-terminated). */
typedef struct xb_span {
	const char *s; /* first byte */
	size_t n;      /* length */
} xb_span;

/* Is the span exactly word? */
bool xb_span_is(xb_span v, const char *word);

/* Decimal digits only (no sign, no blank), at most UINT64_MAX. */
bool xb_span_u64(xb_span v, uint64_t *out);

/* An optional '-' then decimal digits, within int64. */
bool xb_span_i64(xb_span v, int64_t *out);

/* Copy the span into out (size bytes) with a NUL; false when it does not fit. */
bool xb_span_copy(xb_span v, char *out, size_t size);

/* The lines of a file read whole. */
typedef struct xb_lines {
	const char *name; /* the file, for messages */
	const char *p;    /* start of the next line */
	const char *end;  /* end of the text */
	int no;           /* number of the line last returned, from 1 */
} xb_lines;

/* The next line without its "\n" or "\r\n" (the last one may lack it);
 * false at the end. */
bool xb_lines_next(xb_lines *l, xb_span *line);

/* code and "NAME: line N: what, got "LINE"" for the line last returned
 * (what printf-style; at most 60 bytes of the line shown, other than
 * printable ASCII as '?'). Returns code. */
int xb_lines_error(const xb_lines *l, int code, xb_span line, xb_error *err, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

/* The same for line no of file name holding text (a value read by another
 * reader, such as the option-file reader). */
int xb_metafile_bad(int code, xb_error *err, const char *name, int no, const char *text, const char *fmt, ...)
	__attribute__((format(printf, 6, 7)));

/* Parses the lines of a file into value (the module's struct). */
typedef int (*xb_lines_parser)(xb_lines *l, void *value, xb_error *err);

/* Read dir/name whole (at most 1 MiB) and parse it, its lines named by the
 * path in messages. XB_E_MISSING_FILE when there is no such file ("cannot
 * open PATH: reason"), XB_E_IO_READ when it cannot be read or is larger;
 * else what parse returns. */
int xb_metafile_load(const char *dir, const char *name, xb_lines_parser parse, void *value, xb_error *err);

/* Read dir/name whole (at most max bytes) into *buf (malloc'd, NUL-terminated,
 * *len bytes), for a reader with its own limit (the manifest). Errors as
 * xb_metafile_load(). */
int xb_metafile_read_all(const char *dir, const char *name, uint64_t max, char **buf, size_t *len, xb_error *err);

/* Takes the value of one key into the module's struct: false when the
 * value is bad. Keys it does not know it skips (returns true). */
typedef bool (*xb_kv_parser)(xb_span key, xb_span val, void *value);

/* xb_metafile_load() of a file of "key = value" lines: the key is
 * [a-z0-9_]+; blanks around it, the '=' and the value are dropped; the value
 * may be empty ("name = "); blank lines are skipped. code and "PATH: line N:
 * expected "key = value"" or "...: bad value of KEY" otherwise. */
int xb_metafile_load_kv(const char *dir, const char *name, int code, xb_kv_parser parse, void *value,
			xb_error *err);

/* Takes the k fields of a one-line file into the module's struct: false
 * when they are not what the file holds. */
typedef bool (*xb_fields_parser)(const xb_span *f, size_t k, void *value);

/* xb_metafile_load() of a file of one line (blank lines may follow) of at
 * most max fields separated by sep (the last field takes the rest of the
 * line). XB_E_IO_READ and "PATH is empty", "PATH: line N: expected one
 * line" or "PATH: line 1: expected FORM" otherwise. */
int xb_metafile_load_line(const char *dir, const char *name, char sep, size_t max, xb_fields_parser parse,
			  const char *form, void *value, xb_error *err);

/* ---- the backup directory */

/* Is name, at the top of a backup, a metadata file that a restore leaves in
 * the backup (backup-my.cnf, xtrabackup_checkpoints, xtrabackup_binlog_info,
 * the old xtrabackup_binary, the MRU dump; and the manifest, whose .pmap
 * suffix mariabackup skips too), as mariabackup does? The others
 * (xtrabackup_info, xtrabackup_slave_info, ...) go to the datadir. */
bool xb_metafile_stays_behind(const char *name);

#endif
