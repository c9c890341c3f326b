/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen rate control. A rate is given as packets per second, as a bit
 * rate at L2 (frame + 4-byte FCS) or on the wire (frame + FCS + 20 bytes of
 * preamble and inter-frame gap), or as a percentage of the link speed (a
 * wire rate). Each frame is paced by its own size: its deadline advances by
 * the cycles its bits take at the requested rate, in TSC cycles from
 * unic_tsc_hz() (calibrated against CLOCK_MONOTONIC).
 */
#ifndef PG_RATE_H
#define PG_RATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum pg_rate_unit {
	PG_RATE_NONE = 0,  /* as fast as the port takes them */
	PG_RATE_PPS,
	PG_RATE_BPS_L2,
	PG_RATE_BPS_WIRE,
	PG_RATE_PCT,       /* of the link speed, on the wire */
};

/*
 * Limits: a rate outside them is refused by name (a bigger one would make
 * each frame's share of a second round to nothing, or overflow to infinity;
 * a smaller one would make it infinite). 1.5 Gpps is a 1 Tbit/s link's
 * minimum-size frames.
 */
#define PG_RATE_PPS_MIN 0.001      /* a frame every 1000 s */
#define PG_RATE_PPS_MAX 1.5e9      /* 1500Mpps */
#define PG_RATE_BPS_MIN 1.0        /* 1bps */
#define PG_RATE_BPS_MAX 1e12       /* 1000Gbps */

struct pg_rate_spec {
	enum pg_rate_unit unit;
	double value;      /* pps, bit/s, or percent */
};

/*
 * Parse "1Mpps", "500kpps", "100Mbps" (L2), "10Gbps-wire", "100Mbps-l2",
 * "10%". Prefixes k, M, G (powers of 1000). @return 0, or -EINVAL with a
 * message naming the accepted forms.
 */
int pg_rate_parse(const char *s, struct pg_rate_spec *r, char *err, size_t errlen);

/* Bytes a frame of @p size bytes (no FCS) occupies on the link before the
 * FCS: a NIC pads a shorter frame to 60 (a replayed capture may hold one). */
static inline unsigned pg_link_bytes(unsigned size) { return size < 60 ? 60 : size; }

/* Bits a frame of @p size bytes (no FCS) counts for at L2 and on the wire. */
static inline uint64_t pg_l2_bits(unsigned size) { return (uint64_t)(pg_link_bytes(size) + 4) * 8; }
static inline uint64_t pg_wire_bits(unsigned size) { return (uint64_t)(pg_link_bytes(size) + 24) * 8; }

struct pg_rate {
	struct pg_rate_spec spec;
	double hz;
	double link_bps;      /* for PG_RATE_PCT */
	double bps;           /* for bit rates: the target, on the unit's layer */
	double next;          /* deadline of the next frame, cycles from start */
	uint64_t start_tsc;
	double max_lag;       /* cycles a late sender may catch up */
};

/*
 * Set up for @p spec at @p hz TSC cycles per second; @p link_mbps is used
 * by a percentage (0: unknown, refused). @return 0, or -EINVAL (message).
 */
int pg_rate_init(struct pg_rate *r, const struct pg_rate_spec *spec, uint64_t hz,
		 uint32_t link_mbps, char *err, size_t errlen);

/* Cycles one frame of @p size bytes takes at the rate (0: unlimited). */
double pg_rate_frame_cycles(const struct pg_rate *r, unsigned size);

/* Start pacing at @p now_tsc. */
void pg_rate_start(struct pg_rate *r, uint64_t now_tsc);

/* Is the next frame due at @p now_tsc? */
static inline bool pg_rate_due(const struct pg_rate *r, uint64_t now_tsc)
{
	return r->spec.unit == PG_RATE_NONE || (double)(now_tsc - r->start_tsc) >= r->next;
}

/* Account a frame of @p size sent (or queued): the next deadline. A sender
 * more than max_lag behind gives up the lost time instead of bursting. */
void pg_rate_sent(struct pg_rate *r, unsigned size, uint64_t now_tsc);

/*
 * The achieved rate, in the request's own unit, over @p seconds for
 * @p frames frames totalling @p bytes (pg_link_bytes of each frame).
 */
double pg_rate_achieved(const struct pg_rate *r, uint64_t frames, uint64_t bytes, double seconds);

/* The requested rate in its unit (percent becomes a wire bit rate). */
double pg_rate_requested(const struct pg_rate *r);

/* A miss: |achieved - requested| > 1% of requested. */
bool pg_rate_missed(double requested, double achieved);

/* "Mpps", "bit/s (L2, FCS included)", ... for reports. */
const char *pg_rate_unit_name(enum pg_rate_unit u);

#endif /* PG_RATE_H */
