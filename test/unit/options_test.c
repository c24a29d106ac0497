/*
 * options_test.c - the option table: parsing from files and argv, precedence,
 * strictness by group, prefixes, types, ranges and choices (one message naming
 * the option, the value, where it was set and what is accepted), secrets,
 * --help and the man page; and settings structs resolved from a parsed set.
 */
#include <CUnit/Basic.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "command/backup/settings.h"
#include "command/prepare/settings.h"
#include "config/options.h"
#include "platform/ioprio.h"

static char dir[] = "/tmp/xb_options_test.XXXXXX";
static char cnfpath[512];

static void write_cnf(const char *text)
{
	snprintf(cnfpath, sizeof cnfpath, "%s/my.cnf", dir);
	FILE *f = fopen(cnfpath, "w");
	fputs(text, f);
	fclose(f);
}

/* Parse argv built from a NULL-terminated list; --defaults-file is prepended. */
static int parse(xb_options *o, xb_error *err, ...)
{
	char *argv[32];
	int argc = 0;
	static char deffile[600];
	snprintf(deffile, sizeof deffile, "--defaults-file=%s", cnfpath);
	argv[argc++] = strdup("xtrabackup");
	argv[argc++] = strdup(deffile);
	va_list ap;
	va_start(ap, err);
	const char *a;
	while ((a = va_arg(ap, const char *)))
		argv[argc++] = strdup(a);
	va_end(ap);
	xb_err_clear(err);
	int rc = xb_options_parse(o, argc, argv, err);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

static void test_precedence(void)
{
	write_cnf("[mysqld]\ndatadir=/srv/server\nport=3307\nkey_buffer_size=1M\n"
		  "[client]\nsocket=/tmp/client.sock\nport=3308\nparallel=9\n"
		  "[xtrabackup]\nparallel=3\ntarget-dir=/from/file\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--target-dir=/from/cli", NULL), 0);
	CU_ASSERT_EQUAL(o.command, XB_OPT_BACKUP);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_DATADIR), "/srv/server");   /* server group */
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_PORT), 3308);                      /* client beats server */
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_SOCKET), "/tmp/client.sock");
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_PARALLEL), 3);                     /* [client] parallel ignored */
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_TARGET_DIR), "/from/cli");  /* command line wins */
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_THROTTLE), 0);                     /* default */
	CU_ASSERT_PTR_NOT_NULL(strstr(o.src[XB_OPT_PARALLEL], "my.cnf:"));
	xb_options_free(&o);
}

static void test_strict_tool_group(void)
{
	write_cnf("[xtrabackup]\nno-such-option=1\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unknown option '--no-such-option'"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "my.cnf:2"));
	xb_options_free(&o);

	write_cnf("[xtrabackup]\nloose-no-such-option=1\n[mysqld]\nno-such-server-option=1\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), 0);
	xb_options_free(&o);
}

static void test_unknown_on_command_line(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--bogus", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "unknown option '--bogus' (command line)");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "stray", NULL), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unexpected argument 'stray'"));
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--prepare", NULL), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot be used together"));
	xb_options_free(&o);
}

static void test_prefixes_and_bools(void)
{
	write_cnf("[xtrabackup]\nslave-info\nskip-innodb-log-checkpoint-now\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--enable-no-lock", "--safe_slave_backup=OFF", NULL), 0);
	CU_ASSERT_TRUE(xb_opt_bool(&o, XB_OPT_SLAVE_INFO));
	CU_ASSERT_FALSE(xb_opt_bool(&o, XB_OPT_INNODB_LOG_CHECKPOINT_NOW));
	CU_ASSERT_TRUE(xb_opt_bool(&o, XB_OPT_NO_LOCK));
	CU_ASSERT_FALSE(xb_opt_bool(&o, XB_OPT_SAFE_SLAVE_BACKUP));
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--slave-info=maybe", NULL), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "invalid value for --slave-info: 'maybe'"));
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--skip-parallel", NULL), XB_E_USAGE);
	xb_options_free(&o);
}

