/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver in the QEMU rig's guest, against QEMU 7.2's
 * virtio-net-pci (modern, iommu_platform=on, behind a root port) and
 * unic's other driver: boot vfio-hub puts the virtio-net (nic2) on hub 0
 * with the two e1000e, so every frame here crosses from one driver to the
 * other through QEMU; boot uio puts one (nic4, no IOMMU, INTx) on hub 0
 * with its e1000e. Both ports are probed by address (the first e1000e and
 * the virtio-net of `unic-vm nics`) and driven through the port API only.
 *
 * Frames are tagged (EtherType 0x88b5, magic, this run's id, the test's
 * number, a sequence number) and filled with a pattern of the sequence
 * number, so the receiver checks every byte; anything else is a stray (QEMU
 * keeps up to 10 000 frames for a receiver that is off, and the e1000e
 * tests before this one sent many) and is counted apart.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <pthread.h>
#include <time.h>
#include <sys/wait.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/event.h>
#include <unic/log.h>
#include <unic/mem.h>
#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "guest_pci.h"
#include "log_capture.h"

#define ETHERTYPE_TEST 0x88b5
#define MAGIC "unic-virtio."
#define HDR 14
#define TAG_LEN (12 + 8 + 4 + 4 + 4) /* magic, run, test, seq, len */

static struct unic_mem *mem;
static struct unic_bus *bus;
static struct unic_pool *pool;
static struct unic_port *vio, *e1k;   /* nic2, nic0 */
static char run_id[9];
static uint32_t test_no;
static char vio_nic[32] = "nic2";

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
}

/* The PCI address of the first NIC of @p model in /etc/unic-vm/nics. */
static void nic_bdf(const char *model, char *bdf, size_t len, char *name, size_t nlen)
{
	char line[256], n[32], b[32], m[32];
	FILE *f = popen("unic-vm nics", "r");

	cr_assert_not_null(f, "unic-vm nics");
	bdf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %31s %31s", n, b, m) == 3 && strcmp(m, model) == 0 && bdf[0] == '\0') {
			snprintf(bdf, len, "%s", b);
			if (name)
				snprintf(name, nlen, "%s", n);
		}
	pclose(f);
	cr_assert(bdf[0], "no %s in unic-vm nics", model);
}

static void setup_n(uint32_t n)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "virtio-rig", .count = 8192, .cache_size = 0 };
	char b_vio[32], b_e1k[32];
	const char *allow[2] = { b_vio, b_e1k };
	const char *run = getenv("UNIC_VM_RUN");
	struct unic_port *ports[2];
	struct unic_port_info info;
	int rc;

	if (getenv("UNIC_VM_ACCESS") == NULL)
		cr_skip_test("UNIC_VM_ACCESS is not set: not in the rig's guest");
	test_no = n;
	snprintf(run_id, sizeof(run_id), "%.8s", run ? run : "norun000");
	logtail_start(true);
	nic_bdf("virtio-net", b_vio, sizeof(b_vio), vio_nic, sizeof(vio_nic));
	nic_bdf("e1000e", b_e1k, sizeof(b_e1k), NULL, 0);
	mc.iova_mode = strcmp(getenv("UNIC_VM_ACCESS"), "vfio") == 0 ? UNIC_IOVA_VA : UNIC_IOVA_PA;
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem, "unic_mem_create: %s", strerror(errno));
	bc.mem = mem;
	bus = unic_bus_create(&bc);
	cr_assert_not_null(bus, "unic_bus_create: %s", strerror(errno));
	rc = unic_port_probe_pci(bus, allow, 2, ports, 2);
	cr_assert_eq(rc, 2, "probe of %s and %s: %d (%s); log: %s", b_vio, b_e1k, rc, strerror(rc < 0 ? -rc : 0),
		     logtail);
	for (int i = 0; i < 2; i++) {
		memset(&info, 0, sizeof(info));
		unic_port_info_get(ports[i], &info);
		if (strcmp(info.driver, "e1000e") == 0)
			e1k = ports[i];
		else
			vio = ports[i];
	}
	cr_assert(vio && e1k, "expected a virtio and an e1000e port; log: %s", logtail);
	unic_port_info_get(vio, &info);
	cr_assert_str_eq(info.driver, "virtio");
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool, "unic_pktpool_create: %s; log: %s", strerror(errno), logtail);
}

static void teardown(void)
{
	struct unic_port *p[2] = { vio, e1k };

	for (int i = 0; i < 2; i++) {
		if (p[i] == NULL)
			continue;
		if (unic_port_state(p[i]) == UNIC_PORT_STARTED)
			unic_port_stop(p[i]);
		unic_port_detach(p[i]);
		unic_port_put(p[i]);
	}
	vio = e1k = NULL;
	unic_pool_destroy(pool);
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	pool = NULL, bus = NULL, mem = NULL;
}

static void port_up_offloads(struct unic_port *p, enum unic_rx_mode mode, uint16_t nb_desc, bool link_intr,
			     uint64_t rx_offloads)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1, .rx_mode = mode,
				       .link_intr = link_intr, .rx_offloads = rx_offloads };
	struct unic_rxq_conf rc = { .sz = sizeof(rc), .nb_desc = nb_desc, .numa_node = -1, .pool = pool };
	struct unic_txq_conf tc = { .sz = sizeof(tc), .nb_desc = nb_desc, .numa_node = -1 };
	struct unic_link link;
	int r;

	r = unic_port_configure(p, &conf);
	cr_assert_eq(r, 0, "configure %s: %s; log: %s", unic_port_name(p), strerror(-r), logtail);
	r = unic_port_rx_queue_setup(p, 0, &rc);
	cr_assert_eq(r, 0, "rx queue setup %s: %s; log: %s", unic_port_name(p), strerror(-r), logtail);
	r = unic_port_tx_queue_setup(p, 0, &tc);
	cr_assert_eq(r, 0, "tx queue setup %s: %s; log: %s", unic_port_name(p), strerror(-r), logtail);
	r = unic_port_start(p);
	cr_assert_eq(r, 0, "start %s: %s; log: %s", unic_port_name(p), strerror(-r), logtail);
	/* The frames are broadcast: no filter setting is needed on either side. */
	r = unic_port_link_wait(p, 5000, &link);
	cr_assert_eq(r, 0, "link of %s not up within 5 s", unic_port_name(p));
}

