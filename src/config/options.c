/*
 * options.c - option parsing, --help and the man page, all from options.def.
 *
 * The table is expanded once into `opts[]`. Parsing walks the option files
 * (through mycnf) group class by group class and then argv, storing each
 * value as a string with its source; type, range and choice checks happen
 * as values are stored, so a bad value is reported with the file and line or
 * "command line" it came from, and what the option accepts. A password given
 * on the command line is copied and wiped from argv so `ps` does not show it,
 * with the same warning other MariaDB tools print; `--password` without a
 * value prompts on the terminal.
 */
#include "options.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <termios.h>
#include <unistd.h>

#include "common/log.h"

enum { T_CMD, T_BOOL, T_INT, T_SIZE, T_STR, T_PATH };
enum { OF_CONN = 1, OF_SERVER = 2, OF_SECRET = 4, OF_OPTARG = 8, OF_COMPAT = 16, OF_LATER = 32, OF_ANYCASE = 64,
       OF_OBSOLETE = 128, OF_REST = 256 };
#define NOLIM LLONG_MIN
#define CMD T_CMD
#define BOOL T_BOOL
#define INT T_INT
#define SIZE T_SIZE
#define STR T_STR
#define PATH T_PATH

static const struct opt_def {
	const char *name;  /* long name with dashes */
	char shortname;    /* single-letter alias or 0 */
	int type;          /* T_* */
	const char *def;   /* default value or NULL */
	int flags;         /* OF_* */
	long long min;     /* lowest INT or SIZE value accepted, NOLIM: none */
	long long max;     /* highest INT or SIZE value accepted, NOLIM: none */
	const char *choices; /* the STR values accepted, "a|b|c", or NULL */
	const char *arg;   /* argument name for help */
	const char *help;  /* one-line help */
} opts[XB_OPT__COUNT] = {
#define XB_OPT(id, name, sh, type, def, flags, min, max, choices, arg, help) \
	{name, sh, type, def, flags, min, max, choices, arg, help},
#include "options.def"
#undef XB_OPT
};

const char *const xb_groups_server[] = {"mysqld", "server", "mariadb", "mariadbd", "client-server", "galera",
					 "mysqld-10.11", "server-10.11", "mariadb-10.11", "mariadbd-10.11", NULL};
const char *const xb_groups_client[] = {"client", "client-server", "client-mariadb", NULL};
const char *const xb_groups_tool[] = {"xtrabackup", "mariabackup", "mariadb-backup", NULL};

const char *xb_opt_name(xb_opt_id id) { return opts[id].name; }

/* Compare option names as MariaDB does: '-' and '_' equal, case ignored; n = length of a. */
static bool name_eq(const char *a, size_t n, const char *b)
{
	size_t i = 0;
	for (; i < n && b[i]; i++) {
		char x = a[i] == '_' ? '-' : (char)tolower((unsigned char)a[i]);
		char y = b[i] == '_' ? '-' : (char)tolower((unsigned char)b[i]);
		if (x != y)
			return false;
	}
	return i == n && b[i] == '\0';
}

static int find_long(const char *name, size_t n)
{
	for (int i = 0; i < XB_OPT__COUNT; i++)
		if (name_eq(name, n, opts[i].name))
			return i;
	return -1;
}

static int find_short(char c)
{
	for (int i = 0; i < XB_OPT__COUNT; i++)
		if (opts[i].shortname && opts[i].shortname == c)
			return i;
	return -1;
}

int xb_parse_size(const char *s, uint64_t *out)
{
	char *end;
	errno = 0;
	unsigned long long v = strtoull(s, &end, 10);
	if (errno || end == s || *s == '-')
		return -1;
	uint64_t mul = 1;
	switch (toupper((unsigned char)*end)) {
	case '\0': break;
	case 'K': mul = 1ULL << 10; end++; break;
	case 'M': mul = 1ULL << 20; end++; break;
	case 'G': mul = 1ULL << 30; end++; break;
	case 'T': mul = 1ULL << 40; end++; break;
	default: return -1;
	}
	if (*end && !((*end == 'B' || *end == 'b') && end[1] == '\0'))
		return -1;
	*out = v * mul;
	return 0;
}

static int parse_bool(const char *s, bool *out)
{
	static const char *const t[] = {"1", "on", "true", "yes", NULL}, *const f[] = {"0", "off", "false", "no", NULL};
	for (int i = 0; t[i]; i++)
		if (!strcasecmp(s, t[i]))
			return *out = true, 0;
	for (int i = 0; f[i]; i++)
		if (!strcasecmp(s, f[i]))
			return *out = false, 0;
	return -1;
}

static int parse_int(const char *s, long long *out)
{
	char *end;
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || end == s || *end)
		return -1;
	*out = v;
	return 0;
}