static void test_types(void)
{
	write_cnf("[xtrabackup]\nuse-memory=2G\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--parallel", "4", NULL), 0);
	CU_ASSERT_EQUAL(xb_opt_size(&o, XB_OPT_USE_MEMORY), 2ULL << 30);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_PARALLEL), 4);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--parallel=four", NULL), XB_E_USAGE);
	xb_options_free(&o);
	write_cnf("[xtrabackup]\nuse-memory=lots\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "my.cnf:2"));
	xb_options_free(&o);
	uint64_t v;
	CU_ASSERT_EQUAL(xb_parse_size("16384", &v), 0);
	CU_ASSERT_EQUAL(v, 16384);
	CU_ASSERT_EQUAL(xb_parse_size("96M", &v), 0);
	CU_ASSERT_EQUAL(v, 96ULL << 20);
	CU_ASSERT_EQUAL(xb_parse_size("1x", &v), -1);
	CU_ASSERT_EQUAL(xb_parse_size("-1", &v), -1);
}

static void test_ranges(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	/* refused below and above, with one message: option, value, source, what is accepted */
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--parallel=0", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --parallel: '0' (command line): use 1 to 64");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--prepare", "--parallel", "65", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --parallel: '65' (command line): use 1 to 64");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--compress-level=20", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --compress-level: '20' (command line): use 1 to 19");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--remote-retries=-1", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --remote-retries: '-1' (command line): use 0 to 30");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--remote-timeout=0", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --remote-timeout: '0' (command line): use 1 or more");
	xb_options_free(&o);
	/* a value that is not a number says what is accepted too */
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--parallel=four", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --parallel: 'four' (command line): use 1 to 64");
	xb_options_free(&o);
	/* from an option file: the file and line */
	write_cnf("[xtrabackup]\nparallel=2\ndump-innodb-buffer-pool-pct=101\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), XB_E_USAGE);
	char want[700];
	snprintf(want, sizeof want, "invalid value for --dump-innodb-buffer-pool-pct: '101' (%s:3): use 1 to 100", cnfpath);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	xb_options_free(&o);
	/* a bad value in a file is refused even when the command line sets a good one */
	write_cnf("[xtrabackup]\nparallel=99\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--parallel=2", NULL), XB_E_USAGE);
	snprintf(want, sizeof want, "invalid value for --parallel: '99' (%s:2): use 1 to 64", cnfpath);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	xb_options_free(&o);
	/* the bounds themselves are accepted */
	write_cnf("[xtrabackup]\nparallel=64\ncompress-level=19\nremote-retries=30\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--compress-threads=1", "--dump-innodb-buffer-pool-pct=100",
			      "--remote-timeout=1", NULL), 0);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_PARALLEL), 64);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_COMPRESS_LEVEL), 19);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_REMOTE_RETRIES), 30);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_COMPRESS_THREADS), 1);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_DUMP_INNODB_BUFFER_POOL_PCT), 100);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_REMOTE_TIMEOUT), 1);
	xb_options_free(&o);
	write_cnf("[xtrabackup]\nparallel=1\ncompress-level=1\nremote-retries=0\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--compress-threads=64", "--dump-innodb-buffer-pool-pct=1",
			      "--remote-timeout=86400", NULL), 0);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_PARALLEL), 1);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_REMOTE_RETRIES), 0);
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_COMPRESS_THREADS), 64);
	xb_options_free(&o);
}

