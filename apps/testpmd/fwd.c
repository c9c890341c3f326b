/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Forwarding: streams, threads and the engines.
 *
 * A stream is one rx queue q of a forwarding port p and what it sends on:
 * tx queue q of p's peer. The forwarding ports are the started ones in the
 * port mask, the first nb_fwd_ports of them (--portmask, --nb-ports); they
 * pair as DPDK's topologies do, in id order: paired (0<->1, 2<->3; an odd
 * one out sends to itself; the default), chained (0->1->2->0) or loop (each
 * to itself). Streams
 * are grouped by their rx port's receive mode and napi knobs; each thread
 * runs one napi context of one group (so every port keeps its own mode), and
 * nbcore threads are shared among the groups (at least one each).
 *
 * Engines: io (as received), mac (destination 02:00:00:00:00:<tx port>,
 * source the tx port's MAC), macswap (swap the two), rxonly (free),
 * txonly (generate on every round, no receive), flowgen (receive and free,
 * generate UDP flows to 1024 destination addresses on every round), csum
 * (as mac, and checksums per the tx port's settings: csum.c), noisy (as
 * io, through a FIFO per stream and with simulated memory lookups per
 * packet: DPDK's noisy_vnf). A generating thread never sleeps: it always
 * has work.
 *
 * "set fwd X retry": a tx burst the queue does not take whole is tried
 * again, burst_tx_retry_num times at most, burst_tx_delay_time us apart
 * (DPDK's); what is still left is freed and counted as dropped.
 */
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include <unic/cksum.h>
#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/pool.h>

#include "testpmd.h"

#define FLOWGEN_FLOWS 1024
#define HDR_LEN 42 /* Ethernet 14 + IPv4 20 + UDP 8 */

static const char *const engine_names[TP_FWD_COUNT] = {
	"io", "mac", "macswap", "rxonly", "txonly", "flowgen", "csum", "icmpecho", "5tswap", "noisy",
};

const char *tp_engine_name(enum tp_engine e)
{
	return (unsigned)e < TP_FWD_COUNT ? engine_names[e] : "?";
}

struct tp_qcnt *tp_cnt(struct tp_app *app, uint16_t port, uint16_t q)
{
	return &app->cnt[(size_t)port * TP_MAX_QUEUES + q];
}

/* ---- the engines ------------------------------------------------------------ */

/* Busy-wait @p us microseconds (DPDK's rte_delay_us between tx retries). */
static void delay_us(uint32_t us)
{
	uint64_t end = unic_time_ns() + (uint64_t)us * 1000;

	while (unic_time_ns() < end)
		unic_pause();
}

/*
 * unic_tx_burst_or_free() with retries: when the queue takes fewer than
 * prepared, wait retry_us and send the rest again, retry_num times in all
 * for the burst; then free what is left. A refused packet is freed at once
 * (a retry would not change the verdict). Forwarding being stopped ends the
 * retries.
 */
static uint16_t tx_retry(struct tp_stream *s, struct unic_pkt **pkts, uint16_t n, uint16_t *dropped)
{
	uint16_t done = 0, sent = 0, lost = 0;
	uint32_t tries = 0;

	while (done < n) {
		uint16_t ok = unic_tx_prepare(s->txp, s->tx_q, pkts + done, (uint16_t)(n - done), NULL);
		uint16_t took = ok ? unic_tx_burst(s->txp, s->tx_q, pkts + done, ok) : 0;

		sent = (uint16_t)(sent + took);
		done = (uint16_t)(done + took);
		if (UNIC_UNLIKELY(took < ok)) {
			if (tries == s->retry_num || __atomic_load_n(&s->app->stop, __ATOMIC_ACQUIRE)) {
				unic_pkt_free_bulk(pkts + done, (uint32_t)(n - done));
				lost = (uint16_t)(lost + n - done);
				break;
			}
			tries++;
			delay_us(s->retry_us);
			continue;
		}
		if (UNIC_UNLIKELY(done < n)) {
			unic_pkt_free(pkts[done]);
			lost++;
			done++;
		}
	}
	if (tries) {
		unic_counter_add(&s->txc->retried, 1);
		unic_counter_add(&s->txc->retries, tries);
	}
	*dropped = lost;
	return sent;
}

/* Every engine that transmits sends through here (testpmd.h). */
void tp_tx_send(struct tp_stream *s, struct unic_pkt **pkts, uint16_t n)
{
	unsigned verbose = __atomic_load_n(&s->app->verbose, __ATOMIC_RELAXED);
	uint16_t dropped, sent;

	if (n == 0)
		return;
	/* DPDK's levels: 1 received, 2 sent, 3 and above both; generated
	 * bursts too (DPDK prints from a tx callback). */
	if (verbose >= 2)
		tp_verbose_dump(s->app->out, s->tx_port, s->tx_q, "sent", pkts, n);
	if (s->app->record_bursts) /* one writer: this thread; readers load relaxed */
		__atomic_store_n(&s->txc->tx_bursts[n], s->txc->tx_bursts[n] + 1, __ATOMIC_RELAXED);
	if (s->retry)
		sent = tx_retry(s, pkts, n, &dropped);
	else
		sent = unic_tx_burst_or_free(s->txp, s->tx_q, pkts, n, &dropped);
	if (dropped)
		unic_counter_add(&s->txc->dropped, dropped);
	unic_counter_add(&s->txc->tx, sent);
}

static void put16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)(v >> 8);
	p[1] = (uint8_t)v;
}

/* Fill lengths, the flow's address and the checksums of a generated frame. */
static void gen_fill(struct tp_stream *s, struct unic_pkt *p, uint32_t flow)
{
	uint8_t *h = unic_pkt_data(p);
	uint16_t ip_len = (uint16_t)(p->pkt_len - 14), udp_len = (uint16_t)(p->pkt_len - 34);

	memcpy(h, s->tmpl, HDR_LEN);
	put16(h + 16, ip_len);
	put16(h + 38, udp_len);
	if (s->engine == TP_FWD_FLOWGEN) {
		h[32] = (uint8_t)(flow >> 8 & 0x3);  /* 198.18.0.0 + flow */
		h[33] = (uint8_t)flow;
	}
	if (s->sw_ip_cksum)
		put16(h + 24, unic_ipv4_cksum(h + 14, 20));
	/* UDP: the pseudo-header sum, then the rest in software, or the NIC. */
	uint32_t sum = unic_ipv4_phdr_sum(h + 14, 17, udp_len);

	if (s->sw_udp_cksum) {
		/* Over the chain (the UDP checksum field is still 0); a chain
		 * that disagrees with pkt_len is sent without a UDP checksum,
		 * which IPv4 allows. */
		if (unic_pkt_cksum_sum(p, 34, udp_len, &sum) == 0) {
			uint16_t c = unic_cksum_finish(sum);

			put16(h + 40, c ? c : 0xffff);
		}
	} else if (s->tx_flags & UNIC_PKT_TX_UDP_CKSUM) {
		put16(h + 40, (uint16_t)sum);
	}
	p->ol_flags |= s->tx_flags;
	p->l2_len = 14;
	p->l3_len = 20;
	p->l4_len = 8;
	if (s->vlan_on) {
		p->ol_flags |= UNIC_PKT_TX_VLAN;
		p->vlan_tci = s->vlan;
	}
}

/* Generate and send one burst on the stream's tx queue. */
static void gen_burst(struct tp_stream *s)
{
	struct unic_pkt *pkts[TP_BURST_MAX], *segs[TP_BURST_MAX * TP_CMD_MAX_SIZES];
	unsigned ns = s->nb_txpkts, n = s->burst;

	if (unic_pkt_alloc_bulk(s->pool, segs, n * ns) != 0)
		return; /* the pool is short: better luck next round */
	for (unsigned i = 0; i < n; i++) {
		struct unic_pkt *first = segs[i * ns], *prev = first;
		uint32_t total = 0;

		for (unsigned k = 0; k < ns; k++) {
			struct unic_pkt *seg = segs[i * ns + k];

			seg->data_len = s->txpkts[k];
			total += s->txpkts[k];
			if (k) {
				prev->next = seg;
				prev = seg;
			}
		}
		first->pkt_len = total;
		first->nb_segs = (uint16_t)ns;
		gen_fill(s, first, s->flow);
		if (s->engine == TP_FWD_FLOWGEN)
			s->flow = (s->flow + 1) % FLOWGEN_FLOWS;
		pkts[i] = first;
	}
	tp_tx_send(s, pkts, (uint16_t)n);
}

static void swap_bytes(uint8_t *a, uint8_t *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		uint8_t t = a[i];

		a[i] = b[i];
		b[i] = t;
	}
}

