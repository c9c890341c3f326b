/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-testpmd in this process (testpmd_fixture.h), ring40 forwarding
 * with the far side driven by the test:
 *  - a hand "port config N coalesce rx-usecs" while the adaptive policy
 *    runs switches the port's moderation to fixed, says so, and the hand
 *    value stays through the policy's decisions; "set rx-mode N hybrid
 *    moderation=adaptive" gives it back at once (docs/napi.md, "The
 *    device's moderation"). ring40's ops gain a coalesce op that records
 *    what it is asked (the ring has no moderation of its own);
 *  - "sleep" keeps dispatching port events.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/event.h>
#include <unic/napi.h>
#include <unic/pool.h>

#include "testpmd.h"
#include "testpmd_fixture.h"
#include "moder_rec.h"
#include "unic_port_driver.h"

/* ring40 stopped, the recording op, the adaptive policy, started again. */
static void moder_setup(void)
{
	struct unic_port *p;

	eng_setup();
	p = app->ports[near_id].port;
	cr_assert_eq(execf("port stop %u", near_id), 0);
	rec_attach(p);
	cr_assert_eq(execf("set rx-mode %u hybrid cpu-budget=100", near_id), 0, "%s", printed());
	cr_assert_eq(execf("port start %u", near_id), 0, "%s", printed());
}

/* @p n frames from the far side, one every @p gap_us, each forwarded back. */
static void far_paced(unsigned n, unsigned gap_us)
{
	struct unic_pkt *p[4];

	for (unsigned i = 0; i < n; i++) {
		far_send(1);
		cr_assert_eq(far_recv(p, 1), 1, "frame %u not forwarded", i);
		unic_pkt_free_bulk(p, 1);
		usleep(gap_us);
	}
}

/* The switch as the forwarding thread's context has it. */
static int ctx_switch(void)
{
	for (unsigned t = 0; t < app->nb_threads; t++) {
		int rc = unic_napi_moderation_get(app->threads[t].ctx, app->ports[near_id].port);

		if (rc >= 0)
			return rc;
	}
	return -ENOENT;
}

/*
 * The hand value is written right after "start", before the policy has an
 * estimate: a policy that had not let go would write its first value at
 * its first decision with one (0, for frames 2 ms apart), at once.
 */
Test(testpmd_moder, a_hand_rx_usecs_turns_the_adaptive_moderation_off_until_it_is_given_back,
     .init = moder_setup, .fini = eng_teardown, .timeout = 60)
{
	const char *o;

	cr_assert_eq(exec("start"), 0);
	printed();
	cr_assert_eq(ctx_switch(), 0, "adaptive at start");
	cr_assert_eq(execf("show port napi %u", near_id), 0);
	HAS(printed(), "moderation adaptive (the policy sets rx-usecs)");

	cr_assert_eq(execf("port config %u coalesce rx-usecs 77", near_id), 0, "%s", printed());
	o = printed();
	HAS(o, "adaptive moderation off on port 0: rx-usecs set by hand; "
	       "'set rx-mode 0 hybrid moderation=adaptive' to give it back\n");
	HAS(o, "Port 0: rx-usecs 77 tx-usecs 7");
	cr_assert_eq(ctx_switch(), 1, "the running thread's context was not switched");
	far_paced(50, 2000); /* 100 ms and more: ten decisions */
	/* Read while the thread runs: it writes rec only through the policy. */
	cr_expect_eq(rec.sets, 1, "fixed: the policy wrote (%s)", rec_list());
	cr_expect_eq(rec.rx_usecs, 77, "fixed: the hand value became %u", rec.rx_usecs);
	cr_assert_eq(execf("show port napi %u", near_id), 0);
	HAS(printed(), "moderation fixed (rx-usecs as set; 'moderation=adaptive' gives it back)");
	/* A second hand value: nothing to switch, nothing said. */
	cr_assert_eq(execf("port config %u coalesce rx-usecs 66", near_id), 0);
	HASNT(printed(), "adaptive moderation off");

	cr_assert_eq(execf("set rx-mode %u hybrid moderation=adaptive", near_id), 0, "%s", printed());
	HAS(printed(), "Port 0: moderation adaptive: the adaptive policy sets rx-usecs from its next decision");
	cr_assert(app->fwd_on, "forwarding went on");
	cr_assert_eq(ctx_switch(), 0);
	far_paced(25, 2000);
	cr_assert_eq(exec("stop"), 0);
	cr_expect_geq(rec.sets, 3, "adaptive again: the policy never wrote (%s)", rec_list());
	cr_expect_eq(rec.rx_usecs, 0, "adaptive again, frames 2 ms apart: rx_usecs %u (%s)", rec.rx_usecs,
		     rec_list());
	cr_assert_eq(execf("show port napi %u", near_id), 0);
	HAS(printed(), "moderation adaptive");
}

