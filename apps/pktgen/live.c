/* SPDX-License-Identifier: BSD-3-Clause */
/* unic-pktgen while it runs: live.h. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "live.h"

void pg_rate_req_init(struct pg_rate_req *q)
{
	memset(q, 0, sizeof(*q));
	pthread_mutex_init(&q->lock, NULL);
}

void pg_rate_req_put(struct pg_rate_req *q, const struct pg_rate_spec *spec, const char *text)
{
	pthread_mutex_lock(&q->lock);
	q->spec = *spec;
	snprintf(q->text, sizeof(q->text), "%s", text);
	__atomic_store_n(&q->pending, 1, __ATOMIC_RELEASE);
	pthread_mutex_unlock(&q->lock);
}

bool pg_rate_req_take(struct pg_rate_req *q, struct pg_rate_spec *spec, char *text)
{
	bool got = false;

	if (!__atomic_load_n(&q->pending, __ATOMIC_RELAXED))
		return false;
	pthread_mutex_lock(&q->lock);
	if (q->pending) {
		*spec = q->spec;
		snprintf(text, sizeof(q->text), "%s", q->text);
		q->pending = 0;
		got = true;
	}
	pthread_mutex_unlock(&q->lock);
	return got;
}

struct pg_rate_spec pg_rate_share(const struct pg_rate_spec *total, double share)
{
	struct pg_rate_spec r = *total;

	if (r.unit != PG_RATE_NONE)
		r.value = r.value * share / 100;
	return r;
}

int pg_rate_scale(const struct pg_rate_spec *cur, double factor, struct pg_rate_spec *out, char *err,
		  size_t errlen)
{
	double lo, hi, v;
	const char *what;

	if (cur->unit == PG_RATE_NONE) {
		snprintf(err, errlen, "the rate is unlimited (no --rate): nothing to scale; set one first (/pktgen/rate,1Mpps)");
		return -EINVAL;
	}
	switch (cur->unit) {
	case PG_RATE_PPS: lo = PG_RATE_PPS_MIN; hi = PG_RATE_PPS_MAX; what = "0.001pps to 1500Mpps"; break;
	case PG_RATE_PCT: lo = 1e-9; hi = 100; what = "up to 100%"; break;
	default: lo = PG_RATE_BPS_MIN; hi = PG_RATE_BPS_MAX; what = "1bps to 1000Gbps"; break;
	}
	v = cur->value * factor;
	if (!(v >= lo) || !(cur->value < hi || factor <= 1) || !isfinite(v)) {
		char now[32];

		pg_rate_spec_format(cur, now, sizeof(now));
		snprintf(err, errlen, "the rate is %s already; it goes %s", now, what);
		return -EINVAL;
	}
	*out = *cur;
	out->value = v > hi ? hi : v;
	return 0;
}

void pg_rate_spec_format(const struct pg_rate_spec *r, char *buf, size_t len)
{
	const char *unit;
	double v = r->value;
	const char *pfx = "";

	switch (r->unit) {
	case PG_RATE_NONE:
		snprintf(buf, len, "unlimited");
		return;
	case PG_RATE_PCT:
		snprintf(buf, len, "%.6g%%", v);
		return;
	case PG_RATE_PPS: unit = "pps"; break;
	case PG_RATE_BPS_WIRE: unit = "bps-wire"; break;
	default: unit = "bps"; break;
	}
	if (v >= 1e9) {
		v /= 1e9;
		pfx = "G";
	} else if (v >= 1e6) {
		v /= 1e6;
		pfx = "M";
	} else if (v >= 1e3) {
		v /= 1e3;
		pfx = "k";
	}
	snprintf(buf, len, "%.6g%s%s", v, pfx, unit);
}

/* Appending to the screen's buffer: what it needed counts on past the end. */
struct sbuf {
	char *p;
	size_t len, used;
};

static void __attribute__((format(printf, 2, 3))) sb_printf(struct sbuf *b, const char *fmt, ...)
{
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(b->used < b->len ? b->p + b->used : NULL, b->used < b->len ? b->len - b->used : 0,
		      fmt, ap);
	va_end(ap);
	if (n > 0)
		b->used += (size_t)n;
}

#define EOL "\033[K\n"  /* erase the rest of the line, then a new line */

