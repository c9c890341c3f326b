/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * pmd/virtio's pure internals, without a device: the PCI capability walk
 * over hostile configuration spaces, the event-index arithmetic, the
 * feature table, the virtqueue layout. The driver against a device is
 * tests/unit/test_virtio.c (the fake device).
 */
#include <criterion/criterion.h>
#include <stdlib.h>
#include <string.h>

#include <unic/cksum.h>
#include <unic/mem.h>
#include <unic/net.h>
#include <unic/pool.h>

#include "../../pmd/virtio/virtio_priv.h"

/* ---- a configuration space with vendor capabilities ------------------------ */

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = (uint8_t)v;
	p[1] = (uint8_t)(v >> 8);
	p[2] = (uint8_t)(v >> 16);
	p[3] = (uint8_t)(v >> 24);
}

/* One virtio capability at @p pos, type @p type, in BAR @p bar. */
static void cap(uint8_t *cfg, unsigned pos, unsigned next, unsigned type, unsigned bar, uint32_t off,
		uint32_t len)
{
	cfg[pos] = VIRTIO_PCI_CAP_VNDR;
	cfg[pos + 1] = (uint8_t)next;
	cfg[pos + 2] = type == VIRTIO_PCI_CAP_NOTIFY_CFG ? 20 : 16;
	cfg[pos + 3] = (uint8_t)type;
	cfg[pos + 4] = (uint8_t)bar;
	put32(cfg + pos + 8, off);
	put32(cfg + pos + 12, len);
	if (type == VIRTIO_PCI_CAP_NOTIFY_CFG)
		put32(cfg + pos + 16, 4);
}

/* QEMU 7.2's layout: an MSI-X capability first, then the four structures
 * in BAR4 (common 0x0, ISR 0x1000, device 0x2000, notify 0x3000 x4). */
static void qemu_cfg(uint8_t *cfg)
{
	memset(cfg, 0, PCI_CFG_SPACE_LEN);
	cfg[PCI_CFG_STATUS] = PCI_CFG_STATUS_CAP_LIST;
	cfg[PCI_CFG_CAP_PTR] = 0x98;
	cfg[0x98] = 0x11; /* MSI-X */
	cfg[0x99] = 0x84;
	cap(cfg, 0x84, 0x70, VIRTIO_PCI_CAP_PCI_CFG, 0, 0, 0);
	cap(cfg, 0x70, 0x60, VIRTIO_PCI_CAP_NOTIFY_CFG, 4, 0x3000, 0x1000);
	cap(cfg, 0x60, 0x50, VIRTIO_PCI_CAP_DEVICE_CFG, 4, 0x2000, 0x1000);
	cap(cfg, 0x50, 0x40, VIRTIO_PCI_CAP_ISR_CFG, 4, 0x1000, 0x1000);
	cap(cfg, 0x40, 0x00, VIRTIO_PCI_CAP_COMMON_CFG, 4, 0x0, 0x1000);
}

Test(virtio_caps, qemus_layout_gives_four_structures_in_bar4_and_the_multiplier)
{
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps c;
	char why[256] = "";

	qemu_cfg(cfg);
	cr_assert_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), 0, "%s", why);
	cr_expect_eq(c.loc[VIRTIO_REGION_COMMON].offset, 0);
	cr_expect_eq(c.loc[VIRTIO_REGION_ISR].offset, 0x1000);
	cr_expect_eq(c.loc[VIRTIO_REGION_DEVICE].offset, 0x2000);
	cr_expect_eq(c.loc[VIRTIO_REGION_NOTIFY].offset, 0x3000);
	for (unsigned r = 0; r < VIRTIO_NB_REGIONS; r++)
		cr_expect_eq(c.loc[r].bar, 4);
	cr_expect_eq(c.notify_mult, 4);
}