/* A bound for messages: a size with its largest exact suffix (512K, 2G), else the number. */
static void bound_text(const struct opt_def *d, long long v, char *out, size_t n)
{
	static const char suffix[] = "KMGT";
	int k = -1;
	while (d->type == T_SIZE && v > 0 && k < 3 && v % 1024 == 0)
		v /= 1024, k++;
	if (k >= 0)
		snprintf(out, n, "%lld%c", v, suffix[k]);
	else
		snprintf(out, n, "%lld", v);
}

/* What the option accepts, in words ("1 to 64", "1 or more", "auto, log or
 * none"), or "" when any value of its type goes. */
static void accepted(const struct opt_def *d, char *out, size_t n)
{
	char lo[32], hi[32];
	out[0] = '\0';
	if (d->choices) {
		size_t len = 0;
		for (const char *p = d->choices; *p && len + 8 < n;) {
			const char *bar = strchr(p, '|');
			size_t w = bar ? (size_t)(bar - p) : strlen(p);
			const char *sep = p == d->choices ? "" : bar ? ", " : " or ";
			int k = snprintf(out + len, n - len, "%s%.*s", sep, (int)w, p);
			len += k > 0 ? (size_t)k : 0;
			p = bar ? bar + 1 : p + w;
		}
		return;
	}
	bound_text(d, d->min, lo, sizeof lo);
	bound_text(d, d->max, hi, sizeof hi);
	if (d->min != NOLIM && d->max != NOLIM)
		snprintf(out, n, "%s to %s", lo, hi);
	else if (d->min != NOLIM)
		snprintf(out, n, "%s or more", lo);
	else if (d->max != NOLIM)
		snprintf(out, n, "at most %s", hi);
}

static bool in_choices(const struct opt_def *d, const char *v)
{
	size_t len = strlen(v);
	for (const char *p = d->choices;;) {
		const char *bar = strchr(p, '|');
		size_t w = bar ? (size_t)(bar - p) : strlen(p);
		if (w == len && !((d->flags & OF_ANYCASE) ? strncasecmp(p, v, w) : strncmp(p, v, w)))
			return true;
		if (!bar)
			return false;
		p = bar + 1;
	}
}

/* True when the value, already of the right type (i for INT, z for SIZE), is in the option's range or choices. */
static bool in_range(const struct opt_def *d, const char *value, long long i, uint64_t z)
{
	if (d->type == T_INT)
		return (d->min == NOLIM || i >= d->min) && (d->max == NOLIM || i <= d->max);
	if (d->type == T_SIZE)
		return (d->min == NOLIM || d->min < 0 || z >= (uint64_t)d->min) &&
		       (d->max == NOLIM || (d->max >= 0 && z <= (uint64_t)d->max));
	/* an optional value left out (--compress alone) is the option's own default */
	if (d->choices && !(*value == '\0' && (d->flags & OF_OPTARG)))
		return in_choices(d, value);
	return true;
}

/* Mark an option error with mariabackup's exit status for it; returns XB_E_USAGE. */
static int getopt_status(xb_error *err, int status)
{
	if (err)
		err->getopt_status = status;
	return XB_E_USAGE;
}

/* Store a value after checking it against the option's type, range and choices. */
static int store(xb_options *o, int id, const char *value, const char *src, xb_error *err)
{
	const struct opt_def *d = &opts[id];
	bool b;
	long long i = 0;
	uint64_t z = 0;
	if (d->type == T_CMD) {
		/* a command with an ARG in the table takes a value (--restore-tables=LIST), kept as an option's */
		if (value && !d->arg) {
			xb_err_set(err, XB_E_USAGE, "option --%s takes no value (%s)", d->name, src);
			return getopt_status(err, XB_GETOPT_NO_ARGUMENT_ALLOWED);
		}
		if (!value && d->arg) {
			xb_err_set(err, XB_E_USAGE, "option --%s needs a value (%s)", d->name, src);
			return getopt_status(err, XB_GETOPT_ARGUMENT_REQUIRED);
		}
		if (o->command >= 0 && o->command != id)
			return xb_err_set(err, XB_E_USAGE, "--%s and --%s cannot be used together",
					  opts[o->command].name, d->name);
		o->command = id;
		if (!value)
			return 0;
		free(o->val[id]);
		free(o->src[id]);
		o->val[id] = strdup(value);
		o->src[id] = strdup(src);
		return 0;
	}
	if (!value) {
		if (d->type == T_BOOL)
			value = "1";
		else if (!(d->flags & OF_OPTARG)) {
			xb_err_set(err, XB_E_USAGE, "option --%s needs a value (%s)", d->name, src);
			return getopt_status(err, XB_GETOPT_ARGUMENT_REQUIRED);
		}
	}
	if (value && ((d->type == T_BOOL && parse_bool(value, &b)) ||
		      (d->type == T_INT && parse_int(value, &i)) ||
		      (d->type == T_SIZE && xb_parse_size(value, &z)) || !in_range(d, value, i, z))) {
		char use[256];
		accepted(d, use, sizeof use);
		xb_err_set(err, XB_E_USAGE, "invalid value for --%s: '%s' (%s)%s%s", d->name,
			   d->flags & OF_SECRET ? "***" : value, src, *use ? ": use " : "", use);
		return getopt_status(err, XB_GETOPT_ARGUMENT_INVALID);
	}
	if (d->flags & OF_OBSOLETE)
		xb_info("Obsolete option: %s. Ignored (%s)", d->name, src);
	free(o->val[id]);
	free(o->src[id]);
	o->val[id] = value ? strdup(value) : strdup("");
	o->src[id] = strdup(src);
	return 0;
}

