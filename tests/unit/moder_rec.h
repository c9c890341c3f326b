/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A ring port whose ops table gains a coalesce op that records what it is
 * asked (the ring has no moderation of its own), for the tests of the
 * adaptive policy's device moderation: test_napi_adaptive_mod.c (lib/napi
 * driven from the test's thread), test_testpmd_moder.c (unic-testpmd's
 * switch) and test_l2fwd_moder.c (unic-l2fwd's --moderation).
 *
 * One recording at a time (rec, a global): a test attaches it to one port.
 * The op runs under the port's lock; the counts are read by the test while
 * the thread that drives the context may still write them, which the tests
 * do only for values nothing writes meanwhile.
 */
#ifndef TEST_MODER_REC_H
#define TEST_MODER_REC_H

#include <stdbool.h>
#include <stdint.h>

#include "unic_port_driver.h"

#define REC_MAX 4096

struct moder_rec {
	struct unic_port_ops ops;
	uint32_t rx_usecs, tx_usecs;  /* in effect */
	unsigned sets;                /* coalesce_set calls */
	uint32_t max_rx;              /* the largest rx_usecs asked */
	uint32_t rx[REC_MAX];         /* each rx_usecs asked, in order */
	/* A device that counts frames (virtio's event index): reads back
	 * rx_max_frames as set, and an arm under more than one frame never
	 * rings (the frames it waits for do not come in these tests). */
	bool counting;
	uint32_t frames;              /* rx_max_frames in effect */
	unsigned arms_held;           /* arms that did not ring */
	unsigned arms_rung;           /* arms that did (the ring's own) */
	uint64_t at[REC_MAX];         /* ... and when */
};

extern struct moder_rec rec;

/* Give @p p (a ring port, not started) the recording coalesce op; rec
 * starts empty, tx_usecs 7 (the policy must keep it). */
void rec_attach(struct unic_port *p);

/* The values asked, for the logs: "0 24 24 ..." (the first 16). */
const char *rec_list(void);

#endif /* TEST_MODER_REC_H */