static void port_up(struct unic_port *p, enum unic_rx_mode mode, uint16_t nb_desc, bool link_intr)
{
	port_up_offloads(p, mode, nb_desc, link_intr, 0);
}

/* ---- frames ----------------------------------------------------------------- */

static uint8_t pattern(uint32_t seq, uint32_t i)
{
	return (uint8_t)(seq * 31u + i * 7u + (i >> 8));
}

static struct unic_pkt *frame(uint32_t len, uint32_t seq)
{
	static uint8_t f[2048];
	struct unic_pkt *p = unic_pkt_alloc(pool);

	cr_assert_not_null(p, "the pool is empty");
	cr_assert_leq(len, 1514);
	memset(f, 0xff, 6);
	memcpy(f + 6, "\x02\x00\x00\x00\x00\x09", 6);
	f[12] = ETHERTYPE_TEST >> 8, f[13] = ETHERTYPE_TEST & 0xff;
	memcpy(f + HDR, MAGIC, 12);
	memcpy(f + HDR + 12, run_id, 8);
	memcpy(f + HDR + 20, &test_no, 4);
	memcpy(f + HDR + 24, &seq, 4);
	memcpy(f + HDR + 28, &len, 4);
	for (uint32_t i = HDR + TAG_LEN; i < len; i++)
		f[i] = pattern(seq, i);
	memcpy(unic_pkt_append(p, (uint16_t)len), f, len);
	return p;
}

/* Ours: @return its sequence number, or -1 for a stray. */
static int64_t frame_seq(const struct unic_pkt *p)
{
	const uint8_t *f = unic_pkt_mtod(p, const uint8_t *);
	uint32_t t, seq;

	if (p->data_len < HDR + TAG_LEN || f[12] != ETHERTYPE_TEST >> 8 || f[13] != (ETHERTYPE_TEST & 0xff) ||
	    memcmp(f + HDR, MAGIC, 12) != 0 || memcmp(f + HDR + 12, run_id, 8) != 0)
		return -1;
	memcpy(&t, f + HDR + 20, 4);
	if (t != test_no)
		return -1;
	memcpy(&seq, f + HDR + 24, 4);
	return seq;
}

/* The whole frame as sent, byte for byte (one segment: up to 1514 here). */
static void frame_check(const struct unic_pkt *p, uint32_t seq, uint32_t len)
{
	const uint8_t *f = unic_pkt_mtod(p, const uint8_t *);
	uint32_t l;

	cr_assert_eq(p->pkt_len, len, "frame %u: %" PRIu32 " bytes, %u sent", seq, p->pkt_len, len);
	cr_assert_eq(p->nb_segs, 1, "frame %u in %u segments", seq, p->nb_segs);
	memcpy(&l, f + HDR + 28, 4);
	cr_assert_eq(l, len);
	for (uint32_t i = HDR + TAG_LEN; i < len; i++)
		cr_assert_eq(f[i], pattern(seq, i), "frame %u (%u bytes): byte %u is 0x%02x, sent 0x%02x", seq, len,
			     i, f[i], pattern(seq, i));
}

static void send1(struct unic_port *p, struct unic_pkt *pkt)
{
	uint64_t end = now_ms() + 5000;

	while (unic_tx_burst(p, 0, &pkt, 1) != 1) {
		cr_assert(now_ms() < end, "%s took no packet for 5 s (ring full, nothing completed); log: %s",
			  unic_port_name(p), logtail);
		unic_tx_reclaim(p, 0);
	}
}

struct rx_state {
	uint32_t next;     /* the sequence number expected */
	uint64_t strays;
};

/* Receive what @p p has; every frame of ours must be st->next, with the
 * length lens(seq). @return frames of ours received. */
static unsigned rx_some(struct unic_port *p, struct rx_state *st, uint32_t (*lens)(uint32_t), bool check_bytes)
{
	struct unic_pkt *pk[32];
	uint16_t n = unic_rx_burst(p, 0, pk, 32);
	unsigned ours = 0;

	for (uint16_t i = 0; i < n; i++) {
		int64_t seq = frame_seq(pk[i]);

		if (seq < 0) {
			st->strays++;
			continue;
		}
		cr_assert_eq((uint32_t)seq, st->next, "%s: frame %" PRId64 " arrived where %u was expected",
			     unic_port_name(p), seq, st->next);
		if (check_bytes)
			frame_check(pk[i], (uint32_t)seq, lens((uint32_t)seq));
		else
			cr_assert_eq(pk[i]->pkt_len, lens((uint32_t)seq));
		st->next++;
		ours++;
	}
	unic_pkt_free_bulk(pk, n);
	return ours;
}

/* Send @p count frames from @p tx to @p rx, at most @p window in flight;
 * every one must arrive, in order (and byte-exact with @p check_bytes). */
static void traffic(struct unic_port *tx, struct unic_port *rx, uint32_t count, uint32_t (*lens)(uint32_t),
		    unsigned window, bool check_bytes)
{
	struct rx_state st = { 0 };
	uint32_t sent = 0;
	uint64_t last = now_ms();

	while (st.next < count) {
		while (sent < count && sent - st.next < window)
			send1(tx, frame(lens(sent), sent)), sent++;
		unic_tx_reclaim(tx, 0);
		if (rx_some(rx, &st, lens, check_bytes) > 0)
			last = now_ms();
		cr_assert(now_ms() - last < 5000, "%s -> %s: %u of %u frames arrived, then nothing for 5 s "
			  "(%" PRIu64 " strays); log: %s", unic_port_name(tx), unic_port_name(rx), st.next, count,
			  st.strays, logtail);
	}
	/* Nothing more of ours: no duplicate after the last. */
	usleep(100000);
	rx_some(rx, &st, lens, check_bytes);
	cr_assert_eq(st.next, count, "%u frames of ours, %u sent", st.next, count);
}

