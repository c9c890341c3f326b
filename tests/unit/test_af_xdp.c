/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The af_xdp fast path against a malicious kernel: the four rings of a
 * socket are plain memory here, and the test writes into them what a
 * broken or hostile kernel could (descriptors pointing outside the UMEM,
 * at transmit frames, at frames the kernel does not hold, lengths past the
 * frame, producer indexes far ahead). The driver must count each one, never
 * read or write outside its UMEM, never lose a frame of its own, and carry
 * on. Run it under the ASan build (docs/testing.md).
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <unic/pool.h>
#include <unic/mem.h>
#include <unic/log.h>

#include "af_xdp_priv.h"
#include "port_fixture.h"

#define NB_RX 8
#define NB_TX 8
#define RING 8

/* One ring as the kernel would map it: producer, consumer, flags, entries. */
struct fake_ring {
	uint32_t producer;
	uint32_t consumer;
	uint32_t flags;
	union {
		uint64_t addrs[RING];
		struct xdp_desc descs[RING];
	};
};

static struct unic_mem *mem;
static struct unic_pool *pool;
static struct afxdp_queue xq;
static struct fake_ring rx, fq, tx, cq;

static void ring_init(void *r, struct fake_ring *f, bool prod)
{
	struct xsk_ring_cons *c = r;  /* same layout for both kinds */

	memset(f, 0, sizeof(*f));
	memset(c, 0, sizeof(*c));
	c->mask = RING - 1;
	c->size = RING;
	c->producer = &f->producer;
	c->consumer = &f->consumer;
	c->flags = &f->flags;
	c->ring = f->addrs;
	if (prod)
		c->cached_cons = RING;  /* libxdp keeps the producer's view as consumer + size */
}

static void setup(void)
{
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "xdptest", .count = 64,
					.numa_node = -1 };

	unic_log_set_level(-1, UNIC_LOG_ERR);
	mem = fixture_mem();
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool);
	memset(&xq, 0, sizeof(xq));
	xq.nb_rx_frames = NB_RX;
	xq.nb_tx_frames = NB_TX;
	xq.area = aligned_alloc(AFXDP_FRAME_SIZE, (NB_RX + NB_TX) * AFXDP_FRAME_SIZE);
	xq.owned = calloc(NB_RX + NB_TX, 1);
	xq.fill_stash = calloc(NB_RX, sizeof(uint32_t));
	xq.tx_free = calloc(NB_TX, sizeof(uint32_t));
	xq.pool = pool;
	xq.fd = -1;
	ring_init(&xq.rx, &rx, false);
	ring_init(&xq.fq, &fq, true);
	ring_init(&xq.tx, &tx, true);
	ring_init(&xq.cq, &cq, false);
	afxdp_tx_frames_init(&xq);
	cr_assert_eq(afxdp_fill_all(&xq), NB_RX);
	cr_assert_eq(fq.producer, NB_RX);
}

static void teardown(void)
{
	free(xq.area);
	free(xq.owned);
	free(xq.fill_stash);
	free(xq.tx_free);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
}

TestSuite(af_xdp, .init = setup, .fini = teardown);

/* The kernel takes the fill ring's entries and hands frame @p f back on the
 * rx ring with @p len bytes at offset @p off. */
static void kernel_rx(uint64_t addr, uint32_t len)
{
	struct xdp_desc *d = &rx.descs[rx.producer & (RING - 1)];

	d->addr = addr;
	d->len = len;
	d->options = 0;
	rx.producer++;
}

static uint64_t frame(uint32_t f, uint32_t off)
{
	return ((uint64_t)f << AFXDP_FRAME_SHIFT) + off;
}

static uint64_t x(const struct unic_counter *c)
{
	return unic_counter_read(c);
}