/* Apply one option named `raw` (possibly with loose-/skip-/enable-/disable- prefixes). */
static int apply_named(xb_options *o, const char *raw, size_t n, const char *value, const char *src,
		       bool strict, int only_flags, xb_error *err)
{
	bool loose = false;
	const char *neg = NULL;
	for (;;) {
		if (n > 6 && name_eq(raw, 6, "loose-")) {
			loose = true;
			raw += 6, n -= 6;
		} else if (!neg && n > 5 && name_eq(raw, 5, "skip-")) {
			neg = "0";
			raw += 5, n -= 5;
		} else if (!neg && n > 8 && name_eq(raw, 8, "disable-")) {
			neg = "0";
			raw += 8, n -= 8;
		} else if (!neg && n > 7 && name_eq(raw, 7, "enable-")) {
			neg = "1";
			raw += 7, n -= 7;
		} else {
			break;
		}
	}
	int id = find_long(raw, n);
	if (id < 0 || (only_flags && !(opts[id].flags & only_flags))) {
		if (!strict || only_flags)
			return 0;
		if (loose) {
			/* as the server and mariabackup do; never silent, so a misspelt
			 * option that would change the backup is seen in the log */
			xb_warn("unknown option '--loose-%.*s' ignored (%s)", (int)n, raw, src);
			return 0;
		}
		xb_err_set(err, XB_E_USAGE, "unknown option '--%.*s' (%s)", (int)n, raw, src);
		getopt_status(err, value ? XB_GETOPT_UNKNOWN_VARIABLE : XB_GETOPT_UNKNOWN_OPTION);
		if (!strcmp(src, "command line"))
			xb_err_hint(err, "see xtrabackup --help, which also lists the mariabackup options not available yet");
		else
			xb_err_hint(err, "see xtrabackup --help; if the option is meant for another program "
					 "reading this group, write it as loose-%.*s", (int)n, raw);
		return XB_E_USAGE;
	}
	if (neg) {
		if (opts[id].type != T_BOOL)
			return xb_err_set(err, XB_E_USAGE, "option --%s cannot be negated (%s)", opts[id].name, src);
		if (value) {
			xb_err_set(err, XB_E_USAGE, "option --%s takes no value here (%s)", opts[id].name, src);
			return getopt_status(err, XB_GETOPT_NO_ARGUMENT_ALLOWED);
		}
		value = neg;
	}
	if (opts[id].type == T_CMD && src[0] != 'c')
		return xb_err_set(err, XB_E_USAGE, "--%s belongs on the command line, not in an option file (%s)",
				  opts[id].name, src);
	return store(o, id, value, src, err);
}

static int apply_groups(xb_options *o, const char *const *groups, bool strict, int only_flags, xb_error *err)
{
	const mycnf_opt **list = NULL;
	size_t n = mycnf_select(&o->cnf, groups, &list);
	int rc = 0;
	for (size_t i = 0; i < n && !rc; i++) {
		char src[1024];
		snprintf(src, sizeof src, "%s:%d", list[i]->file, list[i]->line);
		rc = apply_named(o, list[i]->raw_name, strlen(list[i]->raw_name), list[i]->value, src, strict, only_flags, err);
	}
	free(list);
	return rc;
}

static char *prompt_password(void)
{
	int fd = open("/dev/tty", O_RDWR | O_CLOEXEC);
	if (fd < 0)
		return NULL;
	struct termios old, quiet;
	bool tty = tcgetattr(fd, &old) == 0;
	if (tty) {
		quiet = old;
		quiet.c_lflag &= ~(tcflag_t)ECHO;
		tcsetattr(fd, TCSAFLUSH, &quiet);
	}
	if (write(fd, "Enter password: ", 16) < 0) {
		/* the prompt is a courtesy */
	}
	char buf[512];
	size_t len = 0;
	char c;
	while (len < sizeof buf - 1 && read(fd, &c, 1) == 1 && c != '\n')
		buf[len++] = c;
	buf[len] = '\0';
	if (tty)
		tcsetattr(fd, TCSAFLUSH, &old);
	if (write(fd, "\n", 1) < 0) {
		/* ignore */
	}
	close(fd);
	char *p = strdup(buf);
	memset(buf, 0, sizeof buf);
	return p;
}