/* The L3 header's offset and EtherType past one 802.1Q tag, or 0. */
static size_t l3_of(const uint8_t *d, size_t len, uint16_t *type)
{
	size_t off = 12;

	if (len < 14)
		return 0;
	*type = (uint16_t)(d[off] << 8 | d[off + 1]);
	if (*type == 0x8100) {
		if (len < 18)
			return 0;
		off += 4;
		*type = (uint16_t)(d[off] << 8 | d[off + 1]);
	}
	return off + 2;
}

void tp_5tswap_pkt(struct unic_pkt *p)
{
	uint8_t *d = unic_pkt_data(p);
	size_t len = p->data_len, l3, l4 = 0;
	uint16_t type = 0;
	uint8_t proto = 0;

	if (len < 12)
		return;
	swap_bytes(d, d + 6, 6);
	l3 = l3_of(d, len, &type);
	if (l3 == 0)
		return;
	if (type == 0x0800 && len >= l3 + 20 && (d[l3] >> 4) == 4) {
		swap_bytes(d + l3 + 12, d + l3 + 16, 4);
		proto = d[l3 + 9];
		l4 = l3 + (size_t)(d[l3] & 0xf) * 4;
	} else if (type == 0x86dd && len >= l3 + 40) {
		swap_bytes(d + l3 + 8, d + l3 + 24, 16);
		proto = d[l3 + 6];
		l4 = l3 + 40;
	}
	/* Swapping leaves the checksums right: a sum does not care for order. */
	if ((proto == 6 || proto == 17) && l4 && len >= l4 + 4)
		swap_bytes(d + l4, d + l4 + 2, 2);
}

