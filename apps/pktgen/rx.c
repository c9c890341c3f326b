/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: the receive path: frames taken from the rx ports, their stamps parsed
 * into the loss, order and latency counts (rxstats.h), ARP answered.
 */
#include "pktgen.h"

/*
 * A trial with threads: a frame of stream 0 from tx queue q counts once q's
 * thread has marked the start of its measured part and the frame is
 * numbered from that mark on (warm-up frames and late ones of an earlier
 * trial are below it). Every thread's counts were reset when the trial
 * started, so which thread marks first does not matter.
 */
bool pg_trial_frame_stale_q(const struct pg_app *a, enum pg_parse_result r, const struct pg_stamp *s)
{
	const struct pg_app *m = a->main_app ? a->main_app : a;
	unsigned q = a->o.txq > 1 ? s->stream >> PG_STAMP_QUEUE_SHIFT : 0;

	if (!m->trial || r != PG_PARSE_OK || (s->stream & ((1u << PG_STAMP_QUEUE_SHIFT) - 1)) != a->rs.stream_id ||
	    q >= a->o.txq)
		return false;
	if (!__atomic_load_n(&m->qmarked[q], __ATOMIC_ACQUIRE))
		return true;
	return !pg_trial_seq_counts(m->qbase[q], s->seq);
}

static void rx_frame(struct pg_app *a, struct unic_pkt *p, uint64_t now_tsc)
{
	struct pg_stream_stats *st;
	struct pg_parsed pp;

	if (a->cap.nb) {  /* replayed frames carry whatever stamps the capture holds */
		a->rs.frames++;
		a->rs.bytes += p->pkt_len;
		return;
	}
	enum pg_parse_result r = pg_pkt_parse(p, a->scratch, PG_PCAP_SNAPLEN, &pp);

	/* A trial's warm-up, or a late frame of an earlier trial: not counted. */
	if (a->nb_thr > 1 ? pg_trial_frame_stale_q(a, r, &pp.stamp)
			  : pg_trial_frame_stale(a->epoch, a->seq_base, a->rs.stream_id, r, &pp.stamp)) {
		a->stale++;
		return;
	}
	st = pg_rxstats_frame(&a->rs, p->pkt_len, r, &pp.stamp);
	if (st == NULL)
		return;
	pg_stream_seq_add(st, a->rs.last_q, pp.stamp.seq);
	st->bytes += p->pkt_len;
	if (a->nb_thr > 1 && !a->tsc_ok && a->rs.last_q != a->q) {
		/* Sent by another thread, on another core, whose TSC need not
		 * agree with ours: no latency (docs/pktgen.md, "Threads"). */
		a->lat_skipped++;
		return;
	}
	if (now_tsc >= pp.stamp.tsc) {
		uint64_t ns = (uint64_t)((double)(now_tsc - pp.stamp.tsc) * a->ns_per_cycle);

		pg_hist_add(&st->lat_ns, ns);
		if (a->csv || a->main_app)
			pg_hist_add(&a->lat_sec, ns);
		if (a->lat_sec_s)
			pg_hist_add(&a->lat_sec_s[a->rs.last], ns);
	}
}

/* Record a received frame; a chain is copied into one piece first. */
static void write_rx(struct pg_app *a, const struct unic_pkt *p, uint64_t now_tsc)
{
	uint32_t n = 0;

	if (p->nb_segs <= 1 || p->next == NULL) {
		pg_pcap_write(a->wrx, unic_pkt_data(p), p->data_len, now_tsc);
		return;
	}
	for (const struct unic_pkt *s = p; s && n < PG_PCAP_SNAPLEN; s = s->next) {
		uint32_t k = s->data_len < PG_PCAP_SNAPLEN - n ? s->data_len : PG_PCAP_SNAPLEN - n;

		memcpy(a->scratch + n, unic_pkt_data(s), k);
		n += k;
	}
	pg_pcap_write(a->wrx, a->scratch, n, now_tsc);
}

/* --arp-reply: an ARP or neighbour discovery frame (answered if ours, from
 * the port's own pool) is not stream traffic. */
static bool arp_frame(struct pg_app *a, struct unic_port *port, int idx, const struct unic_pkt *p)
{
	if (!a->o.arp_reply || !pg_arp_handle(&a->arp, port, idx, p, pg_port_pool(a, port)))
		return false;
	a->arp_frames++;
	return true;
}

void pg_poll_rx(struct pg_app *a)
{
	for (unsigned r = 0; r < a->nb_rxp; r++) {
		struct unic_pkt *pk[PG_BURST];
		uint16_t n = a->rx_role ? unic_rx_burst(a->rxp[r].port, (uint16_t)a->q, pk, PG_BURST) : 0;
		uint64_t now = unic_rdtsc();

		for (uint16_t i = 0; i < n; i++) {
			if (a->wrx)
				write_rx(a, pk[i], now);
			if (arp_frame(a, a->rxp[r].port, a->rxp[r].idx, pk[i]))
				continue;
			a->rxp[r].frames++;
			a->rxp[r].bytes += pg_link_bytes(pk[i]->pkt_len);
			rx_frame(a, pk[i], now);
		}
		if (n)
			unic_pkt_free_bulk(pk, n);
	}
	/* --arp-reply: the ports that only send hear requests too. */
	for (unsigned k = 0; a->o.arp_reply && k < a->nb_ports; k++) {
		struct unic_pkt *pk[PG_BURST];
		bool rx = false;
		uint16_t n;

		for (unsigned r = 0; r < a->nb_rxp; r++)
			rx |= a->rxp[r].port == a->ports[k];
		if (rx)
			continue;
		n = unic_rx_burst(a->ports[k], 0, pk, PG_BURST);
		for (uint16_t i = 0; i < n; i++)
			if (!arp_frame(a, a->ports[k], a->port_idx[k], pk[i]))
				a->other_port_frames++;
		if (n)
			unic_pkt_free_bulk(pk, n);
	}
}