/* The option a command-line word names when it is a secret one (the
 * loose- prefix allowed), with where its value starts in the word (NULL: in
 * the next word, or none) and whether it takes the next word as its value;
 * -1 for any other word. short_p: -p is --password (not under the xbstream
 * names, where it is --parallel). */
static int secret_word(const char *a, bool short_p, const char **value, bool *takes_next)
{
	*value = NULL;
	*takes_next = false;
	if (a[0] == '-' && a[1] == '-' && a[2]) {
		const char *name = a + 2, *eq = strchr(name, '=');
		size_t n = eq ? (size_t)(eq - name) : strlen(name);
		while (n > 6 && name_eq(name, 6, "loose-"))
			name += 6, n -= 6;
		int id = find_long(name, n);
		if (id < 0 || !(opts[id].flags & OF_SECRET))
			return -1;
		*value = eq ? eq + 1 : NULL;
		*takes_next = !eq;
		return id;
	}
	if (short_p && a[0] == '-' && a[1] && a[1] != '-') {
		int id = find_short(a[1]);
		if (id < 0 || !(opts[id].flags & OF_SECRET))
			return -1;
		*value = a[2] ? a + 2 : NULL;
		*takes_next = !a[2];
		return id;
	}
	return -1;
}

char **xb_argv_protect(int argc, char **argv, bool short_p)
{
	char **copy = calloc((size_t)argc + 1, sizeof *copy);
	if (!copy)
		return NULL;
	for (int i = 0; i < argc; i++)
		if (!(copy[i] = strdup(argv[i]))) {
			xb_argv_free(copy);
			return NULL;
		}
	for (int i = 1; i < argc && strcmp(argv[i], "--"); i++) {
		const char *value;
		bool takes_next;
		int id = secret_word(argv[i], short_p, &value, &takes_next);
		if (id < 0)
			continue;
		if (value)
			memset((char *)value, 'x', strlen(value));
		/* "--password pwd", "--encrypt-key hex", and the mistaken "-p pwd" */
		else if (takes_next && i + 1 < argc &&
			 (argv[i + 1][0] != '-' || (opts[id].type != T_BOOL && !(opts[id].flags & OF_OPTARG))))
			i++, memset(argv[i], 'x', strlen(argv[i]));
	}
	return copy;
}

void xb_argv_free(char **argv)
{
	if (!argv)
		return;
	for (char **a = argv; *a; a++) {
		memset(*a, 0, strlen(*a));
		free(*a);
	}
	free(argv);
}

/* Build tool_command from argv[1..] with secret values masked. */
static void build_tool_command(xb_options *o, int argc, char **argv)
{
	size_t cap = 1;
	for (int i = 1; i < argc; i++)
		cap += strlen(argv[i]) + 16;
	char *s = malloc(cap), *p = s;
	if (!s)
		return;
	*p = '\0';
	bool mask_next = false;
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		bool secret = false;
		const char *eq = strchr(a, '=');
		if (a[0] == '-' && a[1] == '-') {
			const char *name = a + 2;
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			if (n > 6 && name_eq(name, 6, "loose-"))
				name += 6, n -= 6;
			int id = find_long(name, n);
			secret = id >= 0 && (opts[id].flags & OF_SECRET);
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			int id = find_short(a[1]);
			secret = id >= 0 && (opts[id].flags & OF_SECRET);
			if (secret)
				eq = a + 1; /* -pSECRET: masked as -p*** */
		}
		if (p != s)
			*p++ = ' ';
		bool was_masked = mask_next;
		mask_next = false;
		if (was_masked) {
			p += sprintf(p, "***");
		} else if (secret && eq == a + 1) {
			p += sprintf(p, "%.2s%s", a, a[2] ? "***" : "");
			/* "-p pwd" is a mistake the parse refuses; the word is never shown */
			mask_next = !a[2] && i + 1 < argc && argv[i + 1][0] != '-';
		} else if (secret && !eq) {
			/* "--password pwd": the next word is the secret (see the parse below) */
			p += sprintf(p, "%s", a);
			mask_next = i + 1 < argc && argv[i + 1][0] != '-';
		} else if (secret && eq) {
			p += sprintf(p, "%.*s=***", (int)(eq - a), a);
		} else {
			p += sprintf(p, "%s", a);
		}
	}
	o->tool_command = s;
}

