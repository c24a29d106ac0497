/*
 * redo_test.c - the 10.8+ redo log parser on real log bytes captured from a
 * 10.11 server (test/fixtures/innodb, see make-fixtures.sh; the expected
 * values in *.expect come from an independent decoder of the same format):
 * header and checkpoints, mtr framing (count and end LSN), file records,
 * each end-of-log condition, varints, the record walk (every record of the
 * real log against redo_records.expect, one page's records, damaged
 * records), and the backup header compared byte for byte with what
 * mariabackup wrote.
 */
#include <CUnit/Basic.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"
#include "innodb/crc32c.h"
#include "innodb/redo.h"

/* ---- fixtures */

#include "fixture.h"

/* Value of "key N" in an .expect file. */
static uint64_t expect_u64(const char *text, const char *key)
{
	size_t kl = strlen(key);
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL)
		if (!strncmp(l, key, kl) && l[kl] == ' ')
			return strtoull(l + kl + 1, NULL, 10);
	CU_FAIL("key missing in expect file");
	return 0;
}

/* ---- helpers */

struct walk {
	char lines[200][600]; /* "CREATE 5 ./test/t.ibd" as in the expect files */
	int n;
};

static void collect(void *ctx, const redo_file_rec *r)
{
	struct walk *w = ctx;
	if (w->n >= 200)
		return;
	char *l = w->lines[w->n++];
	switch (r->op) {
	case REDO_FILE_CREATE:
		snprintf(l, 600, "CREATE %u %s", r->space_id, r->name);
		break;
	case REDO_FILE_DELETE:
		snprintf(l, 600, "DELETE %u %s", r->space_id, r->name);
		break;
	case REDO_FILE_RENAME:
		snprintf(l, 600, "RENAME %u %s %s", r->space_id, r->name, r->new_name);
		break;
	case REDO_FILE_MODIFY:
		snprintf(l, 600, "MODIFY %u %s", r->space_id, r->name);
		break;
	case REDO_FILE_CHECKPOINT:
		snprintf(l, 600, "CHECKPOINT 0 %llu", (unsigned long long)r->checkpoint_lsn);
		break;
	case REDO_INIT_PAGE0:
		snprintf(l, 600, "INIT_PAGE0 %u", r->space_id);
		break;
	default:
		snprintf(l, 600, "op%d %u", r->op, r->space_id);
	}
}

/* Frame every mtr of buf from lsn; returns the count, *end = LSN where it stopped. */
static unsigned frame_all(const uint8_t *buf, size_t len, uint64_t lsn, uint64_t first_lsn, uint64_t capacity,
			  bool enc, uint64_t *end, int *last_status, struct walk *w)
{
	unsigned n = 0;
	size_t pos = 0;
	redo_mtr m;
	for (;;) {
		int st = redo_parse_mtr(buf + pos, len - pos, lsn, first_lsn, capacity, enc, &m, w ? collect : NULL, w);
		*last_status = st;
		if (st != REDO_MTR_OK)
			break;
		CU_ASSERT_EQUAL(m.end_lsn, lsn + m.len);
		CU_ASSERT_EQUAL(m.len, m.records_len + redo_mtr_trailer_len(enc));
		pos += m.len;
		lsn = m.end_lsn;
		n++;
	}
	if (*last_status == REDO_MTR_CORRUPT)
		printf("\n    corrupt mtr at %llu: %s", (unsigned long long)lsn, m.why);
	*end = lsn;
	return n;
}

/* Make one mtr of records + termination byte + CRC into out; returns its length. */
static size_t make_mtr(uint8_t *out, const uint8_t *recs, size_t n, uint8_t term)
{
	memcpy(out, recs, n);
	out[n] = term;
	uint32_t c = crc32c(recs, n);
	out[n + 1] = (uint8_t)(c >> 24);
	out[n + 2] = (uint8_t)(c >> 16);
	out[n + 3] = (uint8_t)(c >> 8);
	out[n + 4] = (uint8_t)c;
	return n + 5;
}

/* ---- tests */

