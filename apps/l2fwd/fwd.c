/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The forwarding threads. Each runs one napi context holding the rx queues
 * of its ports; the handler rewrites the Ethernet addresses and sends the
 * burst on the paired port's tx queue of the same number (rx queue N -> tx
 * queue N: order holds per flow, docs/l2fwd.md). What the tx queue refuses
 * (unic_tx_prepare) or does not take is freed and counted as dropped, every
 * packet of it.
 */
#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include <unic/log.h>
#include <unic/pool.h>

#include "l2fwd.h"

uint16_t l2fwd_handle(struct unic_port *port, uint16_t q, struct unic_pkt **pkts,
		      uint16_t n, void *arg)
{
	struct l2fwd_route *r = arg;
	uint16_t sent, dropped;

	(void)port;
	unic_counter_add(&r->in_cnt->rx, n);
	if (r->mac_updating) {
		for (uint16_t i = 0; i < n; i++) {
			struct unic_pkt *p = pkts[i];

			if (i + 1 < n)
				unic_prefetch0(unic_pkt_data(pkts[i + 1]));
			/* A runt shorter than the two addresses goes out as it came. */
			if (UNIC_LIKELY(p->data_len >= sizeof(r->hdr)))
				memcpy(unic_pkt_data(p), r->hdr, sizeof(r->hdr));
		}
	}
	sent = unic_tx_burst_or_free(r->out, q, pkts, n, &dropped);
	if (UNIC_UNLIKELY(dropped))
		unic_counter_add(&r->out_cnt->dropped, dropped);
	unic_counter_add(&r->out_cnt->tx, sent);
	return n;
}

int l2fwd_worker_setup(struct l2fwd_worker *w, const struct unic_napi_conf *conf)
{
	struct unic_napi_conf c = *conf;
	FILE *err = w->err ? w->err : stderr;
	uint32_t nq = w->nb_routes * w->nb_queues;
	int rc;

	/* A slot for every rx queue the thread polls and every tx queue it
	 * sends on: each send needs its claim (below). */
	if (c.max_queues < nq)
		c.max_queues = nq;
	if (c.max_txqs < nq)
		c.max_txqs = nq;
	w->ctx = unic_napi_ctx_create(&c);
	if (w->ctx == NULL)
		return -errno;
	/* Every queue of a port goes to the port's thread, so each counter
	 * keeps a single writer; rx queue q sends on tx queue q (the handler). */
	for (unsigned i = 0; i < w->nb_routes; i++) {
		struct l2fwd_route *r = w->routes[i];

		for (uint16_t q = 0; q < w->nb_queues; q++) {
			rc = unic_napi_queue_add(w->ctx, r->in, q, w->weight, l2fwd_handle, r);
			if (rc) {
				fprintf(err, "unic-l2fwd: error: thread %u: cannot poll %s rx queue %u: %s\n",
					w->idx, unic_port_name(r->in), q, strerror(-rc));
				return rc;
			}
			/* The handler sends on the out port's tx queue q: only
			 * with the claim may it (a stop, detach or device loss
			 * of that port waits for this thread only if it holds
			 * one), and the engine reclaims the queue's completions
			 * before it sleeps. -EEXIST: this thread holds it
			 * already. */
			rc = unic_napi_txq_add(w->ctx, r->out, q);
			if (rc && rc != -EEXIST) {
				fprintf(err, "unic-l2fwd: error: thread %u: cannot claim %s tx queue %u to send on: %s; a thread sends only on tx queues it claimed (the line above says why)\n",
					w->idx, unic_port_name(r->out), q, strerror(-rc));
				return rc;
			}
		}
	}
	return 0;
}

void l2fwd_worker_flush(struct l2fwd_worker *w)
{
	for (unsigned p = 0; w->pools && p < w->nb_pools; p++)
		if (w->pools[p])
			unic_pool_cache_flush(w->pools[p]);
}

int l2fwd_worker_main(void *arg)
{
	struct l2fwd_worker *w = arg;
	clockid_t cid;

	if (pthread_getcpuclockid(pthread_self(), &cid) == 0) {
		w->cpu_clock = cid;
		__atomic_store_n(&w->cpu_clock_ok, 1, __ATOMIC_RELEASE);
	}
	w->ret = unic_napi_run(w->ctx, w->stop);
	l2fwd_worker_flush(w);
	struct timespec ts;

	if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) == 0)
		__atomic_store_n(&w->cpu_ns_final, (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec,
				 __ATOMIC_RELEASE);
	return w->ret;
}