int xb_options_parse(xb_options *o, int argc, char **argv, xb_error *err)
{
	memset(o, 0, sizeof *o);
	o->command = -1;
	build_tool_command(o, argc, argv);

	mycnf_args args;
	memset(&args, 0, sizeof args);
	int consumed = 0;
	int rc = mycnf_parse_argv(argc, argv, &args, &o->print_defaults, &consumed, err);
	if (rc)
		return rc;
	if ((rc = mycnf_load(&o->cnf, &args, err)))
		return rc;
	/* --print-defaults only shows what the files hold, whatever it is */
	if ((rc = apply_groups(o, xb_groups_server, false, OF_SERVER, err)) ||
	    (rc = apply_groups(o, xb_groups_client, false, OF_CONN, err)) ||
	    (rc = apply_groups(o, xb_groups_tool, !o->print_defaults, 0, err)))
		return o->print_defaults ? 0 : rc;

	for (int i = 1 + consumed; i < argc; i++) {
		char *a = argv[i];
		if (a[0] == '-' && a[1] == '-' && a[2]) {
			char *name = a + 2, *eq = strchr(name, '=');
			size_t n = eq ? (size_t)(eq - name) : strlen(name);
			const char *value = eq ? eq + 1 : NULL;
			/* "--opt value" for options that require a value */
			int id = find_long(name, n);
			if (!value && id >= 0 && opts[id].type != T_BOOL && (opts[id].type != T_CMD || opts[id].arg) &&
			    !(opts[id].flags & OF_OPTARG) && i + 1 < argc)
				value = argv[++i];
			/* "--password pwd", as mariabackup takes it (alone, before another option, it prompts) */
			else if (!value && id >= 0 && (opts[id].flags & OF_SECRET) && (opts[id].flags & OF_OPTARG) &&
				 i + 1 < argc && argv[i + 1][0] != '-')
				value = argv[++i];
			if ((rc = apply_named(o, name, n, value, "command line", true, 0, err)))
				return rc;
			if (id >= 0 && (opts[id].flags & OF_REST))
				break;  /* the rest is the server's command line */
			if (id >= 0 && (opts[id].flags & OF_SECRET) && value && *value) {
				xb_warn("Using a password on the command line interface can be insecure");
				memset((char *)value, 'x', strlen(value));
			}
		} else if (a[0] == '-' && a[1] && a[1] != '-') {
			int id = find_short(a[1]);
			if (id < 0) {
				xb_err_set(err, XB_E_USAGE, "unknown option '-%c' (command line)", a[1]);
				xb_err_hint(err, "see xtrabackup --help");
				return getopt_status(err, XB_GETOPT_UNKNOWN_OPTION);
			}
			const char *value = a[2] ? a + 2 : NULL;
			if (!value && opts[id].type != T_BOOL && opts[id].type != T_CMD &&
			    !(opts[id].flags & OF_OPTARG) && i + 1 < argc)
				value = argv[++i];
			if ((rc = store(o, id, value, "command line", err)))
				return rc;
			if ((opts[id].flags & OF_SECRET) && value && *value) {
				xb_warn("Using a password on the command line interface can be insecure");
				memset((char *)value, 'x', strlen(value));
			}
		} else if (o->command == XB_OPT_CREATE) {
			/* xbstream -c FILE...: the files to stream */
			char **v = realloc(o->operands, (size_t)(o->noperands + 1) * sizeof *v);
			if (!v || !(v[o->noperands] = strdup(a))) {
				if (v)
					o->operands = v;
				return xb_err_set(err, XB_E_INTERNAL, "out of memory");
			}
			o->operands = v;
			o->noperands++;
		} else {
			const char *value;
			bool takes_next;
			if (i > 1 && secret_word(argv[i - 1], true, &value, &takes_next) >= 0 && takes_next)
				/* "-p pwd": the word is a password, never shown */
				return xb_err_set(err, XB_E_USAGE, "unexpected argument after %s (command line)", argv[i - 1]),
				       xb_err_hint(err, "a password goes in an option file (password= in [client]); on the "
							"command line it is -pPASSWORD or --password=PASSWORD, with no space");
			return xb_err_set(err, XB_E_USAGE, "unexpected argument '%s' (command line)", a),
			       xb_err_hint(err, "options start with --; the backup directory is given with --target-dir");
		}
	}
	/* --password with no value: prompt */
	if (o->val[XB_OPT_PASSWORD] && o->val[XB_OPT_PASSWORD][0] == '\0' &&
	    !strcmp(o->src[XB_OPT_PASSWORD], "command line")) {
		char *p = prompt_password();
		if (!p)
			return xb_err_set(err, XB_E_USAGE, "--password given without a value and no terminal to ask on"),
			       xb_err_hint(err, "put password= in the [client] group of a --defaults-file readable only by you");
		free(o->val[XB_OPT_PASSWORD]);
		o->val[XB_OPT_PASSWORD] = p;
	}
	if (o->command >= 0 && (opts[o->command].flags & OF_LATER))
		return xb_err_set(err, XB_E_USAGE, "--%s is not available in this version", opts[o->command].name);
	for (int id = 0; id < XB_OPT__COUNT; id++)
		if (o->val[id] && (opts[id].flags & OF_LATER) && opts[id].type != T_CMD)
			return xb_err_set(err, XB_E_USAGE, "--%s is not available in this version (%s)",
					  opts[id].name, o->src[id]);
	return 0;
}

