/*
 * xbstream.c - the xbstream tool (placeholder until the extractor lands).
 */
#include "command/command.h"

int cmd_xbstream_extract(const xb_options *o, xb_error *err)
{
	return xb_err_set(err, XB_E_USAGE, "xbstream -x is not available yet");
}

int cmd_xbstream_list(const xb_options *o, xb_error *err)
{
	return xb_err_set(err, XB_E_USAGE, "xbstream --list is not available yet");
}

char **xbstream_argv(int *argc, char **argv)
{
	return argv;
}
