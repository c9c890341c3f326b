/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen: the transmit path: frames built from the streams (or a capture),
 * paced, handed to each tx port, and what the ports did not take.
 */
#include "pktgen.h"

bool pg_tx_done(const struct pg_app *a, uint64_t now_ns)
{
	if (pg_stop)
		return true;
	/* --count frames built: sent, or refused by the port (never retried). */
	if (!a->tx_role || (a->o.count && a->sent + a->tx_refused >= a->o.count))
		return true;
	return a->o.duration > 0 && (double)(now_ns - a->t_start_ns) >= a->o.duration * 1e9;
}

/* The stream of tx port @p t due next (its streams in turn), or NULL. */
static struct pg_stream_run *next_due(struct pg_app *a, struct pg_txp *t, uint64_t now)
{
	for (unsigned k = 0; k < t->nb_streams; k++) {
		unsigned pos = (t->rr + k) % t->nb_streams;
		struct pg_stream_run *sr = &a->sr[t->streams[pos]];

		if (pg_rate_due(&sr->rate, now)) {
			t->rr = (pos + 1) % t->nb_streams;
			return sr;
		}
	}
	return NULL;
}

/* Build and send the frames due now on tx port @p t. */
void pg_do_tx(struct pg_app *a, struct pg_txp *t)
{
	struct unic_pkt **pend = t->pend;
	unsigned *pend_size = t->pend_size, *npend = &t->npend;
	uint64_t now = unic_rdtsc();
	unsigned n = *npend;
	uint16_t took;

	while (n < PG_BURST && !(a->o.count && a->sent + a->tx_refused + a->npend_all + n - *npend >= a->o.count)) {
		struct pg_stream_run *sr = a->cap.nb ? &a->sr[0] : next_due(a, t, now);
		struct unic_pkt *p;
		unsigned size;
		uint8_t *d;

		if (sr == NULL || (a->cap.nb && !pg_rate_due(&a->rate, now)))
			break;
		p = unic_pkt_alloc(t->pool);
		if (p == NULL) {
			a->alloc_fail++;
			break;
		}
		size = a->cap.nb ? a->cap.len[a->cap_idx] : pg_stream_next_size(sr);
		d = unic_pkt_append(p, (uint16_t)size);
		if (d == NULL) {  /* cannot happen: the pool's data room fits the largest */
			unic_pkt_free(p);
			a->alloc_fail++;
			break;
		}
		if (a->cap.nb) {
			memcpy(d, a->cap.data + a->cap.off[a->cap_idx], size);
			a->cap_idx = a->cap_idx + 1 == a->cap.nb ? 0 : a->cap_idx + 1;
		} else {
			struct pg_flow f;
			struct pg_stamp s = { .magic = PG_STAMP_MAGIC, .stream = sr->id };

			pg_stream_next_flow(sr, &f);
			if (a->o.txq > 1) {  /* the queues take turns over the flows */
				pg_stream_skip_flows(sr, a->o.txq - 1);
				s.stream = (uint16_t)(sr->id | a->q << PG_STAMP_QUEUE_SHIFT);
			}
			s.seq = sr->seq++;
			s.tsc = unic_rdtsc();
			pg_frame_build(d, size, &sr->tmpl, &f, &s);
		}
		pend[n] = p;
		pend_size[n] = size;
		t->pend_stream[n] = (uint16_t)(sr - a->sr);
		n++;
		pg_rate_sent(a->cap.nb ? &a->rate : &sr->rate, size, now);
	}
	/* The new frames (the pending ones passed already) go through the
	 * port's checks once: a refused frame is freed and counted, never
	 * sent, recorded or retried; the frames after it go on. */
	for (unsigned i = *npend; i < n;) {
		int err;
		uint16_t ok = unic_tx_prepare(t->port, (uint16_t)a->q, pend + i, (uint16_t)(n - i), &err);

		i += ok;
		if (UNIC_LIKELY(i == n))
			break;
		unic_pkt_free(pend[i]);
		a->tx_refused++;
		a->sr[t->pend_stream[i]].refused++;
		a->tx_refused_err = err;
		memmove(pend + i, pend + i + 1, (n - i - 1) * sizeof(*pend));
		memmove(pend_size + i, pend_size + i + 1, (n - i - 1) * sizeof(*pend_size));
		memmove(t->pend_stream + i, t->pend_stream + i + 1, (n - i - 1) * sizeof(*t->pend_stream));
		n--;
	}
	a->npend_all += n - *npend;
	if (n == 0) {
		*npend = 0;
		return;
	}
	/* Recorded before the port owns them (a port may free a frame at once);
	 * records of frames never taken are cut off at the end (pend_pos). */
	if (a->wtx && a->npend_written < n) {
		uint64_t tsc = unic_rdtsc();

		if (a->npend_written == 0)
			a->pend_pos = pg_pcap_writer_tell(a->wtx);
		for (unsigned i = a->npend_written; i < n; i++)
			pg_pcap_write(a->wtx, unic_pkt_data(pend[i]), pend[i]->data_len, tsc);
		a->npend_written = n;
	}
	took = unic_tx_burst(t->port, (uint16_t)a->q, pend, (uint16_t)n);
	a->worked = true;
	a->bursts++;
	if (took < n) {
		a->full_bursts++;
		t->full_bursts++;
	}
	for (unsigned i = 0; i < took; i++) {
		struct pg_stream_run *sr = &a->sr[t->pend_stream[i]];
		uint64_t b = pg_link_bytes(pend_size[i]);

		a->sent++;
		a->sent_bytes += b;
		t->sent++;
		t->sent_bytes += b;
		sr->sent++;
		sr->sent_bytes += b;
	}
	a->npend_all -= took;
	if (a->wtx) {  /* pend_pos moves past the records of the frames taken */
		for (unsigned i = 0; i < took; i++)
			a->pend_pos += 16 + (pend_size[i] < PG_PCAP_SNAPLEN ? pend_size[i] : PG_PCAP_SNAPLEN);
		a->npend_written = n - took;
	}
	if (took < n) {  /* ring full: kept for the next round, counted */
		a->tx_full += n - took;
		memmove(pend, pend + took, (n - took) * sizeof(*pend));
		memmove(pend_size, pend_size + took, (n - took) * sizeof(*pend_size));
		memmove(t->pend_stream, t->pend_stream + took, (n - took) * sizeof(*t->pend_stream));
	}
	*npend = n - took;
	if (took)
		t->last_take_ns = unic_tsc_clock_ns(&a->clk);
}

