/*
 * sort_dump.c - the --sort-dump command: sort a buffer-pool dump file (the
 * server's ib_buffer_pool text or XtraDB's binary ib_lru_dump) for a fast
 * load, optionally converting it and checking it against a backup's
 * tablespaces. The work is the warm-restart library's
 * (engine-hooks/innodb/warm.h); this file reads the settings and reports.
 */
#include <stdlib.h>
#include <string.h>

#include "command/command.h"
#include "common/log.h"
#include "innodb/bpdump.h"
#include "innodb/warm.h"
#include "settings.h"

int cmd_sort_dump(const xb_options *o, xb_error *err)
{
	sort_dump_settings s;
	int rc = sort_dump_settings_resolve(o, &s, err);
	if (rc)
		return rc;
	const char *in = s.input, *out = s.output, *backup = s.backup;
	int format = s.format;
	warm_result w;
	memset(&w, 0, sizeof w);
	if (!(w.source = strdup(in)))
		rc = xb_err_set(err, XB_E_INTERNAL, "out of memory");
	if (!rc)
		rc = bp_read_file(in, &w.dump, &w.format, err);
	if (!rc) {
		w.read = w.dump.n;
		rc = warm_clean(backup, &w, err);
	}
	if (!rc)
		rc = bp_write_file(out ? out : in, &w.dump, format, err);
	if (!rc) {
		xb_info("%s (%s, %zu pages) -> %s (%s): %zu pages, sorted; dropped %zu duplicates%s", in,
			bp_format_name(w.format), w.read, out ? out : in, bp_format_name(format), w.dump.n,
			w.duplicates, backup ? "" : " (no --target-dir: no check against tablespaces)");
		if (backup)
			xb_info("checked against the backup in %s: dropped %zu of tablespaces not in it, %zu past a "
				"tablespace's end",
				backup, w.no_space, w.past_end);
	}
	warm_free(&w);
	return rc;
}
