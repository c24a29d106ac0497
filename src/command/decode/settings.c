/*
 * settings.c - the options of --decompress / --decrypt turned into a
 * decode_settings (see settings.h).
 */
#include "settings.h"

#include <string.h>

#include "command/crypt_settings.h"

int decode_settings_resolve(const xb_options *o, decode_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->dir = xb_opt_str(o, XB_OPT_TARGET_DIR);
	s->decrypt = xb_opt_isset(o, XB_OPT_DECRYPT);
	const char *what = s->decrypt ? "--decrypt" : "--decompress";
	if (!s->dir)
		return xb_err_set(err, XB_E_USAGE, "%s needs --target-dir: the backup directory to decode", what),
		       xb_err_hint(err, "e.g. xtrabackup --decompress --target-dir=/backups/2024-05-01 --remove-original");
	if (strstr(s->dir, "://"))
		return xb_err_set(err, XB_E_USAGE, "%s works on a local directory, not %s", what, s->dir);
	s->decompress = xb_opt_bool(o, XB_OPT_DECOMPRESS);
	s->remove = xb_opt_bool(o, XB_OPT_REMOVE_ORIGINAL);
	s->threads = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	s->progress = xb_opt_str(o, XB_OPT_PROGRESS);
	if (s->decrypt)
		crypt_settings_resolve(o, &s->crypt);
	return 0;
}