void xb_options_free(xb_options *o)
{
	for (int i = 0; i < XB_OPT__COUNT; i++) {
		if (o->val[i] && (opts[i].flags & OF_SECRET))
			memset(o->val[i], 0, strlen(o->val[i]));
		free(o->val[i]);
		free(o->src[i]);
	}
	free(o->tool_command);
	for (int i = 0; i < o->noperands; i++)
		free(o->operands[i]);
	free(o->operands);
	mycnf_free(&o->cnf);
	memset(o, 0, sizeof *o);
}

bool xb_opt_isset(const xb_options *o, xb_opt_id id) { return o->val[id] != NULL; }

const char *xb_opt_str(const xb_options *o, xb_opt_id id)
{
	return o->val[id] ? o->val[id] : opts[id].def;
}

long long xb_opt_int(const xb_options *o, xb_opt_id id)
{
	long long v = 0;
	const char *s = xb_opt_str(o, id);
	return s && !parse_int(s, &v) ? v : 0;
}

bool xb_opt_bool(const xb_options *o, xb_opt_id id)
{
	bool b = false;
	const char *s = xb_opt_str(o, id);
	return s && !parse_bool(s, &b) ? b : false;
}

uint64_t xb_opt_size(const xb_options *o, xb_opt_id id)
{
	uint64_t v = 0;
	const char *s = xb_opt_str(o, id);
	return s && !xb_parse_size(s, &v) ? v : 0;
}

void xb_options_print_defaults(const xb_options *o, FILE *f)
{
	/* every group we read, in the order of precedence, the way MariaDB tools print them */
	const char *groups[40];
	int n = 0;
	for (const char *const *g = xb_groups_server; *g; g++)
		groups[n++] = *g;
	for (const char *const *g = xb_groups_client; *g; g++)
		groups[n++] = *g;
	for (const char *const *g = xb_groups_tool; *g; g++)
		groups[n++] = *g;
	groups[n] = NULL;
	const mycnf_opt **list = NULL;
	size_t cnt = mycnf_select(&o->cnf, groups, &list);
	fprintf(f, "xtrabackup would have been started with the following arguments:\n");
	for (size_t i = 0; i < cnt; i++) {
		const char *name = list[i]->raw_name;
		int id = find_long(name, strlen(name));
		if (id < 0) {
			int flags = 0;
			const char *base = mycnf_split_prefix(list[i]->name, &flags);
			id = find_long(base, strlen(base));
		}
		bool secret = id >= 0 && (opts[id].flags & OF_SECRET);
		if (!list[i]->value)
			fprintf(f, "%s--%s", i ? " " : "", name);
		else
			fprintf(f, "%s--%s=%s", i ? " " : "", name, secret ? "*****" : list[i]->value);
	}
	fputc('\n', f);
	free(list);
}

static const char *type_arg(const struct opt_def *d)
{
	return d->arg ? d->arg : "";
}

/* Print text wrapped to 80 columns, every line indented by `indent`; the
 * first line starts at column `col` (the cursor), going to a new line first
 * when that is past the indent. */
static void wrap(FILE *f, const char *text, int col, int indent)
{
	const int width = 80;
	if (col > indent) {
		fputc('\n', f);
		col = 0;
	}
	fprintf(f, "%*s", indent - col, "");
	col = indent;
	bool first = true;
	for (const char *p = text; *p;) {
		while (*p == ' ')
			p++;
		size_t w = strcspn(p, " ");
		if (!w)
			break;
		if (!first && col + 1 + (int)w > width) {
			fprintf(f, "\n%*s", indent, "");
			col = indent;
		} else if (!first) {
			fputc(' ', f);
			col++;
		}
		fprintf(f, "%.*s", (int)w, p);
		col += (int)w;
		first = false;
		p += w;
	}
	fputc('\n', f);
}

