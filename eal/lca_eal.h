/* SPDX-License-Identifier: BSD-3-Clause */
#ifndef LCA_EAL_H
#define LCA_EAL_H

/**
 * @file
 * Bring-up and teardown of DPDK's EAL for lcactor apps.
 *
 * An lcactor app is invoked as any DPDK app: `app [EAL args] -- [app args]`.
 * lca_eal_init() runs rte_eal_init() on the EAL part and hands back the app
 * part. When the machine has no free hugepages and the user did not ask for
 * `--no-huge`, it adds `--no-huge` (and a memory size when none was given)
 * and says so once on stderr, so that an app runs on a laptop or CI machine
 * without set-up while a tuned machine keeps its hugepages.
 */

#include <stdbool.h>
#include <stdio.h>

#include <rte_lcore.h>
#include <rte_log.h>

#include "lca_api.h"

#ifdef __cplusplus
extern "C" {
#endif

/** The runtime's rte_log type, "lcactor": `--log-level lcactor:debug`. */
extern LCA_API int lca_logtype;

/**
 * Log through rte_log as the runtime does: LCA_LOG(WARNING, "fmt\n", ...).
 * Messages start with "lcactor: ". The logtype is LCA_LOG_PART, lca_logtype
 * unless the file defined it before its first include (the runtime's parts
 * do, each with its own: "lcactor.actor", "lcactor.remote", ...).
 */
#ifndef LCA_LOG_PART
#define LCA_LOG_PART lca_logtype
#endif
#define LCA_LOG(level, ...) \
	rte_log(RTE_LOG_##level, LCA_LOG_PART, "lcactor: " __VA_ARGS__)

/** Memory (MB) given to EAL with the `--no-huge` fallback when no -m was set. */
#define LCA_EAL_NO_HUGE_MEM_MB 1024

/**
 * Initialise EAL from the command line.
 *
 * @param argc
 *   argc as given to main().
 * @param argv
 *   argv as given to main(). EAL may permute it.
 * @param[out] app_argc
 *   Number of app arguments (after `--`); argv[0] counts as one, as getopt
 *   expects.
 * @param[out] app_argv
 *   The app's arguments, with the program name first.
 * @return
 *   0 on success; a negative errno when EAL could not start, after a message
 *   on stderr that names the cause and the fix.
 */
LCA_API int lca_eal_init(int argc, char **argv, int *app_argc, char ***app_argv);

/**
 * Whether lca_eal_init() had to add `--no-huge` because no hugepages were free.
 */
LCA_API bool lca_eal_no_huge_fallback(void);

/**
 * The EAL arguments that were actually passed to rte_eal_init(), joined by
 * spaces, for the record that every benchmark prints.
 */
LCA_API const char *lca_eal_args(void);

/**
 * Whether SIGINT or SIGTERM has been received since lca_eal_init().
 *
 * The schedulers poll this, so a signal stops every lcore at its next loop.
 */
LCA_API bool lca_eal_stop_requested(void);

/**
 * Ask every lcore to stop, as a signal does. Safe from any thread.
 */
LCA_API void lca_eal_request_stop(void);

/**
 * Run @p fn(@p arg) on EAL's interrupt thread and wait until it returned.
 *
 * PMDs handle their link and control events on that thread. A call that
 * stops or closes a device made from it cannot race those handlers: DPDK
 * 22.11's net_memif frees its shared regions both when its peer disconnects
 * (on that thread) and at rte_eth_dev_stop(), with no lock between the two,
 * and a stop made elsewhere while the peer leaves frees them twice.
 * Called from the interrupt thread itself, @p fn runs at once.
 *
 * @return
 *   0 once @p fn has run; the negative errno of rte_eal_alarm_set(), or
 *   -ETIMEDOUT when the interrupt thread had not taken the call in 5 s, and
 *   then @p fn has run on this thread instead.
 */
LCA_EXPERIMENTAL
LCA_API int lca_eal_on_intr_thread(void (*fn)(void *arg), void *arg);

/**
 * Count of free hugepages of every size, read from @p sysfs_root (normally
 * "/sys"). Exposed for tests with a fake sysfs.
 *
 * @return
 *   Number of free hugepages, or a negative errno when the folder is missing.
 */
LCA_API long lca_eal_free_hugepages(const char *sysfs_root);

/**
 * Make way for a memif server on socket file @p path, as lca_eal_init()
 * does for each `--vdev net_memif...,role=server,socket=PATH,
 * socket-abstract=no` before EAL creates it: DPDK 22.11 leaves the file
 * behind when its server is killed, and then cannot bind it again. The
 * file is removed only when no server answers on it (connect() is refused).
 *
 * @return
 *   0: no file there; 1: a stale socket file was removed; -EADDRINUSE: a
 *   server listens on it (left alone); -EEXIST: the path is not a socket;
 *   -EINVAL: an empty or too long path; another negative errno from
 *   lstat(), connect() or unlink(). Each refusal is logged with the path.
 */
LCA_EXPERIMENTAL
LCA_API int lca_eal_memif_sock_check(const char *path);

/**
 * Release everything that lca_eal_init() set up, EAL included.
 *
 * @return
 *   0 on success, or the negative errno of rte_eal_cleanup().
 */
LCA_API int lca_eal_cleanup(void);

/**
 * Whether lcactor runs actors on @p lcore_id: an EAL lcore (-l, --lcores)
 * or a service lcore (-s, or rte_service_lcore_add() before
 * lca_runtime_init()), where lcactor's service for that lcore runs them
 * (lca_runtime_service_id()). EXPERIMENTAL.
 */
static inline bool
lca_eal_lcore_in_use(unsigned int lcore_id)
{
	return lcore_id < RTE_MAX_LCORE && (rte_lcore_has_role(lcore_id, ROLE_RTE) == 1 ||
					    rte_lcore_has_role(lcore_id, ROLE_SERVICE) == 1);
}

/** How many lcores lca_eal_lcore_in_use() holds. EXPERIMENTAL. */
static inline unsigned int
lca_eal_lcore_count(void)
{
	unsigned int n = 0;

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		n += lca_eal_lcore_in_use(i);
	return n;
}

/** Every lcore of lca_eal_lcore_in_use(), by id, as RTE_LCORE_FOREACH. */
#define LCA_LCORE_FOREACH(i)                     \
	for ((i) = 0; (i) < RTE_MAX_LCORE; (i)++) \
		if (lca_eal_lcore_in_use(i))

#ifdef __cplusplus
}
#endif

#endif /* LCA_EAL_H */
