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

#endif /* LCA_API_H */
