/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The composition root: the runtime's init, run and cleanup, the only file
 * that starts, polls and stops every subsystem. The actor core's parts
 * (lca_actor.c's table and turn, the channels, lanes, migration, timers,
 * supervision, placement and telemetry) know nothing of each other's life
 * cycle; here they are put together, in this order, and taken apart in the
 * reverse one.
 */
#include <errno.h>
#include <string.h>

#include <rte_lcore.h>
#include <rte_mempool.h>

#include "lca_actor_priv.h"
#include "lca_balance_priv.h"
#include "lca_channel_priv.h"
#include "lca_eal.h"
#include "lca_lane_priv.h"
#include "lca_mempool.h"
#include "lca_stash_priv.h"
#include "lca_migrate_priv.h"
#include "lca_registry_priv.h"
#include "lca_send_priv.h"
#include "lca_service_priv.h"
#include "lca_supervise_priv.h"
#include "lca_telemetry_priv.h"
#include "lca_timer_priv.h"
#include "lca_topo.h"

#define DEFAULT_MAX_ACTORS 16384
#define DEFAULT_MAX_TIMERS 4096
#define DEFAULT_MSGS_PER_NODE 65535
#define DEFAULT_POOL_CACHE 512

/* The actors' part of each loop iteration: deliver what other lcores and
 * threads sent, then run the timers that are due. Also called by the main
 * thread for other lcores between runs: their timers stay theirs. */
static unsigned int
runtime_poll(unsigned int lcore_id)
{
	unsigned int work = channels_poll(lcore_id);

	if (lcore_id == rte_lcore_id())
		work += timers_poll(lcore_id);
	return work;
}

#ifdef LCA_DEBUG_ENVELOPES
/* Every envelope starts free and poisoned. */
static void
envelope_init_cb(struct rte_mempool *mp, void *arg, void *obj, unsigned int idx)
{
	(void)mp;
	(void)arg;
	(void)idx;
	envelope_debug_init(obj);
}
#endif

/* @p conf checked, with its defaults filled in. */
static int
conf_complete(const struct lca_runtime_conf *conf, struct lca_runtime_conf *c)
{
	*c = conf ? *conf : (struct lca_runtime_conf){ 0 };
	if ((unsigned int)c->placement > LCA_PLACE_AUTO || c->idle < 0 ||
	    c->idle > LCA_IDLE_SLEEP)
		return -EINVAL;
	c->max_actors = c->max_actors ? c->max_actors : DEFAULT_MAX_ACTORS;
	c->max_timers = c->max_timers ? c->max_timers : DEFAULT_MAX_TIMERS;
	c->msgs_per_node = c->msgs_per_node ? c->msgs_per_node : DEFAULT_MSGS_PER_NODE;
	c->pool_cache = c->pool_cache ? c->pool_cache : DEFAULT_POOL_CACHE;
	return 0;
}

/* The lcores placement spreads actors over: over nodes, then cores, as the
 * machine has them; in EAL order where its topology cannot be read.
 * @return how many. */
static unsigned int
placement_order(unsigned int *lcores)
{
	struct lca_topo_cpu cpus[RTE_MAX_LCORE];
	unsigned int ids[RTE_MAX_LCORE], order[RTE_MAX_LCORE], lcore_id;
	struct lca_topo *topo = NULL;
	int n = -1;

	if (lca_topo_load(&topo, NULL) == 0)
		n = lca_topo_eal_lcores(topo, ids, cpus, RTE_MAX_LCORE);
	lca_topo_free(topo);
	if (n > 0) {
		lca_topo_spread_order(cpus, (unsigned int)n, order);
		for (int i = 0; i < n; i++)
			lcores[i] = ids[order[i]];
		/* The service lcores, which the topology's EAL order leaves
		 * out, after the others. */
		LCA_LCORE_FOREACH(lcore_id)
			if (rte_lcore_has_role(lcore_id, ROLE_SERVICE) == 1)
				lcores[n++] = lcore_id;
		return (unsigned int)n;
	}
	n = 0;
	LCA_LCORE_FOREACH(lcore_id)
		lcores[n++] = lcore_id;
	return (unsigned int)n;
}

/* The envelopes' pools, one a node. */
static int
envelopes_init(struct lca_runtime_conf *c)
{
	struct lca_mempool_conf pool_conf;
	uint64_t cache_room;
	int ret;

	/* Envelopes freed on an lcore wait in its cache (up to 1.5 x its size)
	 * and its stash, where no other lcore can take them: add that room, or
	 * a pool sized for the messages in flight runs dry on a machine with
	 * many lcores. */
	c->pool_cache = RTE_MIN(c->pool_cache, (unsigned int)RTE_MEMPOOL_CACHE_MAX_SIZE);
	cache_room = (uint64_t)lca_eal_lcore_count() * (c->pool_cache * 3 / 2 + LCA_STASH_SIZE);
	if (c->msgs_per_node + cache_room > UINT32_MAX / 2)
		return -EINVAL;
	pool_conf = (struct lca_mempool_conf){
		.elt_size = ENVELOPE_ELT_SIZE,
		.per_node = c->msgs_per_node + (unsigned int)cache_room,
		.cache_size = c->pool_cache,
	};
	ret = lca_mempool_init(&pool_conf);
	if (ret < 0)
		return ret;
#ifdef LCA_DEBUG_ENVELOPES
	for (unsigned int i = 0; i < lca_mempool_count(); i++)
		rte_mempool_obj_iter(lca_mempool_by_index(i), envelope_init_cb, NULL);
#endif
	return 0;
}

