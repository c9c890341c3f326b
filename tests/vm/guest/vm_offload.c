/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Transmit offloads of a unic port toward a host tap (topology b), the
 * guest's half; the host's half is tests/vm/rig/offload.py, which judges
 * what the tap received and what the host made of it:
 *
 *   vm-offload BDF CASE...
 *
 * probes the NIC at BDF (bound to vfio-pci or uio_pci_generic), starts it
 * with TSO and checksum offloads and sends one packet per CASE:
 *
 *   tso4:MSS:LEN  tso6:MSS:LEN   TCP over IPv4/IPv6, LEN payload bytes in
 *                                 one TSO packet (2 KiB segments chained)
 *   tcp4:LEN udp4:LEN             one frame; IPv4 header and L4 checksum
 *   tcp6:LEN udp6:LEN             offloaded (IPv6: L4 only)
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

struct ocase {
	char kind[8];   /* tso4 tso6 tcp4 udp4 tcp6 udp6 */
	unsigned mss, len;
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
	memset(c, 0, sizeof(*c));
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

int main(int argc, char **argv)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc) };
	struct unic_bus_conf bc = { .sz = sizeof(bc) };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc) };
	struct unic_port_conf conf = { .sz = sizeof(conf), .nb_rxq = 1, .nb_txq = 1,
				       .tx_offloads = UNIC_TX_OFFLOAD_TCP_TSO | UNIC_TX_OFFLOAD_IPV4_CKSUM |
						      UNIC_TX_OFFLOAD_TCP_CKSUM | UNIC_TX_OFFLOAD_UDP_CKSUM |
						      UNIC_TX_OFFLOAD_MULTI_SEGS };
	struct unic_rxq_conf rxc = { .sz = sizeof(rxc), .nb_desc = 256, .numa_node = -1 };
	struct unic_txq_conf txc = { .sz = sizeof(txc), .nb_desc = 512, .numa_node = -1 };
	const char *run = getenv("UNIC_VM_RUN"), *check = getenv("UNIC_VM_CHECK");
	const char *access = getenv("UNIC_VM_ACCESS"), *allow[1];
	static uint8_t frame[70000];
	struct unic_port *port = NULL;
	struct unic_mem *mem;
	struct unic_bus *bus;
	struct unic_pool *pool;
	struct unic_link link;
	unsigned tso_cases = 0, fails = 0;
	uint64_t gptc0, tsctc0;
	uint16_t ids[UNIC_PORT_MAX];
	int rc, nb;

	if (argc < 3 || !run || !check || !access) {
		fprintf(stderr, "usage: vm-offload BDF CASE... (in the rig: UNIC_VM_RUN, _CHECK, _ACCESS set)\n");
		return 2;
	}
	mc.iova_mode = strcmp(access, "vfio") == 0 ? UNIC_IOVA_VA : UNIC_IOVA_PA;
	mem = unic_mem_create(&mc);
	bc.mem = mem;
	bus = mem ? unic_bus_create(&bc) : NULL;
	if (!bus) {
		fprintf(stderr, "mem/bus: %s\n", strerror(errno));
		return 2;
	}
	allow[0] = argv[1];
	rc = unic_bus_probe(bus, allow, 1);
	if (rc < 1) {
		fprintf(stderr, "probe %s: %d (%s)\n", argv[1], rc, rc < 0 ? strerror(-rc) : "no port");
		return 2;
	}
	nb = unic_port_list(ids, UNIC_PORT_MAX);
	for (int i = 0; i < nb && !port; i++) {
		struct unic_port *p = unic_port_get_by_id(ids[i]);
		struct unic_port_info info;

		memset(&info, 0, sizeof(info));
		if (p && unic_port_info_get(p, &info) == 0 && strcmp(info.bus_addr, argv[1]) == 0)
			port = p;
		else
			unic_port_put(p);
	}
	pc.name = "vm-offload";
	pc.mem = mem;
	pc.count = 2048;
	pool = port ? unic_pktpool_create(&pc) : NULL;
	rxc.pool = pool;
	if (!pool || unic_port_configure(port, &conf) || unic_port_rx_queue_setup(port, 0, &rxc) ||
	    unic_port_tx_queue_setup(port, 0, &txc) || unic_port_start(port) ||
	    unic_port_link_wait(port, 5000, &link)) {
		fprintf(stderr, "%s: cannot bring the port up\n", argv[1]);
		return 2;
	}
	gptc0 = xstat(port, "hw_tx_good_packets");
	tsctc0 = xstat(port, "tx_tso_contexts_hw");
	for (int i = 2; i < argc; i++) {
		unsigned idx = (unsigned)(i - 2);
		struct ocase c;
		uint32_t l3, l4, len;
		struct unic_pkt *p;
		bool v6, tso;

		if (parse_case(argv[i], &c) != 0) {
			fprintf(stderr, "bad case %s\n", argv[i]);
			return 2;
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
		}
	}
	usleep(200000);
	unic_tx_reclaim(port, 0);
	if (xstat(port, "tx_refused_packets") != 0) {
		fprintf(stderr, "the driver refused %" PRIu64 " packets\n", xstat(port, "tx_refused_packets"));
		fails++;
	}
	if (xstat(port, "tx_tso_packets") != tso_cases) {
		fprintf(stderr, "tx_tso_packets is not %u\n", tso_cases);
		fails++;
	}
	/* The device's own counts: a packet each (GPTC), a TSO context each (TSCTC). */
	if (xstat(port, "hw_tx_good_packets") - gptc0 < (uint64_t)(argc - 2)) {
		fprintf(stderr, "the device counted fewer than %d packets sent\n", argc - 2);
		fails++;
	}
	if (xstat(port, "tx_tso_contexts_hw") - tsctc0 != tso_cases) {
		fprintf(stderr, "the device counted another number of TSO contexts than %u\n", tso_cases);
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
