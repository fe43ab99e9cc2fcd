/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <getopt.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_cli.h"
#include "app_opt.h"

/* Room for an app's options, with --help and --version. */
#define OPT_MAX 64
/* getopt_long()'s val for table entry i is OPT_VAL + i, above any char. */
#define OPT_VAL 0x100
#define VAL_VERSION (OPT_VAL + OPT_MAX)
#define DEFAULT_COLUMN 22

/* JMH's short words (-i, -wi) with one dash, the rest with two. */
static const char *
dashes(const struct app_opt_table *t, const char *name)
{
	return t->single_dash && strlen(name) <= 2 ? "-" : "--";
}

int
app_opt_bad(const struct app_opt_table *t, const struct app_opt *o, const char *val,
	    const char *why)
{
	fprintf(stderr, "%s: bad value '%s' for %s%s%s%s%s\n", t->prog, val ? val : "",
		dashes(t, o->name), o->name, why ? " (" : "", why ? why : "", why ? ")" : "");
	return -EINVAL;
}

static int
store_uint(const struct app_opt *o, void *conf, uint64_t v)
{
	void *p = app_opt_target(o, conf);

	switch (o->size) {
	case 1: *(uint8_t *)p = (uint8_t)v; return 0;
	case 2: *(uint16_t *)p = (uint16_t)v; return 0;
	case 4: *(uint32_t *)p = (uint32_t)v; return 0;
	case 8: *(uint64_t *)p = v; return 0;
	default: return -EINVAL;
	}
}

static int
parse_double(const char *s, double lo, double hi, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || errno != 0 || !isfinite(v) || v <= lo || v > hi)
		return -EINVAL;
	*out = v;
	return 0;
}

static int
parse_choice(const struct app_opt *o, const char *val, uint64_t *out)
{
	for (uint64_t i = 0; val != NULL && o->choices[i] != NULL; i++)
		if (strcmp(val, o->choices[i]) == 0) {
			*out = i;
			return 0;
		}
	return -EINVAL;
}

/* What a value of @p o must be, in words, when the table says nothing. */
static const char *
default_why(const struct app_opt *o, char *buf, size_t len)
{
	size_t n = 0;

	if (o->why != NULL)
		return o->why;
	if (o->kind == APP_OPT_ENUM) {
		n = (size_t)snprintf(buf, len, "one of");
		for (unsigned int i = 0; o->choices[i] != NULL && n < len; i++)
			n += (size_t)snprintf(buf + n, len - n, "%s %s", i ? "," : "",
					      o->choices[i]);
		return buf;
	}
	if (o->kind == APP_OPT_UINT)
		snprintf(buf, len, "a whole number, %ju to %ju", (uintmax_t)o->min,
			 (uintmax_t)o->max);
	else if (o->kind == APP_OPT_DOUBLE)
		snprintf(buf, len, "a number above %g, at most %g", o->dmin, o->dmax);
	else
		return NULL;
	return buf;
}

static int
take_value(const struct app_opt_table *t, const struct app_opt *o, void *conf, char *val)
{
	char copy[256], why[96], word[64];
	uint64_t u;
	double d;
	int ret = 0;

	/* A custom parser may split the value in place; the message shows it
	 * as given. */
	snprintf(copy, sizeof(copy), "%s", val ? val : "");
	switch (o->kind) {
	case APP_OPT_FLAG:
		*(bool *)app_opt_target(o, conf) = true;
		break;
	case APP_OPT_UINT:
		ret = app_cli_uint(val, o->min, o->max, &u);
		if (ret == 0)
			ret = store_uint(o, conf, u);
		break;
	case APP_OPT_ENUM:
		ret = parse_choice(o, val, &u);
		if (ret == 0)
			ret = store_uint(o, conf, u);
		break;
	case APP_OPT_DOUBLE:
		ret = parse_double(val, o->dmin, o->dmax, &d);
		if (ret == 0)
			*(double *)app_opt_target(o, conf) = d;
		break;
	case APP_OPT_OUTPUT:
		/* Said now, not after a long run: it names the option itself. */
		snprintf(word, sizeof(word), "%s%s", dashes(t, o->name), o->name);
		if (app_cli_output_path(word, val) < 0)
			return -EINVAL;
		/* fall through */
	case APP_OPT_STRING:
		*(const char **)app_opt_target(o, conf) = val;
		break;
	case APP_OPT_CUSTOM:
		ret = o->parse(conf, o, val);
		break;
	case APP_OPT_IGNORE:
	case APP_OPT_MORE:
		break;
	}
	if (ret == APP_OPT_SAID)
		return -EINVAL;
	if (ret < 0)
		return app_opt_bad(t, o, copy, default_why(o, why, sizeof(why)));
	if (o->given != 0)
		*(bool *)((char *)conf + o->given - 1) = true;
	return 0;
}

/* getopt's tables from ours: long options, and the short ones as
 * ":hx:y..." (a leading ':' so that a missing value is told apart). */