Test(virtio_caps, a_capability_list_that_loops_ends_the_walk_and_says_what_is_missing)
{
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps c;
	char why[256] = "";

	qemu_cfg(cfg);
	cfg[0x71] = 0x84; /* notify -> PCI_CFG -> notify -> ...: device, ISR, common never seen */
	cr_assert_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), -ENODEV);
	cr_expect(strstr(why, "capability") != NULL, "%s", why);
}

Test(virtio_caps, pointers_out_of_the_space_and_capabilities_past_its_end_are_not_followed)
{
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps c;
	char why[256] = "";

	qemu_cfg(cfg);
	/* common -> 0xfc: a capability there would end past 0x100 (its
	 * first four bytes are all the space holds): skipped, not read. */
	cfg[0x41] = 0xfc;
	cfg[0xfc] = VIRTIO_PCI_CAP_VNDR;
	cfg[0xfd] = 0;
	cfg[0xfe] = 16;
	cfg[0xff] = VIRTIO_PCI_CAP_DEVICE_CFG;
	cr_expect_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), 0, "%s", why);
	cfg[PCI_CFG_CAP_PTR] = 0x10;     /* into the header: not a capability */
	cr_expect_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), -ENODEV);
	cr_expect_eq(virtio_caps_parse(cfg, 64, &c, why, sizeof(why)), -ENODEV, "a short read is refused");
}

Test(virtio_caps, a_structure_in_a_reserved_bar_or_a_short_common_config_is_refused)
{
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps c;
	char why[256] = "";

	qemu_cfg(cfg);
	cfg[0x40 + 4] = 6; /* BAR 6 does not exist: the common structure is missing */
	cr_expect_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), -ENODEV);
	cr_expect(strstr(why, "common configuration") != NULL, "%s", why);
	qemu_cfg(cfg);
	put32(cfg + 0x40 + 12, 0x20); /* shorter than the 0x38 bytes of virtio 1.1 */
	cr_expect_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), -ENODEV);
	cr_expect(strstr(why, "0x38") != NULL || strstr(why, "56") != NULL, "%s", why);
}

Test(virtio_caps, no_capability_list_is_a_legacy_device)
{
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps c;
	char why[256] = "";

	qemu_cfg(cfg);
	cfg[PCI_CFG_STATUS] = 0;
	cr_expect_eq(virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)), -ENODEV);
	cr_expect(strstr(why, "legacy") != NULL, "%s", why);
}

Test(virtio_caps, random_configuration_spaces_never_give_a_region_past_the_space_rules)
{
	uint8_t cfg[PCI_CFG_SPACE_LEN];
	struct virtio_pci_caps c;
	char why[256];

	srand(16);
	for (unsigned i = 0; i < 20000; i++) {
		for (unsigned b = 0; b < sizeof(cfg); b++)
			cfg[b] = (uint8_t)rand();
		cfg[PCI_CFG_STATUS] |= PCI_CFG_STATUS_CAP_LIST;
		if (virtio_caps_parse(cfg, sizeof(cfg), &c, why, sizeof(why)) == 0) {
			for (unsigned r = 0; r < VIRTIO_NB_REGIONS; r++) {
				cr_assert(c.loc[r].found);
				cr_assert_leq(c.loc[r].bar, 5);
			}
			cr_assert_geq(c.loc[VIRTIO_REGION_COMMON].length, VIRTIO_COMMON_LEN);
		}
	}
}

/* ---- event index --------------------------------------------------------------- */

Test(virtio_event_idx, a_notification_is_due_only_when_the_index_passes_the_event)
{
	/* moved from 10 to 15: the other side asked at 9 (passed before),
	 * 10..14 (passed now) or 15 (not yet). */
	cr_expect(!vring_need_event(9, 15, 10));
	for (uint16_t e = 10; e < 15; e++)
		cr_expect(vring_need_event(e, 15, 10), "event %u", e);
	cr_expect(!vring_need_event(15, 15, 10));
	cr_expect(!vring_need_event(10, 10, 10), "no move, no notification");
}

