/*
 * sink_remote_test.c - the remote sink without a remote host: which targets
 * are URLs, how sftp:// and scp:// URLs are taken apart (user, host, port,
 * percent-decoded path, home-relative paths, defaults; passwords and '?' or
 * '#' parts refused), and the errors raised before any upload (an unreadable
 * key, a refused connection: no retry left, the URL and the hint in the
 * message), with the settings resolved from the options as --backup does
 * (out-of-range values are refused by the option table). The uploads
 * themselves are tested against a real OpenSSH server by
 * test/integration/t/stream_remote.sh.
 */
#include <CUnit/Basic.h>
#include <arpa/inet.h>
#include <netinet/in.h>
#include <pwd.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "command/backup/settings.h"
#include "sink/sink_remote_int.h"

static char dir[] = "/tmp/xb_sink_remote_test.XXXXXX";

static void test_is_url(void)
{
	CU_ASSERT_TRUE(xb_sink_remote_url("sftp://h/x"));
	CU_ASSERT_TRUE(xb_sink_remote_url("SCP://h/x"));
	CU_ASSERT_FALSE(xb_sink_remote_url("file:///x"));
	CU_ASSERT_FALSE(xb_sink_remote_url("/backups/sftp://x"));
	CU_ASSERT_FALSE(xb_sink_remote_url(NULL));
}

/* Parse url into a fresh rsink; returns the error code. */
static int parse(rsink *s, const char *url, xb_error *err)
{
	memset(s, 0, sizeof *s);
	xb_err_clear(err);
	return rs_parse_url(s, url, err);
}

static void drop(rsink *s)
{
	free(s->shown), free(s->origin[0]), free(s->origin[1]), free(s->user), free(s->host), free(s->root);
}

static void test_parse(void)
{
	rsink s;
	xb_error err;
	CU_ASSERT_EQUAL_FATAL(parse(&s, "sftp://backup@db1.example.com:2222/backups/x%20y/", &err), 0);
	CU_ASSERT_STRING_EQUAL(s.user, "backup");
	CU_ASSERT_STRING_EQUAL(s.host, "db1.example.com");
	CU_ASSERT_EQUAL(s.port, 2222);
	CU_ASSERT_STRING_EQUAL(s.root, "/backups/x y");
	CU_ASSERT_FALSE(s.home);
	CU_ASSERT_FALSE(s.scp);
	CU_ASSERT_STRING_EQUAL(s.origin[0], "sftp://db1.example.com:2222");
	CU_ASSERT_STRING_EQUAL(s.origin[1], "scp://db1.example.com:2222");
	CU_ASSERT_STRING_EQUAL(s.shown, "sftp://backup@db1.example.com:2222/backups/x y");
	drop(&s);

	/* home-relative, default port and user (the local user), decoded user */
	CU_ASSERT_EQUAL_FATAL(parse(&s, "scp://h/~/b/c", &err), 0);
	CU_ASSERT_TRUE(s.scp);
	CU_ASSERT_TRUE(s.home);
	CU_ASSERT_STRING_EQUAL(s.root, "b/c");
	CU_ASSERT_EQUAL(s.port, 22);
	struct passwd *pw = getpwuid(geteuid());
	if (pw)
		CU_ASSERT_STRING_EQUAL(s.user, pw->pw_name);
	CU_ASSERT_STRING_EQUAL(s.shown + strlen(s.shown) - strlen("@h:22/~/b/c"), "@h:22/~/b/c");
	drop(&s);
	CU_ASSERT_EQUAL_FATAL(parse(&s, "sftp://%62ob@h/~", &err), 0);
	CU_ASSERT_STRING_EQUAL(s.user, "bob");
	CU_ASSERT_TRUE(s.home);
	CU_ASSERT_STRING_EQUAL(s.root, "");
	drop(&s);

	/* no path: the root directory; IPv6 literal */
	CU_ASSERT_EQUAL_FATAL(parse(&s, "sftp://u@h", &err), 0);
	CU_ASSERT_STRING_EQUAL(s.root, "/");
	drop(&s);
	CU_ASSERT_EQUAL_FATAL(parse(&s, "sftp://u@[::1]:2022/b", &err), 0);
	CU_ASSERT_STRING_EQUAL(s.host, "[::1]");
	CU_ASSERT_STRING_EQUAL(s.origin[0], "sftp://[::1]:2022");
	drop(&s);
}

static void test_parse_refused(void)
{
	rsink s;
	xb_error err;
	CU_ASSERT_EQUAL(parse(&s, "sftp://u:secret@h/x", &err), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "password"));
	CU_ASSERT_PTR_NULL(strstr(err.msg, "secret"));
	drop(&s);
	CU_ASSERT_EQUAL(parse(&s, "sftp://h/x?y", &err), XB_E_USAGE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "%3F"));
	drop(&s);
	CU_ASSERT_EQUAL(parse(&s, "sftp://h/x#y", &err), XB_E_USAGE);
	drop(&s);
	CU_ASSERT_EQUAL(parse(&s, "sftp://h:99999999/x", &err), XB_E_USAGE);
	drop(&s);
}