bool tp_icmpecho_pkt(struct unic_pkt *p, const uint8_t mac[6])
{
	uint8_t *d = unic_pkt_data(p);
	size_t len = p->data_len, l3, l4;
	uint16_t type = 0;

	l3 = l3_of(d, len, &type);
	if (l3 == 0)
		return false;
	if (type == 0x0806) {
		uint8_t *a = d + l3;
		uint8_t ip[4];

		/* Ethernet/IPv4 ARP request (RFC 826): the reply tells the asker
		 * that the address it asked for is at @p mac. */
		if (len < l3 + 28 || a[0] != 0 || a[1] != 1 || a[2] != 0x08 || a[3] != 0 || a[4] != 6 ||
		    a[5] != 4 || a[6] != 0 || a[7] != 1)
			return false;
		a[7] = 2;
		memcpy(ip, a + 24, 4);          /* the address asked for */
		memcpy(a + 18, a + 8, 6);       /* target: the asker */
		memcpy(a + 24, a + 14, 4);
		memcpy(a + 8, mac, 6);          /* sender: us, the address asked for */
		memcpy(a + 14, ip, 4);
		memcpy(d, d + 6, 6);
		memcpy(d + 6, mac, 6);
		return true;
	}
	if (type != 0x0800 || len < l3 + 20 || (d[l3] >> 4) != 4 || d[l3 + 9] != 1)
		return false;
	l4 = l3 + (size_t)(d[l3] & 0xf) * 4;
	if (len < l4 + 4 || d[l4] != 8 || d[l4 + 1] != 0)
		return false;
	/* Echo request to reply: type 8 -> 0, the checksum updated for that
	 * word alone (RFC 1624: HC' = ~(~HC + ~m + m')). */
	{
		uint16_t hc = (uint16_t)(d[l4 + 2] << 8 | d[l4 + 3]);
		uint32_t c = (uint16_t)~hc + (uint32_t)(uint16_t)~0x0800u + 0x0000u;

		c = (c & 0xffff) + (c >> 16);
		c = (c & 0xffff) + (c >> 16);
		hc = (uint16_t)~c;
		d[l4] = 0;
		d[l4 + 2] = (uint8_t)(hc >> 8);
		d[l4 + 3] = (uint8_t)hc;
	}
	swap_bytes(d + l3 + 12, d + l3 + 16, 4);
	memcpy(d, d + 6, 6);
	memcpy(d + 6, mac, 6);
	return true;
}

static uint16_t fwd_burst(struct tp_stream *s, struct unic_pkt **pkts, uint16_t n)
{
	const uint16_t nb_rx = n;
	unsigned verbose = __atomic_load_n(&s->app->verbose, __ATOMIC_RELAXED);

	unic_counter_add(&s->rxc->rx, n);
	if (s->app->record_bursts) /* one writer: this thread; readers load relaxed */
		__atomic_store_n(&s->rxc->rx_bursts[n], s->rxc->rx_bursts[n] + 1, __ATOMIC_RELAXED);
	/* DPDK's levels: 1 received, 2 sent, 3 and above both. */
	if (verbose == 1 || verbose >= 3)
		tp_verbose_dump(s->app->out, s->rx_port, s->rx_q, "received", pkts, n);
	switch (s->engine) {
	case TP_FWD_RXONLY:
	case TP_FWD_FLOWGEN:
	case TP_FWD_TXONLY:
		unic_pkt_free_bulk(pkts, n);
		return n;
	case TP_FWD_MAC:
		for (uint16_t i = 0; i < n; i++)
			if (pkts[i]->data_len >= 12)
				memcpy(unic_pkt_data(pkts[i]), s->eth, 12);
		break;
	case TP_FWD_CSUM:
		for (uint16_t i = 0; i < n; i++)
			tp_csum_pkt(&s->csum, pkts[i], s->rxc);
		break;
	case TP_FWD_5TSWAP:
		for (uint16_t i = 0; i < n; i++)
			tp_5tswap_pkt(pkts[i]);
		break;
	case TP_FWD_ICMPECHO: {
		uint16_t k = 0;

		/* Replies go on; everything else is dropped, as DPDK's. */
		for (uint16_t i = 0; i < n; i++) {
			if (tp_icmpecho_pkt(pkts[i], s->rx_mac))
				pkts[k++] = pkts[i];
			else
				unic_pkt_free(pkts[i]);
		}
		n = k;
		if (n == 0)
			return nb_rx;
		break;
	}
	case TP_FWD_MACSWAP:
		for (uint16_t i = 0; i < n; i++) {
			uint8_t *d = unic_pkt_data(pkts[i]), t[6];

			if (pkts[i]->data_len < 12)
				continue;
			memcpy(t, d, 6);
			memcpy(d, d + 6, 6);
			memcpy(d + 6, t, 6);
		}
		break;
	default:
		break;
	}
	if (s->vlan_on)
		for (uint16_t i = 0; i < n; i++) {
			pkts[i]->ol_flags |= UNIC_PKT_TX_VLAN;
			pkts[i]->vlan_tci = s->vlan;
		}
	if (s->engine == TP_FWD_NOISY)
		tp_noisy_burst(s, pkts, n);
	else
		tp_tx_send(s, pkts, n);
	return nb_rx;
}

static uint16_t fwd_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
			   void *arg)
{
	struct tp_stream *s = arg;
	uint64_t t0;
	uint16_t r;

	(void)port;
	(void)q;
	if (!s->app->record_cycles) /* changed only while forwarding is stopped */
		return fwd_burst(s, pkts, n);
	/* set record-core-cycles: the cycles of a burst's work (engine and
	 * send; the rx poll is napi's). */
	t0 = unic_rdtsc();
	r = fwd_burst(s, pkts, n);
	tp_stat_add(&s->rxc->busy_cycles, unic_rdtsc() - t0);
	return r;
}

static void gen_round(struct unic_napi_ctx *ctx, void *arg)
{
	struct tp_thread *t = arg;

	(void)ctx;
	for (unsigned i = 0; i < t->nb_streams; i++) {
		struct tp_stream *s = t->streams[i];
		uint64_t t0;

		if (!s->app->record_cycles) {
			gen_burst(s);
			continue;
		}
		t0 = unic_rdtsc();
		gen_burst(s);
		tp_stat_add(&s->rxc->busy_cycles, unic_rdtsc() - t0);
	}
}