Test(virtio_event_idx, the_arithmetic_holds_across_the_16_bit_wrap)
{
	cr_expect(vring_need_event(0xfffe, 3, 0xfffd));
	cr_expect(vring_need_event(1, 3, 0xfffd));
	cr_expect(!vring_need_event(3, 3, 0xfffd));
	cr_expect(!vring_need_event(0xfffc, 3, 0xfffd));
}

/* ---- features ------------------------------------------------------------------- */

#define QEMU_72_FEATURES 0x0000010330bf8024ull /* virtio-net-pci iommu_platform=on, hubport */

Test(virtio_features, of_qemus_default_offer_the_driver_takes_what_it_drives)
{
	uint64_t f = virtio_features_wanted(QEMU_72_FEATURES, true);

	cr_expect_eq(f, VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_F_ACCESS_PLATFORM) |
			VIRTIO_BIT(VIRTIO_NET_F_MAC) | VIRTIO_BIT(VIRTIO_NET_F_STATUS) |
			VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF) | VIRTIO_BIT(VIRTIO_F_EVENT_IDX) |
			VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_RX) |
			VIRTIO_BIT(VIRTIO_NET_F_CTRL_VLAN) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_MAC_ADDR) |
			VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC),
		     "took 0x%llx", (unsigned long long)f);
	cr_expect_eq(f & ~QEMU_72_FEATURES, 0, "never a feature the device does not offer");
}

Test(virtio_features, tso_is_taken_only_with_the_checksum_offload_it_needs)
{
	uint64_t tso = VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_HOST_TSO6);
	uint64_t base = VIRTIO_BIT(VIRTIO_F_VERSION_1);

	cr_expect_eq(virtio_features_wanted(base | tso, false) & tso, 0);
	cr_expect_eq(virtio_features_wanted(base | tso | VIRTIO_BIT(VIRTIO_NET_F_CSUM), false) & tso, tso);
}

Test(virtio_features, what_needs_the_control_queue_is_not_taken_without_it)
{
	uint64_t ctrl = VIRTIO_BIT(VIRTIO_NET_F_CTRL_RX) | VIRTIO_BIT(VIRTIO_NET_F_CTRL_VLAN) |
			VIRTIO_BIT(VIRTIO_NET_F_CTRL_MAC_ADDR);
	uint64_t base = VIRTIO_BIT(VIRTIO_F_VERSION_1);

	cr_expect_eq(virtio_features_wanted(base | ctrl, false) & ctrl, 0);
	cr_expect_eq(virtio_features_wanted(base | ctrl | VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ), false) & ctrl, ctrl);
}

Test(virtio_features, guest_tso_is_taken_only_with_guest_csum_and_mergeable_buffers)
{
	uint64_t gtso = VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO4) | VIRTIO_BIT(VIRTIO_NET_F_GUEST_TSO6);
	uint64_t base = VIRTIO_BIT(VIRTIO_F_VERSION_1) | gtso;
	uint64_t csum = VIRTIO_BIT(VIRTIO_NET_F_GUEST_CSUM), mrg = VIRTIO_BIT(VIRTIO_NET_F_MRG_RXBUF);

	cr_expect_eq(virtio_features_wanted(base, false) & gtso, 0);
	cr_expect_eq(virtio_features_wanted(base | csum, false) & gtso, 0, "64 KiB frames without mergeable buffers");
	cr_expect_eq(virtio_features_wanted(base | mrg, false) & gtso, 0, "GUEST_TSO without GUEST_CSUM (5.1.3.1)");
	cr_expect_eq(virtio_features_wanted(base | csum | mrg, false) & gtso, gtso);
	cr_expect_eq(virtio_features_wanted(~0ull, false) & VIRTIO_BIT(VIRTIO_NET_F_GUEST_ECN), 0);
}

