/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A memif client port that heals: DPDK 22.11's net_memif client connects
 * to its server only in rte_eth_dev_start(). When the server goes away
 * (killed, or stopped) the PMD disconnects and never tries again, so a
 * restarted server would wait for a client that never comes back. Here
 * an EAL alarm reads each started memif client's link every WATCH_MS, on
 * the interrupt thread, where memif's own handlers run; a link down for
 * RECONNECT_MS gets the device stopped and started again, every
 * RECONNECT_MS while it stays down (a start that fails, no server there
 * yet, leaves it stopped until the next try).
 *
 * A stop and a start rewrite the ethdev's fast-path table (rte_eth_fp_ops)
 * that the lcores read in every burst: a burst straddling that write can
 * call the PMD with a placeholder queue. So the lcores' bursts on the port
 * pass a gate (port_burst_enter()): the restart closes it, waits until no
 * queue is inside a burst, and opens it again only once the device is
 * started. A burst at a closed gate takes and sends nothing (TX counts
 * tx_dropped, as memif does itself while it is not connected).
 */
#define LCA_LOG_PART lca_logtype_port
#include <errno.h>
#include <linux/membarrier.h>
#include <string.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <rte_alarm.h>
#include <rte_cycles.h>
#include <rte_ethdev.h>

#include "lca_eal.h"
#include "lca_logtypes_priv.h"
#include "lca_port_priv.h"

#define WATCH_MS 100
#define RECONNECT_MS 200
/* After a start that connected, how long its handshake gets before the
 * next restart (a loaded machine's interrupt thread may be slow). */
#define HANDSHAKE_MS 1000
/* How long a restart waits for the lcores to leave their bursts: longer
 * only when an lcore's thread was preempted inside one. */
#define QUIESCE_WAIT_MS 100

uint8_t port_gate[RTE_MAX_ETHPORTS];

/* How this process makes the lcores' stores visible before a gate's
 * reader checks are read (the other half of port_burst_enter()). */
static int barrier_cmd = -1;

/* A memif client (memif's default role) connects only at its start: to a
 * server that is not there yet its start fails, and a server whose device
 * is not started yet refuses it, after which the PMD never tries again. */
bool
port_memif_is_client(const struct lca_port *p)
{
	struct rte_eth_dev_info info;
	const struct rte_devargs *da;

	if (strcmp(p->driver, "net_memif") != 0 || rte_eth_dev_info_get(p->port_id, &info) != 0 ||
	    info.device == NULL)
		return false;
	da = rte_dev_devargs(info.device);
	return da == NULL || da->args == NULL || strstr(da->args, "role=server") == NULL;
}

/* membarrier(2): PRIVATE_EXPEDITED (an IPI to this process's running
 * threads), else GLOBAL (slower: the kernel waits for every CPU). */
static int
barrier_setup(void)
{
	long q;

	if (barrier_cmd >= 0)
		return 0;
	q = syscall(__NR_membarrier, MEMBARRIER_CMD_QUERY, 0);
	if (q < 0)
		return -errno;
	if ((q & MEMBARRIER_CMD_PRIVATE_EXPEDITED) &&
	    syscall(__NR_membarrier, MEMBARRIER_CMD_REGISTER_PRIVATE_EXPEDITED, 0) == 0)
		barrier_cmd = MEMBARRIER_CMD_PRIVATE_EXPEDITED;
	else if (q & MEMBARRIER_CMD_GLOBAL)
		barrier_cmd = MEMBARRIER_CMD_GLOBAL;
	else
		return -ENOTSUP;
	return 0;
}

static bool
queues_idle(const struct lca_port *p)
{
	for (unsigned int q = 0; q < p->n_rxq; q++)
		if (p->rxq[q] != NULL && __atomic_load_n(&p->rxq[q]->busy, __ATOMIC_ACQUIRE))
			return false;
	for (unsigned int q = 0; q < p->n_txq; q++)
		if (p->txq[q] != NULL && __atomic_load_n(&p->txq[q]->busy, __ATOMIC_ACQUIRE))
			return false;
	return true;
}

/* Close the gate and wait until no lcore is inside a burst on @p p.
 * @return whether it is quiet (else the gate is open again). */
static bool
gate_close(struct lca_port *p)
{
	__atomic_store_n(&port_gate[p->port_id], 1, __ATOMIC_RELAXED);
	/* Every lcore's busy store before its gate load is visible after
	 * this, and every gate load after it sees the gate closed. */
	if (syscall(__NR_membarrier, barrier_cmd, 0) != 0) {
		__atomic_store_n(&port_gate[p->port_id], 0, __ATOMIC_RELEASE);
		return false;
	}
	for (unsigned int waited_us = 0; !queues_idle(p); waited_us += 10) {
		if (waited_us >= QUIESCE_WAIT_MS * 1000) {
			__atomic_store_n(&port_gate[p->port_id], 0, __ATOMIC_RELEASE);
			LCA_LOG(DEBUG, "port %u: an lcore stayed in a burst for %u ms: restart "
				"put off\n", p->port_id, QUIESCE_WAIT_MS);
			return false;
		}
		rte_delay_us_sleep(10);
	}
	return true;
}

