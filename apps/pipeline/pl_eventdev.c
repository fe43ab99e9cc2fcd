/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The eventdev engine, the in-run anchor: the same stages on a DPDK event
 * device (event_dsw, the software distributed scheduler) on the same
 * lcores. One atomic queue; one port per lcore, linked to it. An lcore's
 * sources enqueue NEW events (flow = partition, so a partition's messages
 * are counted by one port at a time, in order) and its port dequeues bursts
 * and counts them in the partition's state. The device's new-event
 * threshold, partitions x watermark, is the back-pressure: an enqueue it
 * refuses is made again. DSW moves flows between ports as their load asks;
 * every port keeps dequeuing until every message is counted, since a move
 * needs every port's answer.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include <rte_cycles.h>
#include <rte_eventdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>

#include "lca_eal.h"
#include "lca_freq.h"
#include "pipeline.h"

#define EV_OFFSET_BITS 40

static uint8_t dev_id;
static bool configured, started;
static uint8_t port_of[RTE_MAX_LCORE];
static unsigned int enq_max, deq_max;
static struct pl_task *task[PL_MAX_PARTITIONS];
static int worker_ret[RTE_MAX_LCORE];
static char driver[64];

const char *
pl_eventdev_driver(void)
{
	return driver;
}

static int
ev_worker(void *arg)
{
	const struct pl_conf *c = pl.conf;
	unsigned int me = rte_lcore_id();
	struct pl_lcore *l = &pl.lc[me];
	struct pl_fig *f = &l->f;
	uint8_t port = port_of[me];
	struct rte_event ev[PL_MAX_BURST];
	struct pl_rec recs[PL_MAX_BURST];
	uint64_t left = l->quota_produce;
	int ret = 0;

	(void)arg;
	for (;;) {
		uint64_t now = rte_rdtsc();
		uint16_t n;

		if ((ret = pl_loop_tick(f, me, now)) != 0)
			break;
		for (unsigned int i = 0; i < l->n_src && left > 0; i++) {
			uint32_t p = l->src_part[i];
			unsigned int k = pl.feed->peek(p, recs, enq_max);
			uint16_t sent;

			if (k == 0)
				continue;
			for (unsigned int j = 0; j < k; j++) {
				ev[j].event = 0;
				ev[j].flow_id = p;
				ev[j].op = RTE_EVENT_OP_NEW;
				ev[j].sched_type = RTE_SCHED_TYPE_ATOMIC;
				ev[j].queue_id = 0;
				ev[j].event_type = RTE_EVENT_TYPE_CPU;
				ev[j].priority = RTE_EVENT_DEV_PRIORITY_NORMAL;
				ev[j].u64 = (uint64_t)recs[j].stream << EV_OFFSET_BITS | recs[j].offset;
			}
			sent = rte_event_enqueue_new_burst(dev_id, port, ev, (uint16_t)k);
			pl.feed->commit(p, sent);
			f->produced += sent;
			left -= sent;
			if (sent < k) {
				/* Over the device's new-event threshold: made again. */
				f->refused += k - sent;
				f->held++;
				break;
			}
		}
		n = rte_event_dequeue_burst(dev_id, port, ev, deq_max, 0);
		if (n > 0) {
			for (uint16_t j = 0; j < n; j++) {
				struct pl_task *t = task[ev[j].flow_id];

				pl_task_count(t, (uint32_t)(ev[j].u64 >> EV_OFFSET_BITS),
					      ev[j].u64 & ((UINT64_C(1) << EV_OFFSET_BITS) - 1));
				t->processed++;
			}
			pl_count(f, n, rte_rdtsc());
		} else if (left == 0 && pl_processed_all() == c->messages) {
			break;
		}
	}
	worker_ret[me] = ret;
	return ret;
}

/* The first event device, if it can run here: no service core, a port
 * for every lcore. */
static int
check_device(struct rte_event_dev_info *info)
{
	uint32_t service;
	int ret;

	if (rte_event_dev_count() == 0) {
		fprintf(stderr, "lca-pipeline: eventdev: no event device; give EAL --vdev event_dsw0\n");
		return -ENODEV;
	}
	dev_id = 0;
	ret = rte_event_dev_info_get(dev_id, info);
	if (ret < 0)
		return ret;
	snprintf(driver, sizeof(driver), "%s", info->driver_name);
	if (rte_event_dev_service_id_get(dev_id, &service) == 0) {
		fprintf(stderr, "lca-pipeline: eventdev: %s needs a service core to schedule; this "
				"engine runs the lcores' own ports only: use --vdev event_dsw0\n",
			driver);
		return -ENOTSUP;
	}
	if (info->max_event_ports < pl.n_lcores) {
		fprintf(stderr, "lca-pipeline: eventdev: %s has %u ports, not one per lcore (%u)\n",
			driver, info->max_event_ports, pl.n_lcores);
		return -ENOTSUP;
	}
	return 0;
}

