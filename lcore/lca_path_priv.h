/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_PATH_PRIV_H
#define LCA_PATH_PRIV_H

/*
 * Inside lcore/ only: the one way its machine readers (the frequency
 * readers, the isolation probe) name a file under a root folder, so that
 * tests run every reader on a fake proc/ and sys/ tree.
 */

#include <stddef.h>

/*
 * Write @p root (NULL: "") followed by @p fmt's expansion into @p buf.
 * Returns 0, or -ENAMETOOLONG when it does not fit.
 */
int lca_root_path(char *buf, size_t len, const char *root, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));

#endif /* LCA_PATH_PRIV_H */