Test(af_xdp, a_good_frame_is_copied_into_a_packet_and_its_frame_goes_back_to_the_fill_ring)
{
	struct unic_pkt *pkts[4];

	fq.consumer = NB_RX;  /* the kernel took every fill entry */
	memset(xq.area + frame(3, 256), 0xab, 100);
	kernel_rx(frame(3, 256), 100);
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 4), 1);
	cr_assert_eq(pkts[0]->pkt_len, 100);
	cr_assert_eq(((uint8_t *)unic_pkt_data(pkts[0]))[99], 0xab);
	cr_assert_eq(rx.consumer, 1);
	cr_assert_eq(fq.producer, NB_RX + 1, "the frame is back on the fill ring");
	cr_assert_eq(fq.addrs[NB_RX & (RING - 1)], frame(3, 0));
	cr_assert_eq(xq.owned[3], 1);
	unic_pkt_free(pkts[0]);
}

Test(af_xdp, rx_descriptors_outside_the_receive_frames_are_counted_and_skipped)
{
	struct unic_pkt *pkts[8];
	uint32_t in_use = unic_pool_in_use_count(pool);

	fq.consumer = NB_RX;
	kernel_rx(frame(NB_RX, 0), 60);            /* a transmit frame */
	kernel_rx(frame(NB_RX + NB_TX + 5, 0), 60); /* past the UMEM */
	kernel_rx(~0ull, 60);                      /* far past it */
	kernel_rx(frame(2, 0), 60);                /* a good one */
	kernel_rx(frame(2, 0), 60);                /* the same frame again: not the kernel's any more */
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 1);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_BAD_ADDR]), 4);
	cr_assert_eq(x(&xq.rcnt.errors), 4);
	cr_assert_eq(x(&xq.rcnt.packets), 1);
	cr_assert_eq(rx.consumer, 5, "every descriptor is consumed");
	unic_pkt_free(pkts[0]);
	cr_assert_eq(unic_pool_in_use_count(pool), in_use, "no packet leaked");
}

Test(af_xdp, rx_lengths_of_zero_or_past_the_frame_or_the_pool_are_counted_and_the_frame_recycled)
{
	struct unic_pkt *pkts[8];

	fq.consumer = NB_RX;
	kernel_rx(frame(0, 256), 0);
	kernel_rx(frame(1, 256), AFXDP_FRAME_SIZE - 255); /* one byte past the frame */
	kernel_rx(frame(2, 0), 0xffffffffu);
	kernel_rx(frame(4, 0), pool->pkt_dataroom + 1);   /* fits the frame, not the packet */
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 0);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_BAD_LEN]), 3);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_TOO_LONG]), 1);
	cr_assert_eq(x(&xq.rcnt.errors), 4);
	cr_assert_eq(fq.producer, NB_RX + 4, "the four frames went back to the fill ring");
	for (uint32_t f = 0; f < NB_RX; f++)
		cr_assert_eq(xq.owned[f], 1, "frame %u is the kernel's again", f);
}

Test(af_xdp, an_rx_producer_more_than_a_ring_ahead_is_counted_and_nothing_is_read)
{
	struct unic_pkt *pkts[8];

	rx.producer = RING + 1;
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 0);
	rx.producer = 0u - 3;  /* behind the consumer */
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 0);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_BAD_INDEX]), 2);
	cr_assert_eq(rx.consumer, 0);
	rx.producer = 0;
	kernel_rx(frame(1, 0), 64);
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 1, "a sane ring works afterwards");
	unic_pkt_free(pkts[0]);
}

Test(af_xdp, a_full_fill_ring_keeps_the_frames_for_the_next_burst)
{
	struct unic_pkt *pkts[8];

	/* The kernel claims it read nothing from the fill ring: no room. */
	fq.consumer = 0;
	kernel_rx(frame(5, 0), 64);
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 1);
	cr_assert_eq(xq.fill_stash_n, 1);
	cr_assert_eq(xq.owned[5], 0);
	fq.consumer = NB_RX;
	cr_assert_eq(afxdp_rx_burst(&xq, pkts + 1, 8), 0);
	cr_assert_eq(xq.fill_stash_n, 0);
	cr_assert_eq(xq.owned[5], 1);
	unic_pkt_free(pkts[0]);
}

static struct unic_pkt *pkt_of(uint32_t len, uint8_t fill)
{
	struct unic_pkt *p = unic_pkt_alloc(pool);