static void test_header_and_checkpoint(void)
{
	size_t hl, el;
	uint8_t *head = load("redo_head.bin", &hl);
	char *exp = (char *)load("redo.expect", &el);
	CU_ASSERT_FATAL(head && exp);
	redo_log_info li;
	xb_error err;
	xb_err_clear(&err);
	int rc = redo_log_parse(head, hl, expect_u64(exp, "file_size"), "ib_logfile0", &li, &err);
	CU_ASSERT_EQUAL_FATAL(rc, 0);
	CU_ASSERT_EQUAL(li.hdr.format, REDO_FORMAT_10_8);
	CU_ASSERT_FALSE(li.hdr.encrypted);
	CU_ASSERT_STRING_EQUAL(li.hdr.creator, "MariaDB 10.11.19");
	CU_ASSERT_EQUAL(li.hdr.first_lsn, expect_u64(exp, "first_lsn"));
	CU_ASSERT_EQUAL(li.capacity, expect_u64(exp, "file_size") - 12288);
	CU_ASSERT_EQUAL(li.cp.checkpoint_lsn, expect_u64(exp, "checkpoint_lsn"));
	CU_ASSERT_EQUAL(li.cp.end_lsn, expect_u64(exp, "end_lsn"));
	CU_ASSERT_EQUAL((uint64_t)li.cp.block, expect_u64(exp, "checkpoint_block"));

	/* tie: block 2 wins; an invalid block is ignored */
	uint8_t area[12288];
	memcpy(area, head, sizeof area);
	memcpy(area + 4096, area + 8192, 64);
	redo_checkpoint cp;
	CU_ASSERT_EQUAL(redo_checkpoint_pick(area, li.hdr.first_lsn, "x", &cp, NULL), 0);
	CU_ASSERT_EQUAL(cp.block, 2);
	area[8192 + 3] ^= 1;
	CU_ASSERT_EQUAL(redo_checkpoint_pick(area, li.hdr.first_lsn, "x", &cp, NULL), 0);
	CU_ASSERT_EQUAL(cp.block, 1);
	area[4096 + 20] = 1; /* reserved bytes must be zero */
	CU_ASSERT_EQUAL(redo_checkpoint_pick(area, li.hdr.first_lsn, "x", &cp, &err), XB_E_REDO_FORMAT);
	CU_ASSERT(strstr(err.msg, "x: no valid checkpoint") != NULL);
	free(head);
	free(exp);
}

static void test_header_errors(void)
{
	size_t hl;
	uint8_t *head = load("redo_head.bin", &hl);
	CU_ASSERT_FATAL(head != NULL);
	redo_header h;
	xb_error err;
	static const uint32_t old[] = {0, 1, 103, 104, 0x50485953u, 0x80000000u | 104};
	for (size_t i = 0; i < sizeof old / sizeof old[0]; i++) {
		uint8_t b[512];
		memcpy(b, head, 512);
		b[0] = (uint8_t)(old[i] >> 24);
		b[1] = (uint8_t)(old[i] >> 16);
		b[2] = (uint8_t)(old[i] >> 8);
		b[3] = (uint8_t)old[i];
		xb_err_clear(&err);
		CU_ASSERT_EQUAL(redo_header_parse(b, 512, "/data/ib_logfile0", &h, &err), XB_E_REDO_FORMAT);
		CU_ASSERT(strstr(err.msg, "/data/ib_logfile0: cannot process redo log before MariaDB 10.8") != NULL);
	}
	uint8_t b[512];
	memcpy(b, head, 512);
	b[3] = 0x99;
	CU_ASSERT_EQUAL(redo_header_parse(b, 512, "f", &h, &err), XB_E_REDO_FORMAT);
	CU_ASSERT(strstr(err.msg, "unknown redo log format 0x50687999") != NULL);
	memcpy(b, head, 512);
	b[20] ^= 1;
	CU_ASSERT_EQUAL(redo_header_parse(b, 512, "f", &h, &err), XB_E_REDO_FORMAT);
	CU_ASSERT(strstr(err.msg, "checksum mismatch") != NULL);
	CU_ASSERT_EQUAL(redo_header_parse(head, 100, "f", &h, &err), XB_E_REDO_FORMAT);
	CU_ASSERT_EQUAL(redo_log_parse(head, hl, 12288, "f", &(redo_log_info){0}, &err), XB_E_REDO_FORMAT);
	CU_ASSERT(strstr(err.msg, "too small") != NULL);
	CU_ASSERT_EQUAL(redo_header_parse(head, 512, "f", &h, NULL), 0);
	free(head);
}

static void test_framing_real_log(void)
{
	size_t bl, el;
	uint8_t *body = load("redo_body.bin", &bl);
	char *exp = (char *)load("redo.expect", &el);
	CU_ASSERT_FATAL(body && exp);
	uint64_t first = expect_u64(exp, "first_lsn"), cap = expect_u64(exp, "file_size") - 12288;
	uint64_t start = expect_u64(exp, "start_lsn"), end;
	int st;
	struct walk *w = calloc(1, sizeof *w);
	unsigned n = frame_all(body, bl, start, first, cap, false, &end, &st, w);
	CU_ASSERT_EQUAL(n, expect_u64(exp, "mtrs"));
	CU_ASSERT_EQUAL(end, expect_u64(exp, "scan_end_lsn"));
	CU_ASSERT_EQUAL(st, REDO_MTR_END);
	printf("\n    %u mtrs, LSN %llu..%llu ... ", n, (unsigned long long)start, (unsigned long long)end);

	/* every "file ..." line of the oracle, in order */
	int i = 0;
	for (const char *l = strstr(exp, "\nfile "); l; l = strstr(l + 1, "\nfile ")) {
		const char *e = strchr(l + 1, '\n');
		char want[600];
		snprintf(want, sizeof want, "%.*s", (int)(e - l - 6), l + 6);
		CU_ASSERT_FATAL(i < w->n);
		if (strcmp(w->lines[i], want))
			printf("\n    record %d: got \"%s\", want \"%s\"", i, w->lines[i], want);
		CU_ASSERT_STRING_EQUAL(w->lines[i], want);
		i++;
	}
	CU_ASSERT_EQUAL(i, w->n);
	/* the DDL of the workload is there */
	int create = 0, rename = 0, del = 0;
	for (int k = 0; k < w->n; k++) {
		create += strstr(w->lines[k], "CREATE") && strstr(w->lines[k], "./test/t_full.ibd");
		rename += strstr(w->lines[k], "RENAME") && strstr(w->lines[k], "./test/t_ren.ibd ./test/t_ren2.ibd");
		del += strstr(w->lines[k], "DELETE") && strstr(w->lines[k], "./test/t_drop.ibd");
	}
	CU_ASSERT(create == 1 && rename == 1 && del == 1);
	free(w);

	/* premature end: every mtr cut short needs more */
	size_t pos = 0;
	uint64_t lsn = start;
	redo_mtr m;
	for (int k = 0; k < 200; k++) {
		CU_ASSERT_EQUAL_FATAL(redo_parse_mtr(body + pos, bl - pos, lsn, first, cap, false, &m, NULL, NULL),
				      REDO_MTR_OK);
		uint32_t len = m.len;
		for (uint32_t cut = 0; cut < len; cut += (len > 64 ? 7 : 1))
			CU_ASSERT_EQUAL(redo_parse_mtr(body + pos, cut, lsn, first, cap, false, &m, NULL, NULL),
					REDO_MTR_NEED_MORE);
		pos += len;
		lsn += len;
	}
	free(body);
	free(exp);
}