static uint32_t len_all_sizes(uint32_t seq)
{
	return 60 + seq % (1514 - 60 + 1);
}

static uint32_t len_mixed(uint32_t seq)
{
	static const uint32_t l[] = { 60, 64, 128, 511, 1024, 1514 };

	return l[seq % 6];
}

/* ---- tests ------------------------------------------------------------------ */

static void setup1(void) { setup_n(1); }
static void setup2(void) { setup_n(2); }
static void setup3(void) { setup_n(3); }
static void setup4(void) { setup_n(4); }
static void setup5(void) { setup_n(5); }
static void setup7(void) { setup_n(7); }

Test(virtio_rig, every_frame_size_from_60_to_1514_crosses_from_virtio_to_e1000e_byte_exact,
     .init = setup1, .fini = teardown, .timeout = 300)
{
	port_up(vio, UNIC_RX_MODE_POLL, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	traffic(vio, e1k, 1514 - 60 + 1, len_all_sizes, 64, true);
}

Test(virtio_rig, every_frame_size_from_60_to_1514_crosses_from_e1000e_to_virtio_byte_exact,
     .init = setup2, .fini = teardown, .timeout = 300)
{
	port_up(vio, UNIC_RX_MODE_POLL, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	traffic(e1k, vio, 1514 - 60 + 1, len_all_sizes, 64, true);
}

Test(virtio_rig, a_hundred_thousand_frames_arrive_at_virtio_in_order,
     .init = setup3, .fini = teardown, .timeout = 600)
{
	uint64_t t0 = now_ms();
	uint64_t kicks = 0;

	port_up(vio, UNIC_RX_MODE_POLL, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	/* Fewer in flight than the ring holds: QEMU never queues a frame,
	 * so it never reorders them (a frame it queues while another port
	 * of the hub can receive may be overtaken at the flush). */
	traffic(e1k, vio, 100000, len_mixed, 192, false);
	unic_port_xstat_by_name(vio, "rx_q0_kicks", &kicks);
	printf("100000 frames e1000e -> virtio in %.1f s; rx kicks %" PRIu64 "\n", (now_ms() - t0) / 1000.0, kicks);
}

/*
 * More frames than the ring holds, sent while nobody receives: QEMU keeps
 * them (the device has no buffer; e1000e's tx has no completion callback,
 * so they queue in the hub) and wants a kick after the refill before it
 * delivers more. Every frame must arrive once; the order is QEMU's.
 */
Test(virtio_rig, frames_queued_while_the_ring_was_full_all_arrive_after_refills,
     .init = setup7, .fini = teardown, .timeout = 300)
{
	static uint8_t seen[2000];
	struct unic_pkt *pk[32];
	unsigned got = 0, strays = 0;
	uint64_t last;

	port_up(vio, UNIC_RX_MODE_POLL, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	for (uint32_t i = 0; i < 2000; i++) {
		send1(e1k, frame(len_mixed(i), i));
		unic_tx_reclaim(e1k, 0);
	}
	last = now_ms();
	while (got < 2000) {
		uint16_t n = unic_rx_burst(vio, 0, pk, 32);

		for (uint16_t i = 0; i < n; i++) {
			int64_t seq = frame_seq(pk[i]);

			if (seq < 0 || seq >= 2000) {
				strays++;
				continue;
			}
			cr_assert_eq(seen[seq], 0, "frame %" PRId64 " arrived twice", seq);
			cr_assert_eq(pk[i]->pkt_len, len_mixed((uint32_t)seq));
			seen[seq] = 1;
			got++;
		}
		unic_pkt_free_bulk(pk, n);
		if (n > 0)
			last = now_ms();
		cr_assert(now_ms() - last < 5000, "%u of 2000 frames, then nothing for 5 s: the device waits for a "
			  "kick the driver never gave? log: %s", got, logtail);
	}
	printf("2000 frames through a full ring: all arrived once (%u strays)\n", strays);
}

/* Interrupt mode: arm, re-check, sleep on the source (the MSI-X eventfd,
 * or over uio_pci_generic the INTx line, whose unmask reads ISR); each
 * frame must wake it, and no wake comes while disarmed. */
Test(virtio_rig, each_frame_after_the_arm_wakes_the_rx_interrupt_and_none_while_disarmed,
     .init = setup4, .fini = teardown, .timeout = 300)
{
	struct unic_intr_source src;
	struct rx_state st = { 0 };
	unsigned wakes = 0;
	int n;

	port_up(vio, UNIC_RX_MODE_INTERRUPT, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	n = unic_port_intr_sources(vio, &src, 1);
	cr_assert_eq(n, 1, "intr_sources: %d; log: %s", n, logtail);
	cr_assert(src.queue_mask & 1u);
	/* Strays first (frames QEMU kept for this NIC). */
	for (uint64_t end = now_ms() + 500; now_ms() < end;)
		rx_some(vio, &st, len_mixed, false);
	for (uint32_t i = 0; i < 100; i++) {
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };

		cr_assert_eq(unic_rx_intr_enable(vio, 0), 0);
		if (unic_rx_pending(vio, 0)) {
			rx_some(vio, &st, len_mixed, false);
			i--;
			continue;
		}
		send1(e1k, frame(len_mixed(st.next), st.next));
		unic_tx_reclaim(e1k, 0);
		cr_assert_eq(poll(&pfd, 1, 3000), 1, "cycle %u: armed, a frame sent, no interrupt in 3 s; log: %s", i,
			     logtail);
		/* Read as the source's kind says (UIO: 4 bytes, then unmask). */
		if (unic_intr_source_ack(&src) == 0)
			wakes++;
		cr_assert_eq(unic_rx_intr_disable(vio, 0), 0);
		for (uint64_t end = now_ms() + 2000; st.next <= i && now_ms() < end;)
			rx_some(vio, &st, len_mixed, false);
		cr_assert_eq(st.next, i + 1, "cycle %u: woken but the frame is not there", i);
	}
	/* Disarmed: frames arrive (polled), no wake. */
	{
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };

		for (uint32_t i = 0; i < 20; i++) {
			uint32_t want = st.next + 1;

			send1(e1k, frame(len_mixed(st.next), st.next));
			unic_tx_reclaim(e1k, 0);
			for (uint64_t end = now_ms() + 2000; st.next < want && now_ms() < end;)
				rx_some(vio, &st, len_mixed, false);
			cr_assert_eq(st.next, want, "disarmed: frame %u not received by polling", want - 1);
		}
		cr_assert_eq(poll(&pfd, 1, 200), 0, "disarmed, and the interrupt fired");
	}
	printf("100 arm/wake cycles, %u wakes read\n", wakes);
}

static unsigned link_events;

static void link_cb(struct unic_port *p, enum unic_event_type ev, void *arg)
{
	(void)p, (void)ev;
	__atomic_add_fetch((unsigned *)arg, 1, __ATOMIC_RELAXED);
}

static bool link_is(bool up, unsigned ms)
{
	struct unic_link l;

	for (uint64_t end = now_ms() + ms; now_ms() < end; usleep(20000))
		if (unic_port_link_get(vio, &l) == 0 && l.up == up)
			return true;
	return false;
}

Test(virtio_rig, set_link_on_the_qemu_monitor_shows_in_the_link_and_as_link_events,
     .init = setup5, .fini = teardown, .timeout = 120)
{
	char cmd[64];

	port_up(vio, UNIC_RX_MODE_POLL, 256, true);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	cr_assert_eq(unic_event_callback_register(vio, UNIC_EVENT_LINK, link_cb, &link_events), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	for (unsigned flap = 0; flap < 2; flap++) {
		snprintf(cmd, sizeof(cmd), "unic-vm link %s off", vio_nic);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cr_assert(link_is(false, 10000), "flap %u: the link still reads up 10 s after set_link off", flap);
		snprintf(cmd, sizeof(cmd), "unic-vm link %s on", vio_nic);
		cr_assert_eq(system(cmd), 0, "%s", cmd);
		cr_assert(link_is(true, 10000), "flap %u: the link still reads down 10 s after set_link on", flap);
	}
	for (uint64_t end = now_ms() + 2000; __atomic_load_n(&link_events, __ATOMIC_RELAXED) < 4 && now_ms() < end;)
		usleep(20000);
	cr_assert_geq(__atomic_load_n(&link_events, __ATOMIC_RELAXED), 4, "%u link events for two flaps; log: %s",
		      link_events, logtail);
	/* Frames pass again after the flaps. */
	traffic(e1k, vio, 200, len_mixed, 64, true);
	unic_event_thread_stop();
}

/* Wait until the link callback has run more than @p seen times. */
static bool link_event_after(const unsigned *events, unsigned seen, unsigned ms)
{
	for (uint64_t end = now_ms() + ms; now_ms() < end; usleep(20000))
		if (__atomic_load_n(events, __ATOMIC_RELAXED) > seen)
			return true;
	return false;
}

static void setup12(void) { setup_n(12); }

/* The cable back in whatever happened: a failed case must not leave the
 * link down for the cases after it. */
static void teardown_link_on(void)
{
	char cmd[64];

	snprintf(cmd, sizeof(cmd), "unic-vm link %s on", vio_nic);
	if (system(cmd) != 0)
		fprintf(stderr, "%s failed\n", cmd);
	teardown();
}

/*
 * Link events and rx interrupts at once, from the same device. Over INTx
 * (boot uio) one line and one ISR byte carry both causes: the event thread
 * owns the line, hands the configuration cause to the link handler and
 * relays the queue cause to the rx source (docs/virtio.md, "Interrupts").
 * Two cable pulls from outside (set_link on the QEMU monitor) must each
 * reach the callback, the link must read down and up, and afterwards each
 * frame after an arm must still wake the rx source, none while disarmed.
 */
Test(virtio_rig, cable_pulls_reach_the_link_callback_while_rx_interrupts_still_wake,
     .init = setup12, .fini = teardown_link_on, .timeout = 180)
{
	struct unic_intr_source src;
	struct rx_state st = { 0 };
	unsigned events = 0, seen = 0, wakes = 0;
	uint64_t le = 0, cc = 0;
	char cmd[64];
	int n;

	port_up(vio, UNIC_RX_MODE_INTERRUPT, 256, true);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	cr_assert_eq(unic_event_callback_register(vio, UNIC_EVENT_LINK, link_cb, &events), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	n = unic_port_intr_sources(vio, &src, 1);
	cr_assert_eq(n, 1, "intr_sources: %d; log: %s", n, logtail);
	for (unsigned flap = 0; flap < 2; flap++)
		for (unsigned up = 0; up < 2; up++) {
			snprintf(cmd, sizeof(cmd), "unic-vm link %s %s", vio_nic, up ? "on" : "off");
			cr_assert_eq(system(cmd), 0, "%s", cmd);
			cr_assert(link_is(up, 10000), "flap %u: the link does not read %s 10 s after %s", flap,
				  up ? "up" : "down", cmd);
			cr_assert(link_event_after(&events, seen, 5000),
				  "flap %u: %s did not reach the link callback within 5 s (%u events); log: %s", flap, cmd,
				  events, logtail);
			seen = __atomic_load_n(&events, __ATOMIC_RELAXED);
		}
	cr_assert_eq(unic_port_xstat_by_name(vio, "link_events", &le), 0);
	cr_assert_eq(unic_port_xstat_by_name(vio, "config_changes", &cc), 0);
	cr_assert_geq(le, 4, "link_events %" PRIu64 " after four changes", le);
	cr_assert_geq(cc, 4, "config_changes %" PRIu64 " after four changes", cc);

	/* Strays first (frames QEMU kept for this NIC), then arm/wake cycles. */
	for (uint64_t end = now_ms() + 500; now_ms() < end;)
		rx_some(vio, &st, len_mixed, false);
	for (uint32_t i = 0; i < 30; i++) {
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };

		cr_assert_eq(unic_rx_intr_enable(vio, 0), 0);
		if (unic_rx_pending(vio, 0)) {
			rx_some(vio, &st, len_mixed, false);
			i--;
			continue;
		}
		send1(e1k, frame(len_mixed(st.next), st.next));
		unic_tx_reclaim(e1k, 0);
		cr_assert_eq(poll(&pfd, 1, 3000), 1, "cycle %u: armed, a frame sent, no rx wake in 3 s; log: %s", i,
			     logtail);
		if (unic_intr_source_ack(&src) == 0)
			wakes++;
		cr_assert_eq(unic_rx_intr_disable(vio, 0), 0);
		for (uint64_t end = now_ms() + 2000; st.next <= i && now_ms() < end;)
			rx_some(vio, &st, len_mixed, false);
		cr_assert_eq(st.next, i + 1, "cycle %u: woken but the frame is not there", i);
	}
	{
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };

		for (uint32_t i = 0; i < 10; i++) {
			uint32_t want = st.next + 1;

			send1(e1k, frame(len_mixed(st.next), st.next));
			unic_tx_reclaim(e1k, 0);
			for (uint64_t end = now_ms() + 2000; st.next < want && now_ms() < end;)
				rx_some(vio, &st, len_mixed, false);
			cr_assert_eq(st.next, want, "disarmed: frame %u not received by polling", want - 1);
		}
		cr_assert_eq(poll(&pfd, 1, 200), 0, "disarmed, and the rx source fired");
	}
	unic_event_thread_stop();
	printf("4 link changes: %u callbacks, link_events %" PRIu64 ", config_changes %" PRIu64 "; 30 rx wakes, %u read\n",
	       events, le, cc, wakes);
}

/* ---- the napi engine on the virtio port ------------------------------------- */

struct napi_rx {
	struct rx_state st;   /* written by the napi thread only */
	uint32_t got;         /* st.next, published */
	int64_t bad_seq;      /* the first frame out of order, -1 */
	uint32_t bad_want;
	bool stop;
	int rc;
	struct unic_napi_ctx *ctx;
};

static uint16_t napi_rx_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg)
{
	struct napi_rx *r = arg;

	(void)port, (void)q;
	for (uint16_t i = 0; i < n; i++) {
		int64_t seq = frame_seq(pkts[i]);

		if (seq < 0)
			r->st.strays++;
		else if ((uint32_t)seq != r->st.next || pkts[i]->pkt_len != len_mixed((uint32_t)seq)) {
			if (r->bad_seq < 0)
				r->bad_seq = seq, r->bad_want = r->st.next;
		} else
			r->st.next++;
	}
	unic_pkt_free_bulk(pkts, n);
	__atomic_store_n(&r->got, r->st.next, __ATOMIC_RELEASE);
	return n;
}

static void *napi_rx_thread(void *arg)
{
	struct napi_rx *r = arg;

	r->rc = unic_napi_run(r->ctx, &r->stop);
	return NULL;
}

static void setup13(void) { setup_n(13); }

/*
 * A hybrid napi context on the virtio port, with link events on (over INTx
 * the rx wakes then come through the event thread's relay): bursts of
 * frames with idle gaps between them, so the context arms and sleeps at
 * each gap and must be woken by the rx interrupt. Every frame arrives, in
 * order, and the context counts interrupt wake-ups.
 */
Test(virtio_rig, a_hybrid_napi_context_sleeps_between_bursts_and_rx_interrupts_wake_it,
     .init = setup13, .fini = teardown, .timeout = 180)
{
	enum { BURSTS = 10, PER = 100 };
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "virtio-rig", .mode = UNIC_RX_MODE_HYBRID };
	struct unic_napi_ctx_stats cs;
	struct napi_rx r = { .bad_seq = -1 };
	pthread_t th;
	uint32_t sent = 0;
	int rc;

	port_up(vio, UNIC_RX_MODE_HYBRID, 256, true);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	cr_assert_eq(unic_event_thread_start(), 0);
	r.ctx = unic_napi_ctx_create(&nc);
	cr_assert_not_null(r.ctx, "napi context: %s; log: %s", strerror(errno), logtail);
	rc = unic_napi_queue_add(r.ctx, vio, 0, 64, napi_rx_handler, &r);
	cr_assert_eq(rc, 0, "napi queue add: %d; log: %s", rc, logtail);
	cr_assert_eq(pthread_create(&th, NULL, napi_rx_thread, &r), 0);
	usleep(300000); /* strays (frames QEMU kept for this NIC) go first */
	for (unsigned b = 0; b < BURSTS; b++) {
		uint64_t end = now_ms() + 5000;

		for (unsigned i = 0; i < PER; i++, sent++) {
			send1(e1k, frame(len_mixed(sent), sent));
			unic_tx_reclaim(e1k, 0);
		}
		while (__atomic_load_n(&r.got, __ATOMIC_ACQUIRE) < sent && r.bad_seq < 0 && now_ms() < end)
			usleep(2000);
		if (__atomic_load_n(&r.got, __ATOMIC_ACQUIRE) < sent || r.bad_seq >= 0)
			break;
		usleep(50000); /* idle: the context arms and sleeps */
	}
	__atomic_store_n(&r.stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(r.ctx);
	pthread_join(th, NULL);
	unic_event_thread_stop();
	cr_assert_eq(unic_napi_ctx_stats_get(r.ctx, &cs), 0);
	unic_napi_ctx_destroy(r.ctx);
	cr_assert_eq(r.rc, 0);
	cr_assert_lt(r.bad_seq, 0, "frame %" PRId64 " arrived where %u was expected", r.bad_seq, r.bad_want);
	cr_assert_eq(r.st.next, BURSTS * PER, "%u of %u frames handled (%" PRIu64 " sleeps, %" PRIu64
		     " interrupt wakes); log: %s", r.st.next, BURSTS * PER, cs.sleeps, cs.interrupts, logtail);
	cr_assert_geq(cs.interrupts, BURSTS / 2, "%" PRIu64 " interrupt wake-ups over %u bursts after idle gaps "
		      "(%" PRIu64 " sleeps, %" PRIu64 " wakeups); log: %s", cs.interrupts, BURSTS, cs.sleeps,
		      cs.wakeups, logtail);
	printf("napi: %u frames in %u bursts, %" PRIu64 " sleeps, %" PRIu64 " interrupt wakes, %" PRIu64
	       " re-checks caught\n", r.st.next, BURSTS, cs.sleeps, cs.interrupts, cs.rechecks_caught);
}

static void setup6(void) { setup_n(6); }

Test(virtio_rig, stop_and_start_again_five_times_and_frames_flow_each_time,
     .init = setup6, .fini = teardown, .timeout = 300)
{
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	for (unsigned cycle = 0; cycle < 5; cycle++) {
		port_up(vio, cycle % 2 ? UNIC_RX_MODE_HYBRID : UNIC_RX_MODE_POLL, cycle % 2 ? 128 : 256, false);
		test_no = 60 + cycle * 2;
		traffic(e1k, vio, 300, len_mixed, 64, true);
		test_no++;
		traffic(vio, e1k, 300, len_mixed, 64, true);
		cr_assert_eq(unic_port_stop(vio), 0, "stop, cycle %u; log: %s", cycle, logtail);
	}
}

/* ---- receive filters (the control queue) against QEMU's receive_filter ------- */

/* A tagged frame of ours to @p dst, with an 802.1Q tag of @p vlan if >= 0. */
static struct unic_pkt *frame_to(const uint8_t *dst, int vlan, uint32_t seq)
{
	struct unic_pkt *p = frame(128, seq);
	uint8_t *f = unic_pkt_mtod(p, uint8_t *);

	memcpy(f, dst, 6);
	if (vlan >= 0) {
		uint8_t tag[4] = { 0x81, 0x00, (uint8_t)(vlan >> 8), (uint8_t)vlan };

		f = (uint8_t *)unic_pkt_prepend(p, 4);
		cr_assert_not_null(f, "no headroom for a tag");
		memmove(f, f + 4, 12);
		memcpy(f + 12, tag, 4);
	}
	return p;
}

/* Ours (after an optional tag): @return its test number, -1 for a stray. */
static int64_t frame_test(const struct unic_pkt *p)
{
	const uint8_t *f = unic_pkt_mtod(p, const uint8_t *);
	unsigned at = (p->data_len >= 18 && f[12] == 0x81 && f[13] == 0x00) ? 4 : 0;
	uint32_t t;

	if (p->data_len < at + HDR + TAG_LEN || f[at + 12] != ETHERTYPE_TEST >> 8 ||
	    f[at + 13] != (ETHERTYPE_TEST & 0xff) || memcmp(f + at + HDR, MAGIC, 12) != 0 ||
	    memcmp(f + at + HDR + 12, run_id, 8) != 0)
		return -1;
	memcpy(&t, f + at + HDR + 20, 4);
	return t;
}

/*
 * Send 4 frames to @p dst (tagged @p vlan if >= 0) from the e1000e; QEMU
 * delivers (or filters) them while the e1000e's tail write runs, so after
 * 300 ms what came is all that will. @return how many of them the virtio
 * port received.
 */
static unsigned probe(const uint8_t *dst, int vlan)
{
	struct unic_pkt *pk[32];
	unsigned got = 0;
	uint64_t end;

	test_no++;
	for (uint32_t i = 0; i < 4; i++)
		send1(e1k, frame_to(dst, vlan, i));
	unic_tx_reclaim(e1k, 0);
	for (end = now_ms() + 300; now_ms() < end;) {
		uint16_t n = unic_rx_burst(vio, 0, pk, 32);

		for (uint16_t i = 0; i < n; i++)
			got += frame_test(pk[i]) == (int64_t)test_no;
		unic_pkt_free_bulk(pk, n);
		if (n == 0)
			usleep(1000);
	}
	return got;
}

#define TAKES(dst, vlan, what) \
	cr_assert_eq(probe(dst, vlan), 4, "%s: not received (test %u); log: %s", what, test_no, logtail)
#define DROPS(dst, vlan, what) \
	cr_assert_eq(probe(dst, vlan), 0, "%s: received (test %u); log: %s", what, test_no, logtail)

static void setup8(void) { setup_n(8); }

/*
 * QEMU 7.2's virtio-net resets to promiscuous and filters VLANs only when
 * promiscuous is off; the driver sends the port's settings at start (not
 * promiscuous until asked, as with DPDK). Each step is observed on frames
 * from the e1000e: what QEMU's receive_filter let through.
 */
Test(virtio_rig, receive_filters_set_through_the_control_queue_decide_what_the_virtio_port_receives,
     .init = setup8, .fini = teardown, .timeout = 300)
{
	static const uint8_t foreign[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x42 };
	static const uint8_t other[6] = { 0x02, 0x00, 0x00, 0x00, 0x00, 0x55 };
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };
	static const uint8_t mc_in[1][6] = { { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfb } };
	static const uint8_t mc_out[6] = { 0x01, 0x00, 0x5e, 0x00, 0x00, 0xfc };
	struct unic_port_info info;
	unsigned long long f;
	uint8_t mine[6];

	port_up_offloads(vio, UNIC_RX_MODE_POLL, 256, false, UNIC_RX_OFFLOAD_VLAN_FILTER);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	test_no = 800;
	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(vio, &info), 0);
	cr_assert_eq(sscanf(info.fw_version, "virtio1 f=%llx", &f), 1, "fw_version %s", info.fw_version);
	/* CTRL_VQ, CTRL_RX, CTRL_VLAN, CTRL_MAC_ADDR negotiated and shown. */
	cr_assert_eq(f & 0x8e0000ull, 0x8e0000ull, "control features not negotiated: %s", info.fw_version);
	printf("virtio port: %s\n", info.fw_version);
	cr_assert_eq(unic_port_mac_get(vio, mine), 0);

	/* Not promiscuous after start: its own address and broadcast only. */
	TAKES(mine, -1, "a frame to the port's MAC, promiscuous off");
	TAKES(bcast, -1, "broadcast, promiscuous off");
	DROPS(foreign, -1, "a frame to a foreign MAC, promiscuous off");
	cr_assert_eq(unic_port_promisc_set(vio, true), 0, "log: %s", logtail);
	TAKES(foreign, -1, "a frame to a foreign MAC, promiscuous on");
	TAKES(mine, -1, "a frame to the port's MAC, promiscuous on");
	cr_assert_eq(unic_port_promisc_set(vio, false), 0, "log: %s", logtail);
	DROPS(foreign, -1, "a frame to a foreign MAC, promiscuous off again");

	/* Multicast: the list, then all-multicast. */
	DROPS(mc_in[0], -1, "a multicast frame, empty list");
	cr_assert_eq(unic_port_mc_addr_list_set(vio, mc_in, 1), 0, "log: %s", logtail);
	TAKES(mc_in[0], -1, "a multicast frame to an address in the list");
	DROPS(mc_out, -1, "a multicast frame to an address not in the list");
	cr_assert_eq(unic_port_allmulti_set(vio, true), 0, "log: %s", logtail);
	TAKES(mc_out, -1, "a multicast frame not in the list, all-multicast on");
	DROPS(foreign, -1, "a foreign unicast frame, all-multicast on");
	cr_assert_eq(unic_port_allmulti_set(vio, false), 0, "log: %s", logtail);
	DROPS(mc_out, -1, "a multicast frame not in the list, all-multicast off");

	/* Unicast: an added address, then a new port address. */
	cr_assert_eq(unic_port_mac_add(vio, foreign), 0, "log: %s", logtail);
	TAKES(foreign, -1, "a frame to an added unicast address");
	TAKES(mc_in[0], -1, "the multicast list kept by mac_add");
	cr_assert_eq(unic_port_mac_remove(vio, foreign), 0, "log: %s", logtail);
	DROPS(foreign, -1, "a frame to a removed unicast address");
	cr_assert_eq(unic_port_mac_set(vio, other), 0, "log: %s", logtail);
	TAKES(other, -1, "a frame to the new port MAC");
	DROPS(mine, -1, "a frame to the old port MAC");

	/* VLAN filter (promiscuous off): only the ids added. */
	DROPS(other, 100, "VLAN 100 before vlan_filter_set");
	cr_assert_eq(unic_port_vlan_filter_set(vio, 100, true), 0, "log: %s", logtail);
	TAKES(other, 100, "VLAN 100 after vlan_filter_set(100, on)");
	DROPS(other, 101, "VLAN 101, not added");

	/* Stop and start: QEMU's reset forgets everything; the driver sends it again. */
	cr_assert_eq(unic_port_stop(vio), 0);
	cr_assert_eq(unic_port_start(vio), 0, "restart; log: %s", logtail);
	TAKES(other, 100, "VLAN 100 after stop and start");
	TAKES(other, -1, "the new port MAC after stop and start");
	DROPS(mine, -1, "the old port MAC after stop and start");
	DROPS(foreign, -1, "a foreign MAC after stop and start (promiscuous stays off)");
	TAKES(mc_in[0], -1, "the multicast list after stop and start");
	cr_assert_eq(unic_port_mac_set(vio, mine), 0, "log: %s", logtail);
	printf("receive filters: %u probes as expected\n", test_no - 800);
}

