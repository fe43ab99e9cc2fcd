/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * lcactor as rte_service components: one service a runtime lcore, named
 * "lcactor_lcore_N", whose iteration is lca_lcore_poll() on lcore N, so
 * that an application maps lcactor with DPDK's own calls (EAL's -s,
 * rte_service_lcore_add(), rte_service_map_lcore_set()), as it maps the
 * software eventdev or the timer adapter. The actors of an lcore belong to
 * it: a service run on another lcore (rte_service_run_iter_on_app_lcore()
 * elsewhere, a map to the wrong lcore) refuses, logs and counts it.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>

#include <rte_cycles.h>
#include <rte_errno.h>
#include <rte_lcore.h>
#include <rte_service.h>
#include <rte_service_component.h>

#include "lca_actor_priv.h"
#include "lca_eal.h"
#include "lca_lcore.h"
#include "lca_service_priv.h"

#define UNSET UINT32_MAX
#define QUIET_WAIT_MS 1000

static uint32_t service_of[RTE_MAX_LCORE];
static uint64_t wrong_lcore; /* iterations run on another lcore, refused */
/* Iterations done, by service: written with release at each one's end and
 * read with acquire once the service is quiet, so that what its last
 * iteration did happens before the runtime's cleanup (DPDK's own ordering
 * of a service stop is not visible to ThreadSanitizer). */
static uint64_t iterations[RTE_MAX_LCORE];
/* Bumped with release once the services are registered, read with acquire
 * by each iteration: what lca_runtime_init() wrote before (the loops'
 * contexts) happens before any iteration, for the same reason. */
static uint32_t services_epoch;
static bool started_here[RTE_MAX_LCORE]; /* service lcores lca_runtime_services_map() started */
static bool registered;

static int32_t
service_iteration(void *arg)
{
	unsigned int lcore_id = (unsigned int)(uintptr_t)arg;
	int ret;

	(void)__atomic_load_n(&services_epoch, __ATOMIC_ACQUIRE);
	if (unlikely(rte_lcore_id() != lcore_id)) {
		if (__atomic_fetch_add(&wrong_lcore, 1, __ATOMIC_RELAXED) == 0)
			LCA_LOG(ERR, "service lcactor_lcore_%u run on lcore %u: refused (map "
				"each lcactor_lcore_N service to lcore N only)\n",
				lcore_id, rte_lcore_id());
		return -EPERM;
	}
	ret = lca_lcore_poll();
	/* One writer (the service runs on its lcore only): a plain store. */
	__atomic_store_n(&iterations[lcore_id], iterations[lcore_id] + 1, __ATOMIC_RELEASE);
	/* -EAGAIN: no work, for DPDK's service statistics that read it. */
	return ret > 0 ? 0 : -EAGAIN;
}

int
services_register(void)
{
	unsigned int lcore_id;

	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		service_of[i] = UNSET;
	LCA_LCORE_FOREACH(lcore_id) {
		struct rte_service_spec spec = {
			.callback = service_iteration,
			.callback_userdata = (void *)(uintptr_t)lcore_id,
			.capabilities = 0, /* not MT-safe: one lcore, its own */
		};
		uint32_t id;
		int ret;

		snprintf(spec.name, sizeof(spec.name), "lcactor_lcore_%u", lcore_id);
		ret = rte_service_component_register(&spec, &id);
		if (ret < 0) {
			LCA_LOG(ERR, "cannot register service %s: %s\n", spec.name,
				rte_strerror(-ret));
			services_unregister();
			return ret;
		}
		service_of[lcore_id] = id;
		registered = true;
		rte_service_component_runstate_set(id, 1);
		rte_service_set_stats_enable(id, 1);
	}
	__atomic_fetch_add(&services_epoch, 1, __ATOMIC_RELEASE);
	return 0;
}

/* Stop the service and wait until no lcore runs it (it may then go). */
static void
service_quiesce(uint32_t id)
{
	uint64_t give_up = rte_rdtsc() + rte_get_tsc_hz() * QUIET_WAIT_MS / 1000;

	rte_service_runstate_set(id, 0);
	rte_service_component_runstate_set(id, 0);
	while (rte_service_may_be_active(id) == 1 && rte_rdtsc() < give_up)
		rte_pause();
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		(void)__atomic_load_n(&iterations[l], __ATOMIC_ACQUIRE);
}

void
services_unregister(void)
{
	if (!registered)
		return;
	for (unsigned int lcore_id = 0; lcore_id < RTE_MAX_LCORE; lcore_id++) {
		uint32_t id = service_of[lcore_id];

		if (id == UNSET)
			continue;
		service_quiesce(id);
		for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
			if (rte_service_map_lcore_get(id, l) == 1)
				rte_service_map_lcore_set(id, l, 0);
		if (rte_service_component_unregister(id) < 0)
			LCA_LOG(ERR, "service lcactor_lcore_%u still running: not unregistered\n",
				lcore_id);
		service_of[lcore_id] = UNSET;
	}
	for (unsigned int l = 0; l < RTE_MAX_LCORE; l++)
		if (started_here[l] && rte_service_lcore_stop(l) == 0)
			started_here[l] = false;
	registered = false;
}

int
lca_runtime_service_id(unsigned int lcore_id, uint32_t *service_id)
{
	if (service_id == NULL || lcore_id >= RTE_MAX_LCORE)
		return -EINVAL;
	if (!registered || service_of[lcore_id] == UNSET)
		return -ENODEV;
	*service_id = service_of[lcore_id];
	return 0;
}

int
lca_runtime_services_map(void)
{
	unsigned int lcore_id;
	int n = 0;

	LCA_LCORE_FOREACH(lcore_id) {
		uint32_t id = service_of[lcore_id];
		int ret;

		if (rte_lcore_has_role(lcore_id, ROLE_SERVICE) != 1 || id == UNSET)
			continue;
		ret = rte_service_map_lcore_set(id, lcore_id, 1);
		if (ret == 0)
			ret = rte_service_runstate_set(id, 1);
		if (ret == 0) {
			ret = rte_service_lcore_start(lcore_id);
			started_here[lcore_id] |= ret == 0;
			ret = ret == -EALREADY ? 0 : ret;
		}
		if (ret < 0) {
			LCA_LOG(ERR, "service lcactor_lcore_%u: cannot map and start it on its "
				"lcore: %s\n", lcore_id, rte_strerror(-ret));
			return ret;
		}
		n++;
	}
	return n;
}

uint64_t
lca_runtime_service_refusals(void)
{
	return __atomic_load_n(&wrong_lcore, __ATOMIC_RELAXED);
}
