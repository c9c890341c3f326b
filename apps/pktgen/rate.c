/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen rate control: arithmetic in rate.h. Deadlines are kept as a
 * double number of cycles from the start, so fractional cycles per frame
 * add up without drift (53 bits: sub-cycle precision for days).
 */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rate.h"

#define ACCEPTED "accepted forms: 1Mpps, 500kpps, 100Mbps (L2, FCS included), 10Gbps-wire (+20 bytes preamble and gap a frame), 100Mbps-l2, 10%% (of link speed, on the wire)"

int pg_rate_parse(const char *s, struct pg_rate_spec *r, char *err, size_t errlen)
{
	char *end;
	double v, mult = 1;

	errno = 0;
	if (s == NULL || ((s[0] < '0' || s[0] > '9') && s[0] != '.'))
		goto bad;
	v = strtod(s, &end);
	if (errno || !isfinite(v) || v <= 0)
		goto bad;
	if (strcmp(end, "%") == 0) {
		if (v > 100)
			goto bad;
		r->unit = PG_RATE_PCT;
		r->value = v;
		return 0;
	}
	switch (*end) {
	case 'k': mult = 1e3; end++; break;
	case 'M': mult = 1e6; end++; break;
	case 'G': mult = 1e9; end++; break;
	default: break;
	}
	if (strcmp(end, "pps") == 0) {
		r->unit = PG_RATE_PPS;
	} else if (strcmp(end, "bps") == 0 || strcmp(end, "bps-l2") == 0) {
		r->unit = PG_RATE_BPS_L2;
	} else if (strcmp(end, "bps-wire") == 0) {
		r->unit = PG_RATE_BPS_WIRE;
	} else {
		goto bad;
	}
	v *= mult;
	{
		bool pps = r->unit == PG_RATE_PPS;
		double lo = pps ? PG_RATE_PPS_MIN : PG_RATE_BPS_MIN, hi = pps ? PG_RATE_PPS_MAX : PG_RATE_BPS_MAX;

		if (!isfinite(v) || v > hi || v < lo) {
			snprintf(err, errlen, "option --rate: '%s' is %s; %s rates go from %s to %s",
				 s, v > hi || !isfinite(v) ? "too fast" : "too slow", pps ? "frame" : "bit",
				 pps ? "0.001pps (a frame every 1000 s)" : "1bps",
				 pps ? "1500Mpps" : "1000Gbps (1 Tbit/s)");
			return -EINVAL;
		}
	}
	r->value = v;
	return 0;
bad:
	snprintf(err, errlen, "option --rate: bad value '%s'; " ACCEPTED, s ? s : "");
	return -EINVAL;
}

int pg_rate_init(struct pg_rate *r, const struct pg_rate_spec *spec, uint64_t hz,
		 uint32_t link_mbps, char *err, size_t errlen)
{
	memset(r, 0, sizeof(*r));
	r->spec = *spec;
	r->hz = (double)hz;
	r->link_bps = (double)link_mbps * 1e6;
	switch (spec->unit) {
	case PG_RATE_PCT:
		if (link_mbps == 0) {
			snprintf(err, errlen,
				 "option --rate: %g%% of the link speed, but the port reports no link speed; give pps or bps instead",
				 spec->value);
			return -EINVAL;
		}
		r->bps = r->link_bps * spec->value / 100;
		if (!(r->bps >= PG_RATE_BPS_MIN)) {
			snprintf(err, errlen,
				 "option --rate: %g%% of the link's %u Mbit/s is below 1 bit/s; give a larger percentage",
				 spec->value, link_mbps);
			return -EINVAL;
		}
		break;
	case PG_RATE_BPS_L2:
	case PG_RATE_BPS_WIRE:
		r->bps = spec->value;
		break;
	default:
		break;
	}
	r->max_lag = r->hz / 1000;  /* 1 ms */
	return 0;
}

double pg_rate_frame_cycles(const struct pg_rate *r, unsigned size)
{
	switch (r->spec.unit) {
	case PG_RATE_PPS:
		return r->hz / r->spec.value;
	case PG_RATE_BPS_L2:
		return (double)pg_l2_bits(size) * r->hz / r->bps;
	case PG_RATE_BPS_WIRE:
	case PG_RATE_PCT:
		return (double)pg_wire_bits(size) * r->hz / r->bps;
	default:
		return 0;
	}
}

void pg_rate_start(struct pg_rate *r, uint64_t now_tsc)
{
	r->start_tsc = now_tsc;
	r->next = 0;
}

void pg_rate_sent(struct pg_rate *r, unsigned size, uint64_t now_tsc)
{
	double now = (double)(now_tsc - r->start_tsc);
	double lag = r->max_lag > pg_rate_frame_cycles(r, size) ? r->max_lag : pg_rate_frame_cycles(r, size);

	if (r->spec.unit == PG_RATE_NONE)
		return;
	if (now - r->next > lag)
		r->next = now - lag;
	r->next += pg_rate_frame_cycles(r, size);
}

double pg_rate_achieved(const struct pg_rate *r, uint64_t frames, uint64_t bytes, double seconds)
{
	if (seconds <= 0)
		return 0;
	switch (r->spec.unit) {
	case PG_RATE_BPS_L2:
		return (double)(bytes + 4 * frames) * 8 / seconds;
	case PG_RATE_BPS_WIRE:
	case PG_RATE_PCT:
		return (double)(bytes + 24 * frames) * 8 / seconds;
	default:
		return (double)frames / seconds;
	}
}

double pg_rate_requested(const struct pg_rate *r)
{
	switch (r->spec.unit) {
	case PG_RATE_PPS:
		return r->spec.value;
	case PG_RATE_BPS_L2:
	case PG_RATE_BPS_WIRE:
	case PG_RATE_PCT:
		return r->bps;
	default:
		return 0;
	}
}

bool pg_rate_missed(double requested, double achieved)
{
	return requested > 0 && fabs(achieved - requested) > requested * 0.01;
}

const char *pg_rate_unit_name(enum pg_rate_unit u)
{
	switch (u) {
	case PG_RATE_PPS: return "pps";
	case PG_RATE_BPS_L2: return "bit/s at L2 (FCS included)";
	case PG_RATE_BPS_WIRE: return "bit/s on the wire (FCS, preamble and gap included)";
	case PG_RATE_PCT: return "bit/s on the wire (percent of link)";
	default: return "pps (unlimited)";
	}
}