void xb_options_help(FILE *f)
{
	fprintf(f, "xtrabackup %s - hot backup of MariaDB 10.11, a drop-in for mariabackup\n\n"
		   "Usage: xtrabackup [FILE-OPTIONS] --backup [--target-dir=DIR] [OPTIONS]\n"
		   "       xtrabackup [FILE-OPTIONS] --prepare|--copy-back|--move-back [OPTIONS]\n"
		   "       xtrabackup [FILE-OPTIONS] --restore-tables=LIST --target-dir=DIR ...\n\n"
		   "File options (must come first):\n"
		   "  --no-defaults         read no option files\n"
		   "  --defaults-file=FILE  read only FILE\n"
		   "  --defaults-extra-file=FILE\n"
		   "                        read FILE after the others\n"
		   "  --defaults-group-suffix=SUF\n"
		   "                        also read groups named GROUP+SUF\n"
		   "  --print-defaults      print the options read from files and exit\n\n"
		   "Options:\n", XB_VERSION);
	for (int pass = 0; pass < 3; pass++) {
		if (pass == 1)
			fprintf(f, "\nmariabackup options not available yet (refused, so that a backup is never\n"
				   "silently different from the one asked for):\n");
		if (pass == 2)
			fprintf(f, "\nmariabackup options accepted for compatibility, without effect here:\n");
		for (int id = 0; id < XB_OPT__COUNT; id++) {
			const struct opt_def *d = &opts[id];
			int group = (d->flags & OF_LATER) ? 1 : (d->flags & (OF_COMPAT | OF_OBSOLETE)) ? 2 : 0;
			if (group != pass)
				continue;
			char left[128], sh[8] = "";
			if (d->shortname)
				snprintf(sh, sizeof sh, "-%c, ", d->shortname);
			if (d->arg)
				snprintf(left, sizeof left, "  %s--%s%s%s%s", sh, d->name,
					 d->flags & OF_OPTARG ? "[=" : "=", type_arg(d), d->flags & OF_OPTARG ? "]" : "");
			else
				snprintf(left, sizeof left, "  %s--%s", sh, d->name);
			char text[1024], use[256];
			int k = snprintf(text, sizeof text, "%s", d->help);
			if (d->def && d->type != T_CMD && d->type != T_BOOL && k > 0 && (size_t)k < sizeof text)
				k += snprintf(text + k, sizeof text - (size_t)k, " [%s]", d->def);
			accepted(d, use, sizeof use);
			if (*use && k > 0 && (size_t)k < sizeof text)
				snprintf(text + k, sizeof text - (size_t)k, " (%s)", use);
			fputs(left, f);
			wrap(f, text, (int)strlen(left), 24);
		}
	}
	fprintf(f, "\nExit status: 0 on success; on failure 1, or for a bad option my_getopt's 2\n"
		   "(unknown option), 4, 5, 7 (unknown option with a value) or 13 (bad value), as\n"
		   "mariabackup. The error line carries the code below as Error: [NNN]; with\n"
		   "--exit-status=detailed it is the exit status too.\n");
	int code;
	const char *name, *desc;
	for (int i = 0; xb_err_table(i, &code, &name, &desc); i++) {
		char left[16];
		snprintf(left, sizeof left, "  %3d", code);
		fputs(left, f);
		wrap(f, desc, 6, 8);
	}
}

/* Print s with troff special characters escaped. */
static void man_text(FILE *f, const char *s)
{
	for (; *s; s++) {
		if (*s == '-' || *s == '\\')
			fputc('\\', f);
		fputc(*s, f);
	}
}

