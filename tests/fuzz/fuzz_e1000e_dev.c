/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness: a malicious e1000e. The driver's own rx burst, refill,
 * tx burst and tx reclaim (pmd/e1000e/e1000e_rxtx.c), and its stats, xstats,
 * link and coalesce reads (e1000e_port.c, e1000e_intr.c, through the port
 * layer), run against the shared fake device (tests/unit/fake_e1000e.h):
 * descriptor rings and BAR0 in ordinary memory. The input is the device:
 * a first byte picks the MTU (1500 or 9000) and the rx buffer size (256 or
 * 512 bytes), then each step is an
 * opcode and its operands:
 *
 *   0 rx write-back  any descriptor (the driver's or not): length, status
 *                    and error bits, EOP or not, VLAN/RSS fields
 *   1 rx burst       of 1..64; every frame is checked, then sent on tx
 *   2 tx burst       of 1..8 packets the harness makes (some chained)
 *   3 tx write-back  DD set or cleared on any descriptor; or a device that
 *                    completes everything it was given (DD on every RS)
 *   4 tx reclaim
 *   5 a register     STATUS, RDH, TDH, counters, EITR, ICR: all-ones or a
 *                    small value
 *   6 a control read stats, xstats, link or coalesce, checked against
 *                    what STATUS reads
 *   7 rx_pending     checked against the descriptor at next_to_clean
 *
 * Properties, checked after every step and at the end (abort with a
 * message, so libFuzzer reports the input):
 *   - no frame longer than the max frame (MTU + 22) or with more than
 *     nb_desc - 1 segments; every segment 1..buf_size bytes, the chain's
 *     lengths adding up to pkt_len and its count to nb_segs;
 *   - tx takes every frame rx delivered that needs at most 64 descriptors
 *     (nothing rx delivers is one tx refuses);
 *   - the rx queue's books: as many buffers in its software ring as
 *     nb_filled says, never more than nb_desc - 1;
 *   - a read while STATUS is all-ones (or once the device was found
 *     gone) returns -ENODEV and adds nothing to the sums;
 *   - progress: after the input the device behaves (finishes the frame in
 *     progress, then delivers three good frames and completes tx): the
 *     three frames arrive intact and tx takes three packets;
 *   - after stop every packet is back in the pool (nothing leaked), and
 *     the pool's debug checks (this harness builds the library with them)
 *     saw no double free and no damaged object.
 * ASan and UBSan stop the run on any memory error.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/log.h>

#include "../unit/fake_e1000e.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...)                                                                  \
	do {                                                                           \
		if (!(c)) {                                                            \
			fprintf(stderr, "fuzz_e1000e_dev: %s:%d: %s does not hold: ",    \
				__FILE__, __LINE__, #c);                               \
			fprintf(stderr, __VA_ARGS__);                                  \
			fputc('\n', stderr);                                           \
			abort();                                                       \
		}                                                                      \
	} while (0)

#define NB_DESC 64
#define NB_GOOD 3

static struct fake_e1000e fk;

struct input {
	const uint8_t *d;
	size_t n, i;
};

static uint8_t u8(struct input *in)
{
	return in->i < in->n ? in->d[in->i++] : 0;
}

static uint16_t u16(struct input *in)
{
	return (uint16_t)(u8(in) | u8(in) << 8);
}

/* Only errors reach stderr: the driver's warnings repeat at every input. */
static void quiet_sink(void *ctx, enum unic_log_level level, enum unic_log_comp comp, const char *msg)
{
	(void)ctx;
	if (level <= UNIC_LOG_ERR)
		fprintf(stderr, "unic %s: %s\n", unic_log_comp_name(comp), msg);
}

static bool status_all_ones(void)
{
	return fake_e1000e_reg(&fk, E1000E_STATUS) == 0xffffffffu;
}

static void check_rx_books(void)
{
	const struct e1000e_rxq *rxq = fk.rxq;
	unsigned held = 0;

	for (unsigned i = 0; i < rxq->nb_desc; i++)
		held += rxq->sw_ring[i] != NULL;
	CHECK(held == rxq->nb_filled, "%u buffers in the software ring, nb_filled %u", held, rxq->nb_filled);
	CHECK(rxq->nb_filled <= rxq->nb_desc - 1, "nb_filled %u of %u descriptors", rxq->nb_filled,
	      rxq->nb_desc);
}

/* A frame rx delivered: its chain as the driver claims. @return its tx descriptors at most. */
static unsigned check_frame(const struct unic_pkt *p)
{
	const struct e1000e_rxq *rxq = fk.rxq;
	uint32_t len = 0;
	unsigned segs = 0;

	CHECK(p->pool == fk.pool, "a frame not from the queue's pool");
	CHECK(p->pkt_len <= rxq->max_frame, "a %" PRIu32 "-byte frame; the max frame is %" PRIu32,
	      p->pkt_len, rxq->max_frame);
	CHECK(p->nb_segs >= 1 && p->nb_segs <= rxq->nb_desc - 1, "nb_segs %u (ring of %u)", p->nb_segs,
	      rxq->nb_desc);
	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		CHECK(segs < p->nb_segs, "more segments in the chain than nb_segs %u", p->nb_segs);
		CHECK(s->data_len >= 1 && s->data_len <= rxq->buf_size,
		      "segment %u holds %u bytes (buffers of %u)", segs, s->data_len, rxq->buf_size);
		CHECK(s->data_off == rxq->headroom, "segment %u starts at %u", segs, s->data_off);
		len += s->data_len;
		segs++;
	}
	CHECK(segs == p->nb_segs, "%u segments in the chain, nb_segs %u", segs, p->nb_segs);
	CHECK(len == p->pkt_len, "segments add up to %" PRIu32 ", pkt_len %" PRIu32, len, p->pkt_len);
	return segs * 2; /* a segment of 4 KiB or less crosses 4 KiB at most once */
}

/* rx burst; every frame checked, then handed to tx as a forwarder would. */
static unsigned rx_and_forward(uint16_t n, struct unic_pkt **got)
{
	uint16_t nb = e1000e_rx_burst(fk.rxq, got, n);

	CHECK(nb <= n, "rx burst returned %u for %u", nb, n);
	for (uint16_t i = 0; i < nb; i++) {
		unsigned descs = check_frame(got[i]), segs = got[i]->nb_segs;
		uint64_t refused = unic_counter_read(&fk.txq->cnt.errors);

		got[i]->ol_flags = 0;
		if (e1000e_tx_burst(fk.txq, &got[i], 1) != 1) {
			unic_pkt_free(got[i]); /* the ring is full: the caller keeps it */
			continue;
		}
		CHECK(unic_counter_read(&fk.txq->cnt.errors) == refused || descs >= NB_DESC,
		      "tx refused a %u-segment frame rx delivered", segs);
	}
	check_rx_books();
	return nb;
}

static void tx_some(struct input *in)
{
	struct unic_pkt *p[8];
	unsigned k = 1 + u8(in) % 8, len = 60 + u8(in) * 2u, taken;

	for (unsigned i = 0; i < k; i++) {
		p[i] = unic_pkt_alloc(fk.pool);
		if (p[i] == NULL) {
			k = i;
			break;
		}
		memset(unic_pkt_append(p[i], (uint16_t)(len > 500 ? 500 : len)), 0x5a,
		       len > 500 ? 500 : len);
		if (len > 500) {
			struct unic_pkt *s = unic_pkt_alloc(fk.pool);

			if (s != NULL) {
				memset(unic_pkt_append(s, 100), 0xa5, 100);
				p[i]->next = s;
				p[i]->nb_segs = 2;
				p[i]->pkt_len += 100;
			}
		}
	}
	taken = e1000e_tx_burst(fk.txq, p, (uint16_t)k);
	CHECK(taken <= k, "tx burst took %u of %u", taken, k);
	unic_pkt_free_bulk(p + taken, k - taken);
}

/* A device that completes everything it was given. */
static void tx_complete_all(void)
{
	for (unsigned i = 0; i < fk.txq->nb_desc; i++)
		if (fk.tx_ring[i].data.cmd_len & E1000E_TXD_CMD_RS)
			fk.tx_ring[i].data.status_popts |= E1000E_TXD_STAT_DD;
}

static const uint32_t fuzz_regs[] = {
	E1000E_STATUS, E1000E_RDH(0), E1000E_TDH(0), E1000E_GPRC, E1000E_GORCL, E1000E_GORCH,
	E1000E_MPC, E1000E_TSCTC, E1000E_IAC, E1000E_EITR(0), E1000E_EITR(2), E1000E_ICR,
};

static void control_read(unsigned which)
{
	struct e1000e_port *ep = fk.ep;
	bool off = ep->hw.gone, ones = status_all_ones();
	uint64_t sums[E1000E_NB_HW_STATS], tsctc = ep->tsctc, iac = ep->iac;
	struct unic_port_stats st;
	struct unic_coalesce c;
	struct unic_link l;
	uint64_t v[128];
	int rc;

	memcpy(sums, ep->hw_stats, sizeof(sums));
	switch (which % 4) {
	case 0:
		rc = unic_port_stats_get(fk.port, &st);
		break;
	case 1:
		rc = unic_port_xstats_get(fk.port, v, 128);
		if (rc > 0)
			rc = 0;
		break;
	case 2:
		rc = unic_port_link_get(fk.port, &l);
		CHECK(rc < 0 || !l.up || l.speed_mbps == 10 || l.speed_mbps == 100 || l.speed_mbps == 1000,
		      "link up at %u Mb/s", l.speed_mbps);
		CHECK(rc == 0 || !l.up, "link_get failed (%d) but reads up", rc);
		break;
	default:
		rc = unic_port_coalesce_get(fk.port, &c);
		break;
	}
	if (ones || off) {
		CHECK(memcmp(sums, ep->hw_stats, sizeof(sums)) == 0 && tsctc == ep->tsctc && iac == ep->iac,
		      "read %u of a vanished device changed the sums", which % 4);
		CHECK(ep->hw.gone, "STATUS reads all-ones and the device is not marked gone");
	}
	if (ones && !off)
		CHECK(rc == -ENODEV, "read %u with STATUS all-ones: %d, not -ENODEV", which % 4, rc);
	if (off && which % 4 >= 2)
		CHECK(rc == -ENODEV, "link/coalesce of a gone device: %d", rc);
	if (!ones && !off)
		CHECK(rc == 0, "read %u of a device that is there: %d", which % 4, rc);
}

/* The device behaves from now on: the queue must carry frames again. */
static void behave(void)
{
	struct e1000e_rxq *rxq = fk.rxq;
	struct unic_pkt *got[64];
	struct unic_pkt *p[NB_GOOD];
	uint16_t ntc, nb;

	/* A behaving device has written nothing it has not finished. */
	for (unsigned k = 0; k < rxq->nb_desc; k++)
		fk.rx_ring[k].wb.status_error = 0;
	/* It ends the frame in progress, if any. */
	if (rxq->chain_head != NULL || rxq->chain_drop || rxq->frame_descs != 0) {
		CHECK(rxq->nb_filled > 0, "a frame in progress and no descriptor to end it");
		fake_e1000e_rx_wb(&fk, rxq->next_to_clean, 60, E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
		nb = rx_and_forward(64, got);
		CHECK(nb <= 1, "%u frames from one descriptor", nb);
		CHECK(rxq->chain_head == NULL && !rxq->chain_drop && rxq->frame_descs == 0,
		      "the frame in progress did not end at EOP");
	}
	/* Then three good frames. */
	CHECK(rxq->nb_filled >= NB_GOOD, "only %u rx descriptors given after a burst", rxq->nb_filled);
	ntc = rxq->next_to_clean;
	for (unsigned j = 0; j < NB_GOOD; j++, ntc = (uint16_t)((ntc + 1) % rxq->nb_desc))
		fake_e1000e_rx_wb(&fk, ntc, (uint16_t)(100 + j), E1000E_RXD_STAT_DD | E1000E_RXD_STAT_EOP);
	nb = e1000e_rx_burst(rxq, got, 64);
	CHECK(nb == NB_GOOD, "the device behaves again and %u of %u frames arrive", nb, NB_GOOD);
	for (unsigned j = 0; j < NB_GOOD; j++) {
		check_frame(got[j]);
		CHECK(got[j]->pkt_len == 100 + j && got[j]->nb_segs == 1, "good frame %u: %" PRIu32 " bytes in %u segments",
		      j, got[j]->pkt_len, got[j]->nb_segs);
	}
	unic_pkt_free_bulk(got, nb);
	/* Tx: everything completed, then three packets taken. */
	tx_complete_all();
	e1000e_tx_reclaim(fk.txq);
	for (unsigned j = 0; j < NB_GOOD; j++) {
		p[j] = unic_pkt_alloc(fk.pool);
		CHECK(p[j] != NULL, "the pool is empty (%u in use)", unic_pool_in_use_count(fk.pool));
		memset(unic_pkt_append(p[j], 60), 0, 60);
	}
	nb = e1000e_tx_burst(fk.txq, p, NB_GOOD);
	CHECK(nb == NB_GOOD, "tx took %u of %u packets after the device completed everything", nb, NB_GOOD);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static const uint16_t bufs[2] = { 256, 512 };
	struct input in = { .d = data, .n = size };
	struct unic_pool_stats ps0, ps;
	struct unic_pkt *got[64];
	uint8_t cfg;

	if (fk.port == NULL) {
		/* Small buffers: long chains come sooner, and the pool's debug
		 * checks (a hash of every object at each get and put) cost less. */
		struct fake_e1000e_config c = { .nb_desc = NB_DESC, .pool_count = 512, .dataroom = 512 };

		unic_log_set_sink(quiet_sink, NULL);
		CHECK(fake_e1000e_create(&fk, &c) == 0, "cannot build the fake device");
		CHECK(unic_pool_debug_enabled(), "built without the pool's debug checks");
	}
	if (size > 4096)
		return 0;
	unic_pool_stats_get(fk.pool, &ps0);
	CHECK(unic_pool_in_use_count(fk.pool) == 0, "%u packets in use before the input",
	      unic_pool_in_use_count(fk.pool));
	/* The device as start leaves it. */
	memset(fk.regs, 0, E1000E_BAR0_LEN);
	fake_e1000e_reg_set(&fk, E1000E_STATUS, E1000E_STATUS_LU | E1000E_STATUS_FD | (2u << E1000E_STATUS_SPEED_SHIFT));
	fk.ep->hw.gone = false;
	cfg = u8(&in);
	CHECK(e1000e_ops.mtu_set(fk.port, (cfg & 1) ? 9000 : 1500) == 0, "mtu_set failed");
	fk.rxq->buf_size = bufs[(cfg >> 1) & 1];
	CHECK(fake_e1000e_start(&fk) == 0, "start: the pool ran out");

	while (in.i < in.n) {
		uint8_t op = u8(&in);

		switch (op & 7) {
		case 0: {
			uint16_t idx = (uint16_t)((fk.rxq->next_to_clean + u8(&in)) % NB_DESC);
			uint16_t len = u16(&in);
			uint8_t st = u8(&in), err = u8(&in);
			volatile union e1000e_rx_desc *d = &fk.rx_ring[idx];

			d->wb.vlan = (uint16_t)(err * 0x101u);
			d->wb.mrq = err & 0xfu;
			d->wb.rss = (uint32_t)err * 0x01010101u;
			fake_e1000e_rx_wb(&fk, idx, len, (st & 0x7fu) | ((st & 0x80u) ? (uint32_t)err << 24 : 0));
			break;
		}
		case 1:
			rx_and_forward((uint16_t)(1 + u8(&in) % 64), got);
			break;
		case 2:
			tx_some(&in);
			break;
		case 3: {
			uint8_t b = u8(&in);

			if (b & 0x80)
				tx_complete_all();
			else if (b & 0x40)
				fk.tx_ring[b % NB_DESC].data.status_popts &= ~E1000E_TXD_STAT_DD;
			else
				fk.tx_ring[b % NB_DESC].data.status_popts |= E1000E_TXD_STAT_DD;
			break;
		}
		case 4:
			e1000e_tx_reclaim(fk.txq);
			break;
		case 5: {
			uint8_t r = u8(&in), v = u8(&in);

			fake_e1000e_reg_set(&fk, fuzz_regs[r % UNIC_ARRAY_SIZE(fuzz_regs)],
					    (v & 1) ? 0xffffffffu : v);
			break;
		}
		case 6:
			control_read(u8(&in));
			break;
		default: {
			bool dd = fk.rxq->nb_filled > 0 &&
				  (fk.rx_ring[fk.rxq->next_to_clean].wb.status_error & E1000E_RXD_STAT_DD);

			CHECK(e1000e_rx_pending(fk.rxq) == dd, "rx_pending says %d", !dd);
			break;
		}
		}
		check_rx_books();
	}
	behave();
	/* Stop: every packet back in the pool, none twice. */
	fake_e1000e_stop(&fk);
	CHECK(unic_pool_in_use_count(fk.pool) == 0, "%u packets leaked", unic_pool_in_use_count(fk.pool));
	unic_pool_stats_get(fk.pool, &ps);
	CHECK(ps.debug_double_free == ps0.debug_double_free, "%" PRIu64 " double frees",
	      ps.debug_double_free - ps0.debug_double_free);
	CHECK(ps.debug_corrupt == ps0.debug_corrupt && ps.debug_foreign == ps0.debug_foreign,
	      "pool objects damaged or foreign");
	return 0;
}
