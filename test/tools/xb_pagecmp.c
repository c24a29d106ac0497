/*
 * xb_pagecmp.c - compare InnoDB files page by page, for the --prepare tests.
 *
 * usage: xb_pagecmp [-v] [-n MAX] [--pc-tail] A B   A and B both files, or both directories
 *        xb_pagecmp --info FILE           print the page size and format of FILE
 *
 * Two directories: every InnoDB file under them is compared, matched by its path
 * relative to A and B: ibdata* and undo[0-9]* at any depth and every *.ibd. A file
 * present on one side only is reported as "ONLY". Two files: they are compared.
 * The page size comes from the flags of page 0 (innodb_page0_parse() of libxb.a;
 * when page 0 of A fails its checksum the flags are decoded anyway and the
 * failure is reported), so ROW_FORMAT=COMPRESSED files are compared in pages of
 * their physical (zip) size. Output, one line per finding:
 *   DIFF  path: N of M pages differ (page size P): 3,5-7,...
 *   SIZE  path: A has X bytes, B has Y bytes     (the common pages are compared too)
 *   ONLY  A|B path
 *   ERROR path: what went wrong (unreadable file, bad page 0)
 *   TAIL  path: N pages differ only after their page_compressed image: 3,...
 * A TAIL page is a page of a page_compressed tablespace stored in compressed form
 * on both sides with the same image (the page type field says how long the image
 * is: full_crc32 (type & 0x7fff) * 256 bytes, CRC-32C included; legacy 40 + the
 * stream length at byte 38) that differs only in the bytes after the image. No
 * reader looks at those bytes (the CRC and the zlib stream end with the image):
 * they are whatever an earlier, longer write of the page left there, because a
 * page_compressed page is written only up to its image rounded up to the block
 * size. Such pages count as differences unless --pc-tail is given, which reports
 * them on TAIL lines only.
 * -v also prints SAME lines and, for every differing page (at most MAX per file,
 * default 20), the first differing byte, the number of differing bytes, the page
 * LSN, type and page-number fields on each side and whether each side passes its
 * checksum, plus triage notes that never change the verdict: "A zero"/"B zero"
 * (an all-zero page: never written, or a punched hole), "free in A"/"free in B"
 * (the page is free in that file's extent descriptor or beyond FSP_FREE_LIMIT),
 * "same after decompression" (page_compressed: both sides decompress, with
 * pagecomp_decompress() of libxb.a, to the same page). A final line sums up. Exit code: 0 identical, 1 differences, 2 error
 * or usage. --info prints "space_id=S logical=L physical=P full_crc32=0|1 zip=0|1
 * page_compressed=0|1 pages=N" (exit 2 if page 0 cannot be decoded).
 */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <fnmatch.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "common/bytes.h"
#include "common/path.h"
#include "innodb/page.h"
#include "innodb/pagecomp.h"

static bool verbose, pc_tail;
static long max_detail = 20;
static long n_files, n_same, n_diff, n_only, n_size, n_err;
static unsigned long long n_tail;

/* Read exactly n bytes at off (short only at end of file); -1 on error. */
static ssize_t read_at(int fd, uint8_t *buf, size_t n, off_t off)
{
	size_t got = 0;
	while (got < n) {
		ssize_t r = pread(fd, buf + got, n - got, off + (off_t)got);
		if (r < 0) {
			if (errno == EINTR)
				continue;
			return -1;
		}
		if (r == 0)
			break;
		got += (size_t)r;
	}
	return (ssize_t)got;
}

/* Page size and format of an open file from its page 0. Returns 0, or -1 with why set. */
static int space_info(int fd, innodb_space_info *si, char *why, size_t wl, bool *page0_bad)
{
	static uint8_t buf[INNODB_PAGE_SIZE_MAX];
	ssize_t n = read_at(fd, buf, sizeof buf, 0);
	xb_error err;
	*page0_bad = false;
	if (n < 0) {
		snprintf(why, wl, "read of page 0 failed: %s", strerror(errno));
		return -1;
	}
	if (innodb_page0_parse(buf, (size_t)n, si, &err) == 0)
		return 0;
	/* Page 0 is bad: fall back to its flags so the rest can still be compared. */
	memset(si, 0, sizeof *si);
	if (n >= FSP_SPACE_FLAGS + 4 && innodb_flags_decode(be32_get(buf + FSP_SPACE_FLAGS), si)) {
		si->space_id = be32_get(buf + FSP_SPACE_ID);
		*page0_bad = true;
		snprintf(why, wl, "%s", err.msg);
		return 0;
	}
	snprintf(why, wl, "%s", err.msg);
	return -1;
}