/*
 * A process killed with SIGKILL in the middle of traffic (its rings live,
 * its device never reset by it): the next process takes the virtio-net
 * over and frames flow both ways. The kernel closes the dead process's
 * VFIO files; the new one's attach resets the device (status 0 and the
 * wait for it to read back 0) before anything else.
 */
Test(virtio_rig, after_a_sigkill_mid_traffic_a_second_process_drives_the_device, .timeout = 300)
{
	int pfd[2];
	pid_t child;
	char c = 0;
	int status, rc;
	struct pollfd pw;

	if (getenv("UNIC_VM_ACCESS") == NULL)
		cr_skip_test("UNIC_VM_ACCESS is not set: not in the rig's guest");
	cr_assert_eq(pipe(pfd), 0);
	child = fork();
	cr_assert_geq(child, 0, "fork: %s", strerror(errno));
	if (child == 0) {
		struct rx_state st = { 0 };
		uint32_t seq = 0;
		bool told = false;

		close(pfd[0]);
		setup_n(8);
		port_up(vio, UNIC_RX_MODE_POLL, 256, false);
		port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
		for (;;) {
			struct unic_pkt *p = frame(len_mixed(seq), seq);

			if (unic_tx_burst(vio, 0, &p, 1) == 1)
				seq++;
			else
				unic_pkt_free(p);
			unic_tx_reclaim(vio, 0);
			rx_some(e1k, &st, len_mixed, false);
			if (st.next >= 100 && !told) {
				if (write(pfd[1], "r", 1) != 1)
					_exit(3);
				told = true;
			}
		}
	}
	close(pfd[1]);
	pw = (struct pollfd){ .fd = pfd[0], .events = POLLIN };
	rc = poll(&pw, 1, 120000);
	if (rc == 1)
		rc = (int)read(pfd[0], &c, 1);
	/* Killed whatever happened: a live first process would hold both
	 * devices for the tests after this one. */
	kill(child, SIGKILL);
	cr_assert_eq(waitpid(child, &status, 0), child);
	cr_assert_eq(rc, 1, "the first process did not carry 100 frames within 120 s (or ended: 0x%x)", status);
	cr_assert(WIFSIGNALED(status) && WTERMSIG(status) == SIGKILL, "the first process ended otherwise: 0x%x",
		  status);
	close(pfd[0]);
	setup_n(9);
	port_up(vio, UNIC_RX_MODE_POLL, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	traffic(e1k, vio, 500, len_mixed, 64, true);
	test_no = 10;
	traffic(vio, e1k, 500, len_mixed, 64, true);
	teardown();
}

/*
 * The virtio-net is unbound from vfio-pci while a hybrid napi context
 * receives on it and the e1000e sends to it: the unbind completes within
 * 5 s (the bus hands the device back), the port is stopped with its poller
 * released, the application hears UNIC_EVENT_DEV_REQUEST, its stats still
 * read, and the e1000e keeps sending. Bound again at the end, so the name
 * sorts it last among these cases.
 */
struct unbind_run {
	bool stop;
	uint64_t handled, sent;
	unsigned requests;
	int rc;
	struct unic_napi_ctx *ctx;
};

static uint16_t unbind_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n, void *arg)
{
	struct unbind_run *u = arg;

	(void)port, (void)q;
	unic_pkt_free_bulk(pkts, n);
	__atomic_fetch_add(&u->handled, n, __ATOMIC_RELAXED);
	return n;
}

