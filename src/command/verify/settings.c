/*
 * settings.c - the options of --verify turned into a verify_settings (see
 * settings.h).
 */
#include "settings.h"

#include "command/crypt_settings.h"

#include <string.h>

int verify_settings_resolve(const xb_options *o, verify_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	if (!s->dir)
		return xb_err_set(err, XB_E_USAGE, "--verify needs --target-dir=DIR, the backup to check");
	s->threads = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	s->decrypt = xb_opt_isset(o, XB_OPT_DECRYPT);
	if (s->decrypt)
		crypt_settings_resolve(o, &s->crypt);
	return 0;
}