static void test_framing_encrypted(void)
{
	size_t hl, bl, el;
	uint8_t *head = load("redo_enc_head.bin", &hl);
	uint8_t *body = load("redo_enc_body.bin", &bl);
	char *exp = (char *)load("redo_enc.expect", &el);
	CU_ASSERT_FATAL(head && body && exp);
	redo_log_info li;
	CU_ASSERT_EQUAL_FATAL(redo_log_parse(head, hl, expect_u64(exp, "file_size"), "enc", &li, NULL), 0);
	CU_ASSERT_EQUAL(li.hdr.format, REDO_FORMAT_ENC_11);
	CU_ASSERT(li.hdr.encrypted);
	CU_ASSERT_EQUAL(li.cp.checkpoint_lsn, expect_u64(exp, "checkpoint_lsn"));
	uint64_t end;
	int st;
	unsigned n = frame_all(body, bl, expect_u64(exp, "start_lsn"), li.hdr.first_lsn, li.capacity, true, &end, &st,
			       NULL);
	CU_ASSERT_EQUAL(n, expect_u64(exp, "mtrs"));
	CU_ASSERT_EQUAL(end, expect_u64(exp, "scan_end_lsn"));
	CU_ASSERT_EQUAL(st, REDO_MTR_END);
	/* unencrypted framing does not accept it */
	redo_mtr m;
	CU_ASSERT_EQUAL(redo_parse_mtr(body, bl, li.cp.checkpoint_lsn, li.hdr.first_lsn, li.capacity, false, &m, NULL,
				       NULL),
			REDO_MTR_END);
	/* the backup header of an encrypted log keeps the encryption info */
	uint8_t out[12288];
	redo_build_backup_header_ex(out, li.cp.checkpoint_lsn, li.cp.end_lsn, REDO_BACKUP_CREATOR, li.hdr.format,
				    li.hdr.crypt_info);
	redo_header h;
	CU_ASSERT_EQUAL(redo_header_parse(out, sizeof out, "copy", &h, NULL), 0);
	CU_ASSERT(h.encrypted && !memcmp(h.crypt_info, head + 48, 28));
	free(head);
	free(body);
	free(exp);
}

static void test_end_conditions(void)
{
	size_t bl, el;
	uint8_t *body = load("redo_body.bin", &bl);
	char *exp = (char *)load("redo.expect", &el);
	CU_ASSERT_FATAL(body && exp);
	uint64_t first = expect_u64(exp, "first_lsn"), cap = expect_u64(exp, "file_size") - 12288;
	uint64_t start = expect_u64(exp, "start_lsn");
	redo_mtr m;
	CU_ASSERT_EQUAL_FATAL(redo_parse_mtr(body, bl, start, first, cap, false, &m, NULL, NULL), REDO_MTR_OK);
	uint32_t len = m.len;
	uint8_t *b = malloc(len + 16);
	CU_ASSERT_FATAL(b != NULL);

	/* 1. a 0x00 (or 0x01) byte where an mtr would start */
	b[0] = 0;
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len, start, first, cap, false, &m, NULL, NULL), REDO_MTR_END);
	CU_ASSERT_EQUAL(m.end_reason, REDO_END_MARKER);
	b[0] = 1;
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len, start, first, cap, false, &m, NULL, NULL), REDO_MTR_END);
	CU_ASSERT_EQUAL(m.end_reason, REDO_END_MARKER);

	/* 2. wrong sequence bit: flipped termination byte, or the same bytes one pass later */
	memcpy(b, body, len);
	b[len - 5] ^= 1;
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len, start, first, cap, false, &m, NULL, NULL), REDO_MTR_END);
	CU_ASSERT_EQUAL(m.end_reason, REDO_END_SEQUENCE);
	memcpy(b, body, len);
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len, start + cap, first, cap, false, &m, NULL, NULL), REDO_MTR_END);
	CU_ASSERT_EQUAL(m.end_reason, REDO_END_SEQUENCE);
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len, start + 2 * cap, first, cap, false, &m, NULL, NULL), REDO_MTR_OK);

	/* 3. bad CRC */
	b[len - 1] ^= 0x40;
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len, start, first, cap, false, &m, NULL, NULL), REDO_MTR_END);
	CU_ASSERT_EQUAL(m.end_reason, REDO_END_CRC);
	CU_ASSERT(strstr(m.why, "CRC") != NULL);

	/* 4. premature end */
	memcpy(b, body, len);
	CU_ASSERT_EQUAL(redo_parse_mtr(b, len - 1, start, first, cap, false, &m, NULL, NULL), REDO_MTR_NEED_MORE);
	CU_ASSERT_EQUAL(redo_parse_mtr(b, 0, start, first, cap, false, &m, NULL, NULL), REDO_MTR_NEED_MORE);

	/* no termination byte within 1 MiB */
	size_t big = REDO_MTR_SIZE_MAX + 4096;
	uint8_t *junk = malloc(big);
	CU_ASSERT_FATAL(junk != NULL);
	memset(junk, 0x3F, big); /* WRITE records of 16 bytes, forever */
	CU_ASSERT_EQUAL(redo_parse_mtr(junk, big, start, first, cap, false, &m, NULL, NULL), REDO_MTR_END);
	CU_ASSERT_EQUAL(m.end_reason, REDO_END_TOO_LONG);
	CU_ASSERT_EQUAL(redo_parse_mtr(junk, 4096, start, first, cap, false, &m, NULL, NULL), REDO_MTR_NEED_MORE);
	free(junk);
	free(b);
	free(body);
	free(exp);
}