static bool gen_pending(struct unic_napi_ctx *ctx, void *arg)
{
	(void)ctx;
	(void)arg;
	return true;
}

static int thread_main(void *arg)
{
	struct tp_thread *t = arg;
	struct tp_app *app = t->app;

	for (unsigned i = 0; i < t->nb_streams; i++)
		for (unsigned b = 0; b < t->streams[i]->tx_first; b++)
			gen_burst(t->streams[i]);
	t->ret = unic_napi_run(t->ctx, &app->stop);
	/* Still this thread's tx queues: nothing stays in a FIFO. */
	for (unsigned i = 0; i < t->nb_streams; i++)
		if (t->streams[i]->engine == TP_FWD_NOISY)
			tp_noisy_drain(t->streams[i]);
	for (unsigned i = 0; i < app->nb_pools; i++)
		unic_pool_cache_flush(app->pools[i]);
	return t->ret;
}

static void *thread_tramp(void *arg)
{
	thread_main(arg);
	return NULL;
}

/* ---- streams and threads ----------------------------------------------------- */

struct group {
	enum unic_rx_mode mode;
	struct tp_knobs k;
	unsigned nb_streams, nb_threads, first_thread;
};

static bool group_eq(const struct group *g, enum unic_rx_mode mode, const struct tp_knobs *k)
{
	return g->mode == mode && g->k.budget == k->budget && g->k.empty_polls == k->empty_polls &&
	       g->k.idle_us == k->idle_us && g->k.max_sleep_ms == k->max_sleep_ms &&
	       g->k.latency_target_us == k->latency_target_us && g->k.cpu_budget == k->cpu_budget;
}

static void stream_init(struct tp_app *app, struct tp_stream *s, uint16_t p, uint16_t q, uint16_t d,
			unsigned tx_first)
{
	struct tp_port *tp = &app->ports[d];
	uint8_t mac[UNIC_ETHER_ADDR_LEN] = { 0 };
	uint8_t *h = s->tmpl;

	memset(s, 0, sizeof(*s));
	s->app = app;
	s->rx_port = p;
	s->rx_q = q;
	s->tx_port = d;
	s->tx_q = q;
	s->rxp = app->ports[p].port;
	s->txp = tp->port;
	s->rxc = tp_cnt(app, p, q);
	s->txc = tp_cnt(app, d, q);
	s->engine = app->engine;
	s->pool = tp->pool;
	s->burst = app->burst;
	s->nb_txpkts = app->nb_txpkts;
	memcpy(s->txpkts, app->txpkts, sizeof(s->txpkts));
	s->tx_first = tx_first;
	s->retry = app->retry;
	s->retry_num = app->tx_retry_num;
	s->retry_us = app->tx_delay_us;
	s->nconf = app->noisy;
	s->vlan_on = tp->tx_vlan_on;
	s->vlan = tp->tx_vlan;
	unic_port_mac_get(tp->port, mac);
	if (app->peer_set >> d & 1) {
		memcpy(s->eth, app->peer[d], 6);
	} else {
		s->eth[0] = 0x02; /* DPDK's default peer address: 02:00:00:00:00:<port> */
		s->eth[5] = (uint8_t)d;
	}
	memcpy(s->eth + 6, mac, 6);
	unic_port_mac_get(s->rxp, s->rx_mac);
	/* Ethernet, IPv4 198.18.0.1 -> 198.18.0.2 (RFC 2544's range), UDP 9 -> 9. */
	memcpy(h, s->eth, 12);
	h[12] = 0x08;
	h[13] = 0x00;
	h[14] = 0x45;
	h[22] = 64;
	h[23] = 17;
	h[26] = 198;
	h[27] = 18;
	h[29] = 1;
	h[30] = 198;
	h[31] = 18;
	h[33] = 2;
	h[35] = 9;
	h[37] = 9;
	s->sw_ip_cksum = !tp->csum_hw[0];
	s->sw_udp_cksum = !tp->csum_hw[1];
	if (tp->csum_hw[0])
		s->tx_flags |= UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM;
	if (tp->csum_hw[1])
		s->tx_flags |= UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_UDP_CKSUM;
	s->csum.hw_ip = tp->csum_hw[0];
	s->csum.hw_udp = tp->csum_hw[1];
	s->csum.hw_tcp = tp->csum_hw[2];
	s->csum.tso_mss = tp->tso_mss;
	memcpy(s->csum.eth, s->eth, 12);
}

