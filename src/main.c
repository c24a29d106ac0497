/*
 * main.c - entry point: hide secrets from the process's command line, parse
 * options, dispatch to the command, map the result to an exit code. Nothing
 * else lives here.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "command/command.h"
#include "common/fault.h"
#include "common/log.h"
#include "config/options.h"

/* The exit status for a result: mariabackup's unless --exit-status=detailed. */
static int exit_status(const xb_options *o, const xb_error *err, int rc)
{
	const char *mode = o->val[XB_OPT_EXIT_STATUS];
	return xb_err_exit_status(err, rc, mode && !strcmp(mode, "detailed"));
}

int main(int argc, char **argv)
{
	xb_options o;
	xb_error err;
	xb_err_clear(&err);
	const char *base = strrchr(argv[0], '/');
	base = base ? base + 1 : argv[0];
	/* the extractor, under our name or mbstream's (a stand-in for mariabackup's tools) */
	bool as_xbstream = !strcmp(base, "xbstream") || !strcmp(base, "mbstream");
	/* before anything else: secrets off the command line ps shows; the parse reads a copy */
	char **own = xb_argv_protect(argc, argv, !as_xbstream);
	if (own)
		argv = own;
	command_signals_init();
	xb_fault_arm();
	if (as_xbstream)
		argv = xbstream_argv(&argc, argv);
	int rc = xb_options_parse(&o, argc, argv, &err);
	if (rc) {
		xb_log_error(&err);
		int status = exit_status(&o, &err, rc);
		xb_options_free(&o);
		xb_argv_free(own);
		return status;
	}
	if (o.print_defaults) {
		xb_options_print_defaults(&o, stdout);
		xb_options_free(&o);
		xb_argv_free(own);
		return 0;
	}
	switch (o.command) {
	case XB_OPT_VERSION:
		/* on stderr, as mariabackup prints it; scripts look for "based on MariaDB server" */
		fprintf(stderr, "%s based on MariaDB server 10.11 formats (xtrabackup version %s, "
				"for MariaDB 10.11, 10.8+ redo format)\n", base, XB_VERSION);
		break;
	case XB_OPT_HELP:
		xb_options_help(stdout);
		break;
	case XB_OPT_MAN:
		xb_options_man(stdout);
		break;
	case XB_OPT_BACKUP:
		xb_info("xtrabackup %s: --backup (command line: %s)", XB_VERSION, o.tool_command);
		rc = cmd_backup(&o, &err);
		break;
	case XB_OPT_PREPARE:
		xb_info("xtrabackup %s: --prepare (command line: %s)", XB_VERSION, o.tool_command);
		rc = cmd_prepare(&o, &err);
		break;
	case XB_OPT_COPY_BACK:
		xb_info("xtrabackup %s: --copy-back (command line: %s)", XB_VERSION, o.tool_command);
		rc = cmd_copy_back(&o, &err);
		break;
	case XB_OPT_MOVE_BACK:
		xb_info("xtrabackup %s: --move-back (command line: %s)", XB_VERSION, o.tool_command);
		rc = cmd_move_back(&o, &err);
		break;
	case XB_OPT_VERIFY:
		xb_info("xtrabackup %s: --verify (command line: %s)", XB_VERSION, o.tool_command);
		rc = cmd_verify(&o, &err);
		break;
	case XB_OPT_RESTORE_TABLES:
		xb_info("xtrabackup %s: --restore-tables (command line: %s)", XB_VERSION, o.tool_command);
		rc = cmd_restore_tables(&o, &err);
		break;
	case XB_OPT_PRINT_PARAM:
		rc = cmd_print_param(&o, &err);
		break;
	case XB_OPT_SORT_DUMP:
		rc = cmd_sort_dump(&o, &err);
		break;
	case XB_OPT_EXTRACT:
		rc = cmd_xbstream_extract(&o, &err);
		break;
	case XB_OPT_LIST:
		rc = cmd_xbstream_list(&o, &err);
		break;
	case XB_OPT_CREATE:
		rc = cmd_xbstream_create(&o, &err);
		break;
	default:
		if (xb_opt_bool(&o, XB_OPT_DECOMPRESS) || xb_opt_isset(&o, XB_OPT_DECRYPT)) {
			xb_info("xtrabackup %s: %s (command line: %s)", XB_VERSION,
				xb_opt_isset(&o, XB_OPT_DECRYPT) ? "--decrypt" : "--decompress", o.tool_command);
			rc = cmd_decode(&o, &err);
			o.command = XB_OPT_DECOMPRESS;
		} else if (as_xbstream) {
			rc = xb_err_set(&err, XB_E_USAGE, "no command given: use -x (extract) or --list"),
			xb_err_hint(&err, "e.g. xbstream -x -C /backups/x < backup.xbs");
		} else {
			rc = xb_err_set(&err, XB_E_USAGE, "no command given: use --backup, --prepare, --copy-back, "
					"--move-back, --verify, --restore-tables, --decompress or --decrypt (see --help)");
		}
		break;
	}
	if (rc)
		xb_log_error(&err);
	else if (o.command == XB_OPT_BACKUP || o.command == XB_OPT_PREPARE || o.command == XB_OPT_COPY_BACK ||
		 o.command == XB_OPT_MOVE_BACK || o.command == XB_OPT_SORT_DUMP || o.command == XB_OPT_DECOMPRESS ||
		 o.command == XB_OPT_EXTRACT || o.command == XB_OPT_VERIFY || o.command == XB_OPT_RESTORE_TABLES)
		xb_log_raw("completed OK!");
	int status = exit_status(&o, &err, rc);
	xb_options_free(&o);
	xb_argv_free(own);
	return status;
}
