/* SPDX-License-Identifier: BSD-3-Clause */
#include <ctype.h>
#include <errno.h>
#include <getopt.h>
#include <sys/stat.h>
#include <unistd.h>
#include <stdio.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "app_cli.h"

#ifndef APP_VERSION
#define APP_VERSION "unknown"
#endif

int
app_cli_uint(const char *s, uint64_t min, uint64_t max, uint64_t *out)
{
	unsigned long long v;
	char *end;

	/* A digit first: strtoull would skip blanks and take a sign, so
	 * " -1" would read as 2^64 - 1. */
	if (s == NULL || !isdigit((unsigned char)*s))
		return -EINVAL;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end != '\0')
		return -EINVAL;
	if (errno == ERANGE || v < min || v > max)
		return -ERANGE;
	*out = v;
	return 0;
}

int
app_cli_seconds(const char *s, double *out)
{
	char *end;
	double v;

	if (s == NULL || *s == '\0')
		return -EINVAL;
	errno = 0;
	v = strtod(s, &end);
	if (*end != '\0' || errno != 0 || !isfinite(v) || v <= 0)
		return -EINVAL;
	*out = v;
	return 0;
}

int
app_cli_split(char *s, char **items, unsigned int max)
{
	unsigned int n = 0;

	if (s == NULL)
		return -EINVAL;
	for (;;) {
		char *comma = strchr(s, ',');

		if (comma != NULL)
			*comma = '\0';
		if (*s == '\0')
			return -EINVAL;
		if (n == max)
			return -E2BIG;
		items[n++] = s;
		if (comma == NULL)
			return (int)n;
		s = comma + 1;
	}
}

int
app_cli_output_path(const char *option, const char *path)
{
	char dir[PATH_MAX];
	const char *slash;
	struct stat st;
	int err;

	if (path == NULL || *path == '\0') {
		fprintf(stderr, "%s needs a file name\n", option);
		return -EINVAL;
	}
	if (access(path, F_OK) == 0) {
		err = access(path, W_OK) == 0 ? 0 : errno;
	} else {
		slash = strrchr(path, '/');
		if (slash == NULL)
			snprintf(dir, sizeof(dir), ".");
		else
			snprintf(dir, sizeof(dir), "%.*s", (int)(slash - path) + (slash == path), path);
		if (stat(dir, &st) != 0)
			err = errno;
		else if (!S_ISDIR(st.st_mode))
			err = ENOTDIR;
		else
			err = access(dir, W_OK | X_OK) == 0 ? 0 : errno;
	}
	if (err != 0)
		fprintf(stderr, "%s %s: cannot be written: %s\n", option, path, strerror(err));
	return -err;
}

const char *
app_cli_bad_option(char *const *argv, char *buf, size_t len)
{
	const char *word = argv[optind - 1];

	/* optopt is 0 for an unknown long option, and the long option's val
	 * for one that lacks its value: a word with "--" is long either way. */
	if (optopt == 0 || optopt > UCHAR_MAX || !isgraph(optopt) || strncmp(word, "--", 2) == 0)
		return word;
	snprintf(buf, len, "-%c", optopt);
	return buf;
}

void
app_cli_version(const char *prog)
{
	printf("%s (lcactor) %s\n", prog, APP_VERSION);
}
