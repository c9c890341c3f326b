/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The virtio-net driver over a packed virtqueue in the QEMU rig's guest:
 * boot vfio-aw48 has nic1, a virtio-net-pci with packed=on, and nic2, a
 * split-ring one, both on hub 1 (modern, iommu_platform=on, each behind a
 * root port, over VFIO behind a 48-bit intel-iommu). Both are driven by
 * unic, so every frame leaves one ring format and enters the other through
 * QEMU. The packed port is nic1; what each negotiated is checked first
 * (the port info's feature bits), so a packed test never passes over a
 * split ring.
 *
 * Frames are tagged (EtherType 0x88b5, magic, this run's id, the test's
 * number, a sequence number) and filled with a pattern of the sequence
 * number, so the receiver checks every byte; anything else is a stray and
 * is counted apart.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <stdarg.h>
#include <inttypes.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/log.h>
#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "log_capture.h"

#define ETHERTYPE_TEST 0x88b5
#define MAGIC "unic-vpackd."
#define HDR 14
#define TAG_LEN (12 + 8 + 4 + 4 + 4) /* magic, run, test, seq, len */
#define F_RING_PACKED 34
#define F_INDIRECT_DESC 28

static struct unic_mem *mem;
static struct unic_bus *bus;
static struct unic_pool *pool;
static struct unic_port *pkd, *spl;   /* nic1 (packed=on), nic2 (split) */
static char run_id[9];
static uint32_t test_no;

static uint64_t now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000 + (uint64_t)ts.tv_nsec / 1000000;
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


/* A line for the scenario's report (/tmp/virtio-packed-report.txt). */
static void report(const char *fmt, ...)
{
	FILE *f = fopen("/tmp/virtio-packed-report.txt", "a");
	va_list ap;

	if (f == NULL)
		return;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fclose(f);
}

/* The PCI address of NIC @p name in /etc/unic-vm/nics. */
static void nic_bdf(const char *name, char *bdf, size_t len)
{
	char line[256], n[32], b[32], m[32];
	FILE *f = popen("unic-vm nics", "r");

	cr_assert_not_null(f, "unic-vm nics");
	bdf[0] = '\0';
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "%31s %31s %31s", n, b, m) == 3 && strcmp(n, name) == 0 && strcmp(m, "virtio-net") == 0)
			snprintf(bdf, len, "%s", b);
	pclose(f);
	cr_assert(bdf[0], "no virtio-net %s in unic-vm nics", name);
}

/* The features a port negotiated, from its info (docs/virtio.md). */
static uint64_t features(struct unic_port *p)
{
	struct unic_port_info info;
	unsigned long long f = 0;

	memset(&info, 0, sizeof(info));
	cr_assert_eq(unic_port_info_get(p, &info), 0);
	cr_assert_eq(sscanf(info.fw_version, "virtio1 f=%llx", &f), 1, "fw_version \"%s\"", info.fw_version);
	return f;
}

static void setup_n(uint32_t n)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "vpacked-rig", .count = 8192, .cache_size = 0 };
	char b_pk[32], b_sp[32];
	const char *allow[2] = { b_pk, b_sp };
	const char *run = getenv("UNIC_VM_RUN");
	struct unic_port *ports[2];
	struct unic_port_info info;
	int rc;

	if (getenv("UNIC_VM_ACCESS") == NULL)
		cr_skip_test("UNIC_VM_ACCESS is not set: not in the rig's guest");
	test_no = n;
	snprintf(run_id, sizeof(run_id), "%.8s", run ? run : "norun000");
	logtail_start(true);
	nic_bdf("nic1", b_pk, sizeof(b_pk));
	nic_bdf("nic2", b_sp, sizeof(b_sp));
	mc.iova_mode = UNIC_IOVA_VA;
	mem = unic_mem_create(&mc);
	cr_assert_not_null(mem, "unic_mem_create: %s", strerror(errno));
	bc.mem = mem;
	bus = unic_bus_create(&bc);
	cr_assert_not_null(bus, "unic_bus_create: %s", strerror(errno));
	rc = unic_port_probe_pci(bus, allow, 2, ports, 2);
	cr_assert_eq(rc, 2, "probe of %s and %s: %d (%s); log: %s", b_pk, b_sp, rc, strerror(rc < 0 ? -rc : 0),
		     logtail);
	for (int i = 0; i < 2; i++) {
		memset(&info, 0, sizeof(info));
		unic_port_info_get(ports[i], &info);
		cr_assert_str_eq(info.driver, "virtio");
		if (strcmp(info.bus_addr, b_pk) == 0)
			pkd = ports[i];
		else
			spl = ports[i];
	}
	cr_assert(pkd && spl, "expected the ports of %s and %s; log: %s", b_pk, b_sp, logtail);
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool, "unic_pktpool_create: %s; log: %s", strerror(errno), logtail);
}

