/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_EAL_PRIV_H
#define LCA_EAL_PRIV_H

/* Internals shared by lca_eal.c and lca_eal_memif.c. */

#include <stddef.h>

/*
 * Check each memif server's socket file among the EAL arguments @p argv
 * (lca_eal_memif_sock_check()). The first stale file removed is named in
 * @p removed (empty: none).
 * @return 0; the first refusal's negative errno.
 */
int eal_memif_args_check(int argc, char **argv, char *removed, size_t len);

#endif /* LCA_EAL_PRIV_H */