Test(virtio_features, packed_rings_and_indirect_descriptors_are_taken_when_offered)
{
	uint64_t packed = VIRTIO_BIT(VIRTIO_F_RING_PACKED) | VIRTIO_BIT(VIRTIO_F_INDIRECT_DESC);

	cr_expect_eq(virtio_features_wanted(QEMU_72_FEATURES | VIRTIO_BIT(VIRTIO_F_RING_PACKED), true) & packed,
		     packed, "QEMU's packed=on");
	cr_expect_eq(virtio_features_wanted(VIRTIO_BIT(VIRTIO_F_VERSION_1), false) & packed, 0);
}

Test(virtio_features, in_order_is_taken_when_offered_and_not_otherwise)
{
	uint64_t f = virtio_features_wanted(~0ull, true);

	cr_expect_eq(f & VIRTIO_BIT(VIRTIO_F_IN_ORDER), VIRTIO_BIT(VIRTIO_F_IN_ORDER));
	cr_expect_eq(virtio_features_wanted(QEMU_72_FEATURES, true) & VIRTIO_BIT(VIRTIO_F_IN_ORDER), 0,
		     "QEMU 7.2 does not offer it");
	cr_expect_eq(f & VIRTIO_BIT(VIRTIO_F_NOTIFICATION_DATA), 0, "notify data changes the kick's format");
}

Test(virtio_features, names_list_known_bits_and_number_the_rest)
{
	char buf[256];

	virtio_features_names(VIRTIO_BIT(VIRTIO_F_VERSION_1) | VIRTIO_BIT(VIRTIO_NET_F_MAC) | VIRTIO_BIT(50), buf,
			      sizeof(buf));
	cr_expect_str_eq(buf, "mac,version_1,bit50");
	cr_expect_eq(virtio_features_names(~0ull, buf, 16), 15, "truncated, still terminated");
	cr_expect_eq(strlen(buf), 15);
}

/* ---- virtqueue layout ---------------------------------------------------------------- */

Test(virtio_vq, the_three_areas_are_aligned_apart_and_inside_the_zone)
{
	for (uint16_t size = 1; size != 0 && size <= 32768; size = (uint16_t)(size * 2)) {
		size_t len = virtio_vq_bytes(size, 0);
		uint8_t *mem = aligned_alloc(4096, UNIC_ALIGN_CEIL(len, (size_t)4096));
		uint16_t *next = calloc(size, sizeof(*next));
		struct virtio_vq vq = { .size = size, .next = next, .dma = { .va = mem, .len = len } };
		uintptr_t base = (uintptr_t)mem;

		cr_assert_not_null(mem);
		virtio_vq_init(&vq);
		cr_expect_eq((uintptr_t)vq.desc, base);
		cr_expect_geq((uintptr_t)vq.avail, base + 16u * size, "avail after the descriptors");
		cr_expect_eq((uintptr_t)vq.avail % 2, 0);
		cr_expect_geq((uintptr_t)vq.used, (uintptr_t)(vq.used_event + 1), "used after avail's used_event");
		cr_expect_eq((uintptr_t)vq.used % UNIC_CACHE_LINE_SIZE, 0, "used on its own cache line");
		cr_expect_leq((uintptr_t)(vq.avail_event + 1), base + len, "avail_event inside the zone");
		cr_expect_eq(vq.nb_free, size);
		cr_expect_eq(vq.mask, size - 1);
		cr_expect_eq(vq.avail[0], VRING_AVAIL_F_NO_INTERRUPT, "no interrupts until armed");
		cr_expect(!vring_need_event(*vq.used_event, 1, 0), "used_event behind the first entries");
		free(mem);
		free(next);
	}
}