static void row(struct sbuf *b, const char *kind, const struct pg_screen_row *r)
{
	char id[16];

	if (r->id >= 0)
		snprintf(id, sizeof(id), "%s %d", kind, r->id);
	else
		snprintf(id, sizeof(id), "%s", kind);
	sb_printf(b, "%-10s", id);
	if (r->has_tx)
		sb_printf(b, " %12.0f %10.3f", r->tx_pps, r->tx_mbps);
	else
		sb_printf(b, " %12s %10s", "-", "-");
	if (r->has_rx)
		sb_printf(b, " %12.0f %10.3f", r->rx_pps, r->rx_mbps);
	else
		sb_printf(b, " %12s %10s", "-", "-");
	if (r->has_tx)
		sb_printf(b, " %14" PRIu64, r->sent);
	else
		sb_printf(b, " %14s", "-");
	if (r->has_rx)
		sb_printf(b, " %14" PRIu64, r->received);
	else
		sb_printf(b, " %14s", "-");
	if (r->has_lat)
		sb_printf(b, " %10" PRIu64 " %9" PRIu64 " %9" PRIu64, r->lost, r->p50_ns, r->p99_ns);
	else
		sb_printf(b, " %10s %9s %9s", "-", "-", "-");
	sb_printf(b, EOL);
}

size_t pg_screen_format(const struct pg_screen *s, bool home, char *buf, size_t len)
{
	struct sbuf b = { .p = buf, .len = len };

	if (len)
		buf[0] = '\0';
	if (home)
		sb_printf(&b, "\033[H");
	sb_printf(&b, "unic-pktgen  %.0f s  rate %s" EOL EOL, s->elapsed_s, s->rate);
	sb_printf(&b, "%-10s %12s %10s %12s %10s %14s %14s %10s %9s %9s" EOL, "", "tx pps", "tx Mb/s",
		  "rx pps", "rx Mb/s", "sent", "received", "lost", "p50 ns", "p99 ns");
	for (unsigned i = 0; i < s->nb_txp; i++)
		row(&b, "tx port", &s->txp[i]);
	for (unsigned i = 0; i < s->nb_rxp; i++)
		row(&b, "rx port", &s->rxp[i]);
	for (unsigned i = 0; i < s->nb_st; i++)
		row(&b, "stream", &s->st[i]);
	row(&b, "total", &s->total);
	sb_printf(&b, EOL "%s" EOL, s->msg);
	if (s->keys)
		sb_printf(&b, "keys: + rate +10%%   - rate -10%%   q stop (as Ctrl-C)" EOL);
	else
		sb_printf(&b, "keys: none (stdin is not a terminal); Ctrl-C stops" EOL);
	sb_printf(&b, "\033[J");  /* and nothing below */
	return b.used;
}

size_t pg_screen_line(const struct pg_screen *s, char *buf, size_t len)
{
	struct sbuf b = { .p = buf, .len = len };
	const struct pg_screen_row *t = &s->total;

	if (len)
		buf[0] = '\0';
	sb_printf(&b, "unic-pktgen: %.1f s: tx %.0f pps %.3f Mbit/s, rx %.0f pps %.3f Mbit/s, sent %" PRIu64
		  ", received %" PRIu64, s->elapsed_s, t->tx_pps, t->tx_mbps, t->rx_pps, t->rx_mbps, t->sent,
		  t->received);
	if (t->has_lat) {
		sb_printf(&b, ", lost %" PRIu64, t->lost);
		if (t->p50_ns)
			sb_printf(&b, ", p50 %" PRIu64 " ns", t->p50_ns);
		else
			sb_printf(&b, ", p50 -");
	}
	if (s->nb_txp > 1 || s->nb_rxp > 1) {
		for (unsigned i = 0; i < s->nb_txp; i++)
			sb_printf(&b, "%s tx %d %.0f pps", i ? "," : ";", s->txp[i].id, s->txp[i].tx_pps);
		for (unsigned i = 0; i < s->nb_rxp; i++)
			sb_printf(&b, ", rx %d %.0f pps", s->rxp[i].id, s->rxp[i].rx_pps);
	}
	sb_printf(&b, ", rate %s\n", s->rate);
	return b.used;
}

int pg_live_stats_json(struct pg_live_snap *s, char *buf, size_t len)
{
	struct sbuf b = { .p = buf, .len = len };

	if (len)
		buf[0] = '\0';
	pthread_mutex_lock(&s->lock);
	if (!s->published) {
		pthread_mutex_unlock(&s->lock);
		return -EAGAIN;
	}
	/* The rate is pg_rate_spec_format()'s: digits, '.', '%', '-' and
	 * letters, nothing JSON must escape. */
	sb_printf(&b, "{\"seconds\":%.3f,\"rate\":\"%s\",\"rate_changes\":%u,\"sent\":%" PRIu64
		  ",\"rx_frames\":%" PRIu64 ",\"streams\":[", s->t_s, s->rate, s->nb_changes, s->sent_all,
		  s->rx_frames);
	for (unsigned i = 0; i < s->nb; i++)
		sb_printf(&b, "%s{\"stream\":%u,\"sent\":%" PRIu64 ",\"received\":%" PRIu64 ",\"lost\":%" PRIu64 "}",
			  i ? "," : "", s->id[i], s->sent[i], s->received[i], s->lost[i]);
	sb_printf(&b, "]}");
	pthread_mutex_unlock(&s->lock);
	return (int)b.used;  /* at most a few kilobytes (PG_MAX_STREAMS rows) */
}