/* The lcore loops, which run the turns and the poll. */
static int
loops_init(const struct lca_runtime_conf *c)
{
	const struct lca_lcore_conf lcore_conf = {
		.turn = actor_turn,
		.poll = runtime_poll,
		.max_items = c->max_actors,
		.idle = (enum lca_idle_policy)c->idle,
		.idle_sleep_after = c->idle_sleep_after,
		.idle_sleep_us = c->idle_sleep_us,
	};

	return lca_lcore_init(&lcore_conf);
}

/* The subsystems, in the reverse order of subsystems_init(); each cleanup
 * is a no-op for one not set up. With @p deliver, every message still
 * between lcores goes to its mailbox first, so that stopping the actors
 * counts it. */
static void
subsystems_cleanup(bool deliver)
{
	unsigned int lcore_id;

	balance_cleanup();
	migrations_cleanup();
	/* Before the actors go: a timer's message is freed, not sent. */
	timers_cleanup();
	if (deliver)
		LCA_LCORE_FOREACH(lcore_id)
			channels_poll(lcore_id);
	lanes_cleanup();
	channels_cleanup();
}

/* The subsystems around the actors, each on what the one before set up. */
static int
subsystems_init(const struct lca_runtime_conf *c)
{
	int ret = channels_init(c->max_actors);

	if (ret == 0)
		ret = lanes_init();
	if (ret == 0)
		ret = migrations_init();
	if (ret == 0)
		ret = timers_init(c->max_timers);
	if (ret == 0)
		ret = actor_services_init(c->max_actors); /* services: names, asks */
	supervision_quiet(false);
	if (ret == 0)
		ret = balance_init(c);
	return ret;
}

int
lca_runtime_init(const struct lca_runtime_conf *conf)
{
	unsigned int lcores[RTE_MAX_LCORE], n_lcores;
	struct lca_runtime_conf c;
	int ret;

	if (lca_actors.up)
		return -EEXIST;
	ret = conf_complete(conf, &c);
	if (ret < 0)
		return ret;
	n_lcores = placement_order(lcores);
	ret = envelopes_init(&c);
	if (ret < 0)
		return ret;
	ret = loops_init(&c);
	if (ret < 0)
		goto no_loops;
	ret = actors_init(c.max_actors, c.placement, lcores, n_lcores);
	if (ret < 0)
		goto no_actors;
	ret = subsystems_init(&c);
	if (ret == 0)
		ret = services_register();
	if (ret < 0)
		goto no_subsystems;
	lca_send_errors_reset();
	lca_lcore_stats_reset();
	lca_actors.up = true;
	telemetry_runtime_up(true);
	return 0;

no_subsystems:
	subsystems_cleanup(false);
	actor_services_cleanup(); /* services */
	actors_cleanup();
no_actors:
	lca_lcore_cleanup();
no_loops:
	lca_mempool_cleanup();
	return ret;
}

int
lca_runtime_run(unsigned int timeout_ms)
{
	if (!lca_actors.up)
		return -EINVAL;
	return lca_lcore_run(timeout_ms);
}

int
lca_runtime_start(unsigned int timeout_ms)
{
	if (!lca_actors.up)
		return -EINVAL;
	return lca_lcore_start(timeout_ms);
}

int
lca_runtime_end(void)
{
	return lca_lcore_end();
}

void
lca_runtime_stop(void)
{
	lca_lcore_stop();
}

int
lca_runtime_cleanup(void)
{
	if (!lca_actors.up)
		return 0;
	/* Freeing what the loops run would pull the queues from under them. */
	if (lca_lcore_running() || rte_lcore_id() != rte_get_main_lcore()) {
		LCA_LOG(ERR, "lca_runtime_cleanup: %s; nothing freed\n",
			lca_lcore_running() ? "the loops are running (lca_runtime_stop() first; lca_runtime_end() after a guest run)" :
					      "only the main lcore may clean up");
		return -EBUSY;
	}
	services_unregister(); /* no service lcore polls from here on */
	telemetry_runtime_up(false);
	supervision_quiet(true);
	subsystems_cleanup(true);
	actors_cleanup();
	actor_services_cleanup(); /* services: after the actors' stops */
	lca_lcore_cleanup();
	lca_mempool_cleanup();
	lca_actors.up = false;
	return 0;
}

int
lca_actor_stop(lca_actor_id_t id)
{
	struct lca_actor *a = actor_lookup(id);
	int ret;

	if (a == NULL)
		return -ESRCH;
	ret = actor_stop_begin(a);
	if (ret != 0)
		return ret;
	/* The main lcore alone starts runs, so there, between runs, nothing
	 * else consumes the queues and the stop can be done at once; messages
	 * on their way to the actor are pending too: the poll delivers them
	 * first. Otherwise the lcore that runs it drains it. */
	if (rte_lcore_id() == rte_get_main_lcore() && !lca_lcore_running()) {
		if (!actor_is_shared(a))
			channels_poll(a->lcore);
		actor_stop_now(a);
		return 0;
	}
	actor_stop_ask(a);
	return 0;
}