static void teardown(void)
{
	struct unic_port *p[2] = { pkd, spl };

	for (int i = 0; i < 2; i++) {
		if (p[i] == NULL)
			continue;
		if (unic_port_state(p[i]) == UNIC_PORT_STARTED)
			unic_port_stop(p[i]);
		unic_port_detach(p[i]);
		unic_port_put(p[i]);
	}
	pkd = spl = NULL;
	unic_pool_destroy(pool);
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	pool = NULL, bus = NULL, mem = NULL;
}

static void port_up_mtu(struct unic_port *p, enum unic_rx_mode mode, uint16_t nb_desc, uint16_t mtu)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1, .rx_mode = mode, .mtu = mtu,
				       .rx_offloads = mtu > 1500 ? UNIC_RX_OFFLOAD_SCATTER : 0,
				       .tx_offloads = UNIC_TX_OFFLOAD_MULTI_SEGS };
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
	r = unic_port_link_wait(p, 5000, &link);
	cr_assert_eq(r, 0, "link of %s not up within 5 s", unic_port_name(p));
}

static void port_up(struct unic_port *p, enum unic_rx_mode mode, uint16_t nb_desc)
{
	port_up_mtu(p, mode, nb_desc, 1500);
}

/* nic1 runs a packed ring: a packed test never passes over a split one. */
static void assert_packed(void)
{
	uint64_t f = features(pkd);

	cr_assert(f & (1ull << F_RING_PACKED), "nic1 (packed=on) negotiated 0x%" PRIx64 ": no RING_PACKED", f);
}

static void both_up(void)
{
	port_up(pkd, UNIC_RX_MODE_POLL, 256);
	port_up(spl, UNIC_RX_MODE_POLL, 256);
	assert_packed();
}

static uint64_t xstat(struct unic_port *p, const char *name)
{
	uint64_t v = 0;

	cr_assert_eq(unic_port_xstat_by_name(p, name, &v), 0, "%s: no xstat %s", unic_port_name(p), name);
	return v;
}

/* Nothing either device wrote was refused. */
static void rings_clean(void)
{
	struct unic_port *p[2] = { pkd, spl };

	for (int i = 0; i < 2; i++) {
		cr_assert_eq(xstat(p[i], "rx_q0_bad_used"), 0, "%s", unic_port_name(p[i]));
		cr_assert_eq(xstat(p[i], "tx_q0_bad_used"), 0, "%s", unic_port_name(p[i]));
		cr_assert_eq(xstat(p[i], "rx_q0_len_errors"), 0, "%s", unic_port_name(p[i]));
	}
}

/* ---- tests ------------------------------------------------------------------ */

static void setup1(void) { setup_n(1); }
static void setup2(void) { setup_n(2); }
static void setup3(void) { setup_n(3); }
static void setup4(void) { setup_n(4); }
static void setup5(void) { setup_n(5); }
static void setup6(void) { setup_n(6); }
static void setup7(void) { setup_n(7); }
static void setup8(void) { setup_n(8); }

Test(virtio_packed_rig, nic1_negotiates_the_packed_ring_and_nic2_the_split_one, .init = setup1, .fini = teardown)
{
	uint64_t fp, fs;

	both_up();
	fp = features(pkd);
	fs = features(spl);
	cr_assert(fp & (1ull << F_RING_PACKED), "nic1 (packed=on) negotiated 0x%" PRIx64 ": no RING_PACKED", fp);
	cr_assert_eq(fs & (1ull << F_RING_PACKED), 0, "nic2 negotiated RING_PACKED (0x%" PRIx64 ")", fs);
	cr_assert(fp & (1ull << F_INDIRECT_DESC), "nic1 negotiated 0x%" PRIx64 ": no INDIRECT_DESC", fp);
	report("nic1 (packed=on) negotiated 0x%" PRIx64 ", nic2 (split) 0x%" PRIx64 "\n", fp, fs);
}

Test(virtio_packed_rig, every_frame_size_from_60_to_1514_crosses_packed_to_split_byte_exact,
     .init = setup2, .fini = teardown, .timeout = 300)
{
	both_up();
	traffic(pkd, spl, 1514 - 60 + 1, len_all_sizes, 64, true);
	rings_clean();
}