Test(virtio_vq, the_free_list_links_every_descriptor_once)
{
	uint16_t size = 256;
	size_t len = virtio_vq_bytes(size, 0);
	uint8_t *mem = aligned_alloc(4096, UNIC_ALIGN_CEIL(len, (size_t)4096));
	uint16_t *next = calloc(size, sizeof(*next));
	struct virtio_vq vq = { .size = size, .next = next, .dma = { .va = mem, .len = len } };
	uint8_t seen[256] = { 0 };
	uint16_t id;

	virtio_vq_init(&vq);
	id = vq.free_head;
	for (unsigned i = 0; i < size; i++) {
		cr_assert_lt(id, size);
		cr_assert_eq(seen[id], 0, "descriptor %u twice", id);
		seen[id] = 1;
		id = vq.next[id];
	}
	free(mem);
	free(next);
}

/* ---- receive: a mergeable frame dropped half-way -------------------------------- */

/*
 * An rx queue on a virtqueue in plain memory, no device: the test writes
 * the used ring itself. The notification area is a word of the test's.
 */
struct rx_rig {
	struct unic_mem *mem;
	struct unic_pool *pool;
	struct virtio_hw hw;
	uint16_t notify;
	struct virtio_rxq rxq;
};

static void rx_rig_init(struct rx_rig *r, uint16_t size)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "vq-test", .count = 256, .dataroom = 2048 };
	struct virtio_vq *vq = &r->rxq.vq;
	size_t len = virtio_vq_bytes(size, 0);

	memset(r, 0, sizeof(*r));
	r->mem = unic_mem_create(&mc);
	cr_assert_not_null(r->mem);
	pc.mem = r->mem;
	r->pool = unic_pktpool_create(&pc);
	cr_assert_not_null(r->pool);
	vq->size = size;
	vq->next = calloc(size, sizeof(*vq->next));
	vq->dma.va = aligned_alloc(4096, UNIC_ALIGN_CEIL(len, (size_t)4096));
	vq->dma.len = len;
	cr_assert(vq->next && vq->dma.va);
	virtio_vq_init(vq);
	vq->notify = &r->notify;
	vq->hw = &r->hw;
	r->rxq.sw_ring = calloc(size, sizeof(*r->rxq.sw_ring));
	r->rxq.pool = r->pool;
	r->rxq.headroom = r->pool->pkt_headroom;
	r->rxq.hdr_len = sizeof(struct virtio_net_hdr);
	r->rxq.buf_len = r->pool->pkt_dataroom + (uint32_t)sizeof(struct virtio_net_hdr);
	r->rxq.max_frame = 9018;
	r->rxq.mrg = true;
	r->rxq.irq_fd = -1;
	cr_assert_eq(virtio_rxq_fill(&r->rxq), 0);
}

static void rx_rig_fini(struct rx_rig *r)
{
	virtio_rxq_drain(&r->rxq);
	free(r->rxq.sw_ring);
	free(r->rxq.vq.next);
	free(r->rxq.vq.dma.va);
	unic_pool_destroy(r->pool);
	unic_mem_destroy(r->mem);
}

/* The device's side: the k-th posted buffer, its header (where the device
 * writes one), a used entry for it. */
static uint16_t posted_id(struct rx_rig *r, uint16_t k)
{
	return r->rxq.vq.avail[2 + (k & r->rxq.vq.mask)];
}

static struct virtio_net_hdr *buf_hdr(struct rx_rig *r, uint16_t id)
{
	return (struct virtio_net_hdr *)(unic_pkt_buf(r->rxq.sw_ring[id]) + r->rxq.headroom -
					 sizeof(struct virtio_net_hdr));
}

static void used_put(struct rx_rig *r, uint16_t k, uint16_t id, uint32_t len)
{
	r->rxq.vq.used_ring[k & r->rxq.vq.mask] = (struct virtq_used_elem){ .id = id, .len = len };
}

