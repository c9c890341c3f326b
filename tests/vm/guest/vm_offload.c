/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit offloads of a unic port toward a host tap (topology b), the
 * guest's half; the host's half is tests/vm/rig/offload.py, which judges
 * what the tap received and what the host made of it; and receive offloads
 * from the tap, judged here:
 *
 *   vm-offload [-t TAP] BDF CASE...
 *
 * probes the NIC at BDF (bound to vfio-pci or uio_pci_generic; any driver:
 * e1000e, virtio), starts it on one queue pair with TSO and checksum
 * offloads (and, when the port offers it, LRO) and runs each CASE:
 *
 *   tso4:MSS:LEN  tso6:MSS:LEN   TCP over IPv4/IPv6, LEN payload bytes in
 *                                 one TSO packet (2 KiB segments chained)
 *   tcp4:LEN udp4:LEN             one frame; IPv4 header and L4 checksum
 *   tcp6:LEN udp6:LEN             offloaded (IPv6: L4 only)
 *
 * and from the host (rig/peer.py sends case number i into TAP on request,
 * behind the virtio-net header the case names; TCP port 5001 -> 42000 + i):
 *
 *   lro4:MSS:LEN lro6:MSS:LEN     a GSO frame of LEN payload bytes: one
 *                                 chained packet flagged LRO and checksum
 *                                 not computed, tso_segsz = MSS
 *   nolro4:MSS:LEN nolro6:MSS:LEN the same frame to the port restarted
 *                                 without LRO: the host cuts it, so
 *                                 ceil(LEN / MSS) packets, none over MSS
 *   csum4:LEN csum6:LEN           a partial checksum (NEEDS_CSUM): one
 *                                 packet flagged checksum not computed
 *
 * every payload byte for byte. nolro cases come after the others (the port
 * is restarted once, at the first).
 *
 * Case i: source port 41000 + i, destination 5001, 10.55.0.1 -> 10.55.0.2
 * or fd00:55::1 -> fd00:55::2, destination MAC 02:00:00:00:55:02 (the host
 * bridge floods it). The payload is "unic-vm RUN CHECK i\n" and then
 * payload_byte(k) for payload offset k. The IPv4 header checksum is sent as
 * zero; the L4 checksum field holds the pseudo-header sum the 82574 wants
 * (with the L4 length; for TSO without it, as the datasheet's TSO section
 * and Intel's drivers have it).
 *
 * The exit status is the number of guest-side failures: a packet not taken,
 * refused or not counted by the driver and the device.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/bus.h>
#include <unic/mem.h>
#include <unic/pool.h>
#include <unic/port.h>

#define SPORT_BASE 41000
#define DPORT 5001
#define SEG_DATA 2048

static const uint8_t dst_mac[6] = { 0x02, 0, 0, 0, 0x55, 0x02 };
static const uint8_t ip4_src[4] = { 10, 55, 0, 1 }, ip4_dst[4] = { 10, 55, 0, 2 };
static const uint8_t ip6_src[16] = { 0xfd, 0, 0, 0x55, [15] = 1 };
static const uint8_t ip6_dst[16] = { 0xfd, 0, 0, 0x55, [15] = 2 };

#define RX_SPORT 5001
#define RX_DPORT_BASE 42000
#define RX_SEQ 1000000u

struct ocase {
	char kind[8];   /* tso4 tso6 tcp4 udp4 tcp6 udp6, lro4 lro6 nolro4 nolro6 csum4 csum6 */
	unsigned mss, len;
	bool rx;        /* a receive case */
};

static uint8_t payload_byte(uint32_t k)
{
	return (uint8_t)(k * 7u + (k >> 8) * 13u + 0x21u);
}

static uint32_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += (uint32_t)p[i] << 8 | p[i + 1];
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	return s;
}