static void range_add(char *list, size_t cap, uint32_t *first, uint32_t *last, uint32_t pg, bool flush)
{
	size_t len = strlen(list);
	if (!flush && *first != UINT32_MAX && pg == *last + 1) {
		*last = pg;
		return;
	}
	if (*first != UINT32_MAX && len + 32 < cap) {
		if (*first == *last)
			snprintf(list + len, cap - len, "%s%u", len ? "," : "", *first);
		else
			snprintf(list + len, cap - len, "%s%u-%u", len ? "," : "", *first, *last);
	} else if (*first != UINT32_MAX && len + 4 < cap && (len < 3 || strcmp(list + len - 3, "...")))
		snprintf(list + len, cap - len, ",...");
	*first = *last = pg;
}

static bool all_zero(const uint8_t *p, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++)
		if (p[i])
			return false;
	return true;
}

/* Length of the compressed image of a page_compressed page stored in compressed
 * form, 0 when the page is not in that form. */
static uint32_t pc_image_len(const uint8_t *p, const innodb_space_info *si)
{
	uint32_t type = be16_get(p + FIL_PAGE_TYPE), len;
	if (!si->page_compressed)
		return 0;
	if (si->full_crc32)
		len = (type & 0x8000) ? (type & 0x7fff) << 8 : 0;
	else
		len = type == FIL_PAGE_PAGE_COMPRESSED ? 40 + be16_get(p + 38) : 0;
	return len <= si->physical_size ? len : 0;
}

/* Same compressed image on both sides, differences only after it? */
static bool tail_only(const uint8_t *a, const uint8_t *b, const innodb_space_info *si)
{
	uint32_t la = pc_image_len(a, si), lb = pc_image_len(b, si);
	return la && la == lb && !memcmp(a, b, la);
}

/* Is page pg free according to the file's allocation metadata: beyond FSP_FREE_LIMIT
 * of page 0, in an extent whose descriptor is unused or XDES_FREE, or with its
 * XDES free bit set? -1 when the descriptor page cannot be read. */
static int page_is_free(int fd, const innodb_space_info *si, uint32_t pg)
{
	static uint8_t buf[INNODB_PAGE_SIZE_MAX];
	uint32_t ps = si->physical_size, ext = innodb_extent_pages(si->logical_size);
	if (read_at(fd, buf, ps, 0) != (ssize_t)ps)
		return -1;
	if (pg >= be32_get(buf + FSP_FREE_LIMIT))
		return 1;
	uint32_t xdes_page = pg & ~(ps - 1);
	if (xdes_page && read_at(fd, buf, ps, (off_t)xdes_page * ps) != (ssize_t)ps)
		return -1;
	uint32_t xdes_size = 24 + 2 * ext / 8;
	const uint8_t *d = buf + FIL_PAGE_DATA + 112 + (size_t)((pg & (ps - 1)) / ext) * xdes_size;
	if (d + xdes_size > buf + ps)
		return -1;
	uint32_t state = be32_get(d + 20);
	if (state == 0 || state == 1) /* not initialised, XDES_FREE */
		return 1;
	uint32_t bit = 2 * (pg % ext);
	return (d[24 + bit / 8] >> (bit % 8)) & 1;
}

