/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The port core's control paths with the fake driver of port_fake.c: rx
 * interrupt mode and IRQ affinity, the receive filters, interrupt sources,
 * the grace period before pollers are released, and tx_prepare.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <unistd.h>
#include <string.h>

/* Before port_fake.h: its helpers name a parameter pool. */
#include "refusing_port.h"
#include "port_fake.h"

Test(port, interrupt_mode_without_interrupts_degrades_to_poll)
{
	struct unic_port *p = new_port("intr%d");
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1, .rx_mode = UNIC_RX_MODE_HYBRID };
	struct unic_port_conf got;

	cr_assert_eq(unic_port_configure(p, &c), 0);
	cr_assert(strstr(last_err, "no rx interrupts; using poll mode"), "%s", last_err);
	cr_assert_eq(unic_port_conf_get(p, &got), 0);
	cr_assert_eq(got.rx_mode, UNIC_RX_MODE_POLL);
	finish(p);
}

Test(port, promisc_and_allmulti_get_report_what_the_driver_took)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), "filt%d", filter_setup);
	struct fake_priv *fp;

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "%s", last_err);
	fp = unic_port_priv(p);
	cr_assert_eq(unic_port_promisc_get(p), 0, "off until set");
	cr_assert_eq(unic_port_allmulti_get(p), 0);
	cr_assert_eq(unic_port_promisc_set(p, true), 0);
	cr_assert_eq(unic_port_promisc_get(p), 1);
	cr_assert_eq(unic_port_allmulti_get(p), 0, "the two are apart");
	cr_assert_eq(unic_port_allmulti_set(p, true), 0);
	cr_assert_eq(unic_port_allmulti_get(p), 1);
	cr_assert_eq(fp->promisc_calls, 1);
	cr_assert_eq(fp->allmulti_calls, 1);
	/* A set the driver refuses changes nothing. */
	fp->filter_rc = -EIO;
	cr_assert_eq(unic_port_promisc_set(p, false), -EIO);
	cr_assert_eq(unic_port_promisc_get(p), 1, "still on: the driver refused");
	cr_assert_eq(unic_port_allmulti_set(p, false), -EIO);
	cr_assert_eq(unic_port_allmulti_get(p), 1);
	fp->filter_rc = 0;
	cr_assert_eq(unic_port_promisc_set(p, false), 0);
	cr_assert_eq(unic_port_promisc_get(p), 0);
	cr_assert_eq(unic_port_close(p), 0);
	cr_assert_eq(unic_port_promisc_get(p), -ENODEV, "a closed port has no state to report");
	cr_assert_eq(unic_port_allmulti_get(p), -ENODEV);
	finish(p);
}

/* As DPDK's net_null and net_ring: they filter nothing, so each setting is
 * taken and reported back, and the link goes down and up on demand. */
Test(port, null_and_ring_ports_take_filters_link_and_mac_and_report_them)
{
	const char *const specs[] = { "null7", "ring7" };
	const uint8_t mac[6] = { 0x02, 0, 0, 0, 0, 0x77 };

	for (unsigned i = 0; i < 2; i++) {
		struct unic_port *p = NULL;
		struct unic_link l;
		uint8_t got[6];

		cr_assert_eq(unic_vdev_create(specs[i], &p), 0, "%s", last_err);
		cr_assert_eq(unic_port_promisc_get(p), 0, "%s: off until set", specs[i]);
		cr_assert_eq(unic_port_promisc_set(p, true), 0, "%s", specs[i]);
		cr_assert_eq(unic_port_promisc_get(p), 1);
		cr_assert_eq(unic_port_allmulti_set(p, true), 0);
		cr_assert_eq(unic_port_allmulti_get(p), 1);
		cr_assert_eq(unic_port_allmulti_set(p, false), 0);
		cr_assert_eq(unic_port_allmulti_get(p), 0);
		cr_assert_eq(unic_port_link_set(p, false), 0);
		cr_assert_eq(unic_port_link_get(p, &l), 0);
		cr_assert(!l.up && l.speed_mbps == 0, "%s: down after link_set(false)", specs[i]);
		cr_assert_eq(unic_port_link_set(p, true), 0);
		cr_assert_eq(unic_port_link_get(p, &l), 0);
		cr_assert(l.up && l.speed_mbps == 10000);
		cr_assert_eq(unic_port_mac_set(p, mac), 0);
		cr_assert_eq(unic_port_mac_get(p, got), 0);
		cr_assert_eq(memcmp(got, mac, 6), 0);
		cr_assert_eq(unic_port_mac_add(p, mac), 0);
		cr_assert_eq(unic_port_mac_remove(p, mac), 0);
		finish(p);
	}
}