/* "show port napi" says what the library has, not testpmd's own copy: a
 * switch made behind testpmd's back shows; stopped, the next start's. */
Test(testpmd_moder, show_port_napi_reads_the_switch_the_library_has, .init = moder_setup, .fini = eng_teardown,
     .timeout = 60)
{
	unsigned n = 0;

	cr_assert_eq(exec("start"), 0);
	printed();
	for (unsigned t = 0; t < app->nb_threads; t++)
		if (unic_napi_moderation_set(app->threads[t].ctx, app->ports[near_id].port, true) == 0)
			n++;
	cr_assert_geq(n, 1, "no forwarding context holds port %u", near_id);
	cr_assert(!app->ports[near_id].knobs.moderation_fixed, "testpmd's copy stays adaptive");
	cr_assert_eq(execf("show port napi %u", near_id), 0);
	HAS(printed(), "moderation fixed (rx-usecs as set; 'moderation=adaptive' gives it back)\n");
	cr_assert_eq(exec("stop"), 0);
	printed();
	cr_assert_eq(execf("show port napi %u", near_id), 0);
	HAS(printed(), "moderation adaptive (the policy sets rx-usecs) at the next start\n");
}

/* moderation=fixed at the next start; refused with another mode. */
Test(testpmd_moder, moderation_fixed_holds_from_the_start_and_is_the_hybrid_modes,
     .init = moder_setup, .fini = eng_teardown, .timeout = 60)
{
	cr_assert_eq(execf("port stop %u", near_id), 0);
	cr_assert_eq(execf("set rx-mode %u hybrid cpu-budget=100 moderation=fixed", near_id), 0, "%s", printed());
	cr_assert_eq(execf("port start %u", near_id), 0);
	cr_assert_eq(exec("start"), 0);
	cr_assert_eq(ctx_switch(), 1, "moderation=fixed: the context starts fixed");
	far_paced(30, 2000);
	cr_assert_eq(exec("stop"), 0);
	cr_expect_eq(rec.sets, 0, "fixed from the start: the policy wrote (%s)", rec_list());
	printed();
	cr_assert_eq(execf("set rx-mode %u poll moderation=fixed", near_id), -EINVAL);
	HAS(printed(), "set rx-mode: moderation= switches the hybrid mode's adaptive policy's moderation");
	{
		static struct tp_cmd cmd;
		char err[1024];

		cr_assert_eq(tp_cmd_parse("set rx-mode 0 hybrid moderation=sometimes", &cmd, err, sizeof(err)),
			     TP_PARSE_ERROR);
		HAS(err, "bad value 'moderation=sometimes' for [moderation=adaptive|fixed]");
	}
	/* Without the policy, the switch is kept and says it does nothing. */
	cr_assert_eq(execf("port stop %u", near_id), 0);
	cr_assert_eq(execf("set rx-mode %u hybrid idle-us=20", near_id), 0, "%s", printed());
	printed();
	cr_assert_eq(execf("set rx-mode %u hybrid moderation=fixed", near_id), 0, "%s", printed());
	HAS(printed(), "it has no adaptive policy");
	cr_assert_eq(execf("show port napi %u", near_id), 0);
	HAS(printed(), "moderation fixed (no adaptive policy)");
}

/* ---- sleep keeps the events flowing -------------------------------------------------- */

struct poster {
	struct unic_port *port;
	uint64_t delay_ns, posted_ns;
};

static void *post_later(void *arg)
{
	struct poster *ps = arg;

	usleep((useconds_t)(ps->delay_ns / 1000));
	__atomic_store_n(&ps->posted_ns, unic_time_ns(), __ATOMIC_RELEASE);
	unic_port_event_post(ps->port, UNIC_EVENT_LINK);
	return NULL;
}

/*
 * A link event posted 50 ms into a 500 ms "sleep" is handled (printed)
 * while the sleep runs, and the sleep still lasts its 500 ms.
 */
Test(testpmd_moder, a_link_event_during_a_sleep_is_handled_while_it_sleeps, .init = eng_setup,
     .fini = eng_teardown, .timeout = 30)
{
	struct poster ps = { .port = app->ports[near_id].port, .delay_ns = 50000000 };
	pthread_t tid;
	uint64_t t0;

	cr_assert_eq(tp_events_register(app), 0);
	printed();
	t0 = unic_time_ns();
	cr_assert_eq(pthread_create(&tid, NULL, post_later, &ps), 0);
	cr_assert_eq(exec("sleep 500"), 0);
	cr_assert_geq(unic_time_ns() - t0, 500000000ull, "the sleep ended early");
	pthread_join(tid, NULL);
	HAS(printed(), "Port 0: link state change event: link up");
	tp_events_unregister(app);
}