static void test_choices(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--progress=bar", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg,
			       "invalid value for --progress: 'bar' (command line): use auto, meter, log, numeric or none");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--pace=fast", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --pace: 'fast' (command line): use auto or off");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--stream=zip", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --stream: 'zip' (command line): use xbstream, mbstream or tar");
	CU_ASSERT_EQUAL(err.getopt_status, 13);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--compress=quicklz", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --compress: 'quicklz' (command line): use zstd");
	xb_options_free(&o);
	/* exact by default: --stream=TAR is not tar */
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--stream=TAR", NULL), XB_E_USAGE);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--io-priority=", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --io-priority: '' (command line): use low, idle or normal");
	xb_options_free(&o);
	/* in any case where the table says so; an optional value may be left out */
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--compress", "--encrypt=aes256", "--protocol=TCP", "--stream=tar",
			      "--pace=off", "--io-priority=idle", "--progress=numeric", NULL), 0);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--compress=ZSTD", NULL), 0);
	xb_options_free(&o);
	/* from a file, with its line */
	write_cnf("[client]\nprotocol=pipe\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), XB_E_USAGE);
	char want[700];
	snprintf(want, sizeof want, "invalid value for --protocol: 'pipe' (%s:2): use tcp or socket", cnfpath);
	CU_ASSERT_STRING_EQUAL(err.msg, want);
	xb_options_free(&o);
	write_cnf("[xtrabackup]\ndump-format=ib_lru_dump\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--sort-dump", "--dump-format=ib_buffer_pool", NULL), 0);
	xb_options_free(&o);
}

/* Every default is one of the values its own option accepts. */
static void test_defaults_accepted(void)
{
	write_cnf("[client]\n");
	for (int id = 0; id < XB_OPT__COUNT; id++) {
		xb_options o;
		xb_error err;
		memset(&o, 0, sizeof o);
		const char *def = xb_opt_str(&o, id);
		if (!def)
			continue;
		char arg[300];
		snprintf(arg, sizeof arg, "--%s=%s", xb_opt_name(id), def);
		int rc = parse(&o, &err, arg, NULL);
		if (rc && strstr(err.msg, "is not available in this version"))
			rc = 0;  /* refused whatever the value until implemented */
		if (rc)
			fprintf(stderr, "default of --%s refused: %s\n", xb_opt_name(id), err.msg);
		CU_ASSERT_EQUAL(rc, 0);
		xb_options_free(&o);
	}
}