void xb_options_man(FILE *f)
{
	fprintf(f, ".TH XTRABACKUP 1 \"\" \"xtrabackup %s\" \"User Commands\"\n", XB_VERSION);
	fprintf(f, ".SH NAME\nxtrabackup \\- hot backup of a live MariaDB 10.11 InnoDB server\n");
	fprintf(f, ".SH SYNOPSIS\n.B xtrabackup\n[\\fIFILE\\-OPTIONS\\fR] \\fB\\-\\-backup\\fR \\fB\\-\\-target\\-dir\\fR=\\fIDIR\\fR [\\fIOPTIONS\\fR]\n");
	fprintf(f, ".SH DESCRIPTION\n\\fB\\-\\-backup\\fR copies the InnoDB datafiles of a running server while following its "
		   "redo log, then the other files under BACKUP STAGE locks, records the binary log position and stores "
		   "a fresh buffer\\-pool dump. \\fB\\-\\-prepare\\fR applies the copied redo log with its own InnoDB "
		   "recovery and prints recovery statistics; \\fB\\-\\-copy\\-back\\fR and \\fB\\-\\-move\\-back\\fR "
		   "restore the prepared backup, so that the server starts warm; \\fB\\-\\-restore\\-tables\\fR puts single "
		   "tables of a backup prepared with \\fB\\-\\-export\\fR back into the running server. "
		   "It is a drop\\-in for mariabackup: "
		   "installed as mariabackup, mariadb\\-backup or mbstream it takes their command lines, and its "
		   "backups and mariabackup's can be prepared by either tool. "
		   "Options are read from the option files' [xtrabackup], [mariabackup] and [mariadb\\-backup] groups, "
		   "connection options also from [client], [client\\-server] and [client\\-mariadb], and server layout options "
		   "from [mysqld], [server], [mariadb], [mariadbd] and [galera]. The last line of a successful run on standard "
		   "error is \\fBcompleted OK!\\fR.\n");
	fprintf(f, ".SH FILE OPTIONS\nThese must come first on the command line.\n"
		   ".TP\n.B \\-\\-no\\-defaults\nRead no option files.\n"
		   ".TP\n.BI \\-\\-defaults\\-file= FILE\nRead only FILE.\n"
		   ".TP\n.BI \\-\\-defaults\\-extra\\-file= FILE\nRead FILE after the others.\n"
		   ".TP\n.BI \\-\\-defaults\\-group\\-suffix= SUFFIX\nAlso read the groups named with SUFFIX appended.\n"
		   ".TP\n.B \\-\\-print\\-defaults\nPrint the options read from option files and exit.\n");
	fprintf(f, ".SH OPTIONS\n");
	for (int id = 0; id < XB_OPT__COUNT; id++) {
		const struct opt_def *d = &opts[id];
		fprintf(f, ".TP\n.B ");
		if (d->shortname)
			fprintf(f, "\\-%c, ", d->shortname);
		fprintf(f, "\\-\\-");
		man_text(f, d->name);
		if (d->arg) {
			fprintf(f, "%s", d->flags & OF_OPTARG ? "[=" : "=");
			man_text(f, d->arg);
			if (d->flags & OF_OPTARG)
				fputc(']', f);
		}
		fputc('\n', f);
		man_text(f, d->help);
		if (d->flags & OF_LATER)
			fprintf(f, " (Not yet available.)");
		if (d->def && d->type != T_CMD && d->type != T_BOOL) {
			fprintf(f, " Default: ");
			man_text(f, d->def);
			fputc('.', f);
		}
		char use[256];
		accepted(d, use, sizeof use);
		if (*use) {
			fprintf(f, " Accepted: ");
			man_text(f, use);
			fputc('.', f);
		}
		fputc('\n', f);
	}
	fprintf(f, ".SH EXIT STATUS\n");
	int code;
	const char *name, *desc;
	for (int i = 0; xb_err_table(i, &code, &name, &desc); i++) {
		fprintf(f, ".TP\n.B %d\n", code);
		man_text(f, desc);
		fputc('\n', f);
	}
	fprintf(f, ".SH EXAMPLES\n"
		   "A nightly backup from cron, the password in an option file readable only by its owner:\n"
		   ".PP\n.nf\n"
		   "xtrabackup \\-\\-defaults\\-extra\\-file=/etc/mysql/backup.cnf \\-\\-backup \\\\\n"
		   "    \\-\\-target\\-dir=/backups/$(date +%%F) 2> /backups/$(date +%%F).log\n"
		   ".fi\n.PP\n"
		   "Prepare it and restore it into an empty datadir, the server stopped:\n"
		   ".PP\n.nf\n"
		   "xtrabackup \\-\\-prepare \\-\\-target\\-dir=/backups/2026\\-11\\-24\n"
		   "xtrabackup \\-\\-copy\\-back \\-\\-target\\-dir=/backups/2026\\-11\\-24\n"
		   "chown \\-R mysql: /var/lib/mysql\n"
		   ".fi\n.PP\n"
		   "Stream a compressed backup to another host:\n"
		   ".PP\n.nf\n"
		   "xtrabackup \\-\\-backup \\-\\-stream=xbstream \\-\\-compress | ssh backup@host \\\\\n"
		   "    'xbstream \\-x \\-\\-decompress \\-C /backups/db1'\n"
		   ".fi\n");
	fprintf(f, ".SH FILES\n"
		   ".TP\n.I /etc/mysql/my.cnf, ~/.my.cnf\nOption files read (unless \\-\\-no\\-defaults or "
		   "\\-\\-defaults\\-file); \\-\\-print\\-defaults shows what was read.\n"
		   ".TP\n.I xtrabackup_checkpoints\nIn a backup: its type and LSNs; written last, so a backup without it is "
		   "incomplete.\n"
		   ".TP\n.I xtrabackup_info, xtrabackup_binlog_info, xtrabackup_slave_info, xtrabackup_galera_info\n"
		   "In a backup: what was backed up, the binary log position, the replica's and the Galera position.\n"
		   ".TP\n.I backup\\-my.cnf\nIn a backup: the server settings \\-\\-prepare needs.\n"
		   ".TP\n.I ib_logfile0\nIn a backup: the copied redo log that \\-\\-prepare applies.\n"
		   ".TP\n.I ib_buffer_pool\nIn a backup: the buffer\\-pool dump the restored server loads.\n");
	fprintf(f, ".SH SEE ALSO\n.BR mariabackup (1),\n.BR mariadbd (8)\n");
}