Test(virtio_rx, the_buffers_left_of_a_frame_dropped_half_way_are_skipped_not_read_as_frames)
{
	struct rx_rig r;
	struct unic_pkt *p[8];
	uint16_t id[4];
	uint16_t n;

	rx_rig_init(&r, 8);
	for (uint16_t k = 0; k < 4; k++)
		id[k] = posted_id(&r, k);
	/* A frame of three buffers whose second is longer than a buffer ... */
	memset(buf_hdr(&r, id[0]), 0, sizeof(struct virtio_net_hdr));
	buf_hdr(&r, id[0])->num_buffers = 3;
	used_put(&r, 0, id[0], 12 + 100);
	used_put(&r, 1, id[1], r.rxq.buf_len + 1);
	/* ... and a third whose payload happens to look like a header of a
	 * one-buffer frame; then a real one-buffer frame of 60 bytes. */
	memset(buf_hdr(&r, id[2]), 0, sizeof(struct virtio_net_hdr));
	buf_hdr(&r, id[2])->num_buffers = 1;
	used_put(&r, 2, id[2], 100);
	memset(buf_hdr(&r, id[3]), 0, sizeof(struct virtio_net_hdr));
	buf_hdr(&r, id[3])->num_buffers = 1;
	used_put(&r, 3, id[3], 12 + 60);
	__atomic_store_n(&r.rxq.vq.used[1], 4, __ATOMIC_RELEASE);

	n = virtio_rx_burst(&r.rxq, p, 8);
	cr_expect_eq(n, 1, "one frame arrives (the 60-byte one), got %u", n);
	if (n >= 1)
		cr_expect_eq(p[0]->pkt_len, 60);
	cr_expect_eq(unic_counter_read(&r.rxq.cnt.errors), 1, "the broken frame counted once");
	cr_expect_eq(unic_counter_read(&r.rxq.len_errors), 1);
	cr_expect_eq(r.rxq.chain_skip, 0);
	for (uint16_t i = 0; i < n; i++)
		unic_pkt_free(p[i]);
	rx_rig_fini(&r);
}

Test(virtio_rx, every_buffer_taken_is_posted_again_so_the_device_never_runs_dry)
{
	struct rx_rig r;
	struct unic_pkt *p[64];
	uint16_t n, k = 0;

	rx_rig_init(&r, 64);
	cr_expect_eq(r.rxq.vq.nb_free, 0, "every descriptor posted at start");
	cr_expect_eq(r.rxq.vq.avail[1], 64);
	/* The device fills all 64 with one-buffer frames. */
	for (k = 0; k < 64; k++) {
		uint16_t id = posted_id(&r, k);

		memset(buf_hdr(&r, id), 0, sizeof(struct virtio_net_hdr));
		buf_hdr(&r, id)->num_buffers = 1;
		used_put(&r, k, id, 12 + 64);
	}
	__atomic_store_n(&r.rxq.vq.used[1], 64, __ATOMIC_RELEASE);
	n = virtio_rx_burst(&r.rxq, p, 64);
	cr_expect_eq(n, 64);
	cr_expect_eq(r.rxq.vq.nb_free, 0, "refilled in the same burst");
	cr_expect_eq(r.rxq.vq.avail[1], 128, "the avail index moved by 64");
	unic_pkt_free_bulk(p, n);
	rx_rig_fini(&r);
}

/* ---- transmit: the header for TSO ------------------------------------------------- */

