/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The ethdev transport's ports: their links read, logged and counted by the
 * first lcore; a memif port's regions faulted in at link up, off the
 * lcores; a memif port kept quiet after its peer's LEAVE; and how many
 * queues a memif pair needs. lca_remote_eth.c starts the ports and calls
 * these from its hooks.
 */
#define LCA_LOG_PART lca_logtype_remote
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <rte_cycles.h>
#include <rte_ethdev.h>
#include <rte_lcore.h>

#include "lca_eal.h"
#include "lca_remote_eth_priv.h"
#include "lca_logtypes_priv.h"
#define LINK_READ_MS 100

static const char *
port_name(unsigned int pi, char buf[RTE_ETH_NAME_MAX_LEN])
{
	if (rte_eth_dev_get_name_by_port(rm_eth.port_ids[pi], buf) != 0)
		snprintf(buf, RTE_ETH_NAME_MAX_LEN, "?");
	return buf;
}

#ifndef MADV_POPULATE_WRITE
#define MADV_POPULATE_WRITE 23 /* Linux 5.14 */
#endif

/*
 * memif's shared regions (its rings and their buffers) come from
 * memfd_create() and are mapped without MAP_POPULATE, so each 4 KiB page
 * faults on its first touch in each process: 5-15 us on a VM, paid by the
 * frame that touches it. Two 2 KiB buffers a page, so after a quiet start
 * every other round trip paid it until the rings had gone round once
 * (about 1000 frames: docs/benchmarks.md, "first touch"). Their page tables
 * are filled at link up instead, without writing a byte
 * (MADV_POPULATE_WRITE), on a control thread of its own: not on an lcore,
 * and not on the interrupt thread, whose other work (memif's connects, a
 * stop's LEAVE) must not wait the 10-60 ms it takes. A region unmapped
 * under it only makes madvise() fail.
 */
static void *
memif_prefault(void *arg)
{
	uint64_t t0 = rte_rdtsc();
	char line[512];
	size_t bytes = 0;
	int err = 0;
	FILE *f;

	(void)arg;
	f = fopen("/proc/self/maps", "r");
	if (f == NULL)
		return NULL;
	while (err == 0 && fgets(line, sizeof(line), f) != NULL) {
		unsigned long lo, hi;
		char perms[5];

		if (strstr(line, "memfd:memif_region") == NULL ||
		    sscanf(line, "%lx-%lx %4s", &lo, &hi, perms) != 3 || perms[1] != 'w' ||
		    perms[3] != 's')
			continue;
		if (madvise((void *)lo, hi - lo, MADV_POPULATE_WRITE) != 0)
			err = errno;
		else
			bytes += hi - lo;
	}
	fclose(f);
	if (err != 0)
		LCA_LOG(INFO, "remote: memif regions left to fault in on first use (%s)\n",
			strerror(err));
	else
		LCA_LOG(DEBUG, "remote: memif regions populated: %zu KiB in %.1f ms\n",
			bytes >> 10, (double)(rte_rdtsc() - t0) * 1e3 / (double)rte_get_tsc_hz());
	return NULL;
}

/* The populating thread: started by rm.lcores[0]'s poll (link_read()),
 * joined by the stop once the loops are stopped; never two at once. */
static pthread_t prefault_thread;
static bool prefault_started;

/* Populate what is mapped now. @return false while the last thread still
 * runs (what it read of the maps may miss new regions): asked again. */
static bool
memif_prefault_start(void)
{
	if (prefault_started) {
		if (pthread_tryjoin_np(prefault_thread, NULL) != 0)
			return false;
		prefault_started = false;
	}
	prefault_started = rte_ctrl_thread_create(&prefault_thread, "lca-memif-pf", NULL,
						  memif_prefault, NULL) == 0;
	/* No thread: the pages fault in as they are touched, as before. */
	return true;
}

void
eth_memif_prefault_join(void)
{
	if (prefault_started)
		pthread_join(prefault_thread, NULL);
	prefault_started = false;
}

/* Read port @p pi's link; say when it changed. @return whether it is down. */
static bool
link_read(unsigned int pi)
{
	char name[RTE_ETH_NAME_MAX_LEN];
	struct rte_eth_link link;
	bool down;

	if (rte_eth_link_get_nowait(rm_eth.port_ids[pi], &link) != 0)
		return false; /* a PMD that cannot say: taken as up */
	down = link.link_status == RTE_ETH_LINK_DOWN;
	/* Its regions are mapped once it is up (a client may be up from its
	 * start: no transition), new ones at each connect. */
	if (rm_eth.memif[pi])
		rm_eth.populated[pi] = !down && (rm_eth.populated[pi] || memif_prefault_start());
	if (down == rm_eth.link_down[pi])
		return down;
	rm_eth.link_down[pi] = down;
	if (down) {
		__atomic_fetch_add(&rm.st.link_downs, 1, __ATOMIC_RELAXED);
		__atomic_fetch_add(&rm.st.links_down, 1, __ATOMIC_RELAXED);
		LCA_LOG(WARNING, "remote: port %u (%s): link down\n", rm_eth.port_ids[pi],
			port_name(pi, name));
	} else {
		__atomic_fetch_sub(&rm.st.links_down, 1, __ATOMIC_RELAXED);
		LCA_LOG(INFO, "remote: port %u (%s): link up\n", rm_eth.port_ids[pi],
			port_name(pi, name));
	}
	return down;
}

