/* SPDX-License-Identifier: BSD-3-Clause */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>

#include "lca_path_priv.h"

int
lca_root_path(char *buf, size_t len, const char *root, const char *fmt, ...)
{
	size_t off;
	va_list ap;
	int n;

	if (root == NULL)
		root = "";
	n = snprintf(buf, len, "%s", root);
	if (n < 0 || (size_t)n >= len)
		return -ENAMETOOLONG;
	off = (size_t)n;
	va_start(ap, fmt);
	n = vsnprintf(buf + off, len - off, fmt, ap);
	va_end(ap);
	if (n < 0 || (size_t)n >= len - off)
		return -ENAMETOOLONG;
	return 0;
}
