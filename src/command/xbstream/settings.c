/*
 * settings.c - the options of xbstream -x turned into an xbstream_settings
 * (see settings.h).
 */
#include "settings.h"

#include <string.h>

#include "command/crypt_settings.h"

int xbstream_settings_resolve(const xb_options *o, xbstream_settings *s, xb_error *err)
{
	memset(s, 0, sizeof *s);
	s->workers = (int)xb_opt_int(o, XB_OPT_PARALLEL);
	s->decrypt = xb_opt_isset(o, XB_OPT_DECRYPT);
	if (s->decrypt && !xb_opt_isset(o, XB_OPT_ENCRYPT_KEY_FILE) && !xb_opt_isset(o, XB_OPT_ENCRYPT_KEY))
		return xb_err_set(err, XB_E_USAGE, "--decrypt needs the key: --encrypt-key-file=FILE"),
		       xb_err_hint(err, "the file written with openssl rand -hex 32 when the backup was encrypted");
	s->dir = xb_opt_str(o, XB_OPT_DIRECTORY);
	if (!s->dir || !*s->dir)
		s->dir = ".";
	s->decompress = xb_opt_bool(o, XB_OPT_DECOMPRESS);
	if (s->decrypt)
		crypt_settings_resolve(o, &s->crypt);
	return 0;
}
