/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A fake e1000e for tests without a NIC: the driver's own code (pmd/e1000e)
 * on a register window (BAR0) and descriptor rings in ordinary memory, so a
 * test plays the device by writing registers and descriptor write-backs
 * itself. Nothing completes on its own (memory keeps CTRL.RST set, EERD
 * never says DONE). Shared by the unit tests (tests/unit/test_e1000e.c) and
 * the malicious-device harness (tests/fuzz/fuzz_e1000e_dev.c); not
 * Criterion-bound: errors are return values.
 *
 * What is real: the port (unic_port_alloc, the driver's ops table, so the
 * port layer's stats/link/coalesce calls reach the driver), rx queue 0 and
 * tx queue 0 set up as start leaves them, a packet pool. What is not: no
 * PCI device (ep->dev is NULL, so telling the bus is a no-op), no
 * interrupts, no DMA (IOVAs are the pool's, nothing reads them).
 */
#ifndef FAKE_E1000E_H
#define FAKE_E1000E_H

#include <stdint.h>

#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "../../pmd/e1000e/e1000e_priv.h"

struct fake_e1000e_config {
	uint16_t nb_desc;      /* both rings; 0: 64 */
	uint32_t pool_count;   /* packets in the pool; 0: 512 */
	uint16_t mtu;          /* rx max frame is mtu + 22; 0: 9000 */
	uint16_t buf_size;     /* bytes the device may write per rx buffer; 0: the data room */
	uint16_t dataroom;     /* of the pool's packets; 0: 2048 */
};

struct fake_e1000e {
	uint32_t *regs;                          /* BAR0, E1000E_BAR0_LEN bytes */
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct unic_port *port;                  /* ops: the driver's */
	struct e1000e_port *ep;
	struct e1000e_rxq *rxq;                  /* &ep->rxq[0] */
	struct e1000e_txq *txq;                  /* &ep->txq[0] */
	volatile union e1000e_rx_desc *rx_ring;  /* rxq->ring */
	volatile union e1000e_tx_desc *tx_ring;  /* txq->ring */
};

/**
 * Build the fake. @p c may be NULL (the defaults). The rx ring is empty:
 * e1000e_rxq_fill() gives it its buffers, as start does.
 * @return 0, or -ENOMEM (everything built so far freed).
 */
int fake_e1000e_create(struct fake_e1000e *f, const struct fake_e1000e_config *c);

/**
 * What start does to the queues: both rings emptied and zeroed (buffers
 * back to the pool), then every free rx descriptor given a buffer (RDT
 * written). @return 0, or -ENOBUFS (the pool ran out).
 */
int fake_e1000e_start(struct fake_e1000e *f);

/** What stop does to the queues: every buffer they hold back to the pool. */
void fake_e1000e_stop(struct fake_e1000e *f);

/** Free what the queues hold (the queue part of stop), then everything. */
void fake_e1000e_destroy(struct fake_e1000e *f);

static inline uint32_t fake_e1000e_reg(const struct fake_e1000e *f, uint32_t off)
{
	return __atomic_load_n(&f->regs[off / 4], __ATOMIC_RELAXED);
}

static inline void fake_e1000e_reg_set(struct fake_e1000e *f, uint32_t off, uint32_t v)
{
	__atomic_store_n(&f->regs[off / 4], v, __ATOMIC_RELAXED);
}

/** The device's write-back of rx descriptor @p i (DD last, as the device). */
static inline void fake_e1000e_rx_wb(struct fake_e1000e *f, uint16_t i, uint16_t len, uint32_t status)
{
	f->rx_ring[i].wb.length = len;
	f->rx_ring[i].wb.status_error = status;
}

#endif /* FAKE_E1000E_H */
