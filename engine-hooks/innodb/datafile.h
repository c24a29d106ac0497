/*
 * datafile.h - copy one InnoDB datafile (.ibd, ibdata*, undo*) into a sink.
 *
 * The file is read in big chunks through the direct-I/O asynchronous reader
 * (platform/aio.h), every page is validated as it passes (checksum of the
 * tablespace's format, LSN copies, page number: innodb_page_is_valid), and
 * the chunk goes to the sink as it is. A page that fails validation is
 * usually one the server was writing while we read it (a torn read): that
 * page alone is re-read, after a pause, up to `retries` times; the good copy
 * replaces it in the output. A page still invalid after that is corruption
 * and stops the copy with XB_E_CORRUPT_PAGE.
 *
 * Log lines, as mariabackup prints them (NN = opts.worker):
 *   [NN] ... Copying ./db/t1.ibd to <sink name>/db/t1.ibd
 *   [NN] ...         ...done
 *
 * Unwritten and deferred files. A tablespace created recently has a size
 * of 0, or is shorter than one page, or its page 0 is still all zero: the
 * server has not flushed page 0 yet, which may take minutes after CREATE.
 * Nothing is torn there, so nothing is re-read: the first read decides
 * (stats.unwritten). Every page of such a tablespace was made after the
 * checkpoint the backup's redo copy starts from (a page 0 not yet flushed
 * holds the checkpoint back to its creation), so recovery recreates it from
 * the redo log (FILE_CREATE, INIT_PAGE) whatever bytes the copy holds. With
 * opts.copy_unwritten the file is then copied as it is, unvalidated (its page
 * size is written nowhere yet), from the very read that showed page 0
 * unwritten. Without it, or when page 0 is written but does not validate yet
 * even after the re-reads, the file is not copied: innodb_datafile_copy
 * returns 0 with stats.deferred set (and stats.why saying which case),
 * having written nothing to the sink. The caller tries it again later; one
 * still invalid then is corrupt.
 *
 * Delta mode (opts.delta, an incremental backup). The pages are read and
 * validated exactly as above, but instead of the file the copy writes
 * "<dst>.delta" (innodb/delta.h: the pages that changed, with their page
 * numbers) into the sink and "<dst>.meta" (page size, compressed page size,
 * space id) into opts.meta_sink. Which pages go in is decided page by page,
 * apart from the writer: by opts.page_wanted when set, else by the LSN rule
 * of mariabackup (FIL_PAGE_LSN greater than opts.delta_lsn; pages never
 * written, LSN 0, never go in). A changed page that says it is the TRX_SYS
 * page (space 0, page 5) fails the copy with XB_E_SERVER_STATE: the server
 * was restarted with other undo tablespaces since the base, and no delta can
 * carry that. Page numbers in a delta count from the start of this file (an
 * ibdata2 delta starts at 0), as mariabackup writes them. A file whose page 0
 * was never written is deferred, or copied as it is to dst (opts.copy_unwritten,
 * the caller picks a name prepare takes whole).
 */
#ifndef XB_INNODB_DATAFILE_H
#define XB_INNODB_DATAFILE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "common/error.h"
#include "common/throttle.h"
#include "innodb/page.h"
#include "sink/sink.h"
#include "common/iogate.h"

#define DATAFILE_DEFAULT_CHUNK ((size_t)4 << 20) /* read size */
#define DATAFILE_DEFAULT_RETRIES 10              /* re-reads of an invalid page */
#define DATAFILE_DEFAULT_RETRY_MS 100u           /* pause before each re-read */
#define DATAFILE_READ_DEPTH 4                    /* chunk reads kept in flight */

