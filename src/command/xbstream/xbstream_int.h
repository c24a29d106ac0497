/*
 * xbstream_int.h - the extraction engine shared by xbstream -x and --list.
 *
 * The engine (extract.c) reads chunks, keeps each file's chunks in order
 * and on one worker, and carries out what mariabackup's streams ask for
 * (payload, seek, end of file, rename, remove, rewrite). xbstream.c builds
 * the sinks from its settings (settings.h) and reports.
 */
#ifndef XB_XBSTREAM_INT_H
#define XB_XBSTREAM_INT_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "sink/sink.h"
#include "stream/xbstream_reader.h"

typedef struct xbx_conf {
	xb_sink *dir;       /* the directory sink (XB_SINK_DIR_UNTRUSTED); NULL for --list */
	xb_sink *chain;     /* decoding filters over dir, or NULL */
	bool decrypt;       /* *.xbcrypt go through chain */
	bool decompress;    /* *.zst and *.qp go through chain */
	int workers;        /* files written in parallel (1: all in the reading thread) */
	FILE *list;         /* --list: print "name<TAB>size" of each complete file here */
} xbx_conf;

typedef struct xbx_stats {
	uint64_t files;     /* files completed */
	uint64_t bytes;     /* payload bytes */
	uint64_t dropped;   /* files the writer aborted (end-of-file chunk followed by remove) */
	uint64_t removed;   /* files removed by remove chunks */
	uint64_t renamed;   /* files renamed by rename chunks */
	uint64_t stream;    /* stream bytes read */
} xbx_stats;

/* Extract (or list) the whole stream. On error nothing extracted is left
 * half-written: files not complete are removed. */
int xbx_run(const xbx_conf *conf, xbs_reader *r, xbx_stats *st, xb_error *err);

#endif
