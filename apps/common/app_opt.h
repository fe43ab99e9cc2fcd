/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef APP_OPT_H
#define APP_OPT_H

/**
 * @file
 * One table per app says every option it takes: its name, its kind, where
 * its value goes, the values it allows, and its line of help. The parser
 * and `--help` both read the table, so the help lists exactly what is
 * accepted. A bad value is named with the option and why, e.g.
 * "lca-hello: bad value 'zero' for --tokens (a whole number, 1 to 1048576)".
 */

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

/** What a parse returns to mean "done, exit 0" (--help, --version). */
#define APP_OPT_DONE 1

/**
 * What a APP_OPT_CUSTOM callback returns when it has said what is wrong
 * itself: the parser adds no "bad value" line.
 */
#define APP_OPT_SAID (-ECANCELED)

/** The kinds of option. */
enum app_opt_kind {
	APP_OPT_FLAG,   /**< No value: the bool at the target becomes true. */
	APP_OPT_UINT,   /**< An unsigned decimal in [min, max], any width. */
	APP_OPT_DOUBLE, /**< A finite decimal, dmin < value <= dmax. */
	APP_OPT_ENUM,   /**< One of @c choices: its index, stored as UINT is. */
	APP_OPT_STRING, /**< The value itself (a const char *). */
	APP_OPT_OUTPUT, /**< A file to write, checked writable now. */
	APP_OPT_CUSTOM, /**< The callback takes it. */
	APP_OPT_IGNORE, /**< Accepted and ignored (another part reads it). */
	APP_OPT_MORE,   /**< Help only: another form of the option above. */
};

struct app_opt;

/**
 * Take the value of a APP_OPT_CUSTOM option.
 * @param conf
 *   The app's configuration.
 * @param val
 *   The value, NULL for an option with no_value.
 * @return
 *   0; APP_OPT_SAID after a message; another negative errno: the parser
 *   prints "bad value" with the option's @c why.
 */
typedef int (*app_opt_fn)(void *conf, const struct app_opt *opt, char *val);

/** One option. */
struct app_opt {
	const char *name;      /**< Long name without dashes; NULL ends a table. */
	char short_name;       /**< Its one-letter form, 0 for none. */
	enum app_opt_kind kind;
	bool no_value;         /**< APP_OPT_CUSTOM or IGNORE without a value. */
	bool hidden;           /**< Not in --help (one process tells another). */
	size_t offset;         /**< Of the target in the configuration. */
	size_t size;           /**< Of the target (APP_OPT_UINT: 1, 2, 4 or 8). */
	uint64_t min, max;     /**< APP_OPT_UINT's bounds, both allowed. */
	double dmin, dmax;     /**< APP_OPT_DOUBLE's: above dmin, at most dmax. */
	app_opt_fn parse;      /**< APP_OPT_CUSTOM's. */
	const char *const *choices; /**< APP_OPT_ENUM's words, NULL last. */
	size_t given;          /**< 1 + offset of a bool set when given; 0: none. */
	const char *metavar;   /**< The value's name in the help, e.g. "N". */
	const char *help;      /**< Its help; '\n' starts an indented line. */
	const char *why;       /**< What a good value is, for the error. */
	const char *heading;   /**< A line of help printed before this option's. */
};

/** The target and size of @p field of the configuration struct @p type. */
#define APP_OPT_AT(type, field) \
	.offset = offsetof(type, field), .size = sizeof(((type *)0)->field)

/** Mark the bool @p field of @p type when the option is given. */
#define APP_OPT_GIVEN(type, field) .given = 1 + offsetof(type, field)

/** An app's options and the words around them in --help. */
struct app_opt_table {
	const char *prog;      /**< For messages, e.g. "lca-reqresp". */
	const char *synopsis;  /**< After "Usage: PROG "; NULL: EAL's form. */
	const char *about;     /**< Lines before the options. */
	const char *footer;    /**< Lines after them, or NULL. */
	const struct app_opt *opts;
	bool single_dash;      /**< Long options after one dash too (JMH's -wi);
				    the help shows names of 1-2 letters so. */
	bool eal;              /**< On app_main(): it takes --topology. */
	unsigned int column;   /**< Where help text starts; 0: 22. */
};

/**
 * Parse @p argv (argv[0] is the program) into @p conf by @p table; -h,
 * --help and --version print and return APP_OPT_DONE.
 *
 * @param[out] rest
 *   Where the first word that is no option is; NULL: such a word is an
 *   error ("unexpected argument").
 * @return
 *   0; APP_OPT_DONE; -EINVAL after a message naming the option.
 */
int app_opt_parse(int argc, char **argv, const struct app_opt_table *table, void *conf,
		  int *rest);

/** Print the help of @p table on @p out; @p prog is argv[0]. */
void app_opt_usage(FILE *out, const struct app_opt_table *table, const char *prog);

/** Where @p opt's value goes in @p conf. */
static inline void *
app_opt_target(const struct app_opt *opt, void *conf)
{
	return (char *)conf + opt->offset;
}

/**
 * Print "PROG: bad value 'VAL' for --NAME (WHY)" on stderr, as the parser
 * does, for a check made after parsing.
 *
 * @return -EINVAL.
 */
int app_opt_bad(const struct app_opt_table *table, const struct app_opt *opt,
		const char *val, const char *why);

#endif /* APP_OPT_H */