Test(virtio_tx, a_tso_packet_gets_its_gso_header_a_whole_ip_header_and_the_seed_of_its_tcp_length)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "vq-tx", .count = 64, .dataroom = 2048 };
	struct unic_mem *mem = unic_mem_create(&mc);
	struct virtio_hw hw = { 0 };
	uint16_t notify = 0, size = 16;
	struct virtio_txq txq = { 0 };
	size_t len = virtio_vq_bytes(size, (size_t)size * sizeof(struct virtio_net_hdr_hash));
	struct unic_pool *pool;
	struct unic_pkt *p;
	uint8_t *d, *iph;
	volatile struct virtio_net_hdr *h;
	uint16_t head;

	cr_assert_not_null(mem);
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	cr_assert_not_null(pool);
	txq.vq.size = size;
	txq.vq.next = calloc(size, sizeof(uint16_t));
	txq.vq.dma.va = aligned_alloc(4096, UNIC_ALIGN_CEIL(len, (size_t)4096));
	txq.vq.dma.len = len;
	virtio_vq_init(&txq.vq);
	txq.vq.notify = &notify;
	txq.vq.hw = &hw;
	txq.sw_ring = calloc(size, sizeof(*txq.sw_ring));
	txq.chain_len = calloc(size, sizeof(*txq.chain_len));
	txq.hdrs = (volatile struct virtio_net_hdr_hash *)((uint8_t *)txq.vq.dma.va + virtio_vq_bytes(size, 0));
	txq.hdr_len = sizeof(struct virtio_net_hdr);
	txq.csum = txq.tso4 = txq.tso6 = true;

	/* Ethernet, IPv4 (20), TCP (20), 1500 bytes of payload: cut at 500. */
	p = unic_pkt_alloc(pool);
	cr_assert_not_null(p);
	d = unic_pkt_append(p, 14 + 20 + 20 + 1500);
	memset(d, 0, 14 + 20 + 20 + 1500);
	unic_net_put16(d + 12, UNIC_ETHER_TYPE_IPV4);
	iph = d + 14;
	iph[0] = 0x45;
	unic_net_put16(iph + 2, 0); /* left to the NIC, as for e1000e; so is the checksum */
	iph[8] = 64;
	iph[9] = 6;
	memcpy(iph + 12, (uint8_t[]){ 10, 0, 0, 1, 10, 0, 0, 2 }, 8);
	iph[20 + 12] = 5 << 4;
	unic_net_put16(iph + 20 + 16, unic_ipv4_phdr_sum(iph, 6, 0)); /* the TSO seed: no length */
	p->ol_flags = UNIC_PKT_TX_IPV4 | UNIC_PKT_TX_TCP_SEG;
	p->l2_len = 14;
	p->l3_len = 20;
	p->l4_len = 20;
	p->tso_segsz = 500;

	head = txq.vq.free_head;
	cr_assert_eq(virtio_tx_burst(&txq, &p, 1), 1);
	cr_assert_eq(unic_counter_read(&txq.cnt.errors), 0, "the packet was refused");
	/* One segment with headroom: the header went in front of the frame,
	 * one descriptor. */
	cr_assert_eq(txq.vq.desc[head].flags & VRING_DESC_F_NEXT, 0, "a header descriptor of its own");
	h = (volatile struct virtio_net_hdr *)((uint8_t *)unic_pkt_data(p) - sizeof(struct virtio_net_hdr));
	cr_expect_eq(h->flags, VIRTIO_NET_HDR_F_NEEDS_CSUM);
	cr_expect_eq(h->gso_type, VIRTIO_NET_HDR_GSO_TCPV4);
	cr_expect_eq(h->gso_size, 500);
	cr_expect_eq(h->csum_start, 34);
	cr_expect_eq(h->csum_offset, 16);
	cr_expect_eq(h->hdr_len, 54);
	cr_expect_eq(unic_net_get16(iph + 20 + 16), unic_ipv4_phdr_sum(iph, 6, 20 + 1500),
		     "the checksum field holds 0x%04x, the seed with the TCP length is 0x%04x",
		     unic_net_get16(iph + 20 + 16), unic_ipv4_phdr_sum(iph, 6, 20 + 1500));
	/* The host's stack checks the whole frame's IP header before its GSO
	 * cuts the frame: its length and checksum are written. */
	cr_expect_eq(unic_net_get16(iph + 2), 20 + 20 + 1500);
	cr_expect_eq(unic_cksum_finish(unic_cksum_add(0, iph, 20)), 0, "the IPv4 header checksum is valid");
	cr_expect_eq(txq.vq.avail[1], 1, "published");
	virtio_txq_drain(&txq);
	free(txq.sw_ring);
	free(txq.chain_len);
	free(txq.vq.next);
	free(txq.vq.dma.va);
	unic_pool_destroy(pool);
	unic_mem_destroy(mem);
}
