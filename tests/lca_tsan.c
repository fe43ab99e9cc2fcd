/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Linked into the unit tests of a ThreadSanitizer build only (make tsan,
 * tests/meson.build). Debian's DPDK is not built with -fsanitize=thread, so
 * TSan sees none of the synchronisation inside its shared libraries, and
 * reports every access on either side of it as a race. Two such points
 * carry the runtime's ordering, and are told to TSan here, by what DPDK
 * documents they guarantee, rather than suppressed:
 *
 * - rte_eal_remote_launch() / rte_eal_mp_remote_launch() and
 *   rte_eal_wait_lcore() / rte_eal_mp_wait_lcore(): what the main lcore
 *   wrote before a launch is seen by the launched function, and what that
 *   function wrote is seen after the wait (EAL hands the function over with
 *   atomics in librte_eal.so). Every lca_runtime_run() goes through them.
 * - a mempool's driver (the envelope pools use "ring_mt_rts", in
 *   librte_mempool_ring.so): an object put into the pool by one thread and
 *   taken out by another was handed over by the driver's ring. The
 *   per-lcore caches are inline code, instrumented in the caller, and need
 *   nothing.
 *
 * Each of these functions is defined here, in the executable, so the
 * library's calls reach it; it calls DPDK's own (dlsym RTLD_NEXT) and adds
 * the happens-before edge with __tsan_release()/__tsan_acquire().
 */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>

#include <sanitizer/tsan_interface.h>

#include <rte_eal.h>
#include <rte_launch.h>
#include <rte_lcore.h>
#include <rte_mempool.h>

/* The real DPDK function @p name, or abort: a wrapper without it is no test. */
static void *
real(const char *name)
{
	void *f = dlsym(RTLD_NEXT, name);

	if (f == NULL) {
		fprintf(stderr, "lca_tsan: no %s in DPDK: %s\n", name, dlerror());
		abort();
	}
	return f;
}

/* --- launch and wait ----------------------------------------------------- */

static struct {
	lcore_function_t *f;
	void *arg;
	char launched; /* TSan's sync addresses: launch -> function start */
	char done;     /* function end -> wait */
} job[RTE_MAX_LCORE];

static int
trampoline(void *unused)
{
	unsigned int id = rte_lcore_id();
	int ret;

	(void)unused;
	__tsan_acquire(&job[id].launched);
	ret = job[id].f(job[id].arg);
	__tsan_release(&job[id].done);
	return ret;
}

static void
job_set(unsigned int id, lcore_function_t *f, void *arg)
{
	job[id].f = f;
	job[id].arg = arg;
	__tsan_release(&job[id].launched);
}

int
rte_eal_remote_launch(lcore_function_t *f, void *arg, unsigned int worker_id)
{
	static int (*launch)(lcore_function_t *, void *, unsigned int);

	if (launch == NULL)
		launch = real("rte_eal_remote_launch");
	/* DPDK's mp launch may come through here for each worker. */
	if (worker_id >= RTE_MAX_LCORE || f == trampoline)
		return launch(f, arg, worker_id);
	job_set(worker_id, f, arg);
	return launch(trampoline, NULL, worker_id);
}

int
rte_eal_mp_remote_launch(lcore_function_t *f, void *arg, enum rte_rmt_call_main_t call_main)
{
	static int (*launch)(lcore_function_t *, void *, enum rte_rmt_call_main_t);
	unsigned int id;

	if (launch == NULL)
		launch = real("rte_eal_mp_remote_launch");
	RTE_LCORE_FOREACH(id)
		job_set(id, f, arg);
	return launch(trampoline, NULL, call_main);
}

int
rte_eal_wait_lcore(unsigned int worker_id)
{
	static int (*wait)(unsigned int);
	int ret;

	if (wait == NULL)
		wait = real("rte_eal_wait_lcore");
	ret = wait(worker_id);
	if (worker_id < RTE_MAX_LCORE)
		__tsan_acquire(&job[worker_id].done);
	return ret;
}

void
rte_eal_mp_wait_lcore(void)
{
	static void (*wait)(void);
	unsigned int id;

	if (wait == NULL)
		wait = real("rte_eal_mp_wait_lcore");
	wait();
	RTE_LCORE_FOREACH_WORKER(id)
		__tsan_acquire(&job[id].done);
}

/* --- mempool drivers ----------------------------------------------------- */

static rte_mempool_enqueue_t driver_enqueue[RTE_MEMPOOL_MAX_OPS_IDX];
static rte_mempool_dequeue_t driver_dequeue[RTE_MEMPOOL_MAX_OPS_IDX];

static int
enqueue_released(struct rte_mempool *mp, void * const *objs, unsigned int n)
{
	for (unsigned int i = 0; i < n; i++)
		__tsan_release(objs[i]);
	return driver_enqueue[mp->ops_index](mp, objs, n);
}

static int
dequeue_acquired(struct rte_mempool *mp, void **objs, unsigned int n)
{
	int ret = driver_dequeue[mp->ops_index](mp, objs, n);

	/* Bulk dequeue: all n or none. */
	if (ret == 0)
		for (unsigned int i = 0; i < n; i++)
			__tsan_acquire(objs[i]);
	return ret;
}

int
rte_mempool_set_ops_byname(struct rte_mempool *mp, const char *name, void *pool_config)
{
	static int (*set_ops)(struct rte_mempool *, const char *, void *);
	struct rte_mempool_ops *ops;
	int ret;

	if (set_ops == NULL)
		set_ops = real("rte_mempool_set_ops_byname");
	ret = set_ops(mp, name, pool_config);
	if (ret != 0)
		return ret;
	/* Called on the main thread before any pool is populated. */
	ops = &rte_mempool_ops_table.ops[mp->ops_index];
	if (ops->enqueue != enqueue_released) {
		driver_enqueue[mp->ops_index] = ops->enqueue;
		driver_dequeue[mp->ops_index] = ops->dequeue;
		ops->enqueue = enqueue_released;
		ops->dequeue = dequeue_acquired;
	}
	return 0;
}