/* The settings of --backup and --prepare from option files and the command line. */
static void test_settings(void)
{
	write_cnf("[mysqld]\ndatadir=/srv/server\ninnodb_undo_directory=/srv/undo\n"
		  "[client]\nsocket=/tmp/s.sock\nuser=backup\npassword=pw\nprotocol=Socket\n"
		  "[xtrabackup]\nparallel=3\nthrottle=-1\nio-priority=idle\nssh-key-file=/k\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=sftp://u@h/b", "--compress", "--compress-level=5",
				    "--encrypt=AES256", "--encrypt-key-file=/key", "--innodb-log-group-home-dir=/redo",
				    "--pace=off", "--no-lock", "--remote-retries=2", NULL), 0);
	backup_settings s;
	CU_ASSERT_EQUAL_FATAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_EQUAL(s.parallel, 3);
	CU_ASSERT_EQUAL(s.throttle, 0); /* not a limit */
	CU_ASSERT_FALSE(s.pace);
	CU_ASSERT_EQUAL(s.io_class, XB_IOPRIO_IDLE);
	CU_ASSERT_STRING_EQUAL(s.io_priority, "idle");
	CU_ASSERT_STRING_EQUAL(s.progress, "auto");
	CU_ASSERT_TRUE(s.no_lock);
	CU_ASSERT_TRUE(s.bp_dump);
	CU_ASSERT_EQUAL(s.bp_dump_pct, 100);
	CU_ASSERT_EQUAL(s.log_copy_interval, 50);
	/* the server's layout: only what the command line says wins over the server */
	CU_ASSERT_PTR_NULL(s.datadir);
	CU_ASSERT_PTR_NULL(s.undo_dir);
	CU_ASSERT_STRING_EQUAL(s.log_dir, "/redo");
	/* the connection */
	CU_ASSERT_STRING_EQUAL(s.conn.socket, "/tmp/s.sock");
	CU_ASSERT_STRING_EQUAL(s.conn.user, "backup");
	CU_ASSERT_STRING_EQUAL(s.conn.password, "pw");
	CU_ASSERT_EQUAL(s.conn.protocol, XB_CONN_PROTOCOL_SOCKET);
	CU_ASSERT_PTR_NULL(s.conn.host);
	/* the target */
	CU_ASSERT_EQUAL(s.target.kind, TARGET_REMOTE);
	CU_ASSERT_STRING_EQUAL(s.target.dir, "sftp://u@h/b");
	CU_ASSERT_PTR_NULL(s.target.stream);
	CU_ASSERT_TRUE(s.target.compress);
	CU_ASSERT_EQUAL(s.target.compress_level, 5);
	CU_ASSERT_EQUAL(s.target.compress_threads, 1);
	CU_ASSERT_EQUAL(s.target.compress_chunk, 1 << 20);
	CU_ASSERT_TRUE(s.target.encrypt);
	CU_ASSERT_STRING_EQUAL(s.target.crypt.opt, "--encrypt");
	CU_ASSERT_STRING_EQUAL(s.target.crypt.key_file, "/key");
	CU_ASSERT_STRING_EQUAL(s.target.remote.key_file, "/k");
	CU_ASSERT_EQUAL(s.target.remote.retries, 2);
	CU_ASSERT_EQUAL(s.target.remote.timeout, 30);
	CU_ASSERT_EQUAL(s.target.remote.parallel, 3);
	CU_ASSERT_STRING_EQUAL(s.tool_command, o.tool_command);
	xb_options_free(&o);

	/* the kind of target, and what does not go together */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--stream=xbstream", "--throttle=7", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_EQUAL(s.target.kind, TARGET_XBSTREAM);
	CU_ASSERT_EQUAL(s.throttle, 7);
	CU_ASSERT_TRUE(s.pace);
	CU_ASSERT_EQUAL(s.conn.protocol, XB_CONN_PROTOCOL_SOCKET);
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_EQUAL(s.target.kind, TARGET_DIR);
	CU_ASSERT_FALSE(s.target.compress);
	CU_ASSERT_FALSE(s.target.encrypt);
	xb_options_free(&o);
	/* mariabackup's default target */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_EQUAL(s.target.kind, TARGET_DIR);
	CU_ASSERT_STRING_EQUAL(s.target.dir, "./xtrabackup_backupfiles/");
	xb_options_free(&o);
	/* mbstream is xbstream; with a stream the default target is not used */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--stream=mbstream", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_EQUAL(s.target.kind, TARGET_XBSTREAM);
	CU_ASSERT_PTR_NULL(s.target.dir);
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--stream=tar", "--target-dir=scp://h/x", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--stream and a remote --target-dir (scp://h/x) exclude each other");
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", "--decompress", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--decompress and --decrypt work on a backup, not with --backup");
	xb_options_free(&o);

	/* --prepare: --parallel when given, else the CPUs (1 to 8) */
	write_cnf("[xtrabackup]\nuse-memory=1G\n");
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--prepare", "--target-dir=/b", "--parallel=12", NULL), 0);
	prepare_settings p;
	CU_ASSERT_EQUAL(prepare_settings_resolve(&o, &p, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.dir, "/b");
	CU_ASSERT_EQUAL(p.threads, 12);
	CU_ASSERT_EQUAL(p.use_memory, 1ULL << 30);
	CU_ASSERT_PTR_NULL(p.stats_file);
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--prepare", "--target-dir=/b", NULL), 0);
	CU_ASSERT_EQUAL(prepare_settings_resolve(&o, &p, &err), 0);
	CU_ASSERT(p.threads >= 1 && p.threads <= 8);
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--prepare", NULL), 0);
	CU_ASSERT_EQUAL(prepare_settings_resolve(&o, &p, &err), 0);
	CU_ASSERT_STRING_EQUAL(p.dir, "./xtrabackup_backupfiles/");
	CU_ASSERT_EQUAL(p.force_recovery, 0);
	xb_options_free(&o);

	/* innodb_force_recovery: limited to 1 for --prepare, read from [mysqld]
	 * (backup-my.cnf), the command line wins; refused by --backup */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--prepare", "--target-dir=/b", "--innodb-force-recovery=3", NULL), 0);
	CU_ASSERT_EQUAL(prepare_settings_resolve(&o, &p, &err), 0);
	CU_ASSERT_EQUAL(p.force_recovery, 1);
	CU_ASSERT_TRUE(p.force_limited);
	xb_options_free(&o);
	write_cnf("[mysqld]\ninnodb_force_recovery=1\n");
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--prepare", "--target-dir=/b", NULL), 0);
	CU_ASSERT_EQUAL(prepare_settings_resolve(&o, &p, &err), 0);
	CU_ASSERT_EQUAL(p.force_recovery, 1);
	CU_ASSERT_FALSE(p.force_limited);
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--prepare", "--target-dir=/b", "--innodb-force-recovery=0", NULL), 0);
	CU_ASSERT_EQUAL(prepare_settings_resolve(&o, &p, &err), 0);
	CU_ASSERT_EQUAL(p.force_recovery, 0);
	xb_options_free(&o);
	write_cnf("[xtrabackup]\n");
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", "--innodb-force-recovery=1", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "the option \"innodb_force_recovery\" should only be used with \"--prepare\" "
					"(command line)");
	xb_options_free(&o);

	/* innodb_log_write_ahead_size, checked as mariabackup does: a power of two
	 * in 512..4096, anything outside adjusted into it */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", "--innodb-log-write-ahead-size=4095", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "innodb_log_write_ahead_size=4095 (command line) is not a power of two");
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, err.code, 0), 1);
	xb_options_free(&o);
	const char *fine[] = {"--innodb-log-write-ahead-size=4096", "--innodb-log-write-ahead-size=512",
			      "--innodb-log-write-ahead-size=10000", "--innodb-log-write-ahead-size=100"};
	for (size_t i = 0; i < sizeof fine / sizeof fine[0]; i++) {
		CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", fine[i], NULL), 0);
		CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
		xb_options_free(&o);
	}

	/* --check-privileges, on by default */
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_TRUE(s.check_privileges);
	xb_options_free(&o);
	CU_ASSERT_EQUAL_FATAL(parse(&o, &err, "--backup", "--target-dir=/b", "--skip-check-privileges", NULL), 0);
	CU_ASSERT_EQUAL(backup_settings_resolve(&o, &s, &err), 0);
	CU_ASSERT_FALSE(s.check_privileges);
	xb_options_free(&o);
}