static void test_spec_examples(void)
{
	/* doc/redo-records.md §9: FILE_CHECKPOINT-only mtr at LSN 66059 and a FILE_MODIFY */
	static const uint8_t cp[] = {0xfa, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x0b, 0x01, 0x44, 0x2f, 0x01, 0xa8};
	static const uint8_t mod[] = {0xb0, 0x04, 0x07, 0x00, 0x2e, 0x2f, 0x74, 0x65, 0x73, 0x74, 0x2f, 0x74, 0x5f,
				      0x64, 0x79, 0x6e, 0x2e, 0x69, 0x62, 0x64, 0x01, 0x38, 0x27, 0xfb, 0xe5};
	struct walk *w = calloc(1, sizeof *w);
	redo_mtr m;
	uint64_t first = 66059, cap = 1 << 20;
	CU_ASSERT_EQUAL(redo_parse_mtr(cp, sizeof cp, 66059, first, cap, false, &m, collect, w), REDO_MTR_OK);
	CU_ASSERT_EQUAL(m.len, 16);
	CU_ASSERT_EQUAL(m.end_lsn, 66075);
	CU_ASSERT_EQUAL(redo_parse_mtr(mod, sizeof mod, 66246, first, cap, false, &m, collect, w), REDO_MTR_OK);
	CU_ASSERT_EQUAL(m.len, 25);
	CU_ASSERT_EQUAL(w->n, 2);
	CU_ASSERT_STRING_EQUAL(w->lines[0], "CHECKPOINT 0 66059");
	CU_ASSERT_STRING_EQUAL(w->lines[1], "MODIFY 7 ./test/t_dyn.ibd");
	free(w);
}