/*
 * A memif peer that stops sends LEAVE, waits LEAVE_GRACE_MS, then stops its
 * port, and its disconnect makes our interrupt thread unmap the port's
 * regions (DPDK 22.11's net_memif) with nothing to keep out an RX or TX
 * burst in flight on an lcore. So its LEAVE turns the port's RX off here,
 * and its heartbeats stop, until the link is seen down (the unmapping is
 * over; a memif that is not connected answers a burst with nothing) or
 * QUIET_MS passes (a disconnect missed between two reads: the peer may be
 * back by then, and must be heard).
 */
#define QUIET_MS 1000

void
eth_port_quiet(unsigned int p, uint64_t now)
{
	unsigned int pi = rm_eth.peer_port[p];

	if (!rm_eth.memif[pi])
		return;
	for (unsigned int q = 0; q < rm.n_peers; q++)
		if (q != p && rm_eth.peer_port[q] == pi &&
		    !__atomic_load_n(&rm.peers[q].dead, __ATOMIC_RELAXED))
			return; /* another peer still talks over it */
	lca_port_rx_enable(rm_eth.ports[pi], -1, false);
	__atomic_store_n(&rm_eth.quiet_until[pi], now + QUIET_MS * rte_get_tsc_hz() / 1000,
			 __ATOMIC_RELAXED);
	__atomic_store_n(&rm_eth.quiet[pi], true, __ATOMIC_RELEASE);
	LCA_LOG(DEBUG, "remote: port %u: its peer left: not polled until its link is down\n",
		rm_eth.port_ids[pi]);
}

/* Port @p pi's RX back on once its quiet is over (eth_links_watch()). */
static void
port_quiet_end(unsigned int pi, uint64_t now)
{
	if (!__atomic_load_n(&rm_eth.quiet[pi], __ATOMIC_ACQUIRE) ||
	    (!rm_eth.link_down[pi] &&
	     now < __atomic_load_n(&rm_eth.quiet_until[pi], __ATOMIC_RELAXED)))
		return;
	__atomic_store_n(&rm_eth.quiet[pi], false, __ATOMIC_RELAXED);
	lca_port_rx_enable(rm_eth.ports[pi], -1, true);
	LCA_LOG(DEBUG, "remote: port %u: polled again (%s)\n", rm_eth.port_ids[pi],
		rm_eth.link_down[pi] ? "its link is down" : "no disconnect seen");
}

/*
 * Every LINK_READ_MS, on the first lcore: each port's link, logged when it
 * changes and counted; while one is down, once a second, how long (the
 * first of two processes waits for the other: memif's link comes up when
 * both are there). Nothing here brings a link up: the PMD or lca_port does
 * (lca_port_memif.c restarts a memif client); the channels resend meanwhile.
 */
void
eth_links_watch(uint64_t now)
{
	uint64_t hz = rte_get_tsc_hz();
	unsigned int n_down = 0;

	/* A memif port not yet populated is read at every check, not every
	 * LINK_READ_MS: its first frames would fault its pages in. */
	for (unsigned int pi = 0; pi < rm_eth.n_ports; pi++)
		if (rm_eth.memif[pi] && !rm_eth.populated[pi] && now < rm_eth.link_next_tsc)
			link_read(pi);
	if (now < rm_eth.link_next_tsc)
		return;
	rm_eth.link_next_tsc = now + LINK_READ_MS * hz / 1000;
	for (unsigned int pi = 0; pi < rm_eth.n_ports; pi++) {
		n_down += link_read(pi);
		port_quiet_end(pi, now);
	}
	if (n_down > 0 && now - rm_eth.link_said_tsc >= hz) {
		rm_eth.link_said_tsc = now;
		LCA_LOG(WARNING, "remote: %u of %u ports' links down, %" PRIu64 " ms after the "
			"start: waiting for the peer\n", n_down, rm_eth.n_ports,
			(now - rm.start_tsc) * 1000 / hz);
	}
}


/* Whether port @p pi is a memif. */
bool
eth_port_is_memif(unsigned int pi)
{
	struct rte_eth_dev_info info;

	return rte_eth_dev_info_get(rm_eth.port_ids[pi], &info) == 0 &&
	       info.driver_name != NULL && strcmp(info.driver_name, "net_memif") == 0;
}

/*
 * A memif pair has the rings the client asks for. A server TX queue beyond
 * them gets no ring of its own: the PMD leaves its ring offset 0, which is
 * the client's first C2S ring, so what the server sends there is written
 * into the ring the client sends on (frames lost, descriptors overwritten:
 * node 1 on -l 0-1 with a one-lcore peer never ended a run, and once died
 * of SIGSEGV). Each lcore sends on its own TX queue, so both sides of a
 * memif port take as many queues as the side with the most lcores (the
 * extra RX queues go round the lcores). 0 (one a lcore) for any other PMD.
 */
uint16_t
eth_memif_queues(unsigned int pi)
{
	unsigned int n = rm.n_lcores;

	if (!rm_eth.memif[pi])
		return 0;
	for (unsigned int p = 0; p < rm.n_peers; p++)
		if (rm_eth.peer_port[p] == pi)
			n = RTE_MAX(n, rm.peers[p].n.n_lcores);
	return (uint16_t)n;
}
