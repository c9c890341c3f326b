/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake e1000e on ordinary memory: fake_e1000e.h. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "fake_e1000e.h"

static void fake_setup(struct unic_port *port)
{
	port->ops = &e1000e_ops;
	e1000e_priv(port)->intx_rx_fd = -1;
}

static void *ring_alloc(size_t len)
{
	void *p = aligned_alloc(128, len);

	if (p != NULL)
		memset(p, 0, len);
	return p;
}

int fake_e1000e_create(struct fake_e1000e *f, const struct fake_e1000e_config *c)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "fake-e1000e" };
	uint16_t nb = c && c->nb_desc ? c->nb_desc : 64;
	uint16_t mtu = c && c->mtu ? c->mtu : 9000;
	struct e1000e_rxq *rxq;
	struct e1000e_txq *txq;

	memset(f, 0, sizeof(*f));
	pc.count = c && c->pool_count ? c->pool_count : 512;
	pc.dataroom = c && c->dataroom ? c->dataroom : 2048;
	f->regs = calloc(E1000E_BAR0_LEN / 4, 4);
	f->mem = unic_mem_create(&mc);
	if (f->regs == NULL || f->mem == NULL)
		goto fail;
	pc.mem = f->mem;
	f->pool = unic_pktpool_create(&pc);
	f->port = unic_port_alloc(sizeof(struct e1000e_port), "fake%d", fake_setup);
	if (f->pool == NULL || f->port == NULL)
		goto fail;
	f->port->conf.mtu = mtu;
	f->port->conf.nb_rxq = 1;
	f->port->conf.nb_txq = 1;
	f->ep = e1000e_priv(f->port);
	f->ep->hw.regs = (volatile uint8_t *)f->regs;
	f->ep->hw.port = f->port;

	rxq = f->rxq = &f->ep->rxq[0];
	rxq->ring = f->rx_ring = ring_alloc(nb * sizeof(union e1000e_rx_desc));
	rxq->sw_ring = calloc(nb, sizeof(*rxq->sw_ring));
	if (rxq->ring == NULL || rxq->sw_ring == NULL)
		goto fail;
	rxq->rdt = &f->regs[E1000E_RDT(0) / 4];
	rxq->pool = f->pool;
	rxq->nb_desc = nb;
	rxq->buf_size = c && c->buf_size ? c->buf_size : pc.dataroom;
	rxq->max_frame = (uint32_t)mtu + 22;
	rxq->headroom = f->pool->pkt_headroom;
	rxq->ep = f->ep;
	rxq->irq_fd = -1;

	txq = f->txq = &f->ep->txq[0];
	txq->ring = f->tx_ring = ring_alloc(nb * sizeof(union e1000e_tx_desc));
	txq->sw_ring = calloc(nb, sizeof(*txq->sw_ring));
	txq->rs_idx = calloc(nb, sizeof(*txq->rs_idx));
	if (txq->ring == NULL || txq->sw_ring == NULL || txq->rs_idx == NULL)
		goto fail;
	txq->tdt = &f->regs[E1000E_TDT(0) / 4];
	txq->nb_desc = nb;
	return 0;
fail:
	fake_e1000e_destroy(f);
	return -ENOMEM;
}

int fake_e1000e_start(struct fake_e1000e *f)
{
	fake_e1000e_stop(f);
	memset((void *)f->rx_ring, 0, f->rxq->nb_desc * sizeof(union e1000e_rx_desc));
	memset((void *)f->tx_ring, 0, f->txq->nb_desc * sizeof(union e1000e_tx_desc));
	return e1000e_rxq_fill(f->rxq);
}

void fake_e1000e_stop(struct fake_e1000e *f)
{
	e1000e_rxq_drain(f->rxq);
	e1000e_txq_drain(f->txq);
}

void fake_e1000e_destroy(struct fake_e1000e *f)
{
	if (f->ep != NULL) {
		fake_e1000e_stop(f);
		free((void *)f->rxq->ring);
		free(f->rxq->sw_ring);
		free((void *)f->txq->ring);
		free(f->txq->sw_ring);
		free(f->txq->rs_idx);
	}
	unic_port_put(f->port);
	unic_pool_destroy(f->pool);
	unic_mem_destroy(f->mem);
	free(f->regs);
	memset(f, 0, sizeof(*f));
}