static void page_detail(const char *rel, uint32_t pg, const uint8_t *a, const uint8_t *b, uint32_t ps,
			const innodb_space_info *si, int fda, int fdb)
{
	uint32_t i, first = UINT32_MAX, nbytes = 0;
	for (i = 0; i < ps; i++)
		if (a[i] != b[i]) {
			if (first == UINT32_MAX)
				first = i;
			nbytes++;
		}
	bool va = innodb_page_is_valid(a, si, pg, true, NULL, 0);
	bool vb = innodb_page_is_valid(b, si, pg, true, NULL, 0);
	char notes[200] = "";
	size_t nl = 0;
	if (all_zero(a, ps))
		nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; A zero");
	if (all_zero(b, ps))
		nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; B zero");
	if (page_is_free(fda, si, pg) == 1)
		nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; free in A");
	if (page_is_free(fdb, si, pg) == 1)
		nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; free in B");
	if (tail_only(a, b, si))
		nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; only after the %u-byte compressed image",
				       pc_image_len(a, si));
	else if (si->page_compressed && (pagecomp_is_compressed(a, si) || pagecomp_is_compressed(b, si))) {
		static uint8_t da[INNODB_PAGE_SIZE_MAX], db[INNODB_PAGE_SIZE_MAX];
		xb_error e;
		if (pagecomp_decompress(a, da, si, pg, &e) == 0 && pagecomp_decompress(b, db, si, pg, &e) == 0)
			nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; %s after decompression",
					       memcmp(da, db, si->logical_size) ? "still different" : "same");
		else
			nl += (size_t)snprintf(notes + nl, sizeof notes - nl, "; no decompression (%.60s)", e.msg);
	}
	printf("      %s page %u: %u bytes differ from byte %u; lsn A=%llu B=%llu; type A=%u B=%u; "
	       "page_no A=%u B=%u; checksum A=%s B=%s%s\n",
	       rel, pg, nbytes, first, (unsigned long long)innodb_page_lsn(a), (unsigned long long)innodb_page_lsn(b),
	       be16_get(a + FIL_PAGE_TYPE), be16_get(b + FIL_PAGE_TYPE), innodb_page_no(a), innodb_page_no(b),
	       va ? "ok" : "BAD", vb ? "ok" : "BAD", notes);
}

/* Compare two files; rel names them in the output. Returns 0 same, 1 differ, 2 error. */
static int compare_files(const char *pa, const char *pb, const char *rel)
{
	int fa = open(pa, O_RDONLY), fb = -1, rc = 0;
	uint8_t *ba = NULL, *bb = NULL;
	n_files++;
	if (fa < 0 || (fb = open(pb, O_RDONLY)) < 0) {
		printf("ERROR %s: cannot open %s: %s\n", rel, fa < 0 ? pa : pb, strerror(errno));
		n_err++;
		rc = 2;
		goto out;
	}
	struct stat sa, sb;
	if (fstat(fa, &sa) || fstat(fb, &sb)) {
		printf("ERROR %s: stat: %s\n", rel, strerror(errno));
		n_err++;
		rc = 2;
		goto out;
	}
	innodb_space_info si, sib;
	char why[1100], whyb[1100];
	bool bad_a, bad_b;
	if (sa.st_size == 0 && sb.st_size == 0) {
		if (verbose)
			printf("SAME  %s: both empty\n", rel);
		n_same++;
		goto out;
	}
	if (space_info(fa, &si, why, sizeof why, &bad_a) != 0) {
		printf("ERROR %s: A: page 0: %s\n", rel, why);
		n_err++;
		rc = 2;
		goto out;
	}
	if (bad_a)
		printf("ERROR %s: A: page 0 fails validation (%s); compared with its flags anyway\n", rel, why);
	if (space_info(fb, &sib, whyb, sizeof whyb, &bad_b) != 0 || bad_b)
		printf("ERROR %s: B: page 0: %s\n", rel, whyb);
	else if (sib.physical_size != si.physical_size)
		printf("ERROR %s: page size of A is %u, of B %u\n", rel, si.physical_size, sib.physical_size);
	if (bad_a || bad_b || sib.physical_size != si.physical_size)
		n_err++, rc = 2;

	uint32_t ps = si.physical_size;
	const size_t chunk = 64;
	ba = malloc((size_t)ps * chunk);
	bb = malloc((size_t)ps * chunk);
	if (!ba || !bb) {
		printf("ERROR %s: out of memory\n", rel);
		n_err++;
		rc = 2;
		goto out;
	}
	off_t common = sa.st_size < sb.st_size ? sa.st_size : sb.st_size;
	uint64_t pages = (uint64_t)common / ps, ndiff = 0, shown = 0, ntail = 0;
	char list[600] = "", tlist[600] = "";
	uint32_t first = UINT32_MAX, last = UINT32_MAX, tfirst = UINT32_MAX, tlast = UINT32_MAX;
	for (uint64_t p = 0; p < pages; p += chunk) {
		size_t n = (size_t)((pages - p) < chunk ? (pages - p) : chunk);
		ssize_t ra = read_at(fa, ba, n * ps, (off_t)(p * ps)), rb = read_at(fb, bb, n * ps, (off_t)(p * ps));
		if (ra != (ssize_t)(n * ps) || rb != (ssize_t)(n * ps)) {
			printf("ERROR %s: read failed at page %llu: %s\n", rel, (unsigned long long)p,
			       (ra < 0 || rb < 0) ? strerror(errno) : "short read");
			n_err++;
			rc = 2;
			goto out;
		}
		if (!memcmp(ba, bb, n * ps))
			continue;
		for (size_t k = 0; k < n; k++) {
			const uint8_t *a = ba + k * ps, *b = bb + k * ps;
			if (!memcmp(a, b, ps))
				continue;
			uint32_t pg = (uint32_t)(p + k);
			if (pc_tail && tail_only(a, b, &si)) {
				ntail++;
				range_add(tlist, sizeof tlist, &tfirst, &tlast, pg, false);
				continue;
			}
			ndiff++;
			range_add(list, sizeof list, &first, &last, pg, false);
			if (verbose && (long)shown < max_detail) {
				if (!shown)
					printf("DIFF  %s: page details (A = first directory or file, B = second):\n", rel);
				page_detail(rel, pg, a, b, ps, &si, fa, fb);
				shown++;
			}
		}
	}
	range_add(list, sizeof list, &first, &last, 0, true);
	range_add(tlist, sizeof tlist, &tfirst, &tlast, 0, true);
	if (ntail) {
		printf("TAIL  %s: %llu pages differ only after their page_compressed image (not counted): %s\n", rel,
		       (unsigned long long)ntail, tlist);
		n_tail += ntail;
	}
	bool size_differs = sa.st_size != sb.st_size;
	if (size_differs) {
		printf("SIZE  %s: A has %lld bytes (%lld pages), B has %lld bytes (%lld pages)\n", rel,
		       (long long)sa.st_size, (long long)(sa.st_size / ps), (long long)sb.st_size,
		       (long long)(sb.st_size / ps));
		n_size++;
	}
	if (ndiff) {
		printf("DIFF  %s: %llu of %llu pages differ (page size %u): %s\n", rel, (unsigned long long)ndiff,
		       (unsigned long long)pages, ps, list);
		n_diff++;
	}
	if (ndiff || size_differs) {
		if (rc == 0)
			rc = 1;
	} else if (rc == 0) {
		n_same++;
		if (verbose)
			printf("SAME  %s: %llu pages of %u bytes\n", rel, (unsigned long long)pages, ps);
	}
out:
	free(ba);
	free(bb);
	if (fa >= 0)
		close(fa);
	if (fb >= 0)
		close(fb);
	return rc;
}