/* The driver is asked for a queue's IRQ only for a set-up queue of a
 * port started in interrupt or hybrid mode; otherwise the core says why. */
Test(port, a_queues_irq_is_asked_of_the_driver_only_while_it_can_have_one)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), "irq%d", fake_intr_setup);
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 2, .nb_txq = 2, .rx_mode = UNIC_RX_MODE_HYBRID };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = 64, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = 64, .numa_node = -1 };

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "register: %s", last_err);
	intr_calls = 0;
	cr_assert_eq(unic_port_configure(p, &c), 0, "%s", last_err);
	for (uint16_t q = 0; q < 2; q++) {
		cr_assert_eq(unic_port_rx_queue_setup(p, q, &rc), 0, "%s", last_err);
		cr_assert_eq(unic_port_tx_queue_setup(p, q, &tc), 0, "%s", last_err);
	}
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 0, 1), -EINVAL, "configured, not started");
	cr_assert(strstr(last_err, "only while the port is started in interrupt or hybrid rx mode"), "%s", last_err);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 2, 1), -EINVAL, "queue 2 does not exist");
	cr_assert(strstr(last_err, "rx queue 2 is not set up"), "%s", last_err);
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 1, -3), -EINVAL, "a negative CPU");
	cr_assert_eq(intr_calls, 0, "the driver was asked when it should not have been");
	cr_assert_eq(unic_port_rx_intr_affinity_set(p, 1, 3), 101);
	cr_assert_eq(intr_last_q, 1);
	cr_assert_eq(intr_last_cpu, 3);
	cr_assert_eq(unic_port_rx_intr_irq(p, 0), 100);
	cr_assert_eq(intr_last_cpu, -1, "a look-up moves nothing");
	cr_assert_eq(intr_calls, 2);
	cr_assert_eq(unic_port_stop(p), 0);
	cr_assert_eq(unic_port_rx_intr_irq(p, 0), -EINVAL, "stopped: the vectors are gone");
	cr_assert_eq(intr_calls, 2);
	finish(p);
}

static int unmask_calls;

static int count_unmask(void *ctx)
{
	(void)ctx;
	unmask_calls++;
	return 0;
}

Test(port, intr_source_ack_drains_the_eventfd_and_unmasks)
{
	int fd = eventfd(0, EFD_NONBLOCK);
	struct unic_intr_source src = {
		.fd = fd, .kind = UNIC_INTR_EVENTFD, .queue_mask = 1, .unmask = count_unmask,
	};
	uint64_t one = 1;
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	cr_assert_geq(fd, 0);
	cr_assert_eq(unic_intr_source_ack(&src), -EAGAIN, "nothing pending");
	cr_assert_eq(write(fd, &one, 8), 8);
	cr_assert_eq(write(fd, &one, 8), 8);
	cr_assert_eq(poll(&pfd, 1, 0), 1);
	cr_assert_eq(unic_intr_source_ack(&src), 0);
	cr_assert_eq(unmask_calls, 1);
	cr_assert_eq(poll(&pfd, 1, 0), 0, "one ack drains every pending count");
	close(fd);
}

/* ---- the grace period: stubs first, then the pollers, then the driver ----- */

struct grace_seen {
	unsigned calls;
	unsigned rx_got, tx_took;      /* what a burst did inside the release */
	int stops_at_claim;            /* the driver's stop count when the claims were made */
	unsigned stopped_before;       /* the driver's stop had run since */
	unsigned released_before;      /* the queues had been released */
};

static void grace_release(struct unic_port *port, bool tx, uint16_t q, void *owner)
{
	struct grace_seen *s = owner;
	struct fake_priv *fp = unic_port_priv(port);
	struct unic_pkt *pk[4] = { 0 };

	s->calls++;
	/* A poller that was inside a burst when the stop began has returned
	 * by now; one that calls again must reach the stubs. */
	if (tx)
		s->tx_took += unic_tx_burst(port, q, pk, 4);
	else
		s->rx_got += unic_rx_burst(port, q, pk, 4);
	s->stopped_before += fp->stopped != s->stops_at_claim;
	s->released_before += unic_port_state(port) == UNIC_PORT_CLOSED;
}

