/*
 * xb_load.c - a small "bank" workload for the integration tests.
 *
 * It connects through an option file only (MYSQL_READ_DEFAULT_FILE plus the
 * [client] group), so no password is ever on its command line. Three modes:
 *   setup     creates database `bank` with accounts(id, balance) holding N
 *             accounts of 1000 each, and an empty ledger(id, from_id, to_id,
 *             amount, note) whose random-length notes cause page splits.
 *   transfer  runs T threads until D seconds pass, the stop file appears or
 *             SIGTERM/SIGINT arrives. Each transaction moves a random amount
 *             between two random accounts and logs it as one ledger row, so one
 *             commit is one binlog GTID. Deadlocks and lock wait timeouts are
 *             retried; lost connections are reopened. Prints the commit count.
 *   check     verifies that there are N accounts, that SUM(balance) = N*1000
 *             and that every account's balance equals 1000 plus what the
 *             ledger says it received minus what it sent (so a transfer is
 *             either wholly present or wholly absent). Prints the totals as
 *             `accounts=N total=T ledger=L` and exits 1 on any violation.
 * Exit codes: 0 ok, 1 invariant violated, 2 usage or SQL/connection error.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <getopt.h>
#include <mysql.h>
#include <mysqld_error.h>
#include <errmsg.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *cnf;          /* option file to read the [client] group from */
static long accounts = 1000;     /* number of accounts (setup, transfer, check) */
static int threads = 4;          /* transfer: worker threads */
static int seconds = 60;         /* transfer: maximum run time */
static const char *stop_file;    /* transfer: stop when this file exists */
static volatile sig_atomic_t stop_now; /* set by SIGTERM/SIGINT */

static pthread_mutex_t tot_mu = PTHREAD_MUTEX_INITIALIZER;
static long tot_commits, tot_retries;  /* transfer totals over all threads */

static void __attribute__((noreturn, format(printf, 1, 2))) die(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    fputs("xb_load: ", stderr);
    vfprintf(stderr, fmt, ap);
    fputc('\n', stderr);
    va_end(ap);
    exit(2);
}

/* Open a connection configured only by the option file; NULL on failure. */
static MYSQL *db_open(int quiet)
{
    MYSQL *m = mysql_init(NULL);
    if (!m)
        die("out of memory");
    mysql_options(m, MYSQL_READ_DEFAULT_FILE, cnf);
    mysql_options(m, MYSQL_READ_DEFAULT_GROUP, "client");
    if (!mysql_real_connect(m, NULL, NULL, NULL, NULL, 0, NULL, 0)) {
        if (!quiet)
            fprintf(stderr, "xb_load: connect via %s failed: %s\n", cnf, mysql_error(m));
        mysql_close(m);
        return NULL;
    }
    return m;
}

/* Run a statement; returns 0 or the server/client error number. */
static unsigned db_exec(MYSQL *m, const char *fmt, ...)
{
    char q[1024];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(q, sizeof q, fmt, ap);
    va_end(ap);
    if (mysql_query(m, q) != 0)
        return mysql_errno(m);
    MYSQL_RES *r = mysql_store_result(m);
    if (r)
        mysql_free_result(r);
    return 0;
}