static int thread_setup(struct tp_app *app, struct tp_thread *t, const struct group *g)
{
	char name[32];
	struct unic_napi_conf nc = {
		.sz = sizeof(nc), .name = name, .mode = g->mode, .budget = g->k.budget,
		.hybrid_empty_polls = g->k.empty_polls, .hybrid_idle_us = g->k.idle_us,
		.max_sleep_ms = g->k.max_sleep_ms,
		.latency_target_us = g->k.latency_target_us, .cpu_budget = g->k.cpu_budget,
		/* A slot for every queue the thread polls or sends on. */
		.max_queues = UNIC_MAX(t->nb_streams, (unsigned)UNIC_NAPI_MAX_QUEUES_DEFAULT),
		.max_txqs = UNIC_MAX(t->nb_streams, (unsigned)UNIC_NAPI_MAX_QUEUES_DEFAULT),
	};
	bool gen = app->engine == TP_FWD_TXONLY || app->engine == TP_FWD_FLOWGEN;
	int rc;

	snprintf(name, sizeof(name), "tp%u", t->idx);
	t->mode = g->mode;
	t->ctx = unic_napi_ctx_create(&nc);
	if (t->ctx == NULL) {
		fprintf(app->err, "thread %u: cannot create its napi context: %s\n", t->idx, strerror(errno));
		return -errno;
	}
	for (unsigned i = 0; i < t->nb_streams; i++) {
		struct tp_stream *s = t->streams[i];
		uint32_t w = app->ports[s->rx_port].knobs.weight;

		if (app->engine != TP_FWD_TXONLY) {
			rc = unic_napi_queue_add(t->ctx, s->rxp, s->rx_q,
						 (uint16_t)(w ? w : app->burst), fwd_handle, s);
			if (rc) {
				fprintf(app->err, "thread %u: port %u rx queue %u: %s\n", t->idx, s->rx_port,
					s->rx_q, strerror(-rc));
				return rc;
			}
		}
		if (app->engine != TP_FWD_RXONLY) {
			/* The stream sends on this queue: only with the claim
			 * (a stop, detach or device loss of the port waits for
			 * this thread only if it holds one). -EEXIST: another
			 * stream of this thread claimed it already. */
			rc = unic_napi_txq_add(t->ctx, s->txp, s->tx_q);
			if (rc && rc != -EEXIST) {
				fprintf(app->err, "thread %u: cannot claim port %u tx queue %u to send on: %s; a thread sends only on tx queues it claimed (the line above says why)\n",
					t->idx, s->tx_port, s->tx_q, strerror(-rc));
				return rc;
			}
		}
	}
	/* A port whose moderation is fixed: the policy leaves it alone from
	 * the first round (the context runs no round yet: taken at once). */
	for (unsigned i = 0; i < t->nb_streams && app->engine != TP_FWD_TXONLY; i++) {
		struct tp_stream *s = t->streams[i];

		if (app->ports[s->rx_port].knobs.moderation_fixed &&
		    (rc = unic_napi_moderation_set(t->ctx, s->rxp, true)) != 0) {
			fprintf(app->err, "thread %u: port %u: cannot fix its moderation: %s\n", t->idx,
				s->rx_port, strerror(-rc));
			return rc;
		}
	}
	if (gen) {
		struct unic_napi_hooks h = { .sz = sizeof(h), .round = gen_round,
					     .work_pending = gen_pending, .arg = t };

		unic_napi_hooks_set(t->ctx, &h);
	} else if (app->engine == TP_FWD_NOISY && app->noisy.bufsz && app->noisy.flush_ms) {
		struct unic_napi_hooks h = { .sz = sizeof(h), .round = tp_noisy_round,
					     .next_deadline = tp_noisy_deadline, .arg = t };

		unic_napi_hooks_set(t->ctx, &h);
	}
	t->gen = gen;
	return 0;
}

int tp_fwd_moderation(struct tp_app *app, uint16_t id, bool fixed)
{
	for (unsigned t = 0; app->fwd_on && t < app->nb_threads; t++) {
		struct tp_thread *th = &app->threads[t];
		bool polls = false;
		int rc;

		for (unsigned i = 0; i < th->nb_streams; i++)
			polls |= th->streams[i]->rx_port == id;
		if (!polls || th->ctx == NULL || app->engine == TP_FWD_TXONLY)
			continue;
		/* Returns once the thread's context took it (a round boundary). */
		rc = unic_napi_moderation_set(th->ctx, app->ports[id].port, fixed);
		if (rc) {
			fprintf(app->err, "port %u: thread %u: cannot switch its moderation to %s: %s\n", id, t,
				fixed ? "fixed" : "adaptive", strerror(-rc));
			return rc;
		}
	}
	return 0;
}

/* Stop the threads at their next round boundary and wait for them. */
static void threads_join(struct tp_app *app)
{
	__atomic_store_n(&app->stop, true, __ATOMIC_RELEASE);
	for (unsigned i = 0; i < app->nb_threads; i++)
		if (app->threads[i].ctx)
			unic_napi_wake(app->threads[i].ctx);
	for (unsigned i = 0; i < app->nb_threads; i++) {
		struct tp_thread *t = &app->threads[i];

		if (!t->launched)
			continue;
		if (t->own)
			pthread_join((pthread_t)t->tid, NULL);
		else
			unic_env_wait(app->env, t->worker);
		t->launched = false;
	}
}

static void threads_teardown(struct tp_app *app)
{
	threads_join(app);
	for (unsigned i = 0; i < app->nb_threads; i++) {
		struct tp_thread *t = &app->threads[i];

		unic_napi_ctx_destroy(t->ctx);
		free(t->streams);
		memset(t, 0, sizeof(*t));
	}
	app->nb_threads = 0;
	tp_noisy_free(app);
	free(app->streams);
	app->streams = NULL;
	app->nb_streams = 0;
	__atomic_store_n(&app->stop, false, __ATOMIC_RELEASE);
}