static void grace_claim_all(struct unic_port *p, struct grace_seen *s)
{
	s->stops_at_claim = ((struct fake_priv *)unic_port_priv(p))->stopped;
	for (uint16_t q = 0; q < 2; q++) {
		cr_assert_eq(unic_port_poller_claim(p, false, q, grace_release, s, NULL), 0);
		cr_assert_eq(unic_port_poller_claim(p, true, q, grace_release, s, NULL), 0);
	}
}

Test(port, stop_detach_and_device_loss_switch_to_stubs_before_any_poller_is_released)
{
	struct unic_port *p = new_port("grace%d");
	struct fake_priv *fp = unic_port_priv(p);
	struct grace_seen s = { 0 };
	struct unic_pkt *pk[4] = { 0 };

	conf_port(p, 2, 64);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_tx_burst(p, 1, pk, 4), 4, "started: the driver takes them");

	grace_claim_all(p, &s);
	cr_assert_eq(unic_port_stop(p), 0);
	cr_assert_eq(s.calls, 4, "every claim, rx and tx, is released");
	cr_assert_eq(s.tx_took + s.rx_got, 0, "a burst during the release reaches the stubs");
	cr_assert_eq(s.stopped_before, 0, "the driver stops only after every release");
	cr_assert_eq(fp->stopped, 1);

	memset(&s, 0, sizeof(s));
	cr_assert_eq(unic_port_start(p), 0);
	grace_claim_all(p, &s);
	cr_assert_eq(unic_port_device_lost(p, false), 0);
	cr_assert_eq(s.calls, 4);
	cr_assert_eq(s.tx_took + s.rx_got, 0, "device loss: stubs before the releases");
	cr_assert_eq(s.stopped_before, 0);
	cr_assert_eq(fp->stopped, 2);
	finish(p);

	p = new_port("grace%d");
	fp = unic_port_priv(p);
	memset(&s, 0, sizeof(s));
	conf_port(p, 2, 64);
	cr_assert_eq(unic_port_start(p), 0);
	grace_claim_all(p, &s);
	cr_assert_eq(unic_port_detach(p), 0);
	cr_assert_eq(s.calls, 4);
	cr_assert_eq(s.tx_took + s.rx_got, 0, "detach: stubs before the releases");
	cr_assert_eq(s.stopped_before + s.released_before, 0, "no stop, no queue release before");
	cr_assert_eq(fp->stopped, 1);
	unic_port_put(p);
}

Test(port, tx_prepare_gives_the_leading_packets_the_driver_accepts_and_why_the_next_is_refused)
{
	struct unic_port *p = refusing_port_up(pool);
	struct unic_pkt *pkts[4];
	int err = 1;

	cr_assert_not_null(p, "%s", last_err);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 4), 0);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 4);
	cr_assert_eq(err, 0, "every packet accepted: err is 0");
	refusing_mark_bad(pkts[2]);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 2, "pkts[2] is refused");
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 3, 1, NULL), 1, "err may be NULL");
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 2, 2, NULL), 0);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 0, &err), 0);
	cr_assert_eq(refusing_priv(p)->sent + refusing_priv(p)->refused, 0, "prepare sends nothing");

	/* Stopped: the driver is not called; every packet passes (and the
	 * stub tx_burst takes none). */
	cr_assert_eq(unic_port_stop(p), 0);
	err = 1;
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 4);
	cr_assert_eq(err, 0);
	cr_assert_eq(unic_tx_burst(p, 0, pkts, 4), 0);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 4, &err), 2, "started again: the driver's checks");
	unic_pkt_free_bulk(pkts, 4);
	refusing_port_down(p);
}

