/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A malicious kernel against pmd/af_xdp's fast path, in both layouts (the
 * pool as the UMEM, and the copy layout): the input writes rx descriptors
 * and completion addresses (any address, offset, length), moves the rx and
 * completion producers anywhere, and takes fill and tx entries as it likes,
 * between rx, tx, reclaim and interrupt calls of the driver. The driver may
 * drop and count, never touch memory outside its rings, UMEM and packets,
 * never free a packet twice or lose one: at the end every packet is back in
 * the pool (ASan, UBSan, and the pool's debug checks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unic/log.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "af_xdp_priv.h"
#include "unic_pool_span.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define NB_RX 8
#define NB_TX 8
#define RING 8

struct fake_ring {
	uint32_t producer;
	uint32_t consumer;
	uint32_t flags;
	union {
		uint64_t addrs[RING];
		struct xdp_desc descs[RING];
	};
};

struct input {
	const uint8_t *d;
	size_t n;
};

static uint8_t u8(struct input *in)
{
	uint8_t v = 0;

	if (in->n) {
		v = *in->d++;
		in->n--;
	}
	return v;
}

static uint64_t u64(struct input *in)
{
	uint64_t v = 0;

	for (int i = 0; i < 8; i++)
		v = v << 8 | u8(in);
	return v;
}

static void ring_init(void *r, struct fake_ring *f, bool prod)
{
	struct xsk_ring_cons *c = r;

	memset(f, 0, sizeof(*f));
	memset(c, 0, sizeof(*c));
	c->mask = RING - 1;
	c->size = RING;
	c->producer = &f->producer;
	c->consumer = &f->consumer;
	c->flags = &f->flags;
	c->ring = f->addrs;
	if (prod)
		c->cached_cons = RING;
}

static struct unic_mem *mem;
static struct unic_pool *pool;

/* An address the kernel might plausibly return, or garbage. */
static uint64_t pick_addr(struct input *in, const struct afxdp_queue *xq, const struct fake_ring *fq,
			  const struct fake_ring *tx)
{
	switch (u8(in) & 3) {
	case 0:
		return fq->addrs[u8(in) & (RING - 1)] | ((uint64_t)u8(in) << 48) | ((uint64_t)u8(in) << 56);
	case 1:
		return tx->descs[u8(in) & (RING - 1)].addr + (u8(in) & 3);
	case 2:
		return xq->pool_umem ? xq->buf0 + (uint64_t)(u8(in) % (xq->nb_objs + 2)) * xq->stride + (u8(in) & 7)
				     : ((uint64_t)(u8(in) % (NB_RX + NB_TX + 2)) << AFXDP_FRAME_SHIFT) + u8(in);
	default:
		return u64(in);
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	static struct afxdp_queue xq;
	static struct fake_ring rx, fq, tx, cq;
	struct unic_pkt *pkts[16];
	bool pool_layout;

	if (mem == NULL) {
		struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
		struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "fuzz", .count = 64,
						.numa_node = -1 };

		unic_log_set_level(-1, UNIC_LOG_ERR);
		mem = unic_mem_create(&mc);
		pc.mem = mem;
		pool = unic_pktpool_create(&pc);
		if (pool == NULL)
			abort();
	}
	memset(&xq, 0, sizeof(xq));
	xq.nb_rx_frames = NB_RX;
	xq.nb_tx_frames = NB_TX;
	xq.pool = pool;
	xq.fd = -1;
	ring_init(&xq.rx, &rx, false);
	ring_init(&xq.fq, &fq, true);
	ring_init(&xq.tx, &tx, true);
	ring_init(&xq.cq, &cq, false);
	pool_layout = u8(&in) & 1;
	if (pool_layout) {
		struct unic_pool_span span;
		uintptr_t lo;

		if (unic_pool_span_get(pool, &span) != 0)
			abort();
		lo = (uintptr_t)span.zone & ~(uintptr_t)(AFXDP_FRAME_SIZE - 1);
		xq.pool_umem = true;
		xq.base = (uint8_t *)lo;
		xq.first = span.first;
		afxdp_stride_set(&xq, (uint32_t)span.stride);
		xq.nb_objs = span.count;
		xq.buf0 = (uint64_t)((uint8_t *)span.first + sizeof(struct unic_pkt) - xq.base);
		xq.chunk = (uint32_t)pool->pkt_headroom + pool->pkt_dataroom;
		xq.rx_owned = calloc(xq.nb_objs, 1);
		xq.tx_owned = calloc(xq.nb_objs, 1);
		afxdp_fill_pool(&xq);
	} else {
		xq.area = aligned_alloc(AFXDP_FRAME_SIZE, (NB_RX + NB_TX) * AFXDP_FRAME_SIZE);
		xq.owned = calloc(NB_RX + NB_TX, 1);
		xq.fill_stash = calloc(NB_RX, sizeof(uint32_t));
		xq.tx_free = calloc(NB_TX, sizeof(uint32_t));
		afxdp_tx_frames_init(&xq);
		afxdp_fill_all(&xq);
	}
	while (in.n) {
		uint8_t op = u8(&in);

		switch (op % 8) {
		case 0: { /* the kernel writes an rx descriptor */
			struct xdp_desc *d = &rx.descs[rx.producer & (RING - 1)];

			d->addr = pick_addr(&in, &xq, &fq, &tx);
			d->len = (u8(&in) & 1) ? u8(&in) * 16u : (uint32_t)u64(&in);
			rx.producer++;
			break;
		}
		case 1: /* the kernel moves a producer anywhere */
			if (u8(&in) & 1)
				rx.producer += (uint32_t)u64(&in);
			else
				cq.producer += (uint32_t)u64(&in);
			break;
		case 2: /* the kernel takes fill and tx entries (any count) */
			fq.consumer += u8(&in) % (RING + 2);
			tx.consumer += u8(&in) % (RING + 2);
			break;
		case 3: { /* the kernel completes an address */
			cq.addrs[cq.producer & (RING - 1)] = pick_addr(&in, &xq, &fq, &tx);
			cq.producer++;
			break;
		}
		case 4: {
			uint16_t got = afxdp_rx_burst(&xq, pkts, (uint16_t)(u8(&in) % 17));

			for (uint16_t i = 0; i < got; i++) {
				if (pkts[i]->data_off + pkts[i]->data_len > pkts[i]->buf_len)
					abort();  /* a packet whose data runs past its buffer */
				memset(unic_pkt_data(pkts[i]), 0x5a, pkts[i]->data_len);
			}
			unic_pkt_free_bulk(pkts, got);
			break;
		}
		case 5: {
			uint16_t n = (uint16_t)(u8(&in) % 9), sent;
			uint16_t i;

			for (i = 0; i < n; i++) {
				pkts[i] = unic_pkt_alloc(pool);
				if (pkts[i] == NULL)
					break;
				pkts[i]->data_len = (uint16_t)(u8(&in) * 8u % (pool->pkt_dataroom + 1));
				pkts[i]->pkt_len = pkts[i]->data_len + ((u8(&in) & 7) == 0 ? u8(&in) * 16u : 0);
			}
			sent = afxdp_tx_burst(&xq, pkts, i);
			unic_pkt_free_bulk(pkts + sent, (uint32_t)(i - sent));
			break;
		}
		case 6:
			afxdp_tx_reclaim(&xq);
			break;
		default:
			afxdp_rx_intr_enable(&xq);
			(void)afxdp_rx_pending(&xq);
			afxdp_rx_intr_disable(&xq);
			break;
		}
	}
	if (pool_layout) {
		afxdp_release_pool(&xq);
		free(xq.rx_owned);
		free(xq.tx_owned);
	} else {
		free(xq.area);
		free(xq.owned);
		free(xq.fill_stash);
		free(xq.tx_free);
	}
	unic_pool_cache_flush(pool);
	if (unic_pool_in_use_count(pool) != 0)
		abort();  /* a packet lost (or freed twice) */
	{
		struct unic_pool_stats st;

		unic_pool_stats_get(pool, &st);
		if (st.debug_double_free || st.debug_corrupt || st.debug_foreign)
			abort();  /* the pool's debug checks caught a double free or a stray write */
	}
	return 0;
}