static void test_record_rules(void)
{
	uint8_t out[256];
	redo_mtr m;
	uint64_t lsn = 20000, first = 12288, cap = 1 << 20;
	/* FILE_CHECKPOINT padding is accepted */
	static const uint8_t pad[] = {0xf1, 0x00, 0xf2, 0x00, 0x00};
	size_t n = make_mtr(out, pad, sizeof pad, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_OK);
	/* FILE_CREATE of a name without .ibd is corrupt */
	static const uint8_t bad_name[] = {0x87, 0x05, 0x00, 'a', '.', 'i', 'b', 'x'};
	n = make_mtr(out, bad_name, sizeof bad_name, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	CU_ASSERT(strstr(m.why, "malformed file record") != NULL);
	/* ...and fine with it; RENAME needs exactly one NUL */
	static const uint8_t ok_name[] = {0x87, 0x05, 0x00, 'a', '.', 'i', 'b', 'd'};
	n = make_mtr(out, ok_name, sizeof ok_name, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_OK);
	static const uint8_t ren[] = {0xad, 0x05, 0x00, 'a', '.', 'i', 'b', 'd', 0, 'b', '.', 'i', 'b', 'd'};
	n = make_mtr(out, ren, sizeof ren, 1);
	struct walk *w = calloc(1, sizeof *w);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, collect, w), REDO_MTR_OK);
	CU_ASSERT_EQUAL(w->n, 1);
	CU_ASSERT_STRING_EQUAL(w->lines[0], "RENAME 5 a.ibd b.ibd");
	static const uint8_t ren2[] = {0xad, 0x05, 0x00, 'a', '.', 'i', 'b', 'd', 'x', 'b', '.', 'i', 'b', 'd'};
	n = make_mtr(out, ren2, sizeof ren2, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	/* a file record for page 1, and one of space 0 */
	static const uint8_t page1[] = {0x87, 0x05, 0x01, 'a', '.', 'i', 'b', 'd'};
	n = make_mtr(out, page1, sizeof page1, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	static const uint8_t space0[] = {0x87, 0x00, 0x00, 'a', '.', 'i', 'b', 'd'};
	n = make_mtr(out, space0, sizeof space0, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	/* FILE_CHECKPOINT that is not the last record */
	static const uint8_t cp_first[] = {0xfa, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x0b, 0x12, 0x07, 0x06};
	n = make_mtr(out, cp_first, sizeof cp_first, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	/* INIT_PAGE of page 0 and TRIM_PAGES are reported; a same_page INIT_PAGE is corrupt */
	static const uint8_t init0[] = {0x12, 0x07, 0x00, 0x24, 0x02, 0x82, 0x00, 0x0a};
	n = make_mtr(out, init0, sizeof init0, 1);
	w->n = 0;
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, collect, w), REDO_MTR_OK);
	CU_ASSERT_EQUAL(m.n_records, 2);
	CU_ASSERT_EQUAL(w->n, 2);
	CU_ASSERT_STRING_EQUAL(w->lines[0], "INIT_PAGE0 7");
	CU_ASSERT_STRING_EQUAL(w->lines[1], "op7 2");
	CU_ASSERT_EQUAL(m.n_records, 2);
	static const uint8_t same_init[] = {0x12, 0x07, 0x00, 0x91, 0x00};
	n = make_mtr(out, same_init, sizeof same_init, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	/* the RESERVED type */
	static const uint8_t reserved[] = {0x63, 0x07, 0x00, 0x00};
	n = make_mtr(out, reserved, sizeof reserved, 1);
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, NULL, NULL), REDO_MTR_CORRUPT);
	/* nothing is reported from a corrupt mtr */
	static const uint8_t half[] = {0x87, 0x05, 0x00, 'a', '.', 'i', 'b', 'd', 0x63, 0x07, 0x00, 0x00};
	n = make_mtr(out, half, sizeof half, 1);
	w->n = 0;
	CU_ASSERT_EQUAL(redo_parse_mtr(out, n, lsn, first, cap, false, &m, collect, w), REDO_MTR_CORRUPT);
	CU_ASSERT_EQUAL(w->n, 0);
	free(w);
}

static void test_varints(void)
{
	static const uint32_t vals[] = {0,        1,         127,       128,        129,        16511,
					16512,    2113663,   2113664,   270549119,  270549120,  0x7FFFFFFF,
					0xEFFFFFFF, 0xFFFFFFFF};
	static const int lens[] = {1, 1, 1, 2, 2, 2, 3, 3, 4, 4, 5, 5, 5, 5};
	for (size_t i = 0; i < sizeof vals / sizeof vals[0]; i++) {
		uint8_t b[5];
		size_t n = redo_varint_encode(b, vals[i]);
		CU_ASSERT_EQUAL(n, (size_t)lens[i]);
		uint32_t v = 0;
		CU_ASSERT_EQUAL(redo_varint_decode(b, n, &v), lens[i]);
		CU_ASSERT_EQUAL(v, vals[i]);
		CU_ASSERT_EQUAL(redo_varint_decode(b, n - 1, &v), -1);
	}
	uint32_t v;
	static const uint8_t ex[] = {0x8f, 0xd6};
	CU_ASSERT_EQUAL(redo_varint_decode(ex, 2, &v), 2);
	CU_ASSERT_EQUAL(v, 4182);
	static const uint8_t bad[] = {0xf1, 0, 0, 0, 0};
	CU_ASSERT_EQUAL(redo_varint_decode(bad, 5, &v), 0);
	static const uint8_t ovf[] = {0xf0, 0xef, 0xdf, 0xbf, 0x80};
	CU_ASSERT_EQUAL(redo_varint_decode(ovf, 5, &v), 0);
	static const uint8_t maxv[] = {0xf0, 0xef, 0xdf, 0xbf, 0x7f};
	CU_ASSERT_EQUAL(redo_varint_decode(maxv, 5, &v), 5);
	CU_ASSERT_EQUAL(v, 0xFFFFFFFFu);
	CU_ASSERT_EQUAL(redo_varint_decode(ex, 0, &v), -1);
}

/* ---- the record walk (redo_rec_next) */

static const char *type_name(const redo_rec *h)
{
	static const char *const page[8] = {"FREE_PAGE", "INIT_PAGE", "EXTENDED", "WRITE",
					    "MEMSET",    "MEMMOVE",   "RESERVED", "OPTION"};
	if (!h->file)
		return page[h->type >> 4];
	switch (h->type) {
	case REDO_T_FILE_CREATE:
		return "FILE_CREATE";
	case REDO_T_FILE_DELETE:
		return "FILE_DELETE";
	case REDO_T_FILE_RENAME:
		return "FILE_RENAME";
	case REDO_T_FILE_MODIFY:
		return "FILE_MODIFY";
	case REDO_T_FILE_CHECKPOINT:
		return "FILE_CHECKPOINT";
	}
	return "FILE_?";
}