static uint16_t fold(uint32_t s)
{
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

static int parse_case(const char *w, struct ocase *c)
{
	char k[8];

	memset(c, 0, sizeof(*c));
	if (sscanf(w, "%7[a-z46]:%u:%u", k, &c->mss, &c->len) == 3 &&
	    (!strcmp(k, "lro4") || !strcmp(k, "lro6") || !strcmp(k, "nolro4") || !strcmp(k, "nolro6"))) {
		snprintf(c->kind, sizeof(c->kind), "%s", k);
		c->rx = true;
		return c->mss > 0 && c->len > 0 && c->len <= 65000 ? 0 : -1;
	}
	if (sscanf(w, "%7[a-z46]:%u", k, &c->len) == 2 && (!strcmp(k, "csum4") || !strcmp(k, "csum6"))) {
		snprintf(c->kind, sizeof(c->kind), "%s", k);
		c->rx = true;
		return c->len > 0 && c->len <= 1400 ? 0 : -1;
	}
	if (sscanf(w, "tso%*1[46]:%u:%u", &c->mss, &c->len) == 2 && (w[3] == '4' || w[3] == '6')) {
		snprintf(c->kind, sizeof(c->kind), "%.4s", w);
		return c->mss > 0 && c->len > 0 && c->len <= 65000 ? 0 : -1;
	}
	if (sscanf(w, "%*3[tcpud]%*1[46]:%u", &c->len) == 1) {
		snprintf(c->kind, sizeof(c->kind), "%.4s", w);
		if (strcmp(c->kind, "tcp4") && strcmp(c->kind, "udp4") && strcmp(c->kind, "tcp6") &&
		    strcmp(c->kind, "udp6"))
			return -1;
		return c->len > 0 && c->len <= 1400 ? 0 : -1;
	}
	return -1;
}

/* The whole frame, in one flat buffer. @return its length. */
static uint32_t build(uint8_t *f, const struct ocase *c, unsigned idx, const char *run,
		      const char *check, uint32_t *l3_out, uint32_t *l4_out)
{
	bool v6 = c->kind[3] == '6', udp = c->kind[0] == 'u', tso = c->kind[0] == 't' && c->kind[1] == 's';
	uint32_t l3 = v6 ? 40 : 20, l4 = udp ? 8 : 20, l4len = l4 + c->len, off = 14 + l3;
	uint8_t *ip = f + 14, *th = f + off, *pay = th + l4;
	uint16_t seed;
	int taglen;

	memset(f, 0, off + l4);
	memcpy(f, dst_mac, 6);
	f[6] = 0x02;
	f[11] = 0x01;
	f[12] = v6 ? 0x86 : 0x08;
	f[13] = v6 ? 0xdd : 0x00;
	if (v6) {
		ip[0] = 0x60;
		ip[4] = (uint8_t)(l4len >> 8);
		ip[5] = (uint8_t)l4len;
		ip[6] = udp ? 17 : 6;
		ip[7] = 64;
		memcpy(ip + 8, ip6_src, 16);
		memcpy(ip + 24, ip6_dst, 16);
	} else {
		ip[0] = 0x45;
		ip[2] = (uint8_t)((l3 + l4len) >> 8);
		ip[3] = (uint8_t)(l3 + l4len);
		ip[5] = (uint8_t)idx;
		ip[8] = 64;
		ip[9] = udp ? 17 : 6;
		memcpy(ip + 12, ip4_src, 4);
		memcpy(ip + 16, ip4_dst, 4);
		/* ip[10..11] stays 0: the device computes it (IXSM). */
	}
	th[0] = (uint8_t)((SPORT_BASE + idx) >> 8);
	th[1] = (uint8_t)(SPORT_BASE + idx);
	th[2] = DPORT >> 8;
	th[3] = DPORT & 0xff;
	if (udp) {
		th[4] = (uint8_t)(l4len >> 8);
		th[5] = (uint8_t)l4len;
	} else {
		th[4] = 0x00;
		th[5] = 0x0f;
		th[6] = 0x42;
		th[7] = 0x40;           /* seq 1000000 */
		th[12] = 5 << 4;
		th[13] = 0x18;          /* PSH ACK */
		th[14] = th[15] = 0xff;
	}
	taglen = snprintf((char *)pay, c->len + 1, "unic-vm %s %s %u\n", run, check, idx);
	for (uint32_t k = (uint32_t)taglen; k < c->len; k++)
		pay[k] = payload_byte(k);
	/* Pseudo-header seed (RFC 793/768, RFC 8200 8.1): addresses, protocol,
	 * and the L4 length, left out for TSO (the device adds each segment's). */
	if (v6) {
		seed = fold(sum16(sum16(0, ip6_src, 16), ip6_dst, 16) + (udp ? 17u : 6u) + (tso ? 0u : l4len));
	} else {
		seed = fold(sum16(sum16(0, ip4_src, 4), ip4_dst, 4) + (udp ? 17u : 6u) + (tso ? 0u : l4len));
	}
	th[udp ? 6 : 16] = (uint8_t)(seed >> 8);
	th[udp ? 7 : 17] = (uint8_t)seed;
	*l3_out = l3;
	*l4_out = l4;
	return off + l4len;
}

static struct unic_pkt *chain(struct unic_pool *pool, const uint8_t *f, uint32_t len)
{
	struct unic_pkt *head = NULL, *tail = NULL;

	for (uint32_t off = 0; off < len;) {
		uint32_t n = len - off < SEG_DATA ? len - off : SEG_DATA;
		struct unic_pkt *p = unic_pkt_alloc(pool);

		if (p == NULL) {
			unic_pkt_free(head);
			return NULL;
		}
		memcpy(unic_pkt_append(p, (uint16_t)n), f + off, n);
		if (head == NULL) {
			head = p;
		} else {
			tail->next = p;
			head->nb_segs++;
			head->pkt_len += n;
		}
		tail = p;
		off += n;
	}
	return head;
}

static uint64_t xstat(struct unic_port *p, const char *name)
{
	uint64_t v = 0;

	if (unic_port_xstat_by_name(p, name, &v) != 0)
		fprintf(stderr, "no xstat %s\n", name);
	return v;
}

/* A device counter, if the driver has one by that name (e1000e's). */
static bool hw_xstat(struct unic_port *p, const char *name, uint64_t *v)
{
	return unic_port_xstat_by_name(p, name, v) == 0;
}

static int port_setup(struct unic_port *port, struct unic_pool *pool, uint64_t rx_offloads)
{
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1, .rx_offloads = rx_offloads,
				       .tx_offloads = UNIC_TX_OFFLOAD_TCP_TSO | UNIC_TX_OFFLOAD_IPV4_CKSUM |
						      UNIC_TX_OFFLOAD_TCP_CKSUM | UNIC_TX_OFFLOAD_UDP_CKSUM |
						      UNIC_TX_OFFLOAD_MULTI_SEGS };
	struct unic_rxq_conf rxc = { .sz = sizeof(rxc), .nb_desc = 256, .numa_node = -1, .pool = pool };
	struct unic_txq_conf txc = { .sz = sizeof(txc), .nb_desc = 512, .numa_node = -1 };
	struct unic_link link;
	int rc;

	if ((rc = unic_port_configure(port, &conf)) || (rc = unic_port_rx_queue_setup(port, 0, &rxc)) ||
	    (rc = unic_port_tx_queue_setup(port, 0, &txc)) || (rc = unic_port_start(port)) ||
	    (rc = unic_port_link_wait(port, 5000, &link)))
		return rc;
	return 0;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

/* Copy @p len bytes at @p off of a chained packet into @p out. */
static bool pkt_read(const struct unic_pkt *p, uint32_t off, uint8_t *out, uint32_t len)
{
	for (const struct unic_pkt *s = p; s != NULL && len > 0; s = s->next) {
		if (off >= s->data_len) {
			off -= s->data_len;
			continue;
		}
		uint32_t n = s->data_len - off < len ? s->data_len - off : len;

		memcpy(out, (const uint8_t *)unic_pkt_data(s) + off, n);
		out += n;
		len -= n;
		off = 0;
	}
	return len == 0;
}

/* Wait (up to 2 s) until the device gave back what was sent: before a
 * restart, which would free it unseen. */
static void tx_settle(struct unic_port *port, unsigned sent, unsigned *reclaimed)
{
	for (int t = 0; t < 20 && *reclaimed < sent; t++) {
		int rc;

		usleep(100000);
		rc = unic_tx_reclaim(port, 0);
		*reclaimed += rc > 0 ? (unsigned)rc : 0;
	}
}

/*
 * A receive case: ask the host for it, then take what the port receives
 * for up to 10 s. Ours: TCP 5001 -> 42000 + idx; the payload, put
 * together by sequence number, must be the host's byte for byte, and the
 * packets as the case says. @return failures.
 */
static unsigned rx_case(struct unic_port *port, const struct ocase *c, const char *word, unsigned idx,
			const char *tap, const char *run, const char *check)
{
	static uint8_t got[65536], seen[65536];
	bool v6 = c->kind[strlen(c->kind) - 1] == '6', lro = !strncmp(c->kind, "lro", 3);
	bool nolro = !strncmp(c->kind, "nolro", 5);
	unsigned pkts = 0, bad_flags = 0, over_mss = 0, strays = 0, fails = 0, want_pkts;
	uint32_t l3 = v6 ? 40 : 20, bytes = 0, max_pkt = 0, max_segs = 0;
	double end;
	FILE *f;

	memset(seen, 0, c->len);
	want_pkts = nolro ? (c->len + c->mss - 1) / c->mss : 1;
	fflush(stdout);
	f = fopen("/dev/ttyS1", "w");
	if (f == NULL || fprintf(f, "@@unic-vm gso %s %s %s %s %u\n", run, check, tap, word, idx) < 0) {
		fprintf(stderr, "case %s: cannot ask the host (/dev/ttyS1): %s\n", word, strerror(errno));
		if (f)
			fclose(f);
		return 1;
	}
	fclose(f);
	end = now_s() + 10;
	while (bytes < c->len && now_s() < end) {
		struct unic_pkt *p[32];
		uint16_t n = unic_rx_burst(port, 0, p, 32);

		if (n == 0) {
			usleep(1000);
			continue;
		}
		for (uint16_t i = 0; i < n; i++) {
			uint8_t h[14 + 40 + 20];
			uint32_t seq, pay, off = 14 + l3 + 20;
			uint16_t et = v6 ? 0x86dd : 0x0800;

			if (!pkt_read(p[i], 0, h, 14 + l3 + 20) || (h[12] << 8 | h[13]) != et ||
			    h[14 + (v6 ? 6 : 9)] != 6 || (h[14 + l3] << 8 | h[15 + l3]) != RX_SPORT ||
			    (unsigned)(h[16 + l3] << 8 | h[17 + l3]) != RX_DPORT_BASE + idx) {
				strays++;
				unic_pkt_free(p[i]);
				continue;
			}
			seq = (uint32_t)h[18 + l3] << 24 | (uint32_t)h[19 + l3] << 16 | (uint32_t)h[20 + l3] << 8 |
			      h[21 + l3];
			pay = p[i]->pkt_len - off;
			if (seq - RX_SEQ + (uint64_t)pay > c->len || !pkt_read(p[i], off, got + (seq - RX_SEQ), pay)) {
				fprintf(stderr, "case %s: a packet of %u payload bytes at sequence offset %u: outside the %u sent\n",
					word, pay, seq - RX_SEQ, c->len);
				fails++;
			} else {
				for (uint32_t k = seq - RX_SEQ; k < seq - RX_SEQ + pay; k++)
					bytes += !seen[k], seen[k] = 1;
			}
			pkts++;
			max_pkt = p[i]->pkt_len > max_pkt ? p[i]->pkt_len : max_pkt;
			max_segs = p[i]->nb_segs > max_segs ? p[i]->nb_segs : max_segs;
			if (pay > c->mss && nolro)
				over_mss++;
			/* What each kind must carry: LRO and "not computed" with the
			 * segment size; the others "not computed" alone. */
			if (lro ? (p[i]->ol_flags & (UNIC_PKT_RX_LRO | UNIC_PKT_RX_L4_CKSUM_NONE)) !=
					  (UNIC_PKT_RX_LRO | UNIC_PKT_RX_L4_CKSUM_NONE) ||
					  p[i]->tso_segsz != c->mss
				: (p[i]->ol_flags & (UNIC_PKT_RX_LRO | UNIC_PKT_RX_L4_CKSUM_NONE)) !=
					  UNIC_PKT_RX_L4_CKSUM_NONE)
				bad_flags++;
			printf("case %u %s: packet of %u bytes in %u segments, payload %u at +%u, ol_flags 0x%llx, tso_segsz %u\n",
			       idx, word, p[i]->pkt_len, p[i]->nb_segs, pay, seq - RX_SEQ,
			       (unsigned long long)p[i]->ol_flags, p[i]->tso_segsz);
			unic_pkt_free(p[i]);
		}
	}
	if (bytes < c->len) {
		fprintf(stderr, "case %s: %u of %u payload bytes arrived in 10 s (%u packets, %u strays)\n", word,
			bytes, c->len, pkts, strays);
		return fails + 1;
	}
	for (uint32_t k = 0; k < c->len; k++) {
		char tag[96];
		int taglen = snprintf(tag, sizeof(tag), "unic-vm %s %s %u\n", run, check, idx);
		uint8_t want = k < (uint32_t)taglen ? (uint8_t)tag[k] : payload_byte(k);

		if (got[k] != want) {
			fprintf(stderr, "case %s: payload byte %u is 0x%02x, the host sent 0x%02x\n", word, k, got[k], want);
			fails++;
			break;
		}
	}
	if (pkts != want_pkts) {
		fprintf(stderr, "case %s: %u packets, expected %u\n", word, pkts, want_pkts);
		fails++;
	}
	if (over_mss) {
		fprintf(stderr, "case %s: %u packets over the MSS %u\n", word, over_mss, c->mss);
		fails++;
	}
	if (bad_flags) {
		fprintf(stderr, "case %s: %u packets without the flags it calls for (%s)\n", word, bad_flags,
			lro ? "LRO, checksum not computed, tso_segsz = MSS" : "checksum not computed, not LRO");
		fails++;
	}
	printf("case %u %s: %u packets (largest %u bytes, %u segments), %u payload bytes exact, %u strays: %s\n",
	       idx, word, pkts, max_pkt, max_segs, bytes, strays, fails ? "FAIL" : "ok");
	return fails;
}

int main(int argc, char **argv)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc) };
	const char *run = getenv("UNIC_VM_RUN"), *check = getenv("UNIC_VM_CHECK");
	const char *access = getenv("UNIC_VM_ACCESS"), *allow[1], *tap = NULL, *bdf;
	static uint8_t frame[70000];
	struct unic_port_info info;
	struct unic_port *port = NULL;
	struct unic_mem *mem;
	struct unic_bus *bus;
	struct unic_pool *pool;
	unsigned tso_cases = 0, tx_cases = 0, fails = 0, reclaimed = 0;
	uint64_t gptc0 = 0, tsctc0 = 0, rx_offloads = 0;
	bool hw_counts, restarted = false;
	uint16_t ids[UNIC_PORT_MAX];
	int rc, nb, first = 1;

	if (argc > 2 && strcmp(argv[1], "-t") == 0) {
		tap = argv[2];
		first = 3;
	}
	if (argc < first + 2 || !run || !check || !access) {
		fprintf(stderr, "usage: vm-offload [-t TAP] BDF CASE... (in the rig: UNIC_VM_RUN, _CHECK, _ACCESS set)\n");
		return 2;
	}
	bdf = argv[first];
	mc.iova_mode = strcmp(access, "vfio") == 0 ? UNIC_IOVA_VA : UNIC_IOVA_PA;
	mem = unic_mem_create(&mc);
	bc.mem = mem;
	bus = mem ? unic_bus_create(&bc) : NULL;
	if (!bus) {
		fprintf(stderr, "mem/bus: %s\n", strerror(errno));
		return 2;
	}
	allow[0] = bdf;
	rc = unic_bus_probe(bus, allow, 1);
	if (rc < 1) {
		fprintf(stderr, "probe %s: %d (%s)\n", bdf, rc, rc < 0 ? strerror(-rc) : "no port");
		return 2;
	}
	nb = unic_port_list(ids, UNIC_PORT_MAX);
	for (int i = 0; i < nb && !port; i++) {
		struct unic_port *p = unic_port_get_by_id(ids[i]);

		memset(&info, 0, sizeof(info));
		if (p && unic_port_info_get(p, &info) == 0 && strcmp(info.bus_addr, bdf) == 0)
			port = p;
		else
			unic_port_put(p);
	}
	pc.name = "vm-offload";
	pc.mem = mem;
	pc.count = 2048;
	pool = port ? unic_pktpool_create(&pc) : NULL;
	if (!pool) {
		fprintf(stderr, "%s: no port or no pool\n", bdf);
		return 2;
	}
	/* Receive offloads as far as the port has them: checksum flags, and
	 * LRO (chains of up to 64 KiB) where offered. */
	rx_offloads = info.rx_offload_capa & (UNIC_RX_OFFLOAD_TCP_CKSUM | UNIC_RX_OFFLOAD_UDP_CKSUM |
					      UNIC_RX_OFFLOAD_TCP_LRO | UNIC_RX_OFFLOAD_SCATTER);
	if (!(rx_offloads & UNIC_RX_OFFLOAD_SCATTER))
		rx_offloads &= ~UNIC_RX_OFFLOAD_TCP_LRO;
	rc = port_setup(port, pool, rx_offloads);
	if (rc) {
		fprintf(stderr, "%s: cannot bring the port up: %d (%s)\n", bdf, rc, strerror(-rc));
		return 2;
	}
	printf("%s: driver %s, %s, rx offloads 0x%llx\n", bdf, info.driver, info.fw_version,
	       (unsigned long long)rx_offloads);
	/* The device's own counts where the driver has them (e1000e: GPTC,
	 * TSCTC); else every packet's descriptors given back by the device. */
	hw_counts = hw_xstat(port, "hw_tx_good_packets", &gptc0) && hw_xstat(port, "tx_tso_contexts_hw", &tsctc0);
	for (int i = first + 1; i < argc; i++) {
		unsigned idx = (unsigned)(i - first - 1);
		struct ocase c;
		uint32_t l3, l4, len;
		struct unic_pkt *p;
		bool v6, tso;

		if (parse_case(argv[i], &c) != 0) {
			fprintf(stderr, "bad case %s\n", argv[i]);
			return 2;
		}
		if (c.rx) {
			if (tap == NULL) {
				fprintf(stderr, "case %s: a receive case needs -t TAP\n", argv[i]);
				return 2;
			}
			if (!strncmp(c.kind, "lro", 3) && !(rx_offloads & UNIC_RX_OFFLOAD_TCP_LRO)) {
				fprintf(stderr, "case %s: the port offers no LRO (rx offloads 0x%llx)\n", argv[i],
					(unsigned long long)info.rx_offload_capa);
				fails++;
				continue;
			}
			if (!strncmp(c.kind, "nolro", 5) && !restarted) {
				tx_settle(port, tx_cases, &reclaimed);
				unic_port_stop(port);
				rx_offloads &= ~UNIC_RX_OFFLOAD_TCP_LRO;
				rc = port_setup(port, pool, rx_offloads);
				if (rc) {
					fprintf(stderr, "restart without LRO: %d (%s)\n", rc, strerror(-rc));
					return 2;
				}
				restarted = true;
				printf("restarted without LRO: rx offloads 0x%llx\n", (unsigned long long)rx_offloads);
			}
			fails += rx_case(port, &c, argv[i], idx, tap, run, check);
			continue;
		}
		v6 = c.kind[3] == '6';
		tso = c.kind[1] == 's';
		len = build(frame, &c, idx, run, check, &l3, &l4);
		p = chain(pool, frame, len);
		if (!p) {
			fprintf(stderr, "pool empty\n");
			return 2;
		}
		p->l2_len = 14;
		p->l3_len = (uint8_t)l3;
		p->l4_len = (uint8_t)l4;
		p->ol_flags = v6 ? UNIC_PKT_TX_IPV6 : UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_IP_CKSUM;
		if (tso) {
			p->ol_flags |= UNIC_PKT_TX_TCP_SEG;
			p->tso_segsz = (uint16_t)c.mss;
			tso_cases++;
		} else {
			p->ol_flags |= c.kind[0] == 'u' ? UNIC_PKT_TX_UDP_CKSUM : UNIC_PKT_TX_TCP_CKSUM;
		}
		printf("case %u %s: %u-byte frame in %u segments, source port %u\n", idx, argv[i], len,
		       p->nb_segs, SPORT_BASE + idx);
		if (unic_tx_burst(port, 0, &p, 1) != 1) {
			fprintf(stderr, "case %s: tx_burst did not take it\n", argv[i]);
			unic_pkt_free(p);
			fails++;
		} else {
			tx_cases++;
		}
	}
	tx_settle(port, tx_cases, &reclaimed);
	if (xstat(port, "tx_refused_packets") != 0) {
		fprintf(stderr, "the driver refused %" PRIu64 " packets\n", xstat(port, "tx_refused_packets"));
		fails++;
	}
	if (xstat(port, "tx_tso_packets") != tso_cases) {
		fprintf(stderr, "tx_tso_packets is not %u\n", tso_cases);
		fails++;
	}
	if (hw_counts) {
		/* The device's own counts: a packet each (GPTC), a TSO context each (TSCTC). */
		if (xstat(port, "hw_tx_good_packets") - gptc0 < tx_cases) {
			fprintf(stderr, "the device counted fewer than %u packets sent\n", tx_cases);
			fails++;
		}
		if (xstat(port, "tx_tso_contexts_hw") - tsctc0 != tso_cases) {
			fprintf(stderr, "the device counted another number of TSO contexts than %u\n", tso_cases);
			fails++;
		}
	} else if (reclaimed != tx_cases) {
		/* No device counters (virtio): the device used every chain. */
		fprintf(stderr, "the device gave back %u of %u packets sent\n", reclaimed, tx_cases);
		fails++;
	}
	unic_port_stop(port);
	unic_port_detach(port);
	unic_port_put(port);
	unic_pool_destroy(pool);
	unic_bus_destroy(bus);
	unic_mem_destroy(mem);
	printf("%u failures\n", fails);
	return (int)fails;
}
