/*
 * report.c - the recovery statistics of a prepare: log lines and JSON.
 *
 * In the spirit of XtraDB's recovery statistics, but covering every phase:
 * time per phase, log volume, records parsed, applied and skipped by type,
 * page counts, the tablespaces with the most records, the apply rate and the
 * peak memory, and after an incremental the delta phase. Phase times of the apply workers are summed over threads
 * ("thread time"); the other phases are wall time. The JSON file is written
 * to a temporary name and renamed, so a reader never sees half of it.
 */
#include "prepare_int.h"

#include <errno.h>
#include <string.h>
#include <sys/resource.h>

#include "common/log.h"

static double ms(uint64_t ns)
{
	return (double)ns / 1e6;
}

static double mbps(const recovery_stats *st)
{
	double s = (double)st->ns_total / 1e9;
	return s > 0 ? (double)st->log_bytes / 1048576.0 / s : 0;
}

static uint64_t peak_rss(void)
{
	struct rusage ru;
	return getrusage(RUSAGE_SELF, &ru) ? 0 : (uint64_t)ru.ru_maxrss * 1024;
}

void report_log(const recovery_stats *st)
{
	const batch_stats *a = &st->apply;
	xb_info("Recovery statistics:");
	xb_info("  log: LSN %llu to %llu, %.1f MiB, %llu mini-transactions, %llu page records, %llu batches",
		(unsigned long long)st->checkpoint_lsn, (unsigned long long)st->end_lsn,
		(double)st->log_bytes / 1048576.0, (unsigned long long)st->mtrs, (unsigned long long)st->records,
		(unsigned long long)st->batches);
	xb_info("  file records: %llu FILE_CREATE, %llu FILE_DELETE, %llu FILE_RENAME, %llu FILE_MODIFY, "
		"%llu FILE_CHECKPOINT",
		(unsigned long long)st->file_records[0], (unsigned long long)st->file_records[1],
		(unsigned long long)st->file_records[2], (unsigned long long)st->file_records[3],
		(unsigned long long)st->file_records[4]);
	xb_info("  time (ms): total %.0f, read log %.0f, parse %.0f, look-ahead %.0f, waiting for apply %.0f; apply "
		"phase %.0f (wall, alongside parsing); in %d thread(s): read pages %.0f, apply %.0f, write pages %.0f; "
		"fsync %.0f",
		ms(st->ns_total), ms(st->ns_read_log), ms(st->ns_parse), ms(st->ns_lookahead), ms(st->ns_wait_apply),
		ms(st->ns_apply_wall), st->threads,
		ms(a->ns_read), ms(a->ns_apply), ms(a->ns_write), ms(st->ns_fsync));
	xb_info("  pages: %llu read, %llu written (%llu rebuilt from INIT_PAGE), %llu freed, %llu already current, "
		"%llu of dropped tablespaces; %llu files extended, %llu truncated",
		(unsigned long long)a->pages_read, (unsigned long long)a->pages_written,
		(unsigned long long)a->pages_created, (unsigned long long)a->pages_freed,
		(unsigned long long)a->pages_current, (unsigned long long)a->pages_dropped,
		(unsigned long long)a->files_extended, (unsigned long long)a->files_truncated);
	xb_info("  %-26s %12s %12s %12s %12s", "records by type", "applied", "bytes", "skipped", "bytes");
	for (int k = 0; k < REPLAY_KINDS; k++) {
		if (!st->parsed.count[k])
			continue;
		xb_info("  %-26s %12llu %12llu %12llu %12llu", replay_kind_name(k),
			(unsigned long long)a->applied.count[k], (unsigned long long)a->applied.bytes[k],
			(unsigned long long)a->skipped.count[k], (unsigned long long)a->skipped.bytes[k]);
	}
	for (int i = 0; i < st->n_top; i++)
		xb_info("  top tablespace %2d: %-40s space %u, %llu records, %.1f KiB", i + 1, st->top[i].name,
			st->top[i].space_id, (unsigned long long)st->top[i].records, (double)st->top[i].bytes / 1024.0);
	if (st->incremental) {
		const deltas_stats *d = &st->deltas;
		xb_info("  deltas: %llu files, %llu pages, %.1f MiB written in %.0f ms; tablespaces %llu created, %llu "
			"renamed, %llu moved aside, %llu copied whole, %llu deleted",
			(unsigned long long)d->files, (unsigned long long)d->pages, (double)d->bytes / 1048576.0, ms(d->ns),
			(unsigned long long)d->created, (unsigned long long)d->renamed, (unsigned long long)d->moved_aside,
			(unsigned long long)d->copied, (unsigned long long)d->deleted);
	}
	xb_info("  rate: %.1f MB/s of redo; memory: peak %.1f MiB of records (budget %.1f MiB), peak RSS %.1f MiB",
		mbps(st), (double)st->peak_recv_bytes / 1048576.0, (double)st->budget / 1048576.0,
		(double)peak_rss() / 1048576.0);
}

static void json_str(FILE *f, const char *s)
{
	fputc('"', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(f, "\\%c", c);
		else if (c < 0x20)
			fprintf(f, "\\u%04x", c);
		else
			fputc(c, f);
	}
	fputc('"', f);
}