Test(port, tx_prepare_checks_offload_headers_before_the_driver_on_a_port_offering_tso)
{
	struct unic_port *p = refusing_port_up(pool);
	struct unic_pkt *pkts[3];
	int err = 1;

	cr_assert_not_null(p, "%s", last_err);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 3), 0);
	/* The driver accepts it (a TSO segment size is all it checks), but
	 * an IPv4 checksum request without l2/l3 lengths matches no header:
	 * lib/net refuses it first. */
	pkts[1]->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM;
	cr_assert_eq(unic_tx_offload_check(pkts[1]), UNIC_TX_OFFLOAD_ERR_L2_LEN);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 3, &err), 1, "the header check did not run");
	cr_assert_eq(err, -EINVAL);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts + 2, 1, &err), 1);
	cr_assert_eq(err, 0);
	cr_assert_eq(refusing_priv(p)->sent + refusing_priv(p)->refused, 0, "prepare sends nothing");
	unic_pkt_free_bulk(pkts, 3);
	refusing_port_down(p);
}

Test(port, tx_prepare_accepts_every_packet_when_the_driver_has_no_checks)
{
	struct unic_port *p = new_port("fake%d");
	struct unic_pkt *pkts[3];
	int err = 1;

	conf_port(p, 1, 64);
	cr_assert_eq(unic_port_start(p), 0);
	cr_assert_eq(unic_pkt_alloc_bulk(pool, pkts, 3), 0);
	refusing_mark_bad(pkts[0]);
	cr_assert_eq(unic_tx_prepare(p, 0, pkts, 3, &err), 3);
	cr_assert_eq(err, 0);
	unic_pkt_free_bulk(pkts, 3);
	cr_assert_eq(unic_port_stop(p), 0);
	unic_port_close(p);
	finish(p);
}

Test(port, the_xstats_table_helpers_copy_at_most_max_and_return_the_whole_count)
{
	static const char *const table[] = { "a_one", "b_two", "c_three" };
	const uint64_t v[3] = { 11, 22, 33 };
	struct unic_xstat_name names[4];
	uint64_t values[4];

	memset(names, 0, sizeof(names));
	memset(values, 0xee, sizeof(values));
	cr_assert_eq(unic_port_xstats_names_fill(NULL, 0, table, 3), 3, "the count, nothing written");
	cr_assert_eq(unic_port_xstats_names_fill(names, 2, table, 3), 3);
	cr_assert_str_eq(names[0].name, "a_one");
	cr_assert_str_eq(names[1].name, "b_two");
	cr_assert_str_eq(names[2].name, "", "past max: untouched");
	cr_assert_eq(unic_port_xstats_values_fill(NULL, 0, v, 3), 3);
	cr_assert_eq(unic_port_xstats_values_fill(values, 2, v, 3), 3);
	cr_assert_eq(values[0], 11);
	cr_assert_eq(values[1], 22);
	cr_assert_eq(values[2], 0xeeeeeeeeeeeeeeeeull, "past max: untouched");
	cr_assert_eq(unic_port_xstats_names_fill(names, 4, table, 3), 3);
	cr_assert_str_eq(names[2].name, "c_three");
	cr_assert_str_eq(names[3].name, "");
}

/* A fake driver whose largest MTU comes with a reason. */
static const struct unic_driver why_driver = {
	.name = "fake",
	.mtu_max_why = "frames past 9000 bytes do not fit this fake's buffers",
};

static void why_setup(struct unic_port *port)
{
	fake_setup(port);
	port->drv = &why_driver;
}

Test(port, an_mtu_past_the_largest_is_refused_with_the_drivers_reason_when_it_gives_one)
{
	struct unic_port *p = unic_port_alloc(sizeof(struct fake_priv), "why0", why_setup);
	struct unic_port *q = new_port("plain0");
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1, .mtu = 9001 };

	cr_assert_not_null(p);
	cr_assert_eq(unic_port_register(p), 0, "register: %s", last_err);
	cr_assert_eq(unic_port_configure(p, &c), -EINVAL);
	cr_assert(logcap_has("why0: MTU 9001; this port takes 68..9000: frames past 9000 bytes do not "
			     "fit this fake's buffers"), "%s", logcap_buf);
	cr_assert_eq(unic_port_mtu_set(p, 9002), -EINVAL);
	cr_assert(logcap_has("why0: MTU 9002; this port takes 68..9000: frames past"), "%s", logcap_buf);
	logcap_clear();
	cr_assert_eq(unic_port_configure(q, &c), -EINVAL);
	cr_assert(logcap_has("plain0: MTU 9001; this port takes 68..9000"), "%s", logcap_buf);
	cr_assert(!logcap_has("68..9000:"), "no reason, no colon: %s", logcap_buf);
	finish(p);
	finish(q);
}