/* Parse options (NULL-terminated) as given on a command line with --backup. */
static int parse_opts(xb_options *o, xb_error *err, ...)
{
	char *argv[16];
	int argc = 0;
	argv[argc++] = strdup("xtrabackup");
	argv[argc++] = strdup("--no-defaults");
	argv[argc++] = strdup("--backup");
	va_list ap;
	va_start(ap, err);
	const char *a;
	while ((a = va_arg(ap, const char *)) && argc < 16)
		argv[argc++] = strdup(a);
	va_end(ap);
	memset(o, 0, sizeof *o);
	xb_err_clear(err);
	int rc = xb_options_parse(o, argc, argv, err);
	for (int i = 0; i < argc; i++)
		free(argv[i]);
	return rc;
}

/* The remote sink for the --target-dir of o, opened as --backup opens it: target settings first. */
static xb_sink *open_target(const xb_options *o, xb_error *err)
{
	target_settings t;
	if (target_resolve(o, &t, err))
		return NULL;
	return xb_sink_remote_open(t.dir, &t.remote, err);
}

/* A TCP port on 127.0.0.1 nobody listens on (bound, then released). */
static int closed_port(void)
{
	int fd = socket(AF_INET, SOCK_STREAM, 0);
	struct sockaddr_in a = {.sin_family = AF_INET, .sin_addr.s_addr = htonl(INADDR_LOOPBACK)};
	socklen_t l = sizeof a;
	if (fd < 0 || bind(fd, (struct sockaddr *)&a, sizeof a) || getsockname(fd, (struct sockaddr *)&a, &l))
		return 1;
	close(fd);
	return ntohs(a.sin_port);
}

static void test_open_errors(void)
{
	xb_options o;
	xb_error err;
	char key[600], kh[600], url[200], opt_key[700], opt_kh[700], opt_url[300];
	snprintf(key, sizeof key, "%s/id_test", dir);
	snprintf(kh, sizeof kh, "%s/known_hosts", dir);
	FILE *f = fopen(key, "w");
	CU_ASSERT_PTR_NOT_NULL_FATAL(f);
	fputs("not really a key\n", f);
	fclose(f);
	snprintf(opt_key, sizeof opt_key, "--ssh-key-file=%s", key);
	snprintf(opt_kh, sizeof opt_kh, "--ssh-known-hosts=%s", kh);

	/* an unreadable key: before any connection */
	CU_ASSERT_EQUAL_FATAL(parse_opts(&o, &err, "--target-dir=sftp://u@127.0.0.1:1/x",
					 "--ssh-key-file=/nonexistent/id_x", NULL), 0);
	CU_ASSERT_PTR_NULL(open_target(&o, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_REMOTE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "cannot read the SSH key /nonexistent/id_x"));
	xb_options_free(&o);

	/* bad values: refused by the option table */
	CU_ASSERT_EQUAL(parse_opts(&o, &err, opt_key, "--remote-timeout=0", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --remote-timeout: '0' (command line): use 1 or more");
	xb_options_free(&o);
	CU_ASSERT_EQUAL(parse_opts(&o, &err, opt_key, "--remote-retries=31", NULL), XB_E_USAGE);
	CU_ASSERT_STRING_EQUAL(err.msg, "invalid value for --remote-retries: '31' (command line): use 0 to 30");
	xb_options_free(&o);

	/* nobody listening, no retry: refused at once, with the URL and a hint */
	int port = closed_port();
	snprintf(url, sizeof url, "sftp://u@127.0.0.1:%d/b/x", port);
	snprintf(opt_url, sizeof opt_url, "--target-dir=%s", url);
	CU_ASSERT_EQUAL_FATAL(parse_opts(&o, &err, opt_url, opt_key, opt_kh, "--remote-retries=0", NULL), 0);
	CU_ASSERT_PTR_NULL(open_target(&o, &err));
	CU_ASSERT_EQUAL(err.code, XB_E_REMOTE);
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, url));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.msg, "Connection refused"));
	CU_ASSERT_PTR_NOT_NULL(strstr(err.hint, "check that sshd runs on 127.0.0.1"));
	xb_options_free(&o);
}

int main(void)
{
	if (!mkdtemp(dir))
		return 1;
	CU_initialize_registry();
	CU_pSuite su = CU_add_suite("sink_remote", NULL, NULL);
	CU_add_test(su, "sftp:// and scp:// are remote targets", test_is_url);
	CU_add_test(su, "URLs are taken apart as libcurl reads them", test_parse);
	CU_add_test(su, "passwords, queries and fragments are refused", test_parse_refused);
	CU_add_test(su, "errors before any upload", test_open_errors);
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