/* Run a statement, dying with its text on failure. */
#define MUST(m, ...) do { if (db_exec(m, __VA_ARGS__)) \
    die("%s failed: %s", #__VA_ARGS__, mysql_error(m)); } while (0)

/* First column of the first row of a query as a long long. */
static long long db_value(MYSQL *m, const char *q)
{
    if (mysql_query(m, q) != 0)
        die("%s failed: %s", q, mysql_error(m));
    MYSQL_RES *r = mysql_store_result(m);
    MYSQL_ROW row = r ? mysql_fetch_row(r) : NULL;
    long long v = (row && row[0]) ? atoll(row[0]) : 0;
    if (r)
        mysql_free_result(r);
    return v;
}

static int do_setup(void)
{
    MYSQL *m = db_open(0);
    if (!m)
        return 2;
    MUST(m, "DROP DATABASE IF EXISTS bank");
    MUST(m, "CREATE DATABASE bank");
    MUST(m, "CREATE TABLE bank.accounts (id INT PRIMARY KEY, balance BIGINT NOT NULL) ENGINE=InnoDB");
    MUST(m, "CREATE TABLE bank.ledger (id BIGINT AUTO_INCREMENT PRIMARY KEY, from_id INT NOT NULL,"
            " to_id INT NOT NULL, amount BIGINT NOT NULL, note VARCHAR(200) NOT NULL) ENGINE=InnoDB");
    /* Insert in chunks so the statement text stays small. */
    char *q = malloc(64 + 16 * 500);
    if (!q)
        die("out of memory");
    for (long id = 1; id <= accounts;) {
        size_t n = (size_t)sprintf(q, "INSERT INTO bank.accounts VALUES ");
        for (int k = 0; k < 500 && id <= accounts; k++, id++)
            n += (size_t)sprintf(q + n, "%s(%ld,1000)", k ? "," : "", id);
        if (mysql_query(m, q) != 0)
            die("insert accounts failed: %s", mysql_error(m));
    }
    free(q);
    printf("setup: accounts=%ld total=%lld\n", accounts, (long long)accounts * 1000);
    mysql_close(m);
    return 0;
}

static int should_stop(time_t end)
{
    return stop_now || time(NULL) >= end || (stop_file && access(stop_file, F_OK) == 0);
}

static int retryable(unsigned e)
{
    return e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT || e == CR_SERVER_GONE_ERROR ||
           e == CR_SERVER_LOST || e == ER_CONNECTION_KILLED || e == CR_CONNECTION_ERROR ||
           e == CR_CONN_HOST_ERROR;
}

static void *transfer_thread(void *arg)
{
    unsigned seed = (unsigned)time(NULL) ^ (unsigned)(size_t)arg * 2654435761u;
    time_t end = time(NULL) + seconds;
    long commits = 0, retries = 0;
    MYSQL *m = NULL;
    char note[201];

    mysql_thread_init();
    while (!should_stop(end)) {
        if (!m && !(m = db_open(1))) {
            retries++;
            usleep(200000);
            continue;
        }
        long a = 1 + rand_r(&seed) % accounts, b = 1 + rand_r(&seed) % accounts;
        if (a == b)
            continue;
        long amount = 1 + rand_r(&seed) % 100;
        int len = 20 + rand_r(&seed) % 180;
        for (int i = 0; i < len; i++)
            note[i] = (char)('a' + rand_r(&seed) % 26);
        note[len] = 0;
        /* Lock rows in id order to keep deadlocks rare; still retried. */
        long lo = a < b ? a : b, hi = a < b ? b : a;
        long dlo = lo == a ? -amount : amount;
        unsigned e;
        if ((e = db_exec(m, "START TRANSACTION")) ||
            (e = db_exec(m, "UPDATE bank.accounts SET balance = balance + (%ld) WHERE id = %ld", dlo, lo)) ||
            (e = db_exec(m, "UPDATE bank.accounts SET balance = balance + (%ld) WHERE id = %ld", -dlo, hi)) ||
            (e = db_exec(m, "INSERT INTO bank.ledger (from_id, to_id, amount, note) VALUES (%ld, %ld, %ld, '%s')",
                         a, b, amount, note)) ||
            (e = db_exec(m, "COMMIT"))) {
            if (!retryable(e)) {
                fprintf(stderr, "xb_load: transfer failed: %u %s\n", e, mysql_error(m));
                mysql_close(m);
                mysql_thread_end();
                exit(2);
            }
            retries++;
            if (e == ER_LOCK_DEADLOCK || e == ER_LOCK_WAIT_TIMEOUT) {
                db_exec(m, "ROLLBACK");
            } else {
                mysql_close(m);
                m = NULL;
            }
            continue;
        }
        commits++;
    }
    if (m)
        mysql_close(m);
    mysql_thread_end();
    pthread_mutex_lock(&tot_mu);
    tot_commits += commits;
    tot_retries += retries;
    pthread_mutex_unlock(&tot_mu);
    return NULL;
}

static void on_signal(int sig)
{
    (void)sig;
    stop_now = 1;
}

static int do_transfer(void)
{
    pthread_t tid[64];
    if (threads < 1 || threads > 64)
        die("--threads must be 1..64");
    MYSQL *probe = db_open(0);  /* fail fast on a bad option file */
    if (!probe)
        return 2;
    mysql_close(probe);
    signal(SIGTERM, on_signal);
    signal(SIGINT, on_signal);
    time_t t0 = time(NULL);
    for (int i = 0; i < threads; i++)
        if (pthread_create(&tid[i], NULL, transfer_thread, (void *)(size_t)(i + 1)) != 0)
            die("pthread_create failed");
    for (int i = 0; i < threads; i++)
        pthread_join(tid[i], NULL);
    printf("transfer: commits=%ld retries=%ld seconds=%ld\n", tot_commits, tot_retries,
           (long)(time(NULL) - t0));
    return 0;
}

static int do_check(void)
{
    MYSQL *m = db_open(0);
    if (!m)
        return 2;
    long long n = db_value(m, "SELECT COUNT(*) FROM bank.accounts");
    long long total = db_value(m, "SELECT COALESCE(SUM(balance),0) FROM bank.accounts");
    long long ledger = db_value(m, "SELECT COUNT(*) FROM bank.ledger");
    long long bad = db_value(m,
        "SELECT COUNT(*) FROM bank.accounts a LEFT JOIN ("
        " SELECT id, SUM(delta) d FROM ("
        "  SELECT from_id id, -amount delta FROM bank.ledger"
        "  UNION ALL SELECT to_id, amount FROM bank.ledger) x GROUP BY id) l"
        " ON l.id = a.id WHERE a.balance <> 1000 + COALESCE(l.d, 0)");
    long long orphans = db_value(m,
        "SELECT COUNT(*) FROM bank.ledger l WHERE NOT EXISTS (SELECT 1 FROM bank.accounts a WHERE a.id = l.from_id)"
        " OR NOT EXISTS (SELECT 1 FROM bank.accounts a WHERE a.id = l.to_id)");
    mysql_close(m);
    printf("accounts=%lld total=%lld ledger=%lld\n", n, total, ledger);
    int rc = 0;
    if (n != accounts) {
        fprintf(stderr, "xb_load: check: expected %ld accounts, found %lld\n", accounts, n);
        rc = 1;
    }
    if (total != accounts * 1000LL) {
        fprintf(stderr, "xb_load: check: expected total %lld, found %lld\n", accounts * 1000LL, total);
        rc = 1;
    }
    if (bad) {
        fprintf(stderr, "xb_load: check: %lld accounts disagree with the ledger\n", bad);
        rc = 1;
    }
    if (orphans) {
        fprintf(stderr, "xb_load: check: %lld ledger rows name unknown accounts\n", orphans);
        rc = 1;
    }
    return rc;
}

static void __attribute__((noreturn)) usage(void)
{
    fprintf(stderr,
            "usage: xb_load --defaults-file=CNF [--accounts=N] [--threads=T] [--seconds=D]\n"
            "               [--stop-file=PATH] setup|transfer|check\n");
    exit(2);
}

int main(int argc, char **argv)
{
    static const struct option opts[] = {
        {"defaults-file", required_argument, NULL, 'c'},
        {"accounts", required_argument, NULL, 'n'},
        {"threads", required_argument, NULL, 't'},
        {"seconds", required_argument, NULL, 'd'},
        {"stop-file", required_argument, NULL, 's'},
        {NULL, 0, NULL, 0},
    };
    int c;
    while ((c = getopt_long(argc, argv, "c:n:t:d:s:", opts, NULL)) != -1) {
        switch (c) {
        case 'c': cnf = optarg; break;
        case 'n': accounts = atol(optarg); break;
        case 't': threads = atoi(optarg); break;
        case 'd': seconds = atoi(optarg); break;
        case 's': stop_file = optarg; break;
        default: usage();
        }
    }
    if (!cnf || optind != argc - 1 || accounts < 2)
        usage();
    setvbuf(stdout, NULL, _IOLBF, 0);
    if (mysql_library_init(0, NULL, NULL))
        die("mysql_library_init failed");
    const char *mode = argv[optind];
    int rc;
    if (!strcmp(mode, "setup"))
        rc = do_setup();
    else if (!strcmp(mode, "transfer"))
        rc = do_transfer();
    else if (!strcmp(mode, "check"))
        rc = do_check();
    else
        usage();
    mysql_library_end();
    return rc;
}
