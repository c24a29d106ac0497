/*
 * bpdump.c - InnoDB buffer-pool dump files (ib_buffer_pool, ib_lru_dump).
 *
 * The text parser makes one pass over the bytes: digits, a comma, digits,
 * then "\n", "\r\n" or the end of the buffer, accumulating each number with
 * an overflow check; anything else stops it with the line number and a
 * printable excerpt of the line (found again only on that error path). The
 * array is sized up front from the number of newlines, so a multi-million
 * line dump costs one memchr pass, one parse pass and one allocation. The
 * binary parser walks 8-byte big-endian records to the terminator.
 * Sorting is an LSD radix sort in 16-bit digits (page low, page high, space
 * low, space high) between the array and one temporary copy, skipping every
 * digit in which all entries agree (usually the two high ones), then one
 * pass drops duplicates. The text writer formats numbers two digits at a
 * time from a table into a buffer sized for the longest line. doc/dump-files.md.
 */
#include "innodb/bpdump.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "platform/file.h"

#define TEXT_LINE_MAX 22u       /* "4294967295,4294967295\n" */
#define SHOW_MAX 40u            /* bytes of a bad line shown in a message */
#define RADIX_MIN 65536u        /* below this many entries qsort is faster */
#define RADIX_BUCKETS 65536u    /* 16-bit digits */

static const char digit_pairs[201] =
	"00010203040506070809101112131415161718192021222324252627282930313233343536373839"
	"40414243444546474849505152535455565758596061626364656667686970717273747576777879"
	"8081828384858687888990919293949596979899";

const char *bp_format_name(int format)
{
	switch (format) {
	case BP_FORMAT_TEXT:
		return BP_TEXT_NAME;
	case BP_FORMAT_LRU:
		return BP_LRU_NAME;
	default:
		return "unknown";
	}
}

/* ---- the array */