static uint64_t fnv(uint64_t h, const uint8_t *p, size_t n)
{
	while (n--)
		h = (h ^ *p++) * 0x100000001b3ull;
	return h;
}

/* Every record of every mtr of the real log, against what the reference decoder read
 * (redo_records.expect: counts, the first 40 records, a digest of all in log order). */
static void test_rec_walk_real_log(void)
{
	size_t bl, hl, el, rl;
	uint8_t *body = load("redo_body.bin", &bl), *head = load("redo_head.bin", &hl);
	char *exp = (char *)load("redo.expect", &el), *rexp = (char *)load("redo_records.expect", &rl);
	CU_ASSERT_FATAL(body && head && exp && rexp);
	redo_log_info li;
	CU_ASSERT_EQUAL_FATAL(redo_log_parse(head, hl, expect_u64(exp, "file_size"), "ib_logfile0", &li, NULL), 0);
	uint64_t lsn = expect_u64(exp, "start_lsn"), digest = 0xcbf29ce484222325ull;
	uint64_t nrec = 0, nsame = 0, nfile = 0, mtrs = 0;
	size_t pos = 0;
	char line[200];
	const char *want = strstr(rexp, "\nrec ");
	bool lines_ok = true;
	redo_mtr m;
	while (redo_frame_mtr(body + pos, bl - pos, lsn, li.hdr.first_lsn, li.capacity, false, true, &m) ==
	       REDO_MTR_OK) {
		redo_rec_it it = redo_rec_mtr(body + pos, m.records_len);
		redo_rec h;
		int st;
		uint32_t last_space = 0, last_page = 0, at = 0;
		while ((st = redo_rec_next(&it, &h)) == REDO_REC_OK) {
			/* records follow each other, the payload ends with the record */
			CU_ASSERT_EQUAL(h.start, at);
			CU_ASSERT(h.end > h.start && h.end <= m.records_len);
			CU_ASSERT_PTR_EQUAL(h.body + h.body_len, body + pos + h.end);
			CU_ASSERT_FALSE(h.padding);
			at = h.end;
			if (h.same_page) { /* carried over from the record that named the page */
				CU_ASSERT_EQUAL(h.space_id, last_space);
				CU_ASSERT_EQUAL(h.page_no, last_page);
			} else if (!h.file) {
				last_space = h.space_id;
				last_page = h.page_no;
			}
			uint8_t flags = (uint8_t)(h.same_page | h.file << 1), rec[22] = {h.type, flags};
			le32_put(rec + 2, h.space_id);
			le32_put(rec + 6, h.page_no);
			le32_put(rec + 10, h.start);
			le32_put(rec + 14, h.end - h.start);
			le32_put(rec + 18, h.body_len);
			digest = fnv(digest, rec, sizeof rec);
			nrec++;
			nsame += h.same_page;
			nfile += h.file;
			if (want) {
				snprintf(line, sizeof line, "\nrec %llu %u %s %u %u %u %u %u\n", (unsigned long long)mtrs,
					 h.start, type_name(&h), h.space_id, h.page_no, h.end - h.start, h.body_len, flags);
				if (strncmp(want, line, strlen(line) - 1)) {
					if (lines_ok)
						printf("\n    record walk: got%.*s", (int)strlen(line) - 1, line);
					lines_ok = false;
				}
				want = strstr(want + 1, "\nrec ");
			}
		}
		CU_ASSERT_EQUAL(st, REDO_REC_DONE);
		CU_ASSERT_EQUAL(at, m.records_len);
		CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_DONE);
		pos += m.len;
		lsn = m.end_lsn;
		mtrs++;
	}
	CU_ASSERT_EQUAL(mtrs, expect_u64(exp, "mtrs"));
	CU_ASSERT(lines_ok);
	CU_ASSERT_PTR_NULL(want);
	CU_ASSERT_EQUAL(nrec, expect_u64(rexp, "records"));
	CU_ASSERT_EQUAL(nsame, expect_u64(rexp, "same_page"));
	CU_ASSERT_EQUAL(nfile, expect_u64(rexp, "file"));
	char hex[32];
	snprintf(hex, sizeof hex, "\ndigest %016llx\n", (unsigned long long)digest);
	CU_ASSERT_PTR_NOT_NULL(strstr(rexp, hex));
	free(body);
	free(head);
	free(exp);
	free(rexp);
}

/* Find the real mtr number k of the log (its records, *len bytes). */
static uint8_t *real_mtr(unsigned k, uint32_t *len)
{
	size_t bl, hl, el;
	uint8_t *body = load("redo_body.bin", &bl), *head = load("redo_head.bin", &hl);
	char *exp = (char *)load("redo.expect", &el);
	uint8_t *out = NULL;
	redo_log_info li;
	if (body && head && exp &&
	    !redo_log_parse(head, hl, expect_u64(exp, "file_size"), "ib_logfile0", &li, NULL)) {
		uint64_t lsn = expect_u64(exp, "start_lsn");
		size_t pos = 0;
		redo_mtr m;
		for (unsigned i = 0; redo_frame_mtr(body + pos, bl - pos, lsn, li.hdr.first_lsn, li.capacity, false, true,
						     &m) == REDO_MTR_OK;
		     i++, pos += m.len, lsn = m.end_lsn)
			if (i == k && (out = malloc(m.records_len))) {
				memcpy(out, body + pos, m.records_len);
				*len = m.records_len;
				break;
			}
	}
	free(body);
	free(head);
	free(exp);
	return out;
}