Test(virtio_packed_rig, every_frame_size_from_60_to_1514_crosses_split_to_packed_byte_exact,
     .init = setup3, .fini = teardown, .timeout = 300)
{
	both_up();
	traffic(spl, pkd, 1514 - 60 + 1, len_all_sizes, 64, true);
	rings_clean();
}

/* A jumbo frame of @p len bytes as a chain of 2000-byte segments. */
static struct unic_pkt *jumbo(uint32_t len, uint32_t seq)
{
	static uint8_t f[9100];
	struct unic_pkt *head = NULL, *tail = NULL;

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
	for (uint32_t at = 0; at < len; at += 2000) {
		uint16_t n = (uint16_t)(len - at < 2000 ? len - at : 2000);
		struct unic_pkt *s = unic_pkt_alloc(pool);

		cr_assert_not_null(s, "the pool is empty");
		memcpy(unic_pkt_append(s, n), f + at, n);
		if (head == NULL) {
			head = tail = s;
		} else {
			tail->next = s;
			tail = s;
			head->nb_segs++;
			head->pkt_len += n;
		}
	}
	return head;
}

static void jumbo_check(const struct unic_pkt *p, uint32_t seq, uint32_t len)
{
	static uint8_t f[9100];
	uint32_t at = 0;

	cr_assert_eq(p->pkt_len, len, "frame %u: %" PRIu32 " bytes, %u sent", seq, p->pkt_len, len);
	for (const struct unic_pkt *s = p; s != NULL; s = s->next) {
		cr_assert_leq(at + s->data_len, sizeof(f));
		memcpy(f + at, unic_pkt_mtod(s, const uint8_t *), s->data_len);
		at += s->data_len;
	}
	cr_assert_eq(at, len);
	for (uint32_t i = HDR + TAG_LEN; i < len; i++)
		cr_assert_eq(f[i], pattern(seq, i), "frame %u (%u bytes): byte %u is 0x%02x, sent 0x%02x", seq, len, i,
			     f[i], pattern(seq, i));
}

static uint32_t len_jumbo(uint32_t seq)
{
	return 1515 + (seq * 911) % (9014 - 1515 + 1);
}

static void jumbo_traffic(struct unic_port *tx, struct unic_port *rx, uint32_t count)
{
	struct unic_pkt *pkts[8];
	uint32_t next = 0, strays = 0;

	for (uint32_t seq = 0; seq < count; seq++) {
		send1(tx, jumbo(len_jumbo(seq), seq));
		for (uint64_t end = now_ms() + 5000; next <= seq;) {
			uint16_t n = unic_rx_burst(rx, 0, pkts, 8);

			for (uint16_t i = 0; i < n; i++) {
				int64_t s = frame_seq(pkts[i]);

				if (s < 0) {
					strays++;
					continue;
				}
				cr_assert_eq((uint32_t)s, next, "frame %" PRId64 " arrived where %u was due", s, next);
				jumbo_check(pkts[i], next, len_jumbo(next));
				next++;
			}
			unic_pkt_free_bulk(pkts, n);
			unic_tx_reclaim(tx, 0);
			cr_assert(now_ms() < end, "%s -> %s: jumbo frame %u (%u bytes) not there after 5 s; log: %s",
				  unic_port_name(tx), unic_port_name(rx), seq, len_jumbo(seq), logtail);
		}
	}
	(void)strays;
}

Test(virtio_packed_rig, jumbo_frames_cross_both_ways_chained_and_through_indirect_tables,
     .init = setup4, .fini = teardown, .timeout = 300)
{
	uint64_t oversize;

	port_up_mtu(pkd, UNIC_RX_MODE_POLL, 256, 9000);
	port_up_mtu(spl, UNIC_RX_MODE_POLL, 256, 9000);
	assert_packed();
	/* Sent as chains of 2000-byte segments: the packed port puts each
	 * in one indirect table, the split one in a descriptor chain; both
	 * receive over mergeable buffers. */
	jumbo_traffic(pkd, spl, 200);
	test_no = 40;
	jumbo_traffic(spl, pkd, 200);
	oversize = xstat(pkd, "rx_q0_oversize") + xstat(spl, "rx_q0_oversize");
	report("400 jumbo frames (1515..9014 bytes) both ways; packed rx frames over %" PRIu64 " kicks\n",
	       xstat(pkd, "rx_q0_kicks"));
	cr_assert_eq(oversize, 0);
	rings_clean();
}