static void test_short_options(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "-uroot", "-S", "/tmp/s.sock", "-P3306", NULL), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_USER), "root");
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_SOCKET), "/tmp/s.sock");
	CU_ASSERT_EQUAL(xb_opt_int(&o, XB_OPT_PORT), 3306);
	xb_options_free(&o);
}

/* Secrets off the process's command line before the parse: every form is
 * overwritten in place, the copy the parse reads keeps them, the recorded
 * command line shows *** (-pPW as -p***), and a word after a bare -p is
 * never quoted in an error. */
/* A command that takes a value: --restore-tables=LIST (also "--restore-tables LIST"), never alone. */
static void test_command_with_value(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--restore-tables=shop.a,shop.b", "--rename=shop.a:shop.c", "--target-dir=/x", NULL), 0);
	CU_ASSERT_EQUAL(o.command, XB_OPT_RESTORE_TABLES);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_RESTORE_TABLES), "shop.a,shop.b");
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_RENAME), "shop.a:shop.c");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--restore-tables", "shop.a", NULL), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_RESTORE_TABLES), "shop.a");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--restore-tables", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "option --restore-tables needs a value (command line)");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--restore-tables=shop.a", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--backup and --restore-tables cannot be used together");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup=1", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "option --backup takes no value (command line)");
	xb_options_free(&o);
}