/* The records of one page of a real mtr (mtr 3, bytes 72..126: page 0:301) walked as a
 * recovery entry; a record with bit 0x80 first in an entry is same_page, in an mtr a file record. */
static void test_rec_walk_entry(void)
{
	uint32_t len = 0;
	uint8_t *m = real_mtr(3, &len);
	CU_ASSERT_FATAL(m && len > 126);
	redo_rec_it it = redo_rec_entry(m + 72, 126 - 72);
	redo_rec h;
	static const uint8_t types[] = {REDO_T_WRITE,  REDO_T_WRITE,   REDO_T_WRITE,   REDO_T_EXTENDED,
					REDO_T_WRITE,  REDO_T_MEMSET,  REDO_T_MEMMOVE, REDO_T_WRITE,
					REDO_T_WRITE,  REDO_T_MEMMOVE, REDO_T_MEMMOVE};
	static const bool same[] = {false, true, false, true, true, true, true, false, true, true, false};
	size_t n = 0;
	while (redo_rec_next(&it, &h) == REDO_REC_OK) {
		CU_ASSERT_FATAL(n < sizeof types);
		CU_ASSERT_EQUAL(h.type, types[n]);
		CU_ASSERT_EQUAL(h.same_page, same[n]);
		CU_ASSERT_FALSE(h.file);
		CU_ASSERT_EQUAL(h.space_id, 0);
		CU_ASSERT_EQUAL(h.page_no, 301);
		n++;
	}
	CU_ASSERT_EQUAL(n, sizeof types);
	CU_ASSERT_EQUAL(it.pos, 126 - 72);
	/* started at a same_page record: an entry takes it as such, an mtr as a file record */
	it = redo_rec_entry(m + 78, 4);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_OK);
	CU_ASSERT(h.same_page && !h.file && h.type == REDO_T_WRITE && h.body_len == 3);
	it = redo_rec_mtr(m + 78, 4);
	int st = redo_rec_next(&it, &h);
	CU_ASSERT(st != REDO_REC_OK || (!h.same_page && h.file));
	free(m);
}

/* Damaged records are refused with their reason, and the walk stays on them. */
static void test_rec_refused(void)
{
	uint32_t len = 0;
	uint8_t *m = real_mtr(3, &len);
	CU_ASSERT_FATAL(m && len > 170);
	redo_rec h;
	/* cut inside the record at +165 (EXTENDED, 19 bytes): the ones before it come first */
	redo_rec_it it = redo_rec_mtr(m, 170);
	int st, n = 0;
	while ((st = redo_rec_next(&it, &h)) == REDO_REC_OK)
		n++;
	CU_ASSERT_EQUAL(n, 32);
	CU_ASSERT_EQUAL(st, REDO_REC_OVERRUN);
	CU_ASSERT_EQUAL(h.start, 165);
	CU_ASSERT_EQUAL(h.end, 184);
	CU_ASSERT_EQUAL(it.pos, 165);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_OVERRUN);
	CU_ASSERT_STRING_EQUAL(redo_rec_why(st), "record overruns its buffer");
	/* the same record with a length varint that is not one */
	m[166] = 0xf8;
	it = redo_rec_mtr(m, len);
	while ((st = redo_rec_next(&it, &h)) == REDO_REC_OK)
		;
	CU_ASSERT_EQUAL(st, REDO_REC_BAD_LENGTH);
	CU_ASSERT_EQUAL(it.pos, 165);
	CU_ASSERT_STRING_EQUAL(redo_rec_why(st), "bad record length");
	free(m);
	/* a page identifier cut by the record's end, a varint too long for a length, an end byte */
	static const uint8_t cut_id[] = {0x31, 0x05}, cut_id2[] = {0x32, 0x05, 0x85};
	static const uint8_t long_len[] = {0x30, 0xe0, 0, 0, 0}, marker[] = {0x32, 0x05, 0x07, 0x01};
	it = redo_rec_mtr(cut_id, sizeof cut_id);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_BAD_ID);
	CU_ASSERT_EQUAL(h.end, 2);
	it = redo_rec_entry(cut_id2, sizeof cut_id2);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_BAD_ID);
	CU_ASSERT_STRING_EQUAL(redo_rec_why(REDO_REC_BAD_ID), "bad page identifier");
	it = redo_rec_mtr(long_len, sizeof long_len);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_BAD_LENGTH);
	it = redo_rec_mtr(marker, sizeof marker);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_OK);
	CU_ASSERT(h.type == REDO_T_WRITE && h.space_id == 5 && h.page_no == 7 && h.body_len == 0);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_MARKER);
	CU_ASSERT_EQUAL(h.start, 3);
	CU_ASSERT_EQUAL(h.b, 0x01);
	/* FILE_CHECKPOINT padding (doc/redo-records.md §7) and a real FILE_CHECKPOINT */
	static const uint8_t pad[] = {0xf1, 0x00, 0xf2, 0x00, 0x00, 0xfa, 0, 0, 0, 0, 0, 0, 0, 0x01, 0x02, 0x0b};
	it = redo_rec_mtr(pad, sizeof pad);
	for (int i = 0; i < 2; i++) {
		CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_OK);
		CU_ASSERT(h.file && h.padding && h.type == REDO_T_FILE_CHECKPOINT && h.body_len == (uint32_t)i + 1);
	}
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_OK);
	CU_ASSERT(h.file && !h.padding && h.space_id == 0 && h.page_no == 0 && h.body_len == 8);
	CU_ASSERT_EQUAL(be64_get(h.body), 66059);
	CU_ASSERT_EQUAL(redo_rec_next(&it, &h), REDO_REC_DONE);
}