static int
build_getopt(const struct app_opt_table *t, struct option *lo, char *so, size_t so_len)
{
	size_t n = 0, s = 0;

	so[s++] = ':';
	so[s++] = 'h';
	for (unsigned int i = 0; t->opts[i].name != NULL; i++) {
		const struct app_opt *o = &t->opts[i];
		bool arg = o->kind != APP_OPT_FLAG && !o->no_value;

		if (o->kind == APP_OPT_MORE)
			continue;
		if (n + 3 > OPT_MAX || s + 3 > so_len)
			return -E2BIG;
		lo[n++] = (struct option){ o->name, arg ? required_argument : no_argument, NULL,
					   OPT_VAL + (int)i };
		if (o->short_name != 0) {
			so[s++] = o->short_name;
			if (arg)
				so[s++] = ':';
		}
	}
	lo[n++] = (struct option){ "help", no_argument, NULL, 'h' };
	lo[n++] = (struct option){ "version", no_argument, NULL, VAL_VERSION };
	lo[n] = (struct option){ NULL, 0, NULL, 0 };
	so[s] = '\0';
	return 0;
}

static const struct app_opt *
by_short(const struct app_opt_table *t, int c)
{
	for (unsigned int i = 0; t->opts[i].name != NULL; i++)
		if (t->opts[i].short_name == c && t->opts[i].kind != APP_OPT_MORE)
			return &t->opts[i];
	return NULL;
}

/* One getopt answer. @return 0 to go on, APP_OPT_DONE, or -EINVAL. */
static int
take_one(const struct app_opt_table *t, int opt, char **argv, void *conf)
{
	const struct app_opt *o = NULL;
	char shortopt[3];

	if (opt >= OPT_VAL && opt < OPT_VAL + OPT_MAX)
		o = &t->opts[opt - OPT_VAL];
	else if (opt != 'h' && opt != ':' && opt != '?' && opt != VAL_VERSION)
		o = by_short(t, opt);
	if (o != NULL)
		return take_value(t, o, conf, optarg);
	switch (opt) {
	case 'h':
		app_opt_usage(stdout, t, argv[0]);
		return APP_OPT_DONE;
	case VAL_VERSION:
		app_cli_version(t->prog);
		return APP_OPT_DONE;
	case ':':
		fprintf(stderr, "%s: option '%s' needs a value\n", t->prog,
			app_cli_bad_option(argv, shortopt, sizeof(shortopt)));
		return -EINVAL;
	default:
		fprintf(stderr, "%s: unknown option '%s'\n", t->prog,
			app_cli_bad_option(argv, shortopt, sizeof(shortopt)));
		return -EINVAL;
	}
}

int
app_opt_parse(int argc, char **argv, const struct app_opt_table *t, void *conf, int *rest)
{
	struct option lo[OPT_MAX + 1];
	char so[2 * OPT_MAX + 3];
	int opt, idx = 0, ret;

	if (build_getopt(t, lo, so, sizeof(so)) < 0) {
		fprintf(stderr, "%s: too many options for app_opt\n", t->prog);
		return -EINVAL;
	}
	/* 0, not 1: glibc then forgets a cluster (-vx) it stopped inside on
	 * an earlier parse, and starts at argv[1]. */
	optind = 0;
	opterr = 0; /* our own messages, in the words of every app's tests */
	/* getopt_long_only() takes "-h" as -h, not as the start of a long
	 * option such as --hops. */
	while ((opt = t->single_dash ? getopt_long_only(argc, argv, so, lo, &idx) :
				       getopt_long(argc, argv, so, lo, &idx)) != -1) {
		ret = take_one(t, opt, argv, conf);
		if (ret != 0)
			return ret;
	}
	if (rest != NULL) {
		*rest = optind;
		return 0;
	}
	if (optind < argc) {
		fprintf(stderr, "%s: unexpected argument '%s'\n", t->prog, argv[optind]);
		return -EINVAL;
	}
	return 0;
}

/* "  -t, --threads N" and the help beside it, from @p column on. */
static void
print_line(FILE *out, const struct app_opt_table *t, const char *dash, const char *name,
	   char short_name, const char *metavar, const char *help)
{
	unsigned int column = t->column ? t->column : DEFAULT_COLUMN;
	int len;

	if (short_name != 0)
		len = fprintf(out, "  -%c, %s%s", short_name, dash, name);
	else
		len = fprintf(out, "  %s%s", dash, name);
	if (metavar != NULL)
		len += fprintf(out, " %s", metavar);
	if (len + 2 > (int)column) {
		fputc('\n', out);
		len = 0;
	}
	fprintf(out, "%*s", (int)column - len, "");
	for (const char *p = help; *p != '\0'; p++) {
		fputc(*p, out);
		if (*p == '\n')
			fprintf(out, "%*s", (int)column, "");
	}
	fputc('\n', out);
}

void
app_opt_usage(FILE *out, const struct app_opt_table *t, const char *prog)
{
	const char *name = NULL;

	fprintf(out, "Usage: %s %s\n", prog,
		t->synopsis ? t->synopsis : "[EAL args] -- [options]");
	if (t->about != NULL)
		fputs(t->about, out);
	for (unsigned int i = 0; t->opts[i].name != NULL; i++) {
		const struct app_opt *o = &t->opts[i];

		if (o->kind != APP_OPT_MORE)
			name = o->name;
		if (o->heading != NULL)
			fprintf(out, "%s\n", o->heading);
		if (!o->hidden)
			print_line(out, t, dashes(t, name), name, o->kind == APP_OPT_MORE ? 0 : o->short_name,
				   o->metavar, o->help ? o->help : "");
	}
	if (t->eal)
		print_line(out, t, "--", "topology", 0, NULL, "print the lcores' topology and exit");
	print_line(out, t, "--", "version", 0, NULL, "print the app's and lcactor's version and exit");
	print_line(out, t, "--", "help", t->eal ? 0 : 'h', NULL, "this text");
	if (t->footer != NULL)
		fputs(t->footer, out);
}