	cr_assert_not_null(p);
	memset(unic_pkt_data(p), fill, len);
	p->data_len = (uint16_t)len;
	p->pkt_len = len;
	return p;
}

Test(af_xdp, transmit_copies_into_frames_and_bad_completions_are_counted)
{
	struct unic_pkt *pkts[3] = { pkt_of(60, 1), pkt_of(1514, 2), pkt_of(100, 3) };
	uint64_t a0, a1;

	cr_assert_eq(afxdp_tx_burst(&xq, pkts, 3), 3);
	cr_assert_eq(tx.producer, 3);
	cr_assert_eq(tx.descs[1].len, 1514);
	cr_assert_eq(xq.area[tx.descs[1].addr + 1513], 2);
	cr_assert_eq(xq.tx_free_n, NB_TX - 3);
	a0 = tx.descs[0].addr;
	a1 = tx.descs[1].addr;
	/* The kernel completes: a good one, an rx frame, past the UMEM, the
	 * good one again, and the second. */
	cq.addrs[0] = a0;
	cq.addrs[1] = frame(0, 0);
	cq.addrs[2] = frame(NB_RX + NB_TX, 0);
	cq.addrs[3] = a0;
	cq.addrs[4] = a1;
	cq.producer = 5;
	cr_assert_eq(afxdp_tx_reclaim(&xq), 2);
	cr_assert_eq(x(&xq.tx_x[AFXDP_TX_BAD_ADDR]), 3);
	cr_assert_eq(xq.tx_free_n, NB_TX - 1);
	cr_assert_eq(cq.consumer, 5);
	cq.producer = 5 + RING + 1;
	cr_assert_eq(afxdp_tx_reclaim(&xq), 0);
	cr_assert_eq(x(&xq.tx_x[AFXDP_TX_BAD_INDEX]), 1);
}

Test(af_xdp, transmit_takes_what_has_a_frame_and_counts_the_rest_as_ring_full)
{
	struct unic_pkt *pkts[NB_TX + 2];
	uint16_t n;

	for (unsigned i = 0; i < NB_TX + 2; i++)
		pkts[i] = pkt_of(64, (uint8_t)i);
	n = afxdp_tx_burst(&xq, pkts, NB_TX + 2);
	cr_assert_eq(n, NB_TX);
	cr_assert_eq(x(&xq.tx_x[AFXDP_TX_RING_FULL]), 2);
	unic_pkt_free(pkts[NB_TX]);
	unic_pkt_free(pkts[NB_TX + 1]);
}

Test(af_xdp, a_packet_longer_than_a_frame_is_refused_by_prepare_and_counted_by_transmit)
{
	struct unic_pkt *a = pkt_of(64, 1), *b = pkt_of(64, 2), *pkts[2] = { a, b };
	int err = 0;

	b->pkt_len = AFXDP_FRAME_SIZE + 1;  /* a chain longer than a frame */
	cr_assert_eq(afxdp_tx_prepare(&xq, pkts, 2, &err), 1);
	cr_assert_eq(err, -EMSGSIZE);
	cr_assert_eq(afxdp_tx_burst(&xq, pkts, 2), 2);
	cr_assert_eq(tx.producer, 1, "only the good one went on the ring");
	cr_assert_eq(x(&xq.tx_x[AFXDP_TX_TOO_LONG]), 1);
	cr_assert_eq(x(&xq.tcnt.errors), 1);
	cr_assert_eq(xq.tx_free_n, NB_TX - 1);
}

Test(af_xdp, rx_pending_follows_the_rx_producer)
{
	cr_assert_not(afxdp_rx_pending(&xq));
	kernel_rx(frame(0, 0), 64);
	cr_assert(afxdp_rx_pending(&xq));
}

/* busy_budget: the recvfrom that runs the driver's NAPI is for an empty rx
 * ring only; with frames waiting it would be a system call for nothing.
 * Any socket stands in for the AF_XDP one (recvfrom on it fails with
 * EAGAIN, which is all the driver asks of it here). */