static void *unbind_sender(void *arg)
{
	struct unbind_run *u = arg;
	uint32_t seq = 0;

	while (!__atomic_load_n(&u->stop, __ATOMIC_RELAXED)) {
		struct unic_pkt *p = frame(len_mixed(seq), seq);

		if (unic_tx_burst(e1k, 0, &p, 1) == 1) {
			seq++;
			__atomic_fetch_add(&u->sent, 1, __ATOMIC_RELAXED);
		} else {
			unic_pkt_free(p);
			unic_tx_reclaim(e1k, 0);
		}
		usleep(200);
	}
	return NULL;
}

static void *unbind_napi(void *arg)
{
	struct unbind_run *u = arg;

	u->rc = unic_napi_run(u->ctx, &u->stop);
	return NULL;
}

static void unbind_request_cb(struct unic_port *port, enum unic_event_type ev, void *arg)
{
	(void)port;
	if (ev == UNIC_EVENT_DEV_REQUEST)
		__atomic_fetch_add(&((struct unbind_run *)arg)->requests, 1, __ATOMIC_RELAXED);
}

static void setup11(void) { setup_n(11); }

Test(virtio_rig, unbinding_the_virtio_net_under_traffic_stops_its_port_and_the_process_goes_on,
     .init = setup11, .fini = teardown, .timeout = 300)
{
	struct unic_napi_conf nc = { .sz = sizeof(nc), .name = "unbind", .mode = UNIC_RX_MODE_HYBRID };
	struct unbind_run u = { 0 };
	struct unic_port_info info;
	struct unic_port_stats st;
	struct unic_link link;
	struct guest_unbind ub;
	pthread_t snd, napi;
	uint64_t end, handled, sent;
	char drv[64];
	int rc;

	port_up(vio, UNIC_RX_MODE_HYBRID, 256, false);
	port_up(e1k, UNIC_RX_MODE_POLL, 512, false);
	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(vio, &info), 0);
	u.ctx = unic_napi_ctx_create(&nc);
	cr_assert_not_null(u.ctx, "napi context: %s; log: %s", strerror(errno), logtail);
	rc = unic_napi_queue_add(u.ctx, vio, 0, 64, unbind_handler, &u);
	cr_assert_eq(rc, 0, "napi queue add: %d; log: %s", rc, logtail);
	cr_assert_eq(unic_event_callback_register(vio, UNIC_EVENT_DEV_REQUEST, unbind_request_cb, &u), 0);
	cr_assert_eq(unic_event_thread_start(), 0);
	cr_assert_eq(pthread_create(&napi, NULL, unbind_napi, &u), 0);
	cr_assert_eq(pthread_create(&snd, NULL, unbind_sender, &u), 0);
	for (end = now_ms() + 20000; __atomic_load_n(&u.handled, __ATOMIC_RELAXED) < 2000 && now_ms() < end;)
		usleep(10000);
	cr_assert_geq(u.handled, 2000, "traffic did not flow: %" PRIu64 " handled, %" PRIu64 " sent; log: %s",
		      u.handled, u.sent, logtail);

	cr_assert_eq(guest_unbind_start(&ub, info.bus_addr), 0);
	for (end = now_ms() + 10000; !__atomic_load_n(&ub.done, __ATOMIC_ACQUIRE) && now_ms() < end;)
		usleep(10000);
	cr_assert(ub.done, "the unbind of %s did not complete within 10 s; log: %s", ub.bdf, logtail);
	pthread_join(ub.thread, NULL);
	cr_assert_eq(ub.err, 0, "unbind: %s", strerror(ub.err));
	cr_assert_lt(ub.took, 5.0, "the unbind took %.1f s", ub.took);
	cr_assert_neq(guest_pci_link(ub.bdf, "driver", drv, sizeof(drv)), 0, "%s is still bound (to %s)", ub.bdf, drv);
	cr_assert_eq(unic_port_state(vio), UNIC_PORT_READY, "the port was not stopped; log: %s", logtail);
	for (end = now_ms() + 2000; __atomic_load_n(&u.requests, __ATOMIC_RELAXED) == 0 && now_ms() < end;)
		usleep(10000);
	cr_assert_eq(u.requests, 1, "UNIC_EVENT_DEV_REQUEST reached the callback %u times", u.requests);
	handled = __atomic_load_n(&u.handled, __ATOMIC_RELAXED);
	usleep(100000);
	cr_assert_eq(__atomic_load_n(&u.handled, __ATOMIC_RELAXED), handled, "packets handled after the release");
	cr_assert_eq(unic_port_link_get(vio, &link), -ENODEV);
	cr_assert_eq(unic_port_start(vio), -ENODEV);
	cr_assert_eq(unic_port_stats_get(vio, &st), 0);
	cr_assert_geq(st.ipackets, 2000, "stats after the release: %" PRIu64 " received", st.ipackets);
	sent = __atomic_load_n(&u.sent, __ATOMIC_RELAXED);
	usleep(200000);
	cr_assert_gt(__atomic_load_n(&u.sent, __ATOMIC_RELAXED), sent, "the e1000e stopped sending");

	__atomic_store_n(&u.stop, true, __ATOMIC_RELEASE);
	unic_napi_wake(u.ctx);
	pthread_join(snd, NULL);
	pthread_join(napi, NULL);
	cr_assert_eq(u.rc, 0);
	unic_event_thread_stop();
	unic_event_callback_unregister(vio, UNIC_EVENT_DEV_REQUEST, unbind_request_cb, &u);
	unic_napi_ctx_destroy(u.ctx);
	printf("unbind of %s under traffic: %.2f s\n", ub.bdf, ub.took);
	cr_assert_eq(guest_rebind(ub.bdf), 0, "drivers_probe of %s", ub.bdf);
	cr_assert_eq(guest_pci_link(ub.bdf, "driver", drv, sizeof(drv)), 0);
	cr_assert_str_eq(drv, "vfio-pci", "%s bound to %s after drivers_probe", ub.bdf, drv);
}
