/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_API_H
#define LCA_API_H

/**
 * @file
 * What liblcactor exports. The library is built with -fvisibility=hidden:
 * a function or variable whose declaration lacks LCA_API stays inside the
 * shared library, so the runtime's interior is not an ABI. Programs linked
 * with the static library (the apps, the unit tests) still reach it.
 */

/** Marks a declaration of a public header as part of the library's ABI. */
#define LCA_API __attribute__((visibility("default")))

/**
 * Marks a call of abi/version.map's EXPERIMENTAL node: it may change or go
 * in any release (docs/api.md, "ABI"). As DPDK's __rte_experimental
 * (rte_compat.h), a use of one warns unless the program defines
 * ALLOW_EXPERIMENTAL_API before its first include, so that no program
 * comes to depend on an unstable call without saying so.
 */
#ifndef ALLOW_EXPERIMENTAL_API
#define LCA_EXPERIMENTAL \
	__attribute__((deprecated("lcactor: an EXPERIMENTAL call, not yet part of the stable ABI; " \
				  "define ALLOW_EXPERIMENTAL_API to use it")))
#else
#define LCA_EXPERIMENTAL
#endif

/*
 * An inline of a public header that is itself LCA_EXPERIMENTAL calls the
 * EXPERIMENTAL function behind it between these two: the program is warned
 * where it calls the inline, not at every include of the header.
 */
#define LCA_EXPERIMENTAL_INNER_BEGIN \
	_Pragma("GCC diagnostic push") \
	_Pragma("GCC diagnostic ignored \"-Wdeprecated-declarations\"")
#define LCA_EXPERIMENTAL_INNER_END _Pragma("GCC diagnostic pop")

#endif /* LCA_API_H */
