/*
 * crypt_settings.c - the key source of a command, from the options (see
 * crypt_settings.h). The strings stay the option table's: they live as long
 * as the command.
 */
#include "crypt_settings.h"

#include <string.h>
#include <strings.h>

int crypt_settings_resolve(const xb_options *o, xb_crypt_settings *cs, xb_error *err)
{
	memset(cs, 0, sizeof *cs);
	xb_opt_id opt = xb_opt_isset(o, XB_OPT_ENCRYPT) ? XB_OPT_ENCRYPT : XB_OPT_DECRYPT;
	const char *algo = xb_opt_str(o, opt);
	if (algo && strcasecmp(algo, "AES256"))
		return xb_err_set(err, XB_E_USAGE, "unsupported --%s algorithm '%s': use AES256", xb_opt_name(opt), algo),
		       xb_err_hint(err, "the only cipher is AES-256-GCM (authenticated), named AES256");
	cs->opt = opt == XB_OPT_ENCRYPT ? "--encrypt" : "--decrypt";
	cs->key_file = xb_opt_str(o, XB_OPT_ENCRYPT_KEY_FILE);
	cs->key_hex = xb_opt_str(o, XB_OPT_ENCRYPT_KEY);
	cs->key_hex_on_command_line = cs->key_hex && o->src[XB_OPT_ENCRYPT_KEY] &&
				      !strcmp(o->src[XB_OPT_ENCRYPT_KEY], "command line");
	return 0;
}