/* Stop (unless a failed start left it stopped) and start the device; the
 * gate opens again only on a started device. On the interrupt thread. */
static void
memif_restart(struct lca_port *p, unsigned int down_ms)
{
	int ret;

	if (!p->memif_stopped && !gate_close(p))
		return;
	if (!p->memif_stopped) {
		rte_eth_dev_stop(p->port_id);
		p->memif_stopped = true;
	}
	ret = rte_eth_dev_start(p->port_id);
	__atomic_store_n(&p->memif_restarts, p->memif_restarts + 1, __ATOMIC_RELAXED);
	if (ret == 0) {
		p->memif_stopped = false;
		p->memif_next_tsc += (HANDSHAKE_MS - RECONNECT_MS) * rte_get_timer_hz() / 1000;
		__atomic_store_n(&port_gate[p->port_id], 0, __ATOMIC_RELEASE);
		LCA_LOG(WARNING, "port %u (%s): memif link down for %u ms: started again, to "
			"reconnect to its server\n", p->port_id, p->name, down_ms);
		return;
	}
	__atomic_store_n(&p->memif_start_fails, p->memif_start_fails + 1, __ATOMIC_RELAXED);
	/* Said once, then once a second of trying. */
	if (p->memif_start_fails == 1 || p->memif_start_fails % (1000 / RECONNECT_MS) == 0)
		LCA_LOG(WARNING, "port %u (%s): memif link down for %u ms: no server to "
			"reconnect to yet (its socket refused the connection, or is not "
			"there); trying every %u ms\n", p->port_id, p->name, down_ms, RECONNECT_MS);
}

/* The alarm: read the link; restart the device after RECONNECT_MS down,
 * then every RECONNECT_MS (HANDSHAKE_MS after a start that connected). */
static void
memif_watch(void *arg)
{
	struct lca_port *p = arg;
	struct rte_eth_link link = { 0 };
	uint64_t now = rte_get_timer_cycles(), hz = rte_get_timer_hz();

	if (__atomic_load_n(&p->memif_unwatch, __ATOMIC_ACQUIRE))
		return;
	if (!p->memif_stopped && rte_eth_link_get_nowait(p->port_id, &link) == 0 &&
	    link.link_status == RTE_ETH_LINK_UP) {
		if (p->memif_down_tsc != 0)
			LCA_LOG(INFO, "port %u (%s): memif link up again, %" PRIu64 " ms after "
				"it went down\n", p->port_id, p->name,
				(now - p->memif_down_tsc) * 1000 / hz);
		p->memif_down_tsc = 0;
	} else if (p->memif_down_tsc == 0) {
		p->memif_down_tsc = now;
		p->memif_next_tsc = now + RECONNECT_MS * hz / 1000;
	} else if (now >= p->memif_next_tsc) {
		p->memif_next_tsc = now + RECONNECT_MS * hz / 1000;
		memif_restart(p, (unsigned int)((now - p->memif_down_tsc) * 1000 / hz));
	}
	if (rte_eal_alarm_set(WATCH_MS * 1000, memif_watch, p) != 0)
		LCA_LOG(ERR, "port %u (%s): no alarm for its memif link: it will not reconnect "
			"by itself\n", p->port_id, p->name);
}

void
port_memif_watch_start(struct lca_port *p)
{
	int ret;

	__atomic_store_n(&port_gate[p->port_id], 0, __ATOMIC_RELEASE);
	if (!port_memif_is_client(p))
		return;
	ret = barrier_setup();
	if (ret == 0)
		ret = rte_eal_alarm_set(WATCH_MS * 1000, memif_watch, p);
	if (ret != 0) {
		LCA_LOG(WARNING, "port %u (%s): a memif client that cannot reconnect by itself "
			"here (%s): a server that goes away is not waited for\n", p->port_id,
			p->name, rte_strerror(-ret));
		return;
	}
	p->memif_watching = true;
}

void
port_memif_watch_stop(struct lca_port *p)
{
	if (!p->memif_watching)
		return;
	__atomic_store_n(&p->memif_unwatch, true, __ATOMIC_RELEASE);
	/* Waits for a callback that is running; takes the one it re-armed. */
	rte_eal_alarm_cancel(memif_watch, p);
	p->memif_watching = false;
	/* A device a failed start left stopped has nothing to flush, drain or
	 * stop; its gate stays closed until the port is started again. */
	if (p->memif_stopped)
		p->dev_started = false;
	if (p->memif_restarts > 0)
		LCA_LOG(INFO, "port %u (%s): %u memif restarts to reconnect, %u of them found no "
			"server\n", p->port_id, p->name, p->memif_restarts, p->memif_start_fails);
}