int tp_fwd_start(struct tp_app *app, unsigned tx_first, bool reset)
{
	uint16_t list[TP_MAX_PORTS], peer[TP_MAX_PORTS];
	struct unic_port_conf conf[TP_MAX_PORTS];
	struct group groups[TP_MAX_PORTS];
	unsigned nb = 0, ng = 0, ns = 0, nt, workers = unic_env_worker_count(app->env);
	int rc;

	for (uint16_t id = 0; id < TP_MAX_PORTS; id++)
		if (tp_port_started(app, id) && (app->portmask == 0 || (app->portmask >> id & 1)) &&
		    (app->nb_fwd_ports == 0 || nb < app->nb_fwd_ports) &&
		    unic_port_conf_get(app->ports[id].port, &conf[id]) == 0)
			list[nb++] = id;
	if (reset) {
		for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
			app->ports[id].in_fwd = false;
			if (app->ports[id].port)
				for (unsigned q = 0; q < TP_MAX_QUEUES; q++)
					memset(tp_cnt(app, id, q), 0, sizeof(struct tp_qcnt));
		}
	}
	if (nb == 0) {
		if (reset && app->portmask) {
			fprintf(app->err, "no started port in the port mask 0x%" PRIx64 " to forward on: run 'port start all'\n",
				app->portmask);
			return -ENODEV;
		}
		if (reset) {
			fprintf(app->err, "no started port to forward on: run 'port start all'\n");
			return -ENODEV;
		}
		return 0; /* resuming with nothing left: forwarding stays on, idle */
	}
	for (unsigned i = 0; i < nb; i++)
		peer[list[i]] = app->topology == TP_TOPO_LOOP ? list[i] :
				app->topology == TP_TOPO_CHAINED ? list[(i + 1) % nb] :
				(i % 2 == 0) ? (i + 1 < nb ? list[i + 1] : list[i]) : list[i - 1];
	/* icmpecho answers on the port that received, whatever the topology (as DPDK's). */
	if (app->engine == TP_FWD_ICMPECHO)
		for (unsigned i = 0; i < nb; i++)
			peer[list[i]] = list[i];
	for (unsigned i = 0; i < nb; i++) {
		uint16_t p = list[i], d = peer[p];

		/* Every engine may send (rxonly too, with tx_first). */
		if (conf[p].nb_rxq > conf[d].nb_txq) {
			fprintf(app->err, "port %u has %u rx queues but port %u, where it sends, has %u tx queues; "
				"give them as many ('port config all txq %u', then restart the ports)\n",
				p, conf[p].nb_rxq, d, conf[d].nb_txq, conf[p].nb_rxq);
			return -EINVAL;
		}
		ns += conf[p].nb_rxq;
	}
	app->streams = calloc(ns, sizeof(*app->streams));
	if (app->streams == NULL)
		return -ENOMEM;

	/* Streams, grouped by their rx port's mode and knobs. */
	unsigned *sg = calloc(ns, sizeof(*sg));

	if (sg == NULL) {
		free(app->streams);
		app->streams = NULL;
		return -ENOMEM;
	}
	for (unsigned i = 0; i < nb; i++) {
		uint16_t p = list[i];
		struct tp_port *tp = &app->ports[p];
		enum unic_rx_mode mode = app->engine == TP_FWD_TXONLY ? UNIC_RX_MODE_POLL : conf[p].rx_mode;
		unsigned g;

		for (g = 0; g < ng && !group_eq(&groups[g], mode, &tp->knobs); g++)
			;
		if (g == ng) {
			memset(&groups[g], 0, sizeof(groups[g]));
			groups[g].mode = mode;
			groups[g].k = tp->knobs;
			ng++;
		}
		tp->in_fwd = true;
		if (reset) {
			struct unic_port_stats st;

			tp->fwd_imissed_base = unic_port_stats_get(tp->port, &st) == 0 ? st.imissed : 0;
		}
		for (uint16_t q = 0; q < conf[p].nb_rxq; q++) {
			stream_init(app, &app->streams[app->nb_streams], p, q, peer[p], tx_first);
			sg[app->nb_streams++] = g;
			groups[g].nb_streams++;
		}
	}
	/* Threads: one per group at least, the rest of nbcore to groups with
	 * more streams than threads, never more threads than streams. */
	nt = 0;
	for (unsigned g = 0; g < ng; g++)
		groups[g].nb_threads = 1;
	nt = ng;
	for (bool more = true; more && nt < app->nbcore && nt < TP_MAX_THREADS;) {
		more = false;
		for (unsigned g = 0; g < ng && nt < app->nbcore; g++)
			if (groups[g].nb_threads < groups[g].nb_streams) {
				groups[g].nb_threads++;
				nt++;
				more = true;
			}
	}
	if (nt > TP_MAX_THREADS)
		nt = TP_MAX_THREADS;
	if (ng > app->nbcore)
		fprintf(app->out, "note: ports in %u different receive modes need %u threads (nbcore is %u)\n",
			ng, ng, app->nbcore);
	for (unsigned g = 0, t = 0; g < ng; g++) {
		groups[g].first_thread = t;
		t += groups[g].nb_threads;
	}
	app->nb_threads = nt;
	for (unsigned t = 0; t < nt; t++) {
		app->threads[t].app = app;
		app->threads[t].idx = t;
		app->threads[t].streams = calloc(ns, sizeof(struct tp_stream *));
		if (app->threads[t].streams == NULL) {
			free(sg);
			threads_teardown(app);
			return -ENOMEM;
		}
	}
	unsigned rr[TP_MAX_PORTS] = { 0 };

	for (unsigned i = 0; i < app->nb_streams; i++) {
		struct group *g = &groups[sg[i]];
		struct tp_thread *t = &app->threads[g->first_thread + rr[sg[i]]++ % g->nb_threads];

		t->streams[t->nb_streams++] = &app->streams[i];
	}
	for (unsigned t = 0; t < nt; t++) {
		unsigned g;

		for (g = 0; g < ng && !(t >= groups[g].first_thread &&
					t < groups[g].first_thread + groups[g].nb_threads); g++)
			;
		rc = thread_setup(app, &app->threads[t], &groups[g]);
		if (rc) {
			free(sg);
			threads_teardown(app);
			return rc;
		}
	}
	free(sg);
	if (app->engine == TP_FWD_NOISY && (rc = tp_noisy_setup(app)) != 0) {
		threads_teardown(app);
		return rc;
	}
	const struct unic_env_options *eo = unic_env_opts(app->env);
	sigset_t set, old;

	/* Signals go to the main thread (the command loop), never a forwarder. */
	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	pthread_sigmask(SIG_BLOCK, &set, &old);
	for (unsigned t = 0; t < nt; t++) {
		struct tp_thread *th = &app->threads[t];

		if (nt <= workers) {
			/* "set corelist": thread t on the worker chosen for it. */
			unsigned w = t < app->nb_workers ? app->workers[t] : t;

			th->core = eo->cores[w + 1];
			th->worker = w;
			rc = unic_env_launch(app->env, w, thread_main, th);
		} else {
			pthread_t tid;

			th->core = -1;
			th->own = true;
			rc = -pthread_create(&tid, NULL, thread_tramp, th);
			th->tid = (unsigned long)tid;
		}
		if (rc) {
			pthread_sigmask(SIG_SETMASK, &old, NULL);
			fprintf(app->err, "cannot start forwarding thread %u: %s\n", t, strerror(-rc));
			threads_teardown(app);
			return rc;
		}
		th->launched = true;
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	if (reset)
		app->fwd_start_ns = unic_time_ns();
	return 0;
}

