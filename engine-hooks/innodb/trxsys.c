/*
 * trxsys.c - read the recovered binlog position from the rollback segment
 * headers (see trxsys.h).
 *
 * TRX_SYS page layout: after the FIL header (38 bytes), the transaction id
 * store (8) and a file segment header (10), 128 slots of (space id, page
 * number), FIL_NULL page for an unused slot. A rollback segment header page
 * holds, after the FIL header: format (4), history size (4), history list
 * base (16), file segment header (10), one 4-byte undo slot per 16 bytes of
 * page size, the max transaction id (8), then the binlog offset (8) and the
 * NUL-terminated binlog file name (up to 512 bytes).
 */
#include "innodb/trxsys.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common/bytes.h"

#define TRX_SYS_PAGE 5u
#define TRX_SYS_RSEGS (38u + 8u + 10u)
#define TRX_SYS_N_RSEGS 128u
#define FIL_NULL 0xFFFFFFFFu
#define BINLOG_NAME_LEN 512u

static int read_page(spaces *s, uint32_t space, uint32_t page, uint8_t *buf, bool *ok, xb_error *err)
{
	*ok = false;
	space_file *f = spaces_find(s, space);
	if (!f || f->info.zip || f->info.page_compressed || page >= spaces_size_pages(f))
		return 0;
	int fd;
	off_t off;
	uint64_t run;
	int rc = spaces_locate(f, page, &fd, &off, &run, err);
	if (rc)
		return rc;
	ssize_t n = pread(fd, buf, f->info.physical_size, off);
	if (n < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot read %s page %u: %s", f->rel, page, strerror(errno));
	*ok = n == (ssize_t)f->info.physical_size;
	return 0;
}

int trxsys_binlog_pos(spaces *s, char *name, size_t namelen, uint64_t *offset, bool *found, xb_error *err)
{
	*found = false;
	space_file *sys = spaces_find(s, 0);
	if (!sys)
		return 0;
	uint32_t ps = sys->info.physical_size;
	uint8_t *trx = malloc(INNODB_PAGE_SIZE_MAX), *rs = malloc(INNODB_PAGE_SIZE_MAX);
	char best[BINLOG_NAME_LEN + 1] = "";
	uint64_t best_off = 0;
	bool ok;
	int rc = trx && rs ? read_page(s, 0, TRX_SYS_PAGE, trx, &ok, err) : xb_err_set(err, XB_E_INTERNAL, "out of memory");
	for (uint32_t i = 0; !rc && ok && i < TRX_SYS_N_RSEGS; i++) {
		const uint8_t *slot = trx + TRX_SYS_RSEGS + 8 * i;
		uint32_t sp = be32_get(slot), pg = be32_get(slot + 4);
		bool got;
		if (pg == FIL_NULL || (rc = read_page(s, sp, pg, rs, &got, err)) || !got)
			continue;
		uint32_t base = 38u + 34u + (ps / 16u) * 4u + 8u; /* binlog offset */
		if (base + 8 + BINLOG_NAME_LEN > ps || !rs[base + 8])
			continue;
		char nm[BINLOG_NAME_LEN + 1];
		memcpy(nm, rs + base + 8, BINLOG_NAME_LEN);
		nm[BINLOG_NAME_LEN] = 0;
		uint64_t off = be64_get(rs + base);
		int cmp = *best ? strcmp(nm, best) : 1;
		if (cmp > 0 || (cmp == 0 && off > best_off)) {
			memcpy(best, nm, sizeof best);
			best_off = off;
			*found = true;
		}
	}
	free(trx);
	free(rs);
	if (*found) {
		snprintf(name, namelen, "%s", best);
		*offset = best_off;
	}
	return rc;
}