/* ---- directory walk */

typedef struct {
	char **v;
	size_t n, cap;
} strvec;

static void sv_push(strvec *s, const char *x)
{
	if (s->n == s->cap) {
		s->cap = s->cap ? 2 * s->cap : 64;
		s->v = realloc(s->v, s->cap * sizeof *s->v);
		if (!s->v) {
			fprintf(stderr, "xb_pagecmp: out of memory\n");
			exit(2);
		}
	}
	s->v[s->n++] = strdup(x);
}

static bool innodb_file(const char *name)
{
	size_t l = strlen(name);
	return (l > 4 && !strcmp(name + l - 4, ".ibd")) || !fnmatch("ibdata*", name, 0) ||
	       !fnmatch("undo[0-9]*", name, 0);
}

/* Collect the relative paths of the InnoDB files under root/rel. */
static int walk(const char *root, const char *rel, strvec *out)
{
	char path[4096];
	snprintf(path, sizeof path, "%s%s%s", root, *rel ? "/" : "", rel);
	DIR *d = opendir(path);
	if (!d) {
		printf("ERROR %s: cannot open directory: %s\n", path, strerror(errno));
		return -1;
	}
	struct dirent *e;
	int rc = 0;
	while ((e = readdir(d))) {
		if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, ".."))
			continue;
		char sub[4096], full[8192];
		snprintf(sub, sizeof sub, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
		struct stat st;
		if (xb_path_join(full, sizeof full, root, sub, NULL)) {
			printf("ERROR %s/%s: path too long\n", root, sub);
			rc = -1;
			continue;
		}
		if (lstat(full, &st) != 0)
			continue;
		if (S_ISDIR(st.st_mode)) {
			if (walk(root, sub, out) != 0)
				rc = -1;
		} else if (S_ISREG(st.st_mode) && innodb_file(e->d_name))
			sv_push(out, sub);
	}
	closedir(d);
	return rc;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

