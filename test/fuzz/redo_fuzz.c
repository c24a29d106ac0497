/*
 * redo_fuzz.c - libFuzzer target for the redo parser, the per-page collector
 * and the page applier (the code --prepare runs on untrusted log bytes).
 *
 * The first input byte picks a mode. Odd: the rest is raw log bytes, framed
 * mtr by mtr with redo_parse_mtr() exactly as read from a file (CRC and
 * sequence bit included), so the framing code sees arbitrary data. Even: the
 * rest is taken as the records of one mini-transaction; the harness appends
 * the termination byte and a correct CRC-32C, so mutations reach the record
 * rules instead of dying on the checksum; that mtr is framed and walked the
 * way the prepare's verifier does (redo_frame_mtr, collect_note_later into a
 * look-ahead collector merged afterwards). Every mtr that passes is split by
 * collect_add_mtr(); the batch is detached as the pipelined prepare detaches it
 * (collect_detach_batch, collect_refresh_later, collect_drop_superseded) and each
 * resulting page is replayed with replay_entry() on a
 * frame of a size chosen by the first byte (4 KiB .. 64 KiB, or a 8 KiB
 * ROW_FORMAT=COMPRESSED frame). The seed corpus (test/fuzz/corpus) holds real
 * mini-transactions of a 10.11 server. Built with clang -fsanitize=fuzzer,
 * address,undefined by `make check-fuzz`; any crash, leak, or undefined
 * behaviour fails.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "common/bytes.h"
#include "innodb/recovery/replay.h"
#include "innodb/crc32c.h"
#include "innodb/recovery/collect.h"
#include "innodb/redo.h"

#define LSN0 12288u

static void replay(collector *r, uint8_t mode)
{
	static const uint32_t sizes[] = {4096, 8192, 16384, 32768, 65536, 8192};
	int k = (mode >> 1) % 6;
	uint32_t size = sizes[k];
	uint8_t *page = calloc(1, size);
	size_t n;
	collect_page **v = collect_sorted_pages(r, &n);
	for (size_t i = 0; v && page && i < n; i++) {
		replay_frame f = {.page = page, .size = size, .space_id = v[i]->space_id, .page_no = v[i]->page_no,
				 .zip = k == 5};
		memset(page, 0, size);
		for (collect_entry *e = v[i]->first; e; e = e->next) {
			bool only_free;
			char why[160];
			if (replay_entry(&f, e->recs, e->len, NULL, &only_free, why, sizeof why) != REPLAY_OK)
				break;
		}
	}
	free(v);
	free(page);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size < 2 || size > (1u << 20))
		return 0;
	uint8_t mode = data[0];
	data++;
	size--;
	collector r, notes;
	if (collect_init(&r, 64u << 20))
		return 0;
	if (collect_init(&notes, 0)) {
		collect_free(&r);
		return 0;
	}
	char why[160];
	if (mode & 1) {
		uint64_t lsn = LSN0;
		size_t pos = 0;
		redo_mtr m;
		while (pos < size && redo_parse_mtr(data + pos, size - pos, lsn, LSN0, 1u << 30, false, &m, NULL, NULL) ==
					     REDO_MTR_OK) {
			collect_add_mtr(&r, data + pos, m.records_len, lsn, m.end_lsn, why, sizeof why);
			pos += m.len;
			lsn = m.end_lsn;
		}
	} else {
		uint8_t *buf = malloc(size + 5);
		if (buf) {
			memcpy(buf, data, size);
			buf[size] = 1;
			be32_put(buf + size + 1, crc32c(data, size));
			redo_mtr m;
			if (redo_frame_mtr(buf, size + 5, LSN0, LSN0, 1u << 30, false, true, &m) == REDO_MTR_OK &&
			    m.len == size + 5 && collect_note_later(&notes, buf, m.records_len, LSN0, why, sizeof why) == 0)
				collect_add_mtr(&r, buf, m.records_len, LSN0, m.end_lsn, why, sizeof why);
			free(buf);
		}
	}
	collector *b = NULL;
	if (collect_merge_later(&r, &notes) == 0 && (b = collect_detach_batch(&r)) != NULL && collect_refresh_later(b, &r) == 0)
		(void)collect_drop_superseded(b, &r);
	if (b) {
		replay(b, mode);
		collect_free(b);
		free(b);
	}
	collect_free(&notes);
	collect_free(&r);
	return 0;
}