Test(af_xdp, busy_polling_enters_the_kernel_only_when_the_rx_ring_is_empty)
{
	struct unic_pkt *pkts[4];

	xq.fd = socket(AF_INET, SOCK_DGRAM | SOCK_NONBLOCK, 0);
	cr_assert_geq(xq.fd, 0);
	xq.busy_poll = true;
	fq.consumer = NB_RX;
	kernel_rx(frame(2, 0), 64);
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 4), 1);
	unic_pkt_free(pkts[0]);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_WAKEUPS]), 0, "a frame was waiting: no system call");
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 4), 0);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_WAKEUPS]), 1, "an empty ring: one busy-poll call");
	close(xq.fd);
	xq.fd = -1;
}

Test(af_xdp, a_spec_naming_a_missing_interface_is_refused_naming_it)
{
	struct unic_port *p = NULL;

	cr_assert_eq(unic_vdev_create("af_xdp0,iface=unic-no-such0", &p), -ENODEV);
	cr_assert_null(p);
	cr_assert_eq(unic_vdev_create("af_xdp0", &p), -EINVAL, "iface= is required");
	cr_assert_eq(unic_vdev_create("af_xdp0,iface=lo,xdp_mode=fast", &p), -EINVAL);
	cr_assert_eq(unic_vdev_create("af_xdp0,iface=lo,queue_count=0", &p), -EINVAL);
}

/* ---- object index by reciprocal ------------------------------------------ */

/* The fast path's offset -> object index is a multiplication by the
 * stride's reciprocal: the same quotient and remainder as a division for
 * every offset below 2^32 (and a division above), for pool strides of
 * every shape (powers of two, odd, near 2^32). */
Test(af_xdp, the_reciprocal_object_index_equals_a_division_for_every_stride_shape)
{
	static const uint32_t strides[] = { 2048, 2176, 2304, 2368, 2432, 4096, 4097, 9216, 65535,
					    1000003, 0x7fffffff, 0xfffffffbu, 0xffffffffu };
	struct afxdp_queue q = { 0 };
	uint64_t x = 0x9e3779b97f4a7c15ull;

	for (unsigned s = 0; s < UNIC_ARRAY_SIZE(strides); s++) {
		uint32_t st = strides[s];

		afxdp_stride_set(&q, st);
		for (uint64_t i = 0; i < 300000; i++) {
			uint64_t d, k, r;

			if (i < 4096)           /* the first objects, every offset near their edges */
				d = (i / 8) * st + (i % 8) - (i >= 8 ? 4 : 0);
			else if (i < 4200)      /* the top of the 32-bit range */
				d = UINT32_MAX - (i - 4096);
			else if (i < 4300)      /* past it: the division */
				d = (uint64_t)UINT32_MAX + 1 + (i - 4200) * 977;
			else {                  /* anywhere below 2^32 */
				x ^= x << 13, x ^= x >> 7, x ^= x << 17;
				d = x & UINT32_MAX;
			}
			k = afxdp_stride_div(&q, d, &r);
			cr_assert(k == d / st && r == d % st, "stride %u, offset %llu: %llu rem %llu, expected %llu rem %llu",
				  st, (unsigned long long)d, (unsigned long long)k, (unsigned long long)r,
				  (unsigned long long)(d / st), (unsigned long long)(d % st));
		}
	}
}

/* ---- the pool as the UMEM ------------------------------------------------ */

#include "unic_pool_span.h"