static void test_lsn_mapping(void)
{
	/* doc/redo-log.md §5.3: a 16 MiB log that wrapped 7 times */
	uint64_t first = 12288, cap = 16764928, lsn = 129053179;
	CU_ASSERT_EQUAL(redo_lsn_to_offset(lsn, first, cap), 11698683);
	CU_ASSERT_EQUAL(redo_sequence_bit(lsn, first, cap), 0);
	CU_ASSERT_EQUAL(redo_sequence_bit(first, first, cap), 1);
	CU_ASSERT_EQUAL(redo_sequence_bit(first + cap - 1, first, cap), 1);
	CU_ASSERT_EQUAL(redo_sequence_bit(first + cap, first, cap), 0);
	CU_ASSERT_EQUAL(redo_lsn_to_offset(first + cap, first, cap), 12288);
	CU_ASSERT_EQUAL(redo_lsn_to_offset(first + cap - 1, first, cap), 12288 + cap - 1);
}

static void test_backup_header_matches_mariabackup(void)
{
	size_t ml, el;
	uint8_t *mb = load("mb_ib_logfile0.bin", &ml);
	char *exp = (char *)load("mb.expect", &el);
	CU_ASSERT_FATAL(mb && exp && ml > 12288);
	uint64_t cp = expect_u64(exp, "checkpoint_lsn"), end = expect_u64(exp, "end_lsn");
	uint8_t out[12288];
	redo_build_backup_header(out, cp, end, REDO_BACKUP_CREATOR);
	CU_ASSERT(memcmp(out, mb, 12288) == 0);
	for (size_t i = 0; i < 12288; i++)
		if (out[i] != mb[i]) {
			printf("\n    first difference at byte %zu: ours %02x, mariabackup %02x", i, out[i], mb[i]);
			break;
		}
	/* and mariabackup's copy frames from the checkpoint exactly to last_lsn */
	redo_log_info li;
	CU_ASSERT_EQUAL_FATAL(redo_log_parse(mb, ml, ml, "mb", &li, NULL), 0);
	CU_ASSERT_EQUAL(li.hdr.first_lsn, cp);
	CU_ASSERT_STRING_EQUAL(li.hdr.creator, "Backup 10.11.19");
	uint64_t stop;
	int st;
	struct walk *w = calloc(1, sizeof *w);
	unsigned n = frame_all(mb + 12288, ml - 12288, cp, li.hdr.first_lsn, li.capacity, false, &stop, &st, w);
	CU_ASSERT(n > 0);
	CU_ASSERT_EQUAL(stop, expect_u64(exp, "last_lsn"));
	CU_ASSERT_EQUAL(st, REDO_MTR_NEED_MORE);
	/* the checkpoint's own FILE_CHECKPOINT record is in the copy */
	char want[64];
	snprintf(want, sizeof want, "CHECKPOINT 0 %llu", (unsigned long long)cp);
	int found = 0;
	for (int i = 0; i < w->n; i++)
		found += !strcmp(w->lines[i], want);
	CU_ASSERT_EQUAL(found, 1);
	free(w);
	free(mb);
	free(exp);
}

int main(void)
{
	find_fixture_dir();
	if (CU_initialize_registry() != CUE_SUCCESS)
		return CU_get_error();
	CU_pSuite s = CU_add_suite("redo", NULL, NULL);
	CU_add_test(s, "header and checkpoints of a real log", test_header_and_checkpoint);
	CU_add_test(s, "header errors", test_header_errors);
	CU_add_test(s, "mtr framing and file records over a real log", test_framing_real_log);
	CU_add_test(s, "framing of a real encrypted log", test_framing_encrypted);
	CU_add_test(s, "end-of-log conditions", test_end_conditions);
	CU_add_test(s, "doc/redo-records.md §9 examples", test_spec_examples);
	CU_add_test(s, "record rules", test_record_rules);
	CU_add_test(s, "varints", test_varints);
	CU_add_test(s, "record walk over every record of a real log", test_rec_walk_real_log);
	CU_add_test(s, "record walk of one page's records (entry)", test_rec_walk_entry);
	CU_add_test(s, "record walk refuses damaged records with the reason", test_rec_refused);
	CU_add_test(s, "LSN to offset, sequence bit", test_lsn_mapping);
	CU_add_test(s, "backup header equals mariabackup's", test_backup_header_matches_mariabackup);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	return failed ? 1 : 0;
}