/* Drop the frames the port never took; their records leave the tx capture. */
static void drop_pending(struct pg_app *a, struct pg_txp *t)
{
	struct unic_pkt **pend = t->pend;
	unsigned *npend = &t->npend;

	if (*npend == 0)
		return;
	if (a->wtx && a->npend_written) {
		int r = pg_pcap_writer_truncate(a->wtx, a->pend_pos, a->npend_written);

		if (r)
			fprintf(stderr, "unic-pktgen: --write-tx: could not remove the last %u records (frames never sent) from the capture: %s\n",
				a->npend_written, strerror(-r));
		a->npend_written = 0;
	}
	unic_pkt_free_bulk(pend, *npend);
	a->tx_dropped += *npend;
	a->npend_all -= *npend;
	*npend = 0;
}

void pg_drop_all_pending(struct pg_app *a)
{
	for (unsigned k = 0; k < a->nb_txp; k++)
		drop_pending(a, &a->txp[k]);
}

static uint64_t thread_cpu_ns(void)
{
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts))
		return 0;
	return (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
}

/* This thread's sending starts: the generator-limit clocks. */
void pg_tx_clock_start(struct pg_app *a)
{
	a->tsc_tx0 = unic_rdtsc();
	a->cpu_tx0_ns = thread_cpu_ns();
	a->idle_cycles = 0;
	a->bursts = a->full_bursts = 0;
	a->worked = true;
	__atomic_store_n(&a->tx_over, 0, __ATOMIC_RELEASE);
}

/* A loop round: the time since the last round was idle when the last
 * round built and sent nothing (waiting for the pacer). */
void pg_tx_clock_round(struct pg_app *a, uint64_t *prev_tsc)
{
	uint64_t t = unic_rdtsc();

	if (!a->worked)
		a->idle_cycles += t - *prev_tsc;
	*prev_tsc = t;
	a->worked = false;
}

void pg_tx_clock_stop(struct pg_app *a)
{
	a->tsc_tx1 = unic_rdtsc();
	a->cpu_tx1_ns = thread_cpu_ns();
	__atomic_store_n(&a->tx_over, 1, __ATOMIC_RELEASE);
}

/* One step of sending on every tx port of this thread; a port that takes
 * nothing for PG_TX_STALL_NS stops the run. */
void pg_tx_step(struct pg_app *a, uint64_t now_ns)
{
	for (unsigned k = 0; k < a->nb_txp; k++) {
		struct pg_txp *t = &a->txp[k];

		pg_do_tx(a, t);
		/* A take in pg_do_tx stamps last_take_ns after now_ns was read:
		 * only a stamp before now_ns can be PG_TX_STALL_NS old. */
		if (t->npend && now_ns > t->last_take_ns && now_ns - t->last_take_ns > PG_TX_STALL_NS &&
		    !a->stalled) {
			char qn[24] = "";

			if (a->nb_thr > 1)
				snprintf(qn, sizeof(qn), " (queue %u)", a->q);
			fprintf(stderr, "\nunic-pktgen: tx port %d (%s) took no frame for %.0f s%s (link down, or no peer?); stopping\n",
				t->idx, unic_port_name(t->port), PG_TX_STALL_NS / 1e9, qn);
			a->stalled = true;
			pg_stop = 1;
		}
	}
	if (pg_stop && a->npend_all)  /* interrupted: drop what the ports did not take */
		pg_drop_all_pending(a);
}