/* Turn the queue of setup() into a pool-UMEM queue over the test's pool. */
static void pool_mode(void)
{
	struct unic_pool_span span;
	uintptr_t lo;

	cr_assert_eq(unic_pool_span_get(pool, &span), 0, "the test pool is one zone");
	lo = (uintptr_t)span.zone & ~(uintptr_t)(AFXDP_FRAME_SIZE - 1);
	xq.pool_umem = true;
	xq.base = (uint8_t *)lo;
	xq.umem_len = (uintptr_t)span.zone + span.zone_len - lo;
	xq.first = span.first;
	afxdp_stride_set(&xq, (uint32_t)span.stride);
	xq.nb_objs = span.count;
	xq.buf0 = (uint64_t)((uint8_t *)span.first + sizeof(struct unic_pkt) - xq.base);
	xq.chunk = (uint32_t)pool->pkt_headroom + pool->pkt_dataroom;
	xq.rx_owned = calloc(xq.nb_objs, 1);
	xq.tx_owned = calloc(xq.nb_objs, 1);
	/* setup() filled the ring with the copy layout's frames: start again. */
	ring_init(&xq.fq, &fq, true);
	cr_assert_eq(afxdp_fill_pool(&xq), NB_RX);
	cr_assert_eq(fq.producer, NB_RX);
	cr_assert_eq(unic_pool_in_use_count(pool), NB_RX, "the fill ring holds NB_RX packets");
}

static void pool_mode_end(void)
{
	afxdp_release_pool(&xq);
	cr_assert_eq(unic_pool_in_use_count(pool), 0, "every packet the kernel held is back");
	free(xq.rx_owned);
	free(xq.tx_owned);
}

/* The packet whose buffer is at UMEM offset @p off. */
static struct unic_pkt *pkt_at(uint64_t off)
{
	return (struct unic_pkt *)(xq.base + off) - 1;
}

Test(af_xdp, pool_umem_a_received_descriptor_is_the_packet_itself_and_the_fill_ring_is_topped_up)
{
	struct unic_pkt *pkts[4];
	uint64_t a;

	pool_mode();
	a = fq.addrs[0];
	fq.consumer = NB_RX;
	memset(xq.base + a + 256, 0xcd, 200);
	kernel_rx(a | (256ull << XSK_UNALIGNED_BUF_OFFSET_SHIFT), 200);
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 4), 1);
	cr_assert_eq(pkts[0], pkt_at(a), "no copy: the packet is the frame");
	cr_assert_eq(pkts[0]->data_off, 256);
	cr_assert_eq(pkts[0]->pkt_len, 200);
	cr_assert_eq(((uint8_t *)unic_pkt_data(pkts[0]))[199], 0xcd);
	cr_assert_eq(fq.producer, NB_RX + 1, "a fresh packet went on the fill ring");
	cr_assert_eq(xq.rx_held, NB_RX);
	unic_pkt_free(pkts[0]);
	pool_mode_end();
}

Test(af_xdp, pool_umem_rx_addresses_that_are_not_a_held_packet_are_counted_and_skipped)
{
	struct unic_pkt *pkts[8];
	uint64_t a, b;
	uint32_t in_use;

	pool_mode();
	a = fq.addrs[0];
	b = fq.addrs[1];
	fq.consumer = NB_RX;
	in_use = unic_pool_in_use_count(pool);
	kernel_rx(a + 1, 60);                                  /* inside a buffer, not its start */
	kernel_rx(xq.buf0 + (uint64_t)xq.nb_objs * xq.stride, 60); /* one past the last object */
	kernel_rx(XSK_UNALIGNED_BUF_ADDR_MASK, 60);            /* far past the UMEM */
	kernel_rx(xq.buf0 + (uint64_t)(xq.nb_objs - 1) * xq.stride, 60); /* a packet the kernel never had */
	kernel_rx(b, 60);                                      /* good */
	kernel_rx(b, 60);                                      /* handed back twice */
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 1);
	cr_assert_eq(pkts[0], pkt_at(b));
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_BAD_ADDR]), 5);
	cr_assert_eq(x(&xq.rcnt.errors), 5);
	unic_pkt_free(pkts[0]);
	cr_assert_eq(unic_pool_in_use_count(pool), in_use, "no packet leaked or freed twice");
	pool_mode_end();
}

