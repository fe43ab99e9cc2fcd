/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * /lcactor/ports over DPDK telemetry: every started port, by port id, with
 * its counters (lca_port_stats) and its queue counts. The callback runs in
 * the telemetry thread and reads counters the lcores write without locks,
 * so a reply may be a moment stale; the lock keeps a port from being freed
 * while a reply reads it.
 */
#include <stdio.h>

#include <rte_spinlock.h>
#include <rte_telemetry.h>

#include "lca_port_priv.h"

static rte_spinlock_t lock = RTE_SPINLOCK_INITIALIZER;
static struct lca_port *ports[RTE_MAX_ETHPORTS];

static void
fill_port(struct rte_tel_data *d, const struct lca_port *p)
{
	struct lca_port_stats s;

	lca_port_stats_get(p, &s);
	rte_tel_data_start_dict(d);
	rte_tel_data_add_dict_string(d, "name", p->name);
	rte_tel_data_add_dict_string(d, "driver", p->driver);
	rte_tel_data_add_dict_u64(d, "rx_queues", p->n_rxq);
	rte_tel_data_add_dict_u64(d, "tx_queues", p->n_txq);
	rte_tel_data_add_dict_u64(d, "mbufs", p->n_mbufs);
	rte_tel_data_add_dict_u64(d, "rx", s.rx);
	rte_tel_data_add_dict_u64(d, "delivered", s.delivered);
	rte_tel_data_add_dict_u64(d, "dropped_policy", s.dropped_policy);
	rte_tel_data_add_dict_u64(d, "dropped_dest", s.dropped_dest);
	rte_tel_data_add_dict_u64(d, "held", s.held);
	rte_tel_data_add_dict_u64(d, "paused_polls", s.paused_polls);
	rte_tel_data_add_dict_u64(d, "no_envelope", s.no_envelope);
	rte_tel_data_add_dict_u64(d, "tx", s.tx);
	rte_tel_data_add_dict_u64(d, "tx_bursts", s.tx_bursts);
	rte_tel_data_add_dict_u64(d, "tx_dropped", s.tx_dropped);
	rte_tel_data_add_dict_u64(d, "imissed", s.imissed);
	rte_tel_data_add_dict_u64(d, "ierrors", s.ierrors);
	rte_tel_data_add_dict_u64(d, "rx_nombuf", s.rx_nombuf);
	rte_tel_data_add_dict_u64(d, "memif_restarts",
				  __atomic_load_n(&p->memif_restarts, __ATOMIC_RELAXED));
	rte_tel_data_add_dict_u64(d, "memif_no_server",
				  __atomic_load_n(&p->memif_start_fails, __ATOMIC_RELAXED));
}

static int
tel_ports(const char *cmd, const char *params, struct rte_tel_data *d)
{
	(void)cmd;
	(void)params;
	rte_tel_data_start_dict(d);
	rte_spinlock_lock(&lock);
	for (unsigned int i = 0; i < RTE_MAX_ETHPORTS; i++) {
		struct rte_tel_data *pd;
		char key[8];

		if (ports[i] == NULL)
			continue;
		pd = rte_tel_data_alloc();
		if (pd == NULL)
			break;
		fill_port(pd, ports[i]);
		snprintf(key, sizeof(key), "%u", i);
		rte_tel_data_add_dict_container(d, key, pd, 0);
	}
	rte_spinlock_unlock(&lock);
	return 0;
}

void
port_telemetry_add(struct lca_port *p)
{
	static bool registered;

	/* Telemetry keeps commands for the life of the process. */
	if (!registered) {
		rte_telemetry_register_cmd("/lcactor/ports", tel_ports,
					   "lcactor: each started port's counters. No parameters");
		registered = true;
	}
	rte_spinlock_lock(&lock);
	ports[p->port_id] = p;
	rte_spinlock_unlock(&lock);
}

void
port_telemetry_remove(struct lca_port *p)
{
	rte_spinlock_lock(&lock);
	if (ports[p->port_id] == p)
		ports[p->port_id] = NULL;
	rte_spinlock_unlock(&lock);
}
