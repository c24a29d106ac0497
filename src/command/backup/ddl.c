/*
 * ddl.c - tablespaces created, renamed, truncated or dropped during the copy.
 *
 * While datafiles are copied, DDL keeps running. Under BACKUP STAGE
 * BLOCK_DDL no more DDL can start, so the InnoDB files are scanned again and
 * compared by space id with what was copied:
 *   - a copied file whose path no longer holds the same tablespace (dropped,
 *     renamed away, or replaced by TRUNCATE / a rebuilding ALTER) gets an empty
 *     "<name>.del" marker, so prepare deletes the stale copy;
 *   - a tablespace now at a path where it was not copied (created, renamed
 *     in, or rebuilt) is copied now as "<name>.new", which prepare renames to
 *     "<name>.ibd" before applying the redo log.
 * A rename is thus carried as a delete plus a fresh copy: simpler than a
 * rename marker and safe, at the price of copying a renamed table twice.
 * A tablespace created so recently that its page 0 is not on disk yet is
 * copied byte for byte: the redo log holds everything it contains.
 * These are the markers mariabackup --prepare understands. The redo follower
 * reports the file operations it sees (ddl_note_file_op), which are logged as
 * they happen.
 */
#include "backup_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/log.h"
#include "info/markers.h"
#include "innodb/inventory.h"

enum { FOP_CREATE = 1, FOP_DELETE = 2, FOP_RENAME = 3, FOP_MODIFY = 4 };

void ddl_note_file_op(void *ctx, int op, uint32_t space_id, const char *name, const char *new_name, uint64_t lsn)
{
	(void)ctx;
	switch (op) {
	case FOP_CREATE:
		xb_info("DDL tracking : create %u \"%s\" at LSN %llu", space_id, name, (unsigned long long)lsn);
		break;
	case FOP_DELETE:
		xb_info("DDL tracking : delete %u \"%s\" at LSN %llu", space_id, name, (unsigned long long)lsn);
		break;
	case FOP_RENAME:
		xb_info("DDL tracking : rename %u \"%s\",\"%s\" at LSN %llu", space_id, name, new_name ? new_name : "",
			(unsigned long long)lsn);
		break;
	default:
		break;
	}
}

static const bfile *find_rel(const bfile_list *l, const char *rel)
{
	for (size_t i = 0; i < l->n; i++)
		if (!strcmp(l->v[i].rel, rel))
			return &l->v[i];
	return NULL;
}

int ddl_reconcile(backup_ctx *c, xb_error *err)
{
	bfile_list now = {0};
	int rc = scan_innodb(c, &now, err);
	if (rc) {
		bfile_list_free(&now);
		return rc;
	}
	int dels = 0, news = 0;
	/* copied files that no longer hold the same tablespace */
	for (size_t i = 0; i < c->files.n && !rc; i++) {
		bfile *f = &c->files.v[i];
		if (f->kind != BF_INNODB || f->system_space || !f->copied)
			continue;
		const bfile *cur = find_rel(&now, f->rel);
		if (cur && cur->space_id == f->space_id && f->space_id != UINT32_MAX)
			continue;
		if (inv_is_undo_name(f->rel))
			continue;
		char del[4096];
		if ((rc = inv_marker_name(del, sizeof del, NULL, f->rel, XB_MARKER_DEL, err)))
			break;
		xb_info("Tablespace %u at %s was dropped, renamed or rebuilt during the backup: writing %s",
			f->space_id, f->rel, del);
		rc = xb_marker_put_del(c->meta_sink, del, err);
		dels++;
	}
	/* tablespaces not copied at their current path */
	for (size_t i = 0; i < now.n && !rc; i++) {
		bfile *n = &now.v[i];
		if (n->system_space)
			continue;
		const bfile *old = find_rel(&c->files, n->rel);
		if (old && old->copied && old->space_id == n->space_id && n->space_id != UINT32_MAX)
			continue;
		char rel[4096];
		if (inv_is_undo_name(n->rel))
			snprintf(rel, sizeof rel, "%s", n->rel); /* undo files are never renamed: copy in place */
		else if ((rc = inv_marker_name(rel, sizeof rel, NULL, n->rel, XB_MARKER_NEW, err)))
			break;
		xb_info("Tablespace %u at %s was created, renamed or rebuilt during the backup: copying it as %s",
			n->space_id, n->rel, rel);
		rc = copy_innodb_one(c, n, rel, 0, err);
		if (!rc && n->deferred) {
			/* Created during the backup and page 0 still only in the server's
			 * buffer pool: every page of it was written after the redo copy
			 * began, so recovery rebuilds it from FILE_CREATE and INIT_PAGE
			 * records. Copy the bytes as they are. */
			xb_info("Tablespace at %s has no page 0 on disk yet: copying it as is, the redo log rebuilds it",
				n->rel);
			bfile raw = *n;
			raw.rel = rel;
			rc = copy_plain(c, &raw, 0, err);
		}
		news++;
	}
	if (!rc && (dels || news))
		xb_info("DDL during the backup: %d stale tablespace copies marked for deletion, %d copied again", dels, news);
	bfile_list_free(&now);
	return rc;
}