Test(virtio_packed_rig, a_hundred_thousand_frames_arrive_at_the_packed_port_in_order,
     .init = setup5, .fini = teardown, .timeout = 900)
{
	uint64_t t0 = now_ms(), kicks, supp;

	both_up();
	traffic(spl, pkd, 100000, len_mixed, 192, false);
	kicks = xstat(pkd, "rx_q0_kicks");
	supp = xstat(pkd, "rx_q0_kicks_suppressed");
	report("100000 frames split -> packed in %.1f s; packed rx kicks %" PRIu64 ", suppressed %" PRIu64 "\n",
	       (now_ms() - t0) / 1000.0, kicks, supp);
	cr_assert_lt(kicks, 100000 / 32, "a kick for most refills: the device's event suppression ignored");
	t0 = now_ms();
	test_no = 50;
	traffic(pkd, spl, 20000, len_mixed, 192, false);
	report("20000 frames packed -> split in %.1f s; packed tx kicks %" PRIu64 "\n", (now_ms() - t0) / 1000.0,
	       xstat(pkd, "tx_q0_kicks"));
	rings_clean();
}

Test(virtio_packed_rig, each_frame_after_the_arm_wakes_the_packed_rx_interrupt_and_none_while_disarmed,
     .init = setup6, .fini = teardown, .timeout = 300)
{
	struct unic_intr_source src;
	struct rx_state st = { 0 };
	unsigned wakes = 0;
	int n;

	port_up(pkd, UNIC_RX_MODE_INTERRUPT, 256);
	port_up(spl, UNIC_RX_MODE_POLL, 256);
	assert_packed();
	n = unic_port_intr_sources(pkd, &src, 1);
	cr_assert_eq(n, 1, "intr_sources: %d; log: %s", n, logtail);
	for (uint64_t end = now_ms() + 500; now_ms() < end;)
		rx_some(pkd, &st, len_mixed, false);
	/* 300 cycles: the armed position goes round the ring of 256. */
	for (uint32_t i = 0; i < 300; i++) {
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };
		uint64_t v;

		cr_assert_eq(unic_rx_intr_enable(pkd, 0), 0);
		if (unic_rx_pending(pkd, 0)) {
			rx_some(pkd, &st, len_mixed, false);
			i--;
			continue;
		}
		send1(spl, frame(len_mixed(st.next), st.next));
		unic_tx_reclaim(spl, 0);
		cr_assert_eq(poll(&pfd, 1, 3000), 1, "cycle %u: armed, a frame sent, no interrupt in 3 s; log: %s", i,
			     logtail);
		if (read(src.fd, &v, sizeof(v)) == (ssize_t)sizeof(v))
			wakes++;
		if (src.unmask)
			src.unmask(src.unmask_ctx);
		cr_assert_eq(unic_rx_intr_disable(pkd, 0), 0);
		for (uint64_t end = now_ms() + 2000; st.next <= i && now_ms() < end;)
			rx_some(pkd, &st, len_mixed, false);
		cr_assert_eq(st.next, i + 1, "cycle %u: woken but the frame is not there", i);
	}
	{
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };

		for (uint32_t i = 0; i < 20; i++) {
			uint32_t want = st.next + 1;

			send1(spl, frame(len_mixed(st.next), st.next));
			unic_tx_reclaim(spl, 0);
			for (uint64_t end = now_ms() + 2000; st.next < want && now_ms() < end;)
				rx_some(pkd, &st, len_mixed, false);
			cr_assert_eq(st.next, want, "disarmed: frame %u not received by polling", want - 1);
		}
		cr_assert_eq(poll(&pfd, 1, 200), 0, "disarmed, and the interrupt fired");
	}
	report("300 arm/wake cycles on the packed ring, %u wakes read\n", wakes);
	rings_clean();
}

/*
 * Moderation on the packed ring against QEMU 7.2 (docs/virtio.md,
 * "Moderation"): rx_max_frames 4 makes each arm name, in the driver event
 * suppression structure, the position 3 past the next one the driver
 * reads; frames sent one at a time (one buffer each) wake the packed port
 * at the 4th, not before, lap after lap of the ring. QEMU also notifies
 * at the first check after a reset and at the flush that crosses the
 * ring's end, whatever the event (signalled_used_valid cleared): those
 * early wakes are counted, at most one per crossing and one at the start.
 */