static void print_stats(struct tp_app *app, bool streams);

void tp_fwd_show(struct tp_app *app)
{
	print_stats(app, true);
}

void tp_fwd_clear(struct tp_app *app)
{
	/* Each counter has one writer, its thread: stop them around the reset. */
	bool on = app->fwd_on;

	tp_fwd_pause(app);
	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		struct tp_port *tp = &app->ports[id];
		struct unic_port_stats st;

		for (unsigned q = 0; q < TP_MAX_QUEUES; q++)
			memset(tp_cnt(app, id, q), 0, sizeof(struct tp_qcnt));
		if (tp->port && unic_port_stats_get(tp->port, &st) == 0)
			tp->fwd_imissed_base = st.imissed;
	}
	if (on)
		tp_fwd_resume(app);
}

void tp_fwd_stop(struct tp_app *app, bool print)
{
	threads_join(app);
	if (print)
		print_stats(app, true);
	threads_teardown(app);
	app->fwd_on = false;
}

void tp_fwd_pause(struct tp_app *app)
{
	if (app->fwd_on)
		threads_teardown(app);
}

int tp_fwd_resume(struct tp_app *app)
{
	int rc;

	if (!app->fwd_on)
		return 0;
	rc = tp_fwd_start(app, 0, false);
	if (rc)
		fprintf(app->err, "forwarding could not resume: %s; it is stopped now\n", strerror(-rc));
	if (rc)
		app->fwd_on = false;
	return rc;
}

/* ---- forward statistics ----------------------------------------------------------- */

static void fwd_lines(FILE *f, uint64_t rx, uint64_t rxd, uint64_t tx, uint64_t txd)
{
	fprintf(f, "  RX-packets: %-14" PRIu64 " RX-dropped: %-14" PRIu64 " RX-total: %" PRIu64 "\n",
		rx, rxd, rx + rxd);
	fprintf(f, "  TX-packets: %-14" PRIu64 " TX-dropped: %-14" PRIu64 " TX-total: %" PRIu64 "\n",
		tx, txd, tx + txd);
}

/* set record-burst-stats: DPDK's line, the two most frequent burst sizes
 * and the rest, over every queue of port @p id. */
static void burst_line(struct tp_app *app, FILE *f, uint16_t id, bool tx)
{
	uint64_t total = 0, top[2] = { 0, 0 };
	unsigned size[2] = { 0, 0 };

	for (unsigned b = 1; b <= TP_BURST_MAX; b++) {
		uint64_t v = 0;

		for (unsigned q = 0; q < TP_MAX_QUEUES; q++) {
			struct tp_qcnt *c = tp_cnt(app, id, q);

			v += __atomic_load_n(tx ? &c->tx_bursts[b] : &c->rx_bursts[b], __ATOMIC_RELAXED);
		}
		total += v;
		if (v > top[0]) {
			top[1] = top[0];
			size[1] = size[0];
			top[0] = v;
			size[0] = b;
		} else if (v > top[1]) {
			top[1] = v;
			size[1] = b;
		}
	}
	fprintf(f, "  %s-bursts : %" PRIu64, tx ? "TX" : "RX", total);
	if (total) {
		fprintf(f, " [%" PRIu64 "%% of %u pkts", top[0] * 100 / total, size[0]);
		if (top[1])
			fprintf(f, " + %" PRIu64 "%% of %u pkts", top[1] * 100 / total, size[1]);
		if (top[0] + top[1] < total)
			fprintf(f, " + %" PRIu64 "%% of others", 100 - (top[0] + top[1]) * 100 / total);
		fprintf(f, "]");
	}
	fprintf(f, "\n");
}

/*
 * set record-core-cycles: DPDK's line (the busy cycles of every stream over
 * the packets received, or sent by txonly and flowgen), then the same for
 * each forwarding thread (while the threads exist: forwarding, or at stop).
 */