static void test_argv_protect(void)
{
	char *argv[] = {strdup("xtrabackup"), strdup("--backup"),     strdup("--password=pw1"),
			strdup("--password"), strdup("pw2"),          strdup("-ppw3"),
			strdup("--loose-password=pw4"), strdup("--encrypt-key"), strdup("k5"),
			strdup("--encrypt-key=k6"), strdup("--user=bob"), strdup("--target-dir=/t"), NULL};
	int argc = 12;
	char **own = xb_argv_protect(argc, argv, true);
	CU_ASSERT_PTR_NOT_NULL_FATAL(own);
	CU_ASSERT_STRING_EQUAL(argv[2], "--password=xxx");
	CU_ASSERT_STRING_EQUAL(argv[4], "xxx");
	CU_ASSERT_STRING_EQUAL(argv[5], "-pxxx");
	CU_ASSERT_STRING_EQUAL(argv[6], "--loose-password=xxx");
	CU_ASSERT_STRING_EQUAL(argv[8], "xx");
	CU_ASSERT_STRING_EQUAL(argv[9], "--encrypt-key=xx");
	CU_ASSERT_STRING_EQUAL(argv[10], "--user=bob");
	CU_ASSERT_STRING_EQUAL(own[4], "pw2");
	CU_ASSERT_STRING_EQUAL(own[5], "-ppw3");
	CU_ASSERT_PTR_NULL(own[argc]);
	xb_options o;
	xb_error err;
	xb_err_clear(&err);
	char *one[] = {own[0], own[1], own[5], own[11]};
	CU_ASSERT_EQUAL(xb_options_parse(&o, 4, one, &err), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_PASSWORD), "pw3");
	CU_ASSERT_STRING_EQUAL(o.tool_command, "--backup -p*** --target-dir=/t");
	xb_options_free(&o);
	xb_argv_free(own);
	for (int i = 0; i < argc; i++)
		free(argv[i]);

	/* under the xbstream names -p is --parallel: left alone */
	char *xs[] = {strdup("xbstream"), strdup("-x"), strdup("-p4"), NULL};
	own = xb_argv_protect(3, xs, false);
	CU_ASSERT_STRING_EQUAL(xs[2], "-p4");
	xb_argv_free(own);
	for (int i = 0; i < 3; i++)
		free(xs[i]);

	/* "-p pw" is refused without quoting the word */
	char *bad[] = {strdup("xtrabackup"), strdup("--backup"), strdup("-p"), strdup("secretword"), NULL};
	xb_err_clear(&err);
	CU_ASSERT_EQUAL(xb_options_parse(&o, 4, bad, &err), XB_E_USAGE);
	CU_ASSERT_PTR_NULL(strstr(err.msg, "secretword"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "unexpected argument after -p"));
	xb_options_free(&o);
	for (int i = 0; i < 4; i++)
		free(bad[i]);
}

static void test_secrets(void)
{
	write_cnf("[client]\npassword=filesecret\n");
	xb_options o;
	xb_error err;
	char *argv[] = {strdup("xtrabackup"), NULL, strdup("--backup"), strdup("--password=clisecret"),
			strdup("-pother"), NULL};
	char deffile[600];
	snprintf(deffile, sizeof deffile, "--defaults-file=%s", cnfpath);
	argv[1] = deffile;
	CU_ASSERT_EQUAL(xb_options_parse(&o, 5, argv, &err), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_PASSWORD), "other");
	CU_ASSERT_PTR_NULL(strstr(o.tool_command, "clisecret"));
	CU_ASSERT_PTR_NULL(strstr(o.tool_command, "other"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.tool_command, "--password=***"));
	/* wiped in argv so ps does not show it */
	CU_ASSERT_PTR_NULL(strstr(argv[3], "clisecret"));
	CU_ASSERT_PTR_NULL(strstr(argv[4], "other"));
	FILE *f = tmpfile();
	xb_options_print_defaults(&o, f);
	rewind(f);
	char buf[4096] = "";
	size_t n = fread(buf, 1, sizeof buf - 1, f);
	buf[n] = '\0';
	fclose(f);
	CU_ASSERT_PTR_NULL(strstr(buf, "filesecret"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.tool_command, " -p***"));
	xb_options_free(&o);
	free(argv[0]);
	free(argv[2]);
	free(argv[3]);
	free(argv[4]);

	/* "--password pwd", as mariabackup takes it: the next word, masked and wiped */
	char *argv2[] = {strdup("xtrabackup"), strdup("--no-defaults"), strdup("--backup"), strdup("--password"),
			 strdup("spaced"), strdup("--target-dir=/t"), NULL};
	CU_ASSERT_EQUAL(xb_options_parse(&o, 6, argv2, &err), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_PASSWORD), "spaced");
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_TARGET_DIR), "/t");
	CU_ASSERT_PTR_NULL(strstr(o.tool_command, "spaced"));
	CU_ASSERT_PTR_NOT_NULL(strstr(o.tool_command, "--password *** --target-dir=/t"));
	CU_ASSERT_PTR_NULL(strstr(argv2[4], "spaced"));
	xb_options_free(&o);
	for (int i = 0; argv2[i]; i++)
		free(argv2[i]);
}

