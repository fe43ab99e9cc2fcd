/* SPDX-License-Identifier: BSD-3-Clause */
/* --source port's TX buffers (pl_sink.h): made for a run, what the driver
 * refuses, and the sink's calls for the graph engine's nodes. */
#include <errno.h>

#include <rte_ethdev.h>
#include <rte_lcore.h>
#include <rte_malloc.h>
#include <rte_mbuf.h>

#include "pl_port.h"
#include "pl_sink.h"

static void
tx_unsent(struct rte_mbuf **unsent, uint16_t count, void *userdata)
{
	struct txbuf *t = userdata;
	uint16_t sent = rte_eth_tx_burst(t->p->id, t->queue, unsent, count);

	fig_add(&t->f->tx, sent);
	if (sent < count) {
		rte_pktmbuf_free_bulk(unsent + sent, count - sent);
		fig_add(&t->f->tx_dropped, count - sent);
	}
}

int
pl_sink_make(void)
{
	for (unsigned int i = 0; i < pl.n_lcores; i++) {
		unsigned int lc = pl.lcores[i];

		for (unsigned int k = 0; k < pp.n_ports; k++) {
			struct txbuf *t = pp.txbufs[lc][k];

			if (t == NULL) {
				t = rte_zmalloc_socket("pl_txbuf", sizeof(*t), 0,
						       (int)rte_lcore_to_socket_id(lc));
				if (t == NULL)
					return -ENOMEM;
				t->buf = rte_zmalloc_socket("pl_txbuf",
							    RTE_ETH_TX_BUFFER_SIZE(PL_MAX_BURST), 0,
							    (int)rte_lcore_to_socket_id(lc));
				if (t->buf == NULL)
					return -ENOMEM;
				pp.txbufs[lc][k] = t;
			}
			t->p = &pp.ports[k];
			t->queue = (uint16_t)(i % pp.ports[k].n_txq);
			t->f = &pl.lc[lc].f;
			rte_eth_tx_buffer_init(t->buf, (uint16_t)pp.conf->burst);
			rte_eth_tx_buffer_set_err_callback(t->buf, tx_unsent, t);
		}
	}
	return 0;
}

void
pl_sink_free(void)
{
	for (unsigned int i = 0; i < RTE_MAX_LCORE; i++)
		for (unsigned int k = 0; k < PL_MAX_PORTS + 1; k++) {
			if (pp.txbufs[i][k] != NULL) {
				rte_free(pp.txbufs[i][k]->buf);
				rte_free(pp.txbufs[i][k]);
			}
			pp.txbufs[i][k] = NULL;
		}
}

void
pl_port_sink(unsigned int lcore, struct pl_fig *f, struct rte_mbuf **pkts, unsigned int n)
{
	sink_burst(lcore, f, pkts, n);
}

void
pl_port_tx_flush(unsigned int lcore)
{
	tx_flush_all(lcore);
}