Test(virtio_packed_rig, under_moderation_of_4_frames_the_packed_port_wakes_at_the_4th_frame_lap_after_lap,
     .init = setup8, .fini = teardown, .timeout = 300)
{
	struct unic_intr_source src;
	struct rx_state st = { 0 };
	struct unic_coalesce co = { .rx_usecs = 1000, .rx_max_frames = 4 };
	const uint32_t cycles = 140; /* 560 buffers: two crossings of a ring of 256 */
	unsigned early = 0, on_time = 0;
	uint32_t early_at[8] = { 0 };
	int n;

	port_up(pkd, UNIC_RX_MODE_INTERRUPT, 256);
	port_up(spl, UNIC_RX_MODE_POLL, 256);
	assert_packed();
	cr_assert_eq(unic_port_coalesce_set(pkd, &co), 0, "coalesce on the packed port; log: %s", logtail);
	n = unic_port_intr_sources(pkd, &src, 1);
	cr_assert_eq(n, 1, "intr_sources: %d; log: %s", n, logtail);
	for (uint64_t end = now_ms() + 500; now_ms() < end;)
		rx_some(pkd, &st, len_mixed, false);
	for (uint32_t c = 0; c < cycles; c++) {
		struct pollfd pfd = { .fd = src.fd, .events = POLLIN };
		uint32_t first = st.next, k;
		uint64_t v;

		cr_assert_eq(unic_rx_intr_enable(pkd, 0), 0);
		cr_assert_not(unic_rx_pending(pkd, 0), "cycle %u: a frame before the arm", c);
		for (k = 1; k <= 4; k++) {
			send1(spl, frame(len_mixed(first + k - 1), first + k - 1));
			unic_tx_reclaim(spl, 0);
			if (k == 4) {
				cr_assert_eq(poll(&pfd, 1, 3000), 1,
					     "cycle %u: armed for 4 frames, the 4th sent, no interrupt in 3 s; log: %s", c,
					     logtail);
				on_time++;
				break;
			}
			/* The frame is in the ring (k buffers used) before "no
			 * interrupt" is judged. */
			for (uint64_t end = now_ms() + 2000; unic_port_rx_queue_count(pkd, 0) < (int)k && now_ms() < end;)
				;
			cr_assert_eq(unic_port_rx_queue_count(pkd, 0), (int)k, "cycle %u: frame %u not in the ring after 2 s",
				     c, k);
			if (poll(&pfd, 1, 60) == 1) {
				if (early < UNIC_ARRAY_SIZE(early_at))
					early_at[early] = first + k; /* buffers used by then */
				early++;
				break;
			}
		}
		if (read(src.fd, &v, sizeof(v)) != (ssize_t)sizeof(v))
			cr_assert_fail("cycle %u: woken, and the eventfd holds nothing", c);
		if (src.unmask)
			src.unmask(src.unmask_ctx);
		cr_assert_eq(unic_rx_intr_disable(pkd, 0), 0);
		for (uint64_t end = now_ms() + 2000; st.next < first + k && now_ms() < end;)
			rx_some(pkd, &st, len_mixed, false);
		cr_assert_eq(st.next, first + k, "cycle %u: %u frames sent, %u received", c, k, st.next - first);
	}
	report("moderation of 4 frames on the packed ring: %u cycles, %u woken at the 4th frame, %u early "
	       "(QEMU's notification at a crossing of the ring's end or its first after a reset), %u frames; "
	       "early at buffer %u, %u, %u\n",
	       cycles, on_time, early, st.next, early_at[0], early_at[1], early_at[2]);
	cr_assert_leq(early, 1 + st.next / 256 + 1, "%u early wakes over %u frames", early, st.next);
	rings_clean();
}

Test(virtio_packed_rig, stop_and_start_the_packed_port_five_times_and_frames_flow_each_time,
     .init = setup7, .fini = teardown, .timeout = 300)
{
	port_up(spl, UNIC_RX_MODE_POLL, 256);
	for (unsigned cycle = 0; cycle < 5; cycle++) {
		port_up(pkd, cycle % 2 ? UNIC_RX_MODE_HYBRID : UNIC_RX_MODE_POLL, cycle % 2 ? 128 : 256);
		assert_packed();
		test_no = 70 + cycle * 2;
		traffic(spl, pkd, 300, len_mixed, 64, true);
		test_no++;
		traffic(pkd, spl, 300, len_mixed, 64, true);
		cr_assert_eq(unic_port_stop(pkd), 0, "stop, cycle %u; log: %s", cycle, logtail);
	}
}