Test(af_xdp, pool_umem_rx_lengths_past_the_buffer_are_counted_and_the_packet_freed)
{
	struct unic_pkt *pkts[8];

	pool_mode();
	fq.consumer = NB_RX;
	kernel_rx(fq.addrs[0] | (256ull << XSK_UNALIGNED_BUF_OFFSET_SHIFT), xq.chunk - 255);
	kernel_rx(fq.addrs[1] | (0xffffull << XSK_UNALIGNED_BUF_OFFSET_SHIFT), 60);
	kernel_rx(fq.addrs[2], 0);
	cr_assert_eq(afxdp_rx_burst(&xq, pkts, 8), 0);
	cr_assert_eq(x(&xq.rx_x[AFXDP_RX_BAD_LEN]), 3);
	cr_assert_eq(xq.rx_held, NB_RX, "three fresh packets replaced them");
	cr_assert_eq(unic_pool_in_use_count(pool), NB_RX);
	pool_mode_end();
}

Test(af_xdp, pool_umem_transmit_sends_a_pool_packet_in_place_and_frees_it_on_completion)
{
	struct unic_pkt *p, *pkts[1];
	uint32_t in_use;

	pool_mode();
	p = pkt_of(300, 7);
	pkts[0] = p;
	in_use = unic_pool_in_use_count(pool);
	cr_assert_eq(afxdp_tx_burst(&xq, pkts, 1), 1);
	cr_assert_eq(tx.descs[0].addr, (uint64_t)((uint8_t *)unic_pkt_data(p) - xq.base));
	cr_assert_eq(tx.descs[0].len, 300);
	cr_assert_eq(unic_pool_in_use_count(pool), in_use, "the kernel holds it until completion");
	/* Bad completions first: an rx packet's address, past the UMEM, one never sent. */
	cq.addrs[0] = fq.addrs[0];
	cq.addrs[1] = ~0ull;
	cq.addrs[2] = xq.buf0 + (uint64_t)(xq.nb_objs - 1) * xq.stride;
	cq.addrs[3] = tx.descs[0].addr;
	cq.addrs[4] = tx.descs[0].addr;  /* twice */
	cq.producer = 5;
	cr_assert_eq(afxdp_tx_reclaim(&xq), 1);
	cr_assert_eq(x(&xq.tx_x[AFXDP_TX_BAD_ADDR]), 4);
	cr_assert_eq(unic_pool_in_use_count(pool), in_use - 1, "freed once");
	pool_mode_end();
}

Test(af_xdp, pool_umem_a_packet_of_another_pool_is_copied_into_one_of_the_umem)
{
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "other", .mem = mem, .count = 8,
					.numa_node = -1 };
	struct unic_pool *other = unic_pktpool_create(&pc);
	struct unic_pkt *p, *pkts[1];

	cr_assert_not_null(other);
	pool_mode();
	p = unic_pkt_alloc(other);
	memset(unic_pkt_data(p), 9, 80);
	p->data_len = 80;
	p->pkt_len = 80;
	pkts[0] = p;
	cr_assert_eq(afxdp_tx_burst(&xq, pkts, 1), 1);
	cr_assert_eq(unic_pool_in_use_count(other), 0, "the original is freed at once");
	cr_assert_eq(xq.base[tx.descs[0].addr + 79], 9);
	cr_assert_eq(xq.tx_held, 1);
	pool_mode_end();
	unic_pool_destroy(other);
}

Test(af_xdp, pool_umem_a_chain_longer_than_a_packet_of_the_pool_is_refused_not_copied_past_it)
{
	struct unic_pkt *a, *b, *pkts[1];
	int err = 0;

	pool_mode();
	a = pkt_of(1500, 1);
	b = pkt_of(1000, 2);
	a->next = b;
	a->nb_segs = 2;
	b->data_len = 600;
	a->pkt_len = 2100;  /* fits a 2176-byte chunk, not a packet's 2048-byte data room */
	pkts[0] = a;
	cr_assert_eq(afxdp_tx_prepare(&xq, pkts, 1, &err), 0);
	cr_assert_eq(err, -EMSGSIZE);
	cr_assert_eq(afxdp_tx_burst(&xq, pkts, 1), 1);
	cr_assert_eq(x(&xq.tx_x[AFXDP_TX_TOO_LONG]), 1);
	cr_assert_eq(tx.producer, 0);
	pool_mode_end();
}
