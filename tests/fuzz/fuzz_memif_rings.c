/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A malicious memif peer against pmd/memif's fast path (memif_rxtx.c), as
 * a client or as a server, and against a zero-copy client (memif_zc.c:
 * the rx ring lends packets of a shareable pool, region 1; tx sends that
 * pool's packets as they are and copies others): the input writes
 * descriptors (any flags,
 * region, offset, length), moves the peer's index of each ring anywhere,
 * and changes the interrupt flag, between rx and tx bursts of any size and
 * frames of any length and segment count. The driver may drop and count,
 * or mark the ring broken, never read or write outside its rings, the
 * agreed regions and its packets, never free a packet twice or lose one:
 * at the end every packet is back in the pool (ASan, UBSan, and the
 * pool's debug checks).
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <unic/log.h>
#include <unic/mem.h>
#include <unic/pool.h>

#include "memif_priv.h"
#include "unic_pool_span.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define LOG2 3
#define SLOTS (1u << LOG2)
#define BSIZE 128                        /* our buffers (client) */
#define R0_SIZE (2 * SLOTS * BSIZE)       /* region 0: our buffers for both rings */
#define R1_SIZE 300                       /* region 1: a peer's small region */

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

static uint32_t u32(struct input *in)
{
	uint32_t v = 0;

	for (int i = 0; i < 4; i++)
		v = v << 8 | u8(in);
	return v;
}

static struct unic_mem *mem;
static struct unic_pool *pool;
static struct unic_pool *zpool;          /* shareable: a zero-copy client lends it */
static struct memif_zc_pool zp;

/* A descriptor the peer might plausibly write, or garbage. */
static void pick_desc(struct input *in, struct memif_desc *d)
{
	uint8_t how = u8(in);

	d->flags = (how & 1) ? MEMIF_DESC_FLAG_NEXT : 0;
	if (how & 2)
		d->flags = (uint16_t)(d->flags | (u8(in) << 8));
	d->region = (how & 4) ? u8(in) % 4 : 0;
	if (how & 8) {
		d->offset = u32(in);
	} else {
		d->offset = (uint32_t)(u8(in) % (2 * SLOTS)) * BSIZE;
		d->offset += u8(in) & 3;
	}
	d->length = (how & 16) ? u32(in) : u8(in);
	d->metadata = u32(in);
}

static void queue_init(struct memif_queue *q, struct memif_ring *ring, const struct memif_region *regions,
		       bool client, uint16_t qid)
{
	memset(q, 0, sizeof(*q));
	q->ring = ring;
	q->we_own_head = client;
	q->size = SLOTS;
	q->mask = SLOTS - 1;
	q->nb_regions = 2;
	q->regions = regions;
	q->bsize = BSIZE;
	q->buf_off = qid * SLOTS * BSIZE;
	q->efd = -1;
	q->wake_fd = -1;
	q->pool = pool;
	q->qid = qid;
	q->intr_epfd = -1;
	q->intr_member = -1;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct input in = { data, size };
	static uint8_t r0[R0_SIZE], r1[R1_SIZE];
	static _Alignas(64) uint8_t rx_mem[sizeof(struct memif_ring) + SLOTS * sizeof(struct memif_desc)];
	static _Alignas(64) uint8_t tx_mem[sizeof(struct memif_ring) + SLOTS * sizeof(struct memif_desc)];
	struct memif_ring *rxr = (struct memif_ring *)rx_mem, *txr = (struct memif_ring *)tx_mem;
	struct memif_region regions[2] = { { .addr = r0, .size = R0_SIZE, .fd = -1 },
					   { .addr = r1, .size = R1_SIZE, .fd = -1 } };
	static struct memif_queue rxq, txq;
	struct unic_pkt *pkts[40];
	bool client, zc;

	if (mem == NULL) {
		struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
		struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "fuzz", .count = 256,
						.dataroom = 256, .numa_node = -1 };

		unic_log_set_level(-1, UNIC_LOG_ERR);
		mem = unic_mem_create(&mc);
		pc.mem = mem;
		pool = unic_pktpool_create(&pc);
		if (pool == NULL)
			abort();
		pc.name = "fuzzzc";
		pc.shareable = true;
		zpool = unic_pktpool_create(&pc);
		if (zpool == NULL)
			abort();
		{
			struct unic_pool_span span;
			uint64_t off;
			size_t flen;
			int fd;

			if (unic_pool_span_get(zpool, &span) < 0 ||
			    unic_mem_zone_fd(span.dma, &fd, &off, &flen) < 0)
				abort();
			zp = (struct memif_zc_pool){ .pool = zpool, .region = 1, .fd = fd,
						     .base = (uint8_t *)span.dma->va - off, .size = flen };
		}
	}
	memset(rx_mem, 0, sizeof(rx_mem));
	memset(tx_mem, 0, sizeof(tx_mem));
	client = u8(&in) & 1;
	zc = client && (data[0] & 2);
	/* Client: rx is S2C (we hand our buffers, the server writes tail),
	 * tx is C2S. Server: rx is C2S (the client writes head), tx is S2C
	 * (the client hands its buffers in the descriptors). */
	queue_init(&rxq, rxr, regions, client, 0);
	queue_init(&txq, txr, regions, client, 1);
	if (zc) {
		/* Region 1 is the lent pool, as memif_zc_prepare sets it up. */
		regions[1] = (struct memif_region){ .addr = zp.base, .size = zp.size, .fd = -1,
						    .borrowed = true };
		rxq.zc = txq.zc = true;
		rxq.zcp = txq.zcp = &zp;
		rxq.nb_zcp = txq.nb_zcp = 1;
		rxq.pool = zpool;
		if (memif_zc_queue_up(&rxq, rxr, true) < 0 || memif_zc_queue_up(&txq, txr, false) < 0)
			abort();
	}
	while (in.n) {
		uint8_t op = u8(&in);

		switch (op % 7) {
		case 0: { /* the peer writes a descriptor of either ring */
			struct memif_ring *r = (op & 8) ? txr : rxr;

			struct memif_desc *d = &r->desc[u8(&in) % SLOTS];

			pick_desc(&in, d);
			break;
		}
		case 1: { /* the peer moves its index of either ring */
			struct memif_ring *r = (op & 8) ? txr : rxr;
			uint16_t by = (op & 16) ? (uint16_t)u32(&in) : u8(&in) % (SLOTS + 2);
			/* Client: the server writes tail of both; server: the client writes head of both. */
			uint16_t *idx = client ? &r->tail : &r->head;

			__atomic_store_n(idx, (uint16_t)(*idx + by), __ATOMIC_RELEASE);
			break;
		}
		case 2: { /* receive */
			uint16_t got = memif_rx_burst(&rxq, pkts, (uint16_t)(u8(&in) % 33));

			for (uint16_t i = 0; i < got; i++) {
				const struct unic_pkt *p = pkts[i];

				if (p->data_off + p->data_len > p->buf_len || p->pkt_len != p->data_len ||
				    p->data_len == 0 || p->next != NULL)
					abort(); /* a frame that runs past its buffer, or a bad header */
				if (zc && p->pool != zpool)
					abort(); /* zero-copy rx gives the lent packets */
				memset(unic_pkt_data(p), 0x5a, p->data_len);
			}
			unic_pkt_free_bulk(pkts, got);
			break;
		}
		case 3: { /* transmit frames of any length, one to three segments */
			uint16_t n = (uint16_t)(u8(&in) % 12), i, sent;

			for (i = 0; i < n; i++) {
				struct unic_pkt *p = unic_pkt_alloc((op & 8) ? zpool : pool), *seg;
				unsigned nseg = u8(&in) % 3;

				if (p == NULL)
					break;
				p->data_len = (uint16_t)(u8(&in) % (pool->pkt_dataroom + 1));
				p->pkt_len = p->data_len;
				for (unsigned k = 0; k < nseg; k++) {
					seg = unic_pkt_alloc(pool);
					if (seg == NULL)
						break;
					seg->data_len = (uint16_t)(u8(&in) % (pool->pkt_dataroom + 1));
					seg->next = p->next;
					p->next = seg;
					p->pkt_len += seg->data_len;
					p->nb_segs++;
				}
				if ((u8(&in) & 7) == 0)
					p->pkt_len += u8(&in); /* claims more than its segments hold */
				pkts[i] = p;
			}
			sent = memif_tx_burst(&txq, pkts, i);
			unic_pkt_free_bulk(pkts + sent, (uint32_t)(i - sent));
			break;
		}
		case 4: /* the peer flips the interrupt flag; we arm and disarm */
			rxr->flags ^= MEMIF_RING_FLAG_MASK_INT;
			txr->flags ^= MEMIF_RING_FLAG_MASK_INT;
			(void)memif_rx_pending(&rxq);
			break;
		case 5: { /* the peer writes only length and flags, as real servers do */
			struct memif_ring *r = (op & 8) ? txr : rxr;
			struct memif_desc *d = &r->desc[u8(&in) % SLOTS];

			d->length = (op & 16) ? u32(&in) : u8(&in);
			d->flags = (op & 32) ? MEMIF_DESC_FLAG_NEXT : 0;
			break;
		}
		default: /* a broken ring stays broken until a reconnect: model one */
			if (u8(&in) & 1) {
				rxq.broken = 0;
				txq.broken = 0;
			}
			break;
		}
	}
	if (zc) {
		/* The connection ends: every packet lent or in flight comes back. */
		memif_zc_queue_down(&rxq);
		memif_zc_queue_down(&txq);
	}
	unic_pool_cache_flush(pool);
	unic_pool_cache_flush(zpool);
	if (unic_pool_in_use_count(pool) != 0 || unic_pool_in_use_count(zpool) != 0)
		abort(); /* a packet lost */
	return 0;
}