typedef struct datafile_copy_opts {
	int worker;             /* [NN] in log lines */
	size_t chunk_bytes;     /* read size, 0 = 4 MiB; rounded up to a multiple of 64 KiB */
	int retries;            /* re-reads of an invalid page, 0 = 10, negative = none */
	unsigned retry_ms;      /* pause before each re-read in ms, 0 = 100 */
	xb_throttle *throttle;  /* --throttle limiter shared by all threads, NULL = unlimited */
	bool system_space;      /* ibdata*: skip validation in the doublewrite area; no page-number check for ibdata2.. */
	uint32_t first_page_no; /* page number of the first page of this file (ibdata2.. continue numbering) */
	const innodb_space_info *space; /* page-0 info to use (ibdata1's for ibdata2..); NULL = read page 0 of this file */
	void (*before_reread)(void *arg, uint32_t page_no, int attempt); /* testing only: called before each re-read, NULL in production */
	void *before_reread_arg; /* argument of before_reread */
	bool (*should_stop)(void *ctx, xb_error *err); /* polled before each chunk; true (with err set) aborts the copy; NULL = never */
	void *stop_ctx;         /* argument of should_stop */
	volatile uint64_t *progress_total; /* when set: the progress meter's total, raised by what is copied past expected_bytes (a growing file) */
	uint64_t expected_bytes; /* the file's size counted in progress_total before the copy */
	unsigned pagecomp_readable; /* bit N set: the server reads pages compressed with enum pagecomp_algo N (its provider is loaded); a page compressed otherwise fails the copy; 0 = not checked */
	xb_iogate *gate;        /* when set: chunks are read synchronously (no read-ahead) and every read and write passes this gate; NULL = read-ahead */
	bool copy_unwritten;    /* a file whose page 0 was never written is copied as it is (stats.unwritten), not deferred */
	bool delta;             /* write <dst>.delta and <dst>.meta (incremental backup) instead of the file */
	uint64_t delta_lsn;     /* delta: pages whose FIL_PAGE_LSN is greater go in (when page_wanted is NULL) */
	bool (*page_wanted)(void *ctx, uint32_t page_no, const uint8_t *page); /* delta: which pages go in; NULL = the LSN rule */
	void *page_wanted_ctx;  /* argument of page_wanted */
	xb_sink *meta_sink;     /* delta: where <dst>.meta goes (NULL = the data sink) */
} datafile_copy_opts;

typedef struct datafile_copy_stats {
	uint64_t bytes;         /* bytes written to the sink */
	uint64_t pages;         /* pages copied */
	uint64_t reread_pages;  /* pages that were invalid at first and valid on a re-read */
	uint64_t zero_pages;    /* all-zero (never written) pages copied */
	bool deferred;          /* not copied: the tablespace is being created, retry later */
	bool unwritten;         /* page 0 was never written (empty, short, zeros): no re-reads were made */
	char why[160];          /* when deferred: the reason, e.g. "page 0 is not written yet" */
	char read_mode[160];    /* how the file was read (xb_reader_mode), for the log */
	uint64_t delta_pages;   /* delta: pages written into the delta */
} datafile_copy_stats;

/* Fill *o with the defaults above (worker 0, no throttle, not the system space). */
void innodb_datafile_opts_init(datafile_copy_opts *o);

/* Copy src_path (opened as given; also the name used in log lines and
 * messages, so pass the datadir-relative "./db/t1.ibd" form when the
 * working directory is the datadir) to dst_relpath in sink. o may be NULL
 * (defaults). st must not be NULL: it receives the counters and the
 * deferred flag. *progress_bytes (may be NULL) is increased atomically as
 * bytes are read in delta mode, else as
 * bytes are written, for the progress meter.
 * Returns 0 when copied or deferred (check st->deferred); XB_E_CORRUPT_PAGE
 * ("page N of ./db/t1.ibd is corrupt: <reason>", with a hint) when a page
 * stays invalid; XB_E_SERVER_STATE when a page is compressed with an
 * algorithm outside o->pagecomp_readable (the server could not read it); XB_E_MISSING_FILE when the file is gone (dropped meanwhile);
 * XB_E_IO_READ, or the sink's error code. On error the sink file is aborted. */
int innodb_datafile_copy(const char *src_path, const char *dst_relpath, xb_sink *sink,
			 const datafile_copy_opts *o, datafile_copy_stats *st,
			 volatile uint64_t *progress_bytes, xb_error *err);

#endif