int bp_dump_reserve(bp_dump *d, size_t cap, xb_error *err)
{
	if (cap <= d->cap)
		return 0;
	if (cap > SIZE_MAX / sizeof *d->v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for %zu buffer-pool dump entries", cap);
	bp_entry *v = realloc(d->v, cap * sizeof *v);
	if (!v)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for %zu buffer-pool dump entries", cap);
	d->v = v;
	d->cap = cap;
	return 0;
}

int bp_dump_push(bp_dump *d, uint32_t space_id, uint32_t page_no, xb_error *err)
{
	if (d->n == d->cap) {
		int rc = bp_dump_reserve(d, d->cap ? d->cap * 2 : 1024, err);
		if (rc)
			return rc;
	}
	d->v[d->n].space_id = space_id;
	d->v[d->n].page_no = page_no;
	d->n++;
	return 0;
}

void bp_dump_free(bp_dump *d)
{
	free(d->v);
	d->v = NULL;
	d->n = d->cap = 0;
}

/* ---- detection */

int bp_detect_format(const uint8_t *buf, size_t len)
{
	if (len == 0)
		return BP_FORMAT_TEXT;
	uint8_t c = buf[0];
	if ((c >= 0x20 && c <= 0x7e) || c == '\n' || c == '\r')
		return BP_FORMAT_TEXT;
	return BP_FORMAT_LRU;
}

/* ---- text */

/* Copy at most SHOW_MAX bytes of the line starting at ls (without its line
 * end) into show, non-printable bytes as '?', "..." when cut. */
static void show_line(const uint8_t *ls, const uint8_t *end, char *show, size_t cap)
{
	const uint8_t *nl = memchr(ls, '\n', (size_t)(end - ls));
	const uint8_t *le = nl ? nl : end;
	if (le > ls && le[-1] == '\r')
		le--;
	size_t n = (size_t)(le - ls), k = n > SHOW_MAX ? SHOW_MAX : n;
	if (k + 4 > cap)
		k = cap - 4;
	for (size_t i = 0; i < k; i++)
		show[i] = ls[i] >= 0x20 && ls[i] <= 0x7e ? (char)ls[i] : '?';
	if (k < n) {
		memcpy(show + k, "...", 3);
		k += 3;
	}
	show[k] = '\0';
}

/* Read decimal digits at *pp into *v. 0: ok, 1: no digit, 2: over UINT32_MAX. */
static int read_u32(const uint8_t **pp, const uint8_t *end, uint32_t *v)
{
	const uint8_t *p = *pp;
	uint64_t x = 0;
	if (p == end || (unsigned)(*p - '0') > 9)
		return 1;
	do {
		x = x * 10 + (unsigned)(*p - '0');
		if (x > UINT32_MAX)
			return 2;
		p++;
	} while (p < end && (unsigned)(*p - '0') <= 9);
	*v = (uint32_t)x;
	*pp = p;
	return 0;
}

static int text_error(xb_error *err, const char *name, size_t line, const uint8_t *ls, const uint8_t *end,
		      int why)
{
	char show[SHOW_MAX + 8];
	show_line(ls, end, show, sizeof show);
	if (why == 2)
		xb_err_set(err, XB_E_IO_READ, "%s: line %zu: number larger than 4294967295 in \"%s\"", name, line,
			   show);
	else if (!show[0] && (ls == end || *ls == '\n' || *ls == '\r'))
		xb_err_set(err, XB_E_IO_READ, "%s: line %zu: empty line", name, line);
	else
		xb_err_set(err, XB_E_IO_READ, "%s: line %zu: expected \"<space_id>,<page_no>\", got \"%s\"", name,
			   line, show);
	return xb_err_hint(err, "every line must be two unsigned decimal numbers and a comma, nothing else; "
				"the server stops loading a dump at its first malformed line");
}

int bp_parse_text(const uint8_t *buf, size_t len, const char *name, bp_dump *out, xb_error *err)
{
	if (!name)
		name = BP_TEXT_NAME;
	out->n = 0;
	const uint8_t *p = buf, *end = len ? buf + len : buf; /* buf may be NULL when len is 0 */
	size_t lines = 0;
	for (const uint8_t *q = p; q < end; lines++) {
		q = memchr(q, '\n', (size_t)(end - q));
		if (!q)
			break;
		q++;
	}
	int rc = bp_dump_reserve(out, lines + 1, err);
	if (rc) {
		bp_dump_free(out);
		return rc;
	}
	bp_entry *v = out->v;
	size_t n = 0, line = 0;
	while (p < end) {
		const uint8_t *ls = p;
		uint32_t space_id, page_no;
		int why;
		line++;
		if ((why = read_u32(&p, end, &space_id)) != 0)
			goto bad;
		why = 1;
		if (p == end || *p++ != ',')
			goto bad;
		if ((why = read_u32(&p, end, &page_no)) != 0)
			goto bad;
		why = 1;
		if (p < end && *p == '\r')
			p++;
		if (p < end && *p++ != '\n')
			goto bad;
		/* lines + 1 slots: a line ends with '\n' or at the end of buf */
		v[n].space_id = space_id;
		v[n].page_no = page_no;
		n++;
		continue;
	bad:
		bp_dump_free(out);
		return text_error(err, name, line, ls, end, why);
	}
	out->n = n;
	return 0;
}

/* ---- binary */

int bp_parse_lru(const uint8_t *buf, size_t len, const char *name, bp_dump *out, xb_error *err)
{
	if (!name)
		name = BP_LRU_NAME;
	out->n = 0;
	size_t n = 0, max = len / BP_LRU_RECORD;
	/* find the terminator first: the array is then allocated exactly */
	while (n < max && !(be32_get(buf + n * BP_LRU_RECORD) == UINT32_MAX &&
			    be32_get(buf + n * BP_LRU_RECORD + 4) == UINT32_MAX))
		n++;
	if (n == max && len % BP_LRU_RECORD) {
		bp_dump_free(out);
		return xb_err_set(err, XB_E_IO_READ,
				  "%s: truncated record at byte %zu (file length %zu is not a multiple of %u)", name,
				  max * BP_LRU_RECORD, len, BP_LRU_RECORD);
	}
	int rc = bp_dump_reserve(out, n ? n : 1, err);
	if (rc) {
		bp_dump_free(out);
		return rc;
	}
	for (size_t i = 0; i < n; i++) {
		out->v[i].space_id = be32_get(buf + i * BP_LRU_RECORD);
		out->v[i].page_no = be32_get(buf + i * BP_LRU_RECORD + 4);
	}
	out->n = n;
	return 0;
}

int bp_parse(const uint8_t *buf, size_t len, const char *name, bp_dump *out, xb_error *err)
{
	if (bp_detect_format(buf, len) == BP_FORMAT_TEXT)
		return bp_parse_text(buf, len, name, out, err);
	return bp_parse_lru(buf, len, name, out, err);
}

/* ---- sort, unique, filter */

static int entry_cmp(const void *a, const void *b)
{
	const bp_entry *x = a, *y = b;
	if (x->space_id != y->space_id)
		return x->space_id < y->space_id ? -1 : 1;
	if (x->page_no != y->page_no)
		return x->page_no < y->page_no ? -1 : 1;
	return 0;
}

static inline unsigned digit16(const bp_entry *e, int d)
{
	uint32_t w = d < 2 ? e->page_no : e->space_id;
	return (unsigned)(d & 1 ? w >> 16 : w & 0xffff);
}

/* LSD radix sort of v[0..n) by (space_id, page_no); false when out of memory. */
static bool radix_sort(bp_entry *v, size_t n)
{
	size_t *count = calloc((size_t)4 * RADIX_BUCKETS, sizeof *count);
	bp_entry *tmp = malloc(n * sizeof *tmp);
	if (!count || !tmp) {
		free(count);
		free(tmp);
		return false;
	}
	for (size_t i = 0; i < n; i++) {
		count[digit16(&v[i], 0)]++;
		count[RADIX_BUCKETS + digit16(&v[i], 1)]++;
		count[2 * RADIX_BUCKETS + digit16(&v[i], 2)]++;
		count[3 * RADIX_BUCKETS + digit16(&v[i], 3)]++;
	}
	bp_entry *src = v, *dst = tmp;
	for (int d = 0; d < 4; d++) {
		size_t *c = count + (size_t)d * RADIX_BUCKETS;
		if (c[digit16(&src[0], d)] == n)
			continue; /* every entry has the same digit: order unchanged */
		size_t sum = 0;
		for (size_t b = 0; b < RADIX_BUCKETS; b++) {
			size_t k = c[b];
			c[b] = sum;
			sum += k;
		}
		for (size_t i = 0; i < n; i++)
			dst[c[digit16(&src[i], d)]++] = src[i];
		bp_entry *t = src;
		src = dst;
		dst = t;
	}
	if (src != v)
		memcpy(v, src, n * sizeof *v);
	free(tmp);
	free(count);
	return true;
}

void bp_sort_unique(bp_dump *d)
{
	if (d->n < 2)
		return;
	if (d->n < RADIX_MIN || d->n > SIZE_MAX / sizeof *d->v || !radix_sort(d->v, d->n))
		qsort(d->v, d->n, sizeof *d->v, entry_cmp);
	size_t k = 1;
	for (size_t i = 1; i < d->n; i++)
		if (d->v[i].space_id != d->v[k - 1].space_id || d->v[i].page_no != d->v[k - 1].page_no)
			d->v[k++] = d->v[i];
	d->n = k;
}

int bp_unique_in_order(bp_dump *d, xb_error *err)
{
	if (d->n < 2)
		return 0;
	/* open addressing over the 64-bit keys, at most half full; the key of
	 * (0xFFFFFFFF, 0xFFFFFFFF) marks a free slot, so that entry is tracked apart */
	size_t slots = 16;
	while (slots < d->n * 2)
		slots *= 2;
	uint64_t *set = malloc(slots * sizeof *set);
	if (!set)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory for a buffer-pool dump of %zu pages", d->n);
	memset(set, 0xff, slots * sizeof *set);
	bool seen_free_key = false;
	size_t k = 0;
	for (size_t i = 0; i < d->n; i++) {
		uint64_t key = (uint64_t)d->v[i].space_id << 32 | d->v[i].page_no;
		bool dup;
		if (key == UINT64_MAX) {
			dup = seen_free_key;
			seen_free_key = true;
		} else {
			size_t h = (size_t)((key * 0x9E3779B97F4A7C15ull) >> 20) & (slots - 1);
			while (set[h] != UINT64_MAX && set[h] != key)
				h = (h + 1) & (slots - 1);
			dup = set[h] == key;
			set[h] = key;
		}
		if (!dup)
			d->v[k++] = d->v[i];
	}
	free(set);
	d->n = k;
	return 0;
}

size_t bp_filter(bp_dump *d, bool (*keep)(void *ctx, uint32_t space_id, uint32_t page_no), void *ctx)
{
	size_t k = 0;
	for (size_t i = 0; i < d->n; i++)
		if (keep(ctx, d->v[i].space_id, d->v[i].page_no))
			d->v[k++] = d->v[i];
	size_t dropped = d->n - k;
	d->n = k;
	return dropped;
}

/* ---- writers */

/* Decimal digits of v at p; returns the end. */
static inline uint8_t *put_u32(uint8_t *p, uint32_t v)
{
	uint8_t tmp[10];
	int i = 10;
	while (v >= 100) {
		uint32_t r = v % 100;
		v /= 100;
		i -= 2;
		memcpy(tmp + i, digit_pairs + 2 * r, 2);
	}
	if (v >= 10) {
		i -= 2;
		memcpy(tmp + i, digit_pairs + 2 * v, 2);
	} else {
		tmp[--i] = (uint8_t)('0' + v);
	}
	memcpy(p, tmp + i, (size_t)(10 - i));
	return p + 10 - i;
}

int bp_write_text(const bp_dump *d, uint8_t **out, size_t *len, xb_error *err)
{
	*out = NULL;
	*len = 0;
	if (d->n == 0)
		return 0;
	if (d->n > SIZE_MAX / TEXT_LINE_MAX)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory writing %zu buffer-pool dump entries", d->n);
	uint8_t *buf = malloc(d->n * TEXT_LINE_MAX);
	if (!buf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory writing %zu buffer-pool dump entries", d->n);
	uint8_t *p = buf;
	for (size_t i = 0; i < d->n; i++) {
		p = put_u32(p, d->v[i].space_id);
		*p++ = ',';
		p = put_u32(p, d->v[i].page_no);
		*p++ = '\n';
	}
	size_t n = (size_t)(p - buf);
	uint8_t *shrunk = realloc(buf, n);
	*out = shrunk ? shrunk : buf;
	*len = n;
	return 0;
}

int bp_write_lru(const bp_dump *d, uint8_t **out, size_t *len, xb_error *err)
{
	*out = NULL;
	*len = 0;
	if (d->n > (SIZE_MAX - 2 * BP_LRU_BLOCK) / BP_LRU_RECORD)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory writing %zu buffer-pool dump entries", d->n);
	size_t used = (d->n + 1) * BP_LRU_RECORD;
	size_t n = (used + BP_LRU_BLOCK - 1) / BP_LRU_BLOCK * BP_LRU_BLOCK;
	uint8_t *buf = calloc(n, 1);
	if (!buf)
		return xb_err_set(err, XB_E_INTERNAL, "out of memory writing %zu buffer-pool dump entries", d->n);
	for (size_t i = 0; i < d->n; i++) {
		be32_put(buf + i * BP_LRU_RECORD, d->v[i].space_id);
		be32_put(buf + i * BP_LRU_RECORD + 4, d->v[i].page_no);
	}
	memset(buf + d->n * BP_LRU_RECORD, 0xff, BP_LRU_RECORD);
	*out = buf;
	*len = n;
	return 0;
}

/* ---- files */

int bp_read_file(const char *path, bp_dump *out, int *format, xb_error *err)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_READ, "cannot open %s: %s", path, strerror(errno));
	struct stat st;
	if (fstat(fd, &st)) {
		int e = errno;
		close(fd);
		return xb_err_set(err, XB_E_IO_READ, "cannot stat %s: %s", path, strerror(e));
	}
	size_t cap = st.st_size > 0 ? (size_t)st.st_size + 1 : 4096, len = 0;
	uint8_t *buf = malloc(cap);
	if (!buf) {
		close(fd);
		return xb_err_set(err, XB_E_INTERNAL, "out of memory reading %s", path);
	}
	for (;;) {
		if (len == cap) { /* the file grew since fstat */
			uint8_t *nb = cap < SIZE_MAX / 2 ? realloc(buf, cap * 2) : NULL;
			if (!nb) {
				free(buf);
				close(fd);
				return xb_err_set(err, XB_E_INTERNAL, "out of memory reading %s", path);
			}
			buf = nb;
			cap *= 2;
		}
		ssize_t r = read(fd, buf + len, cap - len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			free(buf);
			close(fd);
			return xb_err_set(err, XB_E_IO_READ, "cannot read %s: %s", path, strerror(e));
		}
		if (r == 0)
			break;
		len += (size_t)r;
	}
	close(fd);
	int f = bp_detect_format(buf, len);
	if (format)
		*format = f;
	int rc = f == BP_FORMAT_TEXT ? bp_parse_text(buf, len, path, out, err)
				     : bp_parse_lru(buf, len, path, out, err);
	free(buf);
	return rc;
}

