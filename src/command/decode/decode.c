/*
 * decode.c - --decompress / --decrypt (placeholder until it lands).
 */
#include "command/command.h"

int cmd_decode(const xb_options *o, xb_error *err)
{
	return xb_err_set(err, XB_E_USAGE, "--decompress and --decrypt are not available yet");
}