static int compare_dirs(const char *a, const char *b)
{
	strvec fa = {0}, fb = {0};
	int rc = 0;
	if (walk(a, "", &fa) != 0 || walk(b, "", &fb) != 0)
		n_err++, rc = 2;
	qsort(fa.v, fa.n, sizeof *fa.v, cmpstr);
	qsort(fb.v, fb.n, sizeof *fb.v, cmpstr);
	size_t i = 0, j = 0;
	while (i < fa.n || j < fb.n) {
		int c = i == fa.n ? 1 : j == fb.n ? -1 : strcmp(fa.v[i], fb.v[j]);
		if (c < 0) {
			printf("ONLY  A %s\n", fa.v[i++]);
			n_only++;
			if (!rc)
				rc = 1;
		} else if (c > 0) {
			printf("ONLY  B %s\n", fb.v[j++]);
			n_only++;
			if (!rc)
				rc = 1;
		} else {
			char pa[8192], pb[8192];
			int r = 2;
			if (xb_path_join(pa, sizeof pa, a, fa.v[i], NULL) || xb_path_join(pb, sizeof pb, b, fb.v[j], NULL)) {
				printf("ERROR %s: path too long\n", fa.v[i]);
				n_err++;
			} else {
				r = compare_files(pa, pb, fa.v[i]);
			}
			if (r > rc)
				rc = r;
			i++, j++;
		}
	}
	for (i = 0; i < fa.n; i++)
		free(fa.v[i]);
	for (j = 0; j < fb.n; j++)
		free(fb.v[j]);
	free(fa.v);
	free(fb.v);
	return rc;
}

static int info(const char *path)
{
	int fd = open(path, O_RDONLY);
	if (fd < 0) {
		fprintf(stderr, "xb_pagecmp: %s: %s\n", path, strerror(errno));
		return 2;
	}
	innodb_space_info si;
	char why[1100];
	bool bad;
	struct stat st;
	int r = space_info(fd, &si, why, sizeof why, &bad);
	if (r == 0 && fstat(fd, &st) == 0) {
		printf("space_id=%u logical=%u physical=%u full_crc32=%d zip=%d page_compressed=%d pages=%lld%s%s\n",
		       si.space_id, si.logical_size, si.physical_size, si.full_crc32, si.zip, si.page_compressed,
		       (long long)(st.st_size / si.physical_size), bad ? " page0=BAD: " : "", bad ? why : "");
	} else {
		fprintf(stderr, "xb_pagecmp: %s: %s\n", path, why);
		r = 2;
	}
	close(fd);
	return r ? 2 : 0;
}

static void usage(void)
{
	fprintf(stderr, "usage: xb_pagecmp [-v] [-n MAX] [--pc-tail] A B   (two files or two directories)\n"
			"       xb_pagecmp --info FILE\n");
	exit(2);
}

int main(int argc, char **argv)
{
	int i = 1;
	if (argc == 3 && !strcmp(argv[1], "--info"))
		return info(argv[2]);
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "-v"))
			verbose = true;
		else if (!strcmp(argv[i], "--pc-tail"))
			pc_tail = true;
		else if (!strcmp(argv[i], "-n") && i + 1 < argc)
			max_detail = atol(argv[++i]);
		else
			usage();
	}
	if (argc - i != 2)
		usage();
	const char *a = argv[i], *b = argv[i + 1];
	struct stat sa, sb;
	if (stat(a, &sa) != 0 || stat(b, &sb) != 0) {
		fprintf(stderr, "xb_pagecmp: %s: %s\n", stat(a, &sa) ? a : b, strerror(errno));
		return 2;
	}
	int rc;
	if (S_ISDIR(sa.st_mode) && S_ISDIR(sb.st_mode))
		rc = compare_dirs(a, b);
	else if (S_ISREG(sa.st_mode) && S_ISREG(sb.st_mode))
		rc = compare_files(a, b, a);
	else {
		fprintf(stderr, "xb_pagecmp: %s and %s must both be files or both directories\n", a, b);
		return 2;
	}
	printf("xb_pagecmp: %ld files compared: %ld identical, %ld differ, %ld differ in size, %ld only on one side, "
	       "%ld errors",
	       n_files, n_same, n_diff, n_size, n_only, n_err);
	if (pc_tail)
		printf("; %llu page_compressed pages differ only after their image", n_tail);
	printf("\n");
	return rc;
}
