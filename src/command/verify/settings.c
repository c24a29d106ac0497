/*
 * settings.c - the options of --verify turned into a verify_settings (see
 * settings.h).
 */
#include "settings.h"

#include <string.h>
#include <unistd.h>

int verify_settings_resolve(const xb_options *o, verify_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	if (!s->dir)
		return xb_err_set(err, XB_E_USAGE, "--verify needs --target-dir=DIR, the backup to check");
	if (xb_opt_isset(o, XB_OPT_PARALLEL)) {
		s->threads = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	} else {
		long n = sysconf(_SC_NPROCESSORS_ONLN);
		s->threads = n < 1 ? 1 : n > 8 ? 8 : (int)n;
	}
	return 0;
}