static void cycles_lines(struct tp_app *app, FILE *f, uint64_t rx, uint64_t tx)
{
	bool gen = app->engine == TP_FWD_TXONLY || app->engine == TP_FWD_FLOWGEN;
	uint64_t mhz = unic_tsc_hz() / 1000000, total = 0, pkts = gen ? tx : rx;

	if (rx == 0 && tx == 0)
		return;
	for (uint16_t id = 0; id < TP_MAX_PORTS; id++)
		for (unsigned q = 0; app->ports[id].in_fwd && q < TP_MAX_QUEUES; q++)
			total += __atomic_load_n(&tp_cnt(app, id, q)->busy_cycles, __ATOMIC_RELAXED);
	if (pkts)
		fprintf(f, "\n  CPU cycles/packet=%.2F (busy cycles=%" PRIu64 " / total %s packets=%" PRIu64
			") at %" PRIu64 " MHz Clock\n", (double)total / (double)pkts, total,
			tp_engine_name(app->engine), pkts, mhz);
	for (unsigned t = 0; t < app->nb_threads; t++) {
		const struct tp_thread *th = &app->threads[t];
		uint64_t c = 0, p = 0;
		char where[24];

		if (th->core >= 0)
			snprintf(where, sizeof(where), "core %d", th->core);
		else
			snprintf(where, sizeof(where), "not pinned");
		for (unsigned i = 0; i < th->nb_streams; i++) {
			const struct tp_stream *s = th->streams[i];

			c += __atomic_load_n(&s->rxc->busy_cycles, __ATOMIC_RELAXED);
			p += gen ? unic_counter_read(&s->txc->tx) : unic_counter_read(&s->rxc->rx);
		}
		if (p)
			fprintf(f, "  thread %u (%s): CPU cycles/packet=%.2F (busy cycles=%" PRIu64
				" / %s packets=%" PRIu64 ")\n", t, where, (double)c / (double)p, c,
				tp_engine_name(app->engine), p);
		else
			fprintf(f, "  thread %u (%s): no packets\n", t, where);
	}
}

static void print_stats(struct tp_app *app, bool streams)
{
	FILE *f = app->out;
	uint64_t trx = 0, trxd = 0, ttx = 0, ttxd = 0;
	unsigned nports = 0;

	for (uint16_t id = 0; id < TP_MAX_PORTS; id++)
		nports += app->ports[id].in_fwd;
	if (streams && app->nb_streams > nports) {
		for (unsigned i = 0; i < app->nb_streams; i++) {
			struct tp_stream *s = &app->streams[i];

			fprintf(f, "\n  ------- Forward Stats for RX Port=%2u/Queue=%2u -> TX Port=%2u/Queue=%2u -------\n",
				s->rx_port, s->rx_q, s->tx_port, s->tx_q);
			fprintf(f, "  RX-packets: %-14" PRIu64 " TX-packets: %-14" PRIu64 " TX-dropped: %" PRIu64 "\n",
				unic_counter_read(&s->rxc->rx),
				unic_counter_read(&s->txc->tx),
				unic_counter_read(&s->txc->dropped));
		}
	}
	for (uint16_t id = 0; id < TP_MAX_PORTS; id++) {
		struct tp_port *tp = &app->ports[id];
		uint64_t rx = 0, rxd = 0, tx = 0, txd = 0, bip = 0, bl4 = 0, bhdr = 0, cnic = 0, csw = 0;
		uint64_t retried = 0, retries = 0;
		struct unic_port_stats st;

		if (!tp->in_fwd)
			continue;
		for (unsigned q = 0; q < TP_MAX_QUEUES; q++) {
			struct tp_qcnt *c = tp_cnt(app, id, q);

			bip += unic_counter_read(&c->bad_ip);
			bl4 += unic_counter_read(&c->bad_l4);
			bhdr += unic_counter_read(&c->bad_hdr);
			cnic += unic_counter_read(&c->ck_nic);
			csw += unic_counter_read(&c->ck_sw);
			rx += unic_counter_read(&c->rx);
			tx += unic_counter_read(&c->tx);
			txd += unic_counter_read(&c->dropped);
			retried += unic_counter_read(&c->retried);
			retries += unic_counter_read(&c->retries);
		}
		if (tp->port && unic_port_stats_get(tp->port, &st) == 0 && st.imissed >= tp->fwd_imissed_base)
			rxd = st.imissed - tp->fwd_imissed_base;
		fprintf(f, "\n  ---------------------- Forward statistics for port %-2u %s----------------------\n",
			id, tp->port ? "" : "(detached) ");
		fwd_lines(f, rx, rxd, tx, txd);
		if (app->engine == TP_FWD_CSUM) {
			/* DPDK's line, then how the checksums were judged. */
			fprintf(f, "  Bad-ipcsum: %-14" PRIu64 " Bad-l4csum: %-14" PRIu64 " Bad-headers: %" PRIu64 "\n",
				bip, bl4, bhdr);
			fprintf(f, "  Rx checksums checked by the NIC (rx flags): %" PRIu64 ", in software: %" PRIu64 "\n",
				cnic, csw);
		}
		if (app->record_bursts) {
			burst_line(app, f, id, false);
			burst_line(app, f, id, true);
		}
		if (app->retry)
			fprintf(f, "  TX-retried bursts: %-7" PRIu64 " TX-retries: %-14" PRIu64 " (at most %u, %u us apart)\n",
				retried, retries, app->tx_retry_num, app->tx_delay_us);
		if (app->engine == TP_FWD_NOISY)
			tp_noisy_line(app, f, id);
		fprintf(f, "  ----------------------------------------------------------------------------\n");
		trx += rx;
		trxd += rxd;
		ttx += tx;
		ttxd += txd;
	}
	fprintf(f, "\n  +++++++++++++++ Accumulated forward statistics for all ports+++++++++++++++\n");
	fwd_lines(f, trx, trxd, ttx, ttxd);
	fprintf(f, "  ++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++++\n");
	if (app->record_cycles)
		cycles_lines(app, f, trx, ttx);
}