/* One atomic queue, one port per lcore. */
static int
configure(const struct rte_event_dev_info *info, struct rte_event_dev_config *dc)
{
	struct rte_event_queue_conf qc;
	int ret;

	*dc = (struct rte_event_dev_config){
		.dequeue_timeout_ns = info->min_dequeue_timeout_ns,
		.nb_events_limit = info->max_num_events > 0 ? info->max_num_events : 16384,
		.nb_event_queues = 1,
		.nb_event_ports = (uint8_t)pl.n_lcores,
		.nb_event_queue_flows = info->max_event_queue_flows,
		.nb_event_port_dequeue_depth = info->max_event_port_dequeue_depth,
		.nb_event_port_enqueue_depth = info->max_event_port_enqueue_depth,
	};
	ret = rte_event_dev_configure(dev_id, dc);
	if (ret < 0) {
		fprintf(stderr, "lca-pipeline: eventdev: configure: %s\n", strerror(-ret));
		return ret;
	}
	configured = true;
	rte_event_queue_default_conf_get(dev_id, 0, &qc);
	qc.schedule_type = RTE_SCHED_TYPE_ATOMIC;
	qc.nb_atomic_flows = RTE_MIN(4096u, dc->nb_event_queue_flows);
	qc.event_queue_cfg = 0;
	ret = rte_event_queue_setup(dev_id, 0, &qc);
	if (ret < 0)
		fprintf(stderr, "lca-pipeline: eventdev: queue setup: %s\n", strerror(-ret));
	return ret;
}

/* Lcore i's port i, linked to the queue; NEW events held back past the
 * partitions' watermarks. */
static int
setup_ports(const struct pl_conf *c, const struct rte_event_dev_config *dc)
{
	enq_max = RTE_MIN(c->burst, dc->nb_event_port_enqueue_depth);
	deq_max = RTE_MIN(c->throughput, dc->nb_event_port_dequeue_depth);
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		struct rte_event_port_conf pc;
		uint64_t threshold = (uint64_t)c->partitions * c->watermark;
		int ret;

		rte_event_port_default_conf_get(dev_id, (uint8_t)i, &pc);
		pc.new_event_threshold = (int32_t)RTE_MIN(threshold, (uint64_t)dc->nb_events_limit);
		pc.dequeue_depth = deq_max;
		pc.enqueue_depth = enq_max;
		ret = rte_event_port_setup(dev_id, (uint8_t)i, &pc);
		if (ret < 0) {
			fprintf(stderr, "lca-pipeline: eventdev: port %u setup: %s\n", i,
				strerror(-ret));
			return ret;
		}
		if (rte_event_port_link(dev_id, (uint8_t)i, NULL, NULL, 0) != 1) {
			fprintf(stderr, "lca-pipeline: eventdev: port %u: link failed\n", i);
			return -EIO;
		}
		port_of[pl.lcores[i]] = (uint8_t)i;
	}
	return 0;
}

int
pl_eventdev_setup(void)
{
	const struct pl_conf *c = pl.conf;
	struct rte_event_dev_info info;
	struct rte_event_dev_config dc;
	int ret = check_device(&info);

	if (ret == 0)
		ret = configure(&info, &dc);
	if (ret == 0)
		ret = setup_ports(c, &dc);
	if (ret < 0)
		return ret;
	for (uint32_t p = 0; p < c->partitions; p++) {
		task[p] = pl_task_new(p, c->streams, (int)rte_lcore_to_socket_id(pl.task_lcore[p]));
		if (task[p] == NULL)
			return -ENOMEM;
	}
	ret = rte_event_dev_start(dev_id);
	if (ret < 0) {
		fprintf(stderr, "lca-pipeline: eventdev: start: %s\n", strerror(-ret));
		return ret;
	}
	started = true;
	return 0;
}

void
pl_eventdev_ports(uint8_t *dev, uint8_t *port_of_lcore, unsigned int *enq, unsigned int *deq)
{
	*dev = dev_id;
	memcpy(port_of_lcore, port_of, sizeof(port_of));
	*enq = enq_max;
	*deq = deq_max;
}

unsigned int
pl_eventdev_threshold(void)
{
	uint32_t v = 0;

	return rte_event_port_attr_get(dev_id, 0, RTE_EVENT_PORT_ATTR_NEW_EVENT_THRESHOLD, &v) == 0
		       ? v : 0;
}

int
pl_eventdev_run(struct pl_result *r)
{
	int ret;

	for (uint32_t p = 0; p < pl.conf->partitions; p++)
		pl_task_reset(task[p]);
	pl_run_reset();
	/* No fixed share: a flow's port is the scheduler's choice. */
	ret = pl_launch(ev_worker, worker_ret);
	r->status = ret;
	pl_run_collect(r, task);
	return ret;
}

void
pl_eventdev_teardown(void)
{
	if (started)
		rte_event_dev_stop(dev_id);
	if (configured)
		rte_event_dev_close(dev_id);
	started = configured = false;
	for (uint32_t p = 0; p < PL_MAX_PARTITIONS; p++) {
		rte_free(task[p]);
		task[p] = NULL;
	}
}