static char *capture(void (*fn)(FILE *))
{
	FILE *f = tmpfile();
	fn(f);
	long n = ftell(f);
	rewind(f);
	char *s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n)
		s[0] = '\0';
	fclose(f);
	return s;
}

static void test_help_and_man(void)
{
	char *help = capture(xb_options_help), *man = capture(xb_options_man);
	for (int id = 0; id < XB_OPT__COUNT; id++) {
		char want[128];
		snprintf(want, sizeof want, "--%s", xb_opt_name(id));
		CU_ASSERT_PTR_NOT_NULL(strstr(help, want));
		/* the man page escapes dashes */
		char esc[256], *p = esc;
		p += sprintf(p, "\\-\\-");
		for (const char *q = xb_opt_name(id); *q; q++) {
			if (*q == '-')
				*p++ = '\\';
			*p++ = *q;
		}
		*p = '\0';
		CU_ASSERT_PTR_NOT_NULL(strstr(man, esc));
	}
	CU_ASSERT_PTR_NOT_NULL(strstr(man, ".TH XTRABACKUP 1"));
	CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SH EXIT STATUS"));
	CU_ASSERT_PTR_NOT_NULL(strstr(help, "Exit status:"));
	CU_ASSERT_PTR_NOT_NULL(strstr(help, "mariabackup options not available yet"));
	CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SH EXAMPLES"));
	CU_ASSERT_PTR_NOT_NULL(strstr(man, ".SH FILES"));
	/* wrapped at 80 columns, as mariabackup's */
	for (const char *l = help; *l;) {
		size_t n = strcspn(l, "\n");
		CU_ASSERT(n <= 80);
		l += n + (l[n] == '\n');
	}
	/* what an option accepts */
	CU_ASSERT_PTR_NOT_NULL(strstr(help, "[1] (1 to 64)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(help, "[auto] (auto or off)"));
	CU_ASSERT_PTR_NOT_NULL(strstr(man, "Accepted: 1 to 64."));
	free(help);
	free(man);
}

static void test_later_options_refused(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--prepare", "--innobackupex", "--target-dir=/x", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--innobackupex is not available in this version (command line)");
	xb_options_free(&o);
	/* loose- never hides an option that changes what the run is */
	CU_ASSERT_EQUAL(parse(&o, &err, "--prepare", "--loose-innobackupex", "--target-dir=/x", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "--innobackupex is not available in this version (command line)");
	xb_options_free(&o);
	/* the partial-backup options and --export are available */
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--databases=db1", "--tables=^db1[.]", "--target-dir=/x", NULL), 0);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--prepare", "--export", "--mariadbd=/usr/sbin/mariadbd", "--export-timeout=60",
			      "--target-dir=/x", NULL), 0);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--prepare", "--export", "--export-timeout=5", "--target-dir=/x", NULL), XB_E_USAGE);
	xb_options_free(&o);
	write_cnf("[xtrabackup]\nbackup\n");
	CU_ASSERT_EQUAL(parse(&o, &err, NULL), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "belongs on the command line"));
	xb_options_free(&o);
}

/* mariabackup's (my_getopt's) exit statuses for bad options, everything
 * after --mysqld-args ignored, obsolete options accepted. */