static int write_all(int fd, const uint8_t *p, size_t n, const char *path, xb_error *err)
{
	while (n) {
		ssize_t w = write(fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w < 0)
			return xb_err_set(err, XB_E_IO_WRITE, "cannot write %s: %s", path, strerror(errno));
		p += w;
		n -= (size_t)w;
	}
	return 0;
}

/* fsync the directory holding path, so a rename into it is durable. */
static int sync_dir_of(const char *path, xb_error *err)
{
	char dir[PATH_MAX];
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(dir, sizeof dir, ".");
	else if (slash == path)
		snprintf(dir, sizeof dir, "/");
	else if ((size_t)(slash - path) < sizeof dir)
		snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
	else
		return xb_err_set(err, XB_E_IO_WRITE, "path too long: %s", path);
	int fd = xb_dir_open(XB_FILE_CWD, dir, false);
	if (fd < 0)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot open directory %s: %s", dir, strerror(errno));
	int rc = 0;
	if (fsync(fd))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot fsync directory %s: %s", dir, strerror(errno));
	close(fd);
	return rc;
}

int bp_write_file(const char *path, const bp_dump *d, int format, xb_error *err)
{
	uint8_t *buf;
	size_t len;
	int rc;
	if (format == BP_FORMAT_TEXT)
		rc = bp_write_text(d, &buf, &len, err);
	else if (format == BP_FORMAT_LRU)
		rc = bp_write_lru(d, &buf, &len, err);
	else
		return xb_err_set(err, XB_E_INTERNAL, "bp_write_file: unknown format %d for %s", format, path);
	if (rc)
		return rc;
	char tmp[PATH_MAX];
	if (snprintf(tmp, sizeof tmp, "%s.tmp", path) >= (int)sizeof tmp) {
		free(buf);
		return xb_err_set(err, XB_E_IO_WRITE, "path too long: %s", path);
	}
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0660);
	if (fd < 0) {
		free(buf);
		return xb_err_set(err, XB_E_IO_WRITE, "cannot create %s: %s", tmp, strerror(errno));
	}
	rc = write_all(fd, buf, len, tmp, err);
	free(buf);
	if (!rc && fsync(fd))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot fsync %s: %s", tmp, strerror(errno));
	if (close(fd) && !rc)
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot close %s: %s", tmp, strerror(errno));
	if (!rc && rename(tmp, path))
		rc = xb_err_set(err, XB_E_IO_WRITE, "cannot rename %s to %s: %s", tmp, path, strerror(errno));
	if (rc) {
		unlink(tmp);
		return rc;
	}
	return sync_dir_of(path, err);
}
