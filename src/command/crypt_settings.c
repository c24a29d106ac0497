/*
 * crypt_settings.c - the key source of a command, from the options (see
 * crypt_settings.h). The strings stay the option table's: they live as long
 * as the command.
 */
#include "crypt_settings.h"

#include <string.h>

void crypt_settings_resolve(const xb_options *o, xb_crypt_settings *cs)
{
	memset(cs, 0, sizeof *cs);
	cs->opt = xb_opt_isset(o, XB_OPT_ENCRYPT) ? "--encrypt" : "--decrypt";
	cs->key_file = xb_opt_str(o, XB_OPT_ENCRYPT_KEY_FILE);
	cs->key_hex = xb_opt_str(o, XB_OPT_ENCRYPT_KEY);
	cs->key_hex_on_command_line = cs->key_hex && o->src[XB_OPT_ENCRYPT_KEY] &&
				      !strcmp(o->src[XB_OPT_ENCRYPT_KEY], "command line");
}