static void test_mariabackup_compat(void)
{
	write_cnf("[client]\n");
	xb_options o;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--unknown-option=xxx", NULL), XB_E_USAGE);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_USAGE, 0), 7);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_USAGE, 1), XB_E_USAGE);
	CU_ASSERT_PTR_NULL(strstr(err.hint, "loose-"));
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--unknown-option", NULL), XB_E_USAGE);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_USAGE, 0), 2);
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--parallel=x", NULL), XB_E_USAGE);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_USAGE, 0), 13);
	xb_options_free(&o);
	write_cnf("[mariabackup]\nunknown-option=XXX\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), XB_E_USAGE);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_USAGE, 0), 7);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "loose-unknown-option"));
	xb_options_free(&o);
	write_cnf("[mariadbd]\ninnodb-flush-method=O_DIRECT\n[mariabackup]\ninnodb-flush-method=blablabla\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", NULL), XB_E_USAGE);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_USAGE, 0), 13);
	xb_options_free(&o);
	/* a run that failed after parsing exits 1, whatever its code */
	xb_err_set(&err, XB_E_TARGET, "x");
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_TARGET, 0), 1);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, XB_E_TARGET, 1), XB_E_TARGET);
	CU_ASSERT_EQUAL(xb_err_exit_status(&err, 0, 0), 0);
	/* the server's command line after --mysqld-args is not ours */
	write_cnf("[client]\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--target-dir=/x", "--mysqld-args", "--unknown-option",
			      "--wsrep-new-cluster", NULL), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_TARGET_DIR), "/x");
	xb_options_free(&o);
	/* options mariabackup 10.11 takes, in our group and on the command line */
	write_cnf("[mariabackup]\nrsync\nno-version-check\nopen-files-limit=1000\n"
		  "innodb-log-write-ahead-size=4096\nverbose\n[galera]\ndatadir=/from/galera\n");
	CU_ASSERT_EQUAL(parse(&o, &err, "--backup", "--no-backup-locks", "--log-bin=x", "--innodb", "--core-file",
			      "--extended-validation", "--skip-check-privileges", "--binlog-info=ON", NULL), 0);
	CU_ASSERT_STRING_EQUAL(xb_opt_str(&o, XB_OPT_DATADIR), "/from/galera");
	CU_ASSERT_FALSE(xb_opt_bool(&o, XB_OPT_CHECK_PRIVILEGES));
	xb_options_free(&o);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	CU_initialize_registry();
	CU_pSuite s = CU_add_suite("options", NULL, NULL);
	CU_add_test(s, "precedence of groups and command line", test_precedence);
	CU_add_test(s, "our group is strict, loose- and server groups are not", test_strict_tool_group);
	CU_add_test(s, "unknown or stray command-line arguments", test_unknown_on_command_line);
	CU_add_test(s, "skip-/enable- prefixes and boolean values", test_prefixes_and_bools);
	CU_add_test(s, "integer and size types", test_types);
	CU_add_test(s, "ranges: refused with one message naming option and source, bounds accepted", test_ranges);
	CU_add_test(s, "choices: exact or in any case, from files and command line", test_choices);
	CU_add_test(s, "every default is accepted by its own option", test_defaults_accepted);
	CU_add_test(s, "settings of --backup and --prepare resolved from a parsed set", test_settings);
	CU_add_test(s, "short options", test_short_options);
	CU_add_test(s, "secrets masked and wiped", test_secrets);
	CU_add_test(s, "secrets off the process's command line", test_argv_protect);
	CU_add_test(s, "a command that takes a value", test_command_with_value);
	CU_add_test(s, "--help and man page list every option", test_help_and_man);
	CU_add_test(s, "options not yet available are refused", test_later_options_refused);
	CU_add_test(s, "mariabackup's exit statuses and options", test_mariabackup_compat);
	CU_basic_set_mode(CU_BRM_VERBOSE);
	CU_basic_run_tests();
	unsigned failed = CU_get_number_of_failures();
	CU_cleanup_registry();
	char cmd[600];
	snprintf(cmd, sizeof cmd, "rm -rf %s", dir);
	if (system(cmd)) {
		/* best effort */
	}
	return failed ? 1 : 0;
}