static void json_body(FILE *f, const recovery_stats *st)
{
	const batch_stats *a = &st->apply;
	fprintf(f, "{\n  \"checkpoint_lsn\": %llu,\n  \"end_lsn\": %llu,\n  \"log_bytes\": %llu,\n",
		(unsigned long long)st->checkpoint_lsn, (unsigned long long)st->end_lsn,
		(unsigned long long)st->log_bytes);
	fprintf(f, "  \"mtrs\": %llu,\n  \"records\": %llu,\n  \"batches\": %llu,\n  \"threads\": %d,\n",
		(unsigned long long)st->mtrs, (unsigned long long)st->records, (unsigned long long)st->batches,
		st->threads);
	static const char *const fr[] = {"FILE_CREATE", "FILE_DELETE", "FILE_RENAME", "FILE_MODIFY",
					  "FILE_CHECKPOINT"};
	fprintf(f, "  \"file_records\": {");
	for (int i = 0; i < 5; i++)
		fprintf(f, "%s\"%s\": %llu", i ? ", " : "", fr[i], (unsigned long long)st->file_records[i]);
	fprintf(f, "},\n  \"phases_ms\": {\"read_log\": %.1f, \"parse\": %.1f, \"lookahead\": %.1f, \"wait_apply\": %.1f, \"apply_wall\": %.1f, "
		   "\"read_pages\": %.1f, \"apply\": %.1f, \"write_pages\": %.1f, \"fsync\": %.1f, \"total\": %.1f},\n",
		ms(st->ns_read_log), ms(st->ns_parse), ms(st->ns_lookahead), ms(st->ns_wait_apply), ms(st->ns_apply_wall),
		ms(a->ns_read), ms(a->ns_apply),
		ms(a->ns_write), ms(st->ns_fsync), ms(st->ns_total));
	fprintf(f, "  \"pages\": {\"read\": %llu, \"written\": %llu, \"created\": %llu, \"freed\": %llu, "
		   "\"skipped_current\": %llu, \"dropped\": %llu, \"files_extended\": %llu, \"files_truncated\": %llu},\n",
		(unsigned long long)a->pages_read, (unsigned long long)a->pages_written,
		(unsigned long long)a->pages_created, (unsigned long long)a->pages_freed,
		(unsigned long long)a->pages_current, (unsigned long long)a->pages_dropped,
		(unsigned long long)a->files_extended, (unsigned long long)a->files_truncated);
	fprintf(f, "  \"records_by_type\": {");
	for (int k = 0, first = 1; k < REPLAY_KINDS; k++) {
		fprintf(f, "%s\n    \"%s\": {\"parsed\": %llu, \"parsed_bytes\": %llu, \"applied\": %llu, "
			   "\"applied_bytes\": %llu, \"skipped\": %llu, \"skipped_bytes\": %llu}",
			first ? "" : ",", replay_kind_name(k), (unsigned long long)st->parsed.count[k],
			(unsigned long long)st->parsed.bytes[k], (unsigned long long)a->applied.count[k],
			(unsigned long long)a->applied.bytes[k], (unsigned long long)a->skipped.count[k],
			(unsigned long long)a->skipped.bytes[k]);
		first = 0;
	}
	fprintf(f, "\n  },\n  \"top_tablespaces\": [");
	for (int i = 0; i < st->n_top; i++) {
		fprintf(f, "%s\n    {\"space_id\": %u, \"file\": ", i ? "," : "", st->top[i].space_id);
		json_str(f, st->top[i].name);
		fprintf(f, ", \"records\": %llu, \"bytes\": %llu}", (unsigned long long)st->top[i].records,
			(unsigned long long)st->top[i].bytes);
	}
	fprintf(f, "\n  ],\n");
	if (st->incremental) {
		const deltas_stats *d = &st->deltas;
		fprintf(f, "  \"deltas\": {\"files\": %llu, \"pages\": %llu, \"bytes\": %llu, \"created\": %llu, "
			   "\"renamed\": %llu, \"moved_aside\": %llu, \"copied\": %llu, \"deleted\": %llu, \"ms\": %.1f},\n",
			(unsigned long long)d->files, (unsigned long long)d->pages, (unsigned long long)d->bytes,
			(unsigned long long)d->created, (unsigned long long)d->renamed, (unsigned long long)d->moved_aside,
			(unsigned long long)d->copied, (unsigned long long)d->deleted, ms(d->ns));
	}
	fprintf(f, "  \"redo_mb_per_s\": %.2f,\n  \"peak_record_bytes\": %zu,\n  \"record_budget_bytes\": %zu,\n"
		   "  \"peak_memory_bytes\": %llu\n}\n",
		mbps(st), st->peak_recv_bytes, st->budget, (unsigned long long)peak_rss());
}

int report_json(const recovery_stats *st, const char *path, xb_error *err)
{
	char tmp[4200];
	snprintf(tmp, sizeof tmp, "%s.xbtmp", path);
	FILE *f = fopen(tmp, "w");
	if (!f)
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write --stats-file %s: %s", tmp, strerror(errno));
	json_body(f, st);
	if (fclose(f) || rename(tmp, path))
		return xb_err_set(err, XB_E_IO_WRITE, "cannot write --stats-file %s: %s", path, strerror(errno));
	return 0;
}
