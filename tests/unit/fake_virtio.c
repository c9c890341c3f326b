/* SPDX-License-Identifier: BSD-3-Clause */
/* A fake virtio-net device from the specification: fake_virtio.h. */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "fake_virtio.h"
#include "../common/toeplitz.h" /* by path: the fuzz build has no tests/common in its include path */

#define FV_MAX_CHAIN 1024


static void fv_error(struct fake_virtio_dev *d, const char *fmt, ...)
{
	va_list ap;

	d->nb_err++;
	if (d->err[0] != '\0')
		return;
	va_start(ap, fmt);
	vsnprintf(d->err, sizeof(d->err), fmt, ap);
	va_end(ap);
}

static void put8(struct fake_virtio_dev *d, uint32_t off, uint8_t v)
{
	*(volatile uint8_t *)(d->bar + off) = v;
}

static void put16(struct fake_virtio_dev *d, uint32_t off, uint16_t v)
{
	*(volatile uint16_t *)(d->bar + off) = v;
}

static void put32(struct fake_virtio_dev *d, uint32_t off, uint32_t v)
{
	*(volatile uint32_t *)(d->bar + off) = v;
}

static uint64_t get64(const struct fake_virtio_dev *d, uint32_t off)
{
	return fv_bar32(d, off) | (uint64_t)fv_bar32(d, off + 4) << 32;
}

static void put64(struct fake_virtio_dev *d, uint32_t off, uint64_t v)
{
	put32(d, off, (uint32_t)v);
	put32(d, off + 4, (uint32_t)(v >> 32));
}

static bool has(const struct fake_virtio_dev *d, unsigned f)
{
	return (d->accepted & FV_BIT(f)) != 0;
}

static void signal_fd(int fd)
{
	uint64_t one = 1;

	if (fd >= 0 && write(fd, &one, sizeof(one)) < 0) {
		/* a full eventfd is still signalled */
	}
}

/* ---- the PCI configuration space ---------------------------------------- */

static void cap(uint8_t *cfg, unsigned pos, unsigned next, unsigned len, unsigned type,
		uint32_t off, uint32_t length)
{
	cfg[pos] = 0x09; /* vendor-specific */
	cfg[pos + 1] = (uint8_t)next;
	cfg[pos + 2] = (uint8_t)len;
	cfg[pos + 3] = (uint8_t)type;
	cfg[pos + 4] = 4; /* BAR4 */
	memcpy(cfg + pos + 8, &off, 4);
	memcpy(cfg + pos + 12, &length, 4);
}

/* As QEMU 7.2's virtio_pci_device_plugged: common, ISR, device, notify,
 * then a PCI_CFG access capability (the driver must skip it). */
static void make_pci_cfg(struct fake_virtio_dev *d)
{
	uint8_t *cfg = d->pci_cfg;
	uint32_t mult = FV_NOTIFY_MULT;

	memset(cfg, 0, sizeof(d->pci_cfg));
	cfg[0] = 0xf4, cfg[1] = 0x1a;   /* 1af4 */
	cfg[2] = 0x41, cfg[3] = 0x10;   /* 1041 */
	cfg[6] = 0x10;                  /* status: capability list */
	cfg[8] = 1;                     /* revision 1 */
	cfg[0x34] = 0x40;
	cap(cfg, 0x40, 0x50, 16, 1, FV_OFF_COMMON, 0x1000);
	cap(cfg, 0x50, 0x60, 16, 3, FV_OFF_ISR, 0x1000);
	cap(cfg, 0x60, 0x70, 16, 4, FV_OFF_DEVICE, 0x1000);
	cap(cfg, 0x70, 0x88, 20, 2, FV_OFF_NOTIFY, 0x1000);
	memcpy(cfg + 0x70 + 16, &mult, 4);
	cap(cfg, 0x88, 0, 20, 5, 0, 0);
}

/* ---- registers ----------------------------------------------------------- */

static uint16_t nb_queues(const struct fake_virtio_dev *d)
{
	return d->cfg.nb_queues;
}

/* Show queue_select's queue in the window. */
static void show_queue(struct fake_virtio_dev *d)
{
	uint16_t s = d->q_select;
	const struct fv_queue *q = s < nb_queues(d) ? &d->q[s] : NULL;

	put16(d, FV_CC_Q_SELECT, s);
	put16(d, FV_CC_Q_SIZE, q ? q->size : 0);
	put16(d, FV_CC_Q_MSIX, q ? q->msix : FV_NO_VECTOR);
	put16(d, FV_CC_Q_ENABLE, q ? q->enable : 0);
	put16(d, FV_CC_Q_NOTIFY_OFF, q ? q->notify_off : 0);
	put64(d, FV_CC_Q_DESC, q ? q->desc : 0);
	put64(d, FV_CC_Q_DRIVER, q ? q->driver : 0);
	put64(d, FV_CC_Q_DEVICE, q ? q->device : 0);
}

static void write_config(struct fake_virtio_dev *d)
{
	memcpy(d->bar + FV_OFF_DEVICE + FV_NC_MAC, d->mac, 6);
	put16(d, FV_OFF_DEVICE + FV_NC_STATUS, d->cfg.net_status);
	put16(d, FV_OFF_DEVICE + FV_NC_MAX_PAIRS, d->cfg.max_pairs);
	put16(d, FV_OFF_DEVICE + FV_NC_MTU, d->cfg.mtu);
	put8(d, FV_OFF_DEVICE + FV_NC_RSS_MAX_KEY, d->cfg.rss_max_key);
	put16(d, FV_OFF_DEVICE + FV_NC_RSS_MAX_TABLE, d->cfg.rss_max_table);
	put32(d, FV_OFF_DEVICE + FV_NC_HASH_TYPES, d->cfg.hash_types);
}

void fake_virtio_dev_reset(struct fake_virtio_dev *d)
{
	uint8_t gen = fv_bar8(d, FV_CC_CFG_GEN);

	memset(d->bar, 0, FV_OFF_NOTIFY);
	d->accepted = 0;
	d->drv_features[0] = d->drv_features[1] = 0;
	d->status = 0;
	d->features_ok = d->driver_ok = d->failed = false;
	d->q_select = 0;
	d->msix_config = FV_NO_VECTOR;
	d->isr = 0;
	/* 5.1.6.5.5: after a reset one pair, no RSS (the counts are kept). */
	d->vq_pairs = 1;
	{
		unsigned a = d->rss.nb_rss_config, b = d->rss.nb_hash_config, c = d->rss.nb_pairs_set;

		memset(&d->rss, 0, sizeof(d->rss));
		d->rss.nb_rss_config = a, d->rss.nb_hash_config = b, d->rss.nb_pairs_set = c;
	}
	/* QEMU 7.2 virtio_net_reset: promiscuous, no tables, the MAC from
	 * its configuration; every VLAN filtered until set_features. */
	memset(&d->filter, 0, sizeof(d->filter));
	d->filter.promisc = true;
	memcpy(d->mac, d->cfg.mac, 6);
	for (unsigned i = 0; i < FV_MAX_QUEUES; i++) {
		struct fv_queue *q = &d->q[i];
		int fd = q->irq_fd;
		enum fv_kick_policy kp = q->kick_policy;
		uint64_t k = q->kicks, ku = q->kicks_unasked, in = q->interrupts, sup = q->suppressed;

		memset(q, 0, sizeof(*q));
		q->irq_fd = fd;
		q->kick_policy = kp;
		q->kicks = k, q->kicks_unasked = ku, q->interrupts = in, q->suppressed = sup;
		q->pk_avail_wrap = q->pk_used_wrap = true;
		if (i >= nb_queues(d))
			continue;
		q->size_max = (d->cfg.features & FV_BIT(FV_F_CTRL_VQ)) && i == nb_queues(d) - 1u ?
				      d->cfg.ctrl_size : d->cfg.queue_size;
		q->size = q->size_max;
		q->msix = FV_NO_VECTOR;
		q->notify_off = (uint16_t)i;
	}
	put32(d, FV_CC_DF, (uint32_t)d->offered);
	put16(d, FV_CC_MSIX_CONFIG, FV_NO_VECTOR);
	put16(d, FV_CC_NUM_QUEUES, nb_queues(d));
	put8(d, FV_CC_CFG_GEN, gen);
	show_queue(d);
	write_config(d);
}

int fake_virtio_dev_create(struct fake_virtio_dev *d, const struct fake_virtio_config *c,
			   struct unic_mem *mem)
{
	static const uint8_t qemu_mac[6] = { 0x52, 0x54, 0x00, 0x12, 0x34, 0x56 };

	memset(d, 0, sizeof(*d));
	if (c != NULL)
		d->cfg = *c;
	if (d->cfg.features == 0)
		d->cfg.features = FV_FEATURES_QEMU_HUB;
	if (d->cfg.require == 0)
		d->cfg.require = FV_BIT(FV_F_VERSION_1) | (d->cfg.features & FV_BIT(FV_F_ACCESS_PLATFORM));
	if (d->cfg.nb_queues == 0)
		d->cfg.nb_queues = 3;
	if (d->cfg.nb_queues > FV_MAX_QUEUES)
		d->cfg.nb_queues = FV_MAX_QUEUES;
	if (d->cfg.queue_size == 0)
		d->cfg.queue_size = 256;
	if (d->cfg.ctrl_size == 0)
		d->cfg.ctrl_size = 64;
	if (d->cfg.nb_vectors == 0)
		d->cfg.nb_vectors = 4;
	if (memcmp(d->cfg.mac, "\0\0\0\0\0\0", 6) == 0)
		memcpy(d->cfg.mac, qemu_mac, 6);
	if (d->cfg.net_status == 0)
		d->cfg.net_status = FV_NET_S_LINK_UP;
	if (d->cfg.mtu == 0)
		d->cfg.mtu = 1500;
	if (d->cfg.max_pairs == 0)
		d->cfg.max_pairs = 1;
	if (d->cfg.rss_max_key == 0)
		d->cfg.rss_max_key = FV_RSS_KEY_MAX;
	if (d->cfg.rss_max_table == 0)
		d->cfg.rss_max_table = FV_RSS_TABLE_MAX;
	if (d->cfg.hash_types == 0)
		d->cfg.hash_types = FV_HASH_IPV4 | FV_HASH_TCPV4 | FV_HASH_UDPV4 | FV_HASH_IPV6 | FV_HASH_TCPV6 |
				    FV_HASH_UDPV6;
	d->offered = d->cfg.features;
	d->mem = mem;
	d->config_irq_fd = -1;
	for (unsigned i = 0; i < FV_MAX_QUEUES; i++)
		d->q[i].irq_fd = -1;
	d->bar = aligned_alloc(4096, FV_BAR_LEN);
	if (d->bar == NULL)
		return -ENOMEM;
	memset(d->bar, 0, FV_BAR_LEN);
	make_pci_cfg(d);
	fake_virtio_dev_reset(d);
	return 0;
}

void fake_virtio_dev_destroy(struct fake_virtio_dev *d)
{
	free(d->bar);
	d->bar = NULL;
}

static void config_notify(struct fake_virtio_dev *d)
{
	d->config_changes++;
	d->isr |= 2u;
	if (d->msix_config != FV_NO_VECTOR)
		signal_fd(d->config_irq_fd);
}

static void config_changed(struct fake_virtio_dev *d)
{
	put8(d, FV_CC_CFG_GEN, (uint8_t)(fv_bar8(d, FV_CC_CFG_GEN) + 1));
	write_config(d);
	config_notify(d);
}

void fake_virtio_set_net_status(struct fake_virtio_dev *d, uint16_t status)
{
	d->cfg.net_status = status;
	config_changed(d);
}

void fake_virtio_set_mac(struct fake_virtio_dev *d, const uint8_t mac[6])
{
	memcpy(d->cfg.mac, mac, 6);
	memcpy(d->mac, mac, 6);
	config_changed(d);
}

void fake_virtio_vanish(struct fake_virtio_dev *d)
{
	d->gone = true;
	memset(d->bar, 0xff, FV_BAR_LEN);
}

void fake_virtio_needs_reset(struct fake_virtio_dev *d)
{
	d->status |= FV_S_NEEDS_RESET;
	put8(d, FV_CC_STATUS, d->status);
	config_notify(d);
}

static void status_written(struct fake_virtio_dev *d)
{
	uint8_t v = fv_bar8(d, FV_CC_STATUS), added = (uint8_t)(v & ~d->status);
	uint8_t old = d->status;

	if (d->nb_status < sizeof(d->status_log))
		d->status_log[d->nb_status++] = v;
	if (v == 0) {
		if (d->reset_hangs) {
			put8(d, FV_CC_STATUS, old ? old : FV_S_ACKNOWLEDGE);
			return;
		}
		fake_virtio_dev_reset(d);
		d->resets++;
		return;
	}
	if (old & ~v & ~FV_S_NEEDS_RESET)
		fv_error(d, "the driver cleared device_status bits 0x%02x (wrote 0x%02x over 0x%02x); "
			 "only a reset (0) may clear them (2.1.1)", old & ~v, v, old);
	if ((v & FV_S_DRIVER) && !(v & FV_S_ACKNOWLEDGE))
		fv_error(d, "DRIVER set without ACKNOWLEDGE (3.1.1)");
	if (added & FV_S_FEATURES_OK) {
		uint64_t acc = d->drv_features[0] | (uint64_t)d->drv_features[1] << 32;
		bool ok = !d->refuse_features && (acc & ~d->offered) == 0 &&
			  (acc & d->cfg.require) == d->cfg.require;

		if (!(v & FV_S_DRIVER))
			fv_error(d, "FEATURES_OK set without DRIVER (3.1.1)");
		if (ok) {
			/* QEMU set_features: without CTRL_VLAN no VLAN is filtered. */
			memset(d->filter.vlans, (acc & FV_BIT(FV_F_CTRL_VLAN)) ? 0 : 0xff, sizeof(d->filter.vlans));
			d->accepted = d->last_accepted = acc;
			d->features_ok = true;
			d->nb_features_ok++;
		} else {
			v &= (uint8_t)~FV_S_FEATURES_OK;
		}
	}
	if (added & FV_S_DRIVER_OK) {
		if (!d->features_ok)
			fv_error(d, "DRIVER_OK set before the device accepted FEATURES_OK (3.1.1)");
		d->driver_ok = true;
		d->nb_driver_ok++;
		if (d->needs_reset_at_driver_ok)
			v |= FV_S_NEEDS_RESET;
	}
	if (added & FV_S_FAILED)
		d->failed = true;
	d->status = (uint8_t)(v | (old & FV_S_NEEDS_RESET));
	put8(d, FV_CC_STATUS, d->status);
}

static void queue_written(struct fake_virtio_dev *d, uint32_t off)
{
	struct fv_queue *q = d->q_select < nb_queues(d) ? &d->q[d->q_select] : NULL;

	if (q == NULL) {
		fv_error(d, "queue register 0x%x written with queue_select %u; the device has %u queues",
			 off, d->q_select, nb_queues(d));
		show_queue(d);
		return;
	}
	if (off >= FV_CC_Q_DESC) {
		q->desc = get64(d, FV_CC_Q_DESC);
		q->driver = get64(d, FV_CC_Q_DRIVER);
		q->device = get64(d, FV_CC_Q_DEVICE);
		return;
	}
	switch (off & ~1u) {
	case FV_CC_Q_SIZE: {
		uint16_t s = fv_bar16(d, FV_CC_Q_SIZE);

		/* A packed ring may have any size (2.7.10.1); a split one a power of two. */
		if (s == 0 || s > q->size_max || (!has(d, FV_F_RING_PACKED) && (s & (s - 1)) != 0))
			fv_error(d, "queue %u: size %u written; a power of two up to %u (2.6)", d->q_select, s,
				 q->size_max);
		q->size = s;
		break;
	}
	case FV_CC_Q_MSIX: {
		uint16_t v = fv_bar16(d, FV_CC_Q_MSIX);

		/* QEMU: a vector it does not have reads back as NO_VECTOR. */
		q->msix = v < d->cfg.nb_vectors ? v : FV_NO_VECTOR;
		put16(d, FV_CC_Q_MSIX, q->msix);
		break;
	}
	case FV_CC_Q_ENABLE:
		if (fv_bar16(d, FV_CC_Q_ENABLE) != 1) {
			fv_error(d, "queue %u: queue_enable written with %u; the driver MUST NOT write 0 (4.1.4.3.2)",
				 d->q_select, fv_bar16(d, FV_CC_Q_ENABLE));
			put16(d, FV_CC_Q_ENABLE, q->enable);
			break;
		}
		if (!d->features_ok)
			fv_error(d, "queue %u enabled before FEATURES_OK (3.1.1)", d->q_select);
		if (has(d, FV_F_RING_PACKED)) {
			/* 2.7.10.2: 16-byte ring, 4-byte event structures. */
			if (q->desc % 16 || q->driver % 4 || q->device % 4)
				fv_error(d, "queue %u: packed rings misaligned: desc 0x%llx, driver 0x%llx, device 0x%llx (2.7)",
					 d->q_select, (unsigned long long)q->desc, (unsigned long long)q->driver,
					 (unsigned long long)q->device);
			if (!fake_virtio_iova(d, q->desc, 16u * q->size) || !fake_virtio_iova(d, q->driver, 4) ||
			    !fake_virtio_iova(d, q->device, 4))
				fv_error(d, "queue %u: a ring outside the DMA memory", d->q_select);
			q->enable = 1;
			break;
		}
		if (q->desc % 16 || q->driver % 2 || q->device % 4)
			fv_error(d, "queue %u: rings misaligned: desc 0x%llx, driver 0x%llx, device 0x%llx (2.6)",
				 d->q_select, (unsigned long long)q->desc, (unsigned long long)q->driver,
				 (unsigned long long)q->device);
		if (!fake_virtio_iova(d, q->desc, 16u * q->size) ||
		    !fake_virtio_iova(d, q->driver, 6u + 2u * q->size) ||
		    !fake_virtio_iova(d, q->device, 6u + 8u * q->size))
			fv_error(d, "queue %u: a ring outside the DMA memory", d->q_select);
		q->enable = 1;
		break;
	default: /* queue_notify_off: read-only */
		show_queue(d);
		break;
	}
}

static void common_written(struct fake_virtio_dev *d, uint32_t off, unsigned width)
{
	if (off < FV_CC_DF) {
		uint32_t sel = fv_bar32(d, FV_CC_DFSELECT);

		put32(d, FV_CC_DF, sel < 2 ? (uint32_t)(d->offered >> (32 * sel)) : 0);
	} else if (off < FV_CC_GFSELECT) {
		put32(d, FV_CC_DF, (uint32_t)(d->offered >> (32 * (fv_bar32(d, FV_CC_DFSELECT) & 1))));
	} else if (off < FV_CC_GF) {
		uint32_t sel = fv_bar32(d, FV_CC_GFSELECT);

		put32(d, FV_CC_GF, sel < 2 ? d->drv_features[sel] : 0);
	} else if (off < FV_CC_MSIX_CONFIG) {
		uint32_t sel = fv_bar32(d, FV_CC_GFSELECT);

		if (d->features_ok)
			fv_error(d, "driver_feature written after FEATURES_OK (3.1.1)");
		else if (sel < 2)
			d->drv_features[sel] = fv_bar32(d, FV_CC_GF);
	} else if (off < FV_CC_NUM_QUEUES) {
		uint16_t v = fv_bar16(d, FV_CC_MSIX_CONFIG);

		d->msix_config = v < d->cfg.nb_vectors ? v : FV_NO_VECTOR;
		put16(d, FV_CC_MSIX_CONFIG, d->msix_config);
	} else if (off < FV_CC_STATUS) {
		put16(d, FV_CC_NUM_QUEUES, nb_queues(d));
	} else if (off == FV_CC_STATUS) {
		status_written(d);
		if (width > 1)
			fv_error(d, "device_status written %u bytes wide", width);
	} else if (off == FV_CC_CFG_GEN) {
		fv_error(d, "config_generation (read-only) written");
	} else if (off < FV_CC_Q_SIZE) {
		d->q_select = fv_bar16(d, FV_CC_Q_SELECT);
		show_queue(d);
	} else if (off < FV_CC_LEN) {
		queue_written(d, off);
	}
}

static uint16_t avail_idx(struct fake_virtio_dev *d, uint16_t qn);
static void ctrl_process(struct fake_virtio_dev *d, uint16_t qn);
static bool pk_kick_asked(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r);
static int pk_avail_count(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r);

static void kicked(struct fake_virtio_dev *d, uint32_t off)
{
	uint32_t qn = off / FV_NOTIFY_MULT;
	struct fv_queue *q;
	struct fv_ring r;
	bool asked;
	uint16_t idx;

	if (off % FV_NOTIFY_MULT != 0 || qn >= nb_queues(d)) {
		d->bad_notify++;
		return;
	}
	if (fv_bar16(d, FV_OFF_NOTIFY + off) != qn)
		d->bad_notify++;
	q = &d->q[qn];
	q->kicks++;
	if (fake_virtio_ring(d, (uint16_t)qn, &r) != 0) {
		fv_error(d, "queue %u kicked before it was enabled", qn);
		return;
	}
	idx = avail_idx(d, (uint16_t)qn);
	if (q->waiting)
		asked = true;
	else if (r.packed)
		asked = pk_kick_asked(d, (uint16_t)qn, &r);
	else if (has(d, FV_F_EVENT_IDX))
		asked = fv_need_event(*(volatile uint16_t *)r.avail_event, idx, q->kicked_at);
	else
		asked = !(*(volatile uint16_t *)&r.used->flags & FV_USED_F_NO_NOTIFY);
	if (!asked)
		q->kicks_unasked++;
	q->kicked_at = idx;
	q->waiting = false;
	if ((d->offered & FV_BIT(FV_F_CTRL_VQ)) && qn == fake_virtio_ctrl_queue(d))
		ctrl_process(d, (uint16_t)qn);
}

void fake_virtio_hook_read(void *ctx, int region, uint32_t off, unsigned width)
{
	struct fake_virtio_dev *d = ctx;

	(void)width;
	if (d->gone) {
		memset(d->bar, 0xff, FV_BAR_LEN);
		return;
	}
	if (d->pending_mac0) {
		d->pending_mac0 = false;
		write_config(d);
	}
	if (region == 2) {
		/* ISR (4.1.4.5): this read gets every cause raised since the
		 * last one, and clears them. */
		put8(d, FV_OFF_ISR, d->isr);
		d->isr = 0;
		d->isr_reads++;
	}
	if (region == 3 && d->tear_config_reads > 0 && off == FV_NC_MAC) {
		/* The config changes under the driver: it has the first byte
		 * of the old MAC when the rest changes (4.1.4.3.1). */
		d->tear_config_reads--;
		d->cfg.mac[5] ^= 0x01;
		d->cfg.mac[0] ^= 0x02;
		memcpy(d->mac, d->cfg.mac, 6);
		d->config_changes++;
		put8(d, FV_CC_CFG_GEN, (uint8_t)(fv_bar8(d, FV_CC_CFG_GEN) + 1));
		memcpy(d->bar + FV_OFF_DEVICE + 1, d->cfg.mac + 1, 5);
		d->pending_mac0 = true;
	}
}

void fake_virtio_hook_written(void *ctx, int region, uint32_t off, unsigned width)
{
	struct fake_virtio_dev *d = ctx;

	if (d->gone) {
		memset(d->bar, 0xff, FV_BAR_LEN);
		return;
	}
	switch (region) {
	case 0:
		common_written(d, off, width);
		break;
	case 1:
		kicked(d, off);
		break;
	default:
		fv_error(d, "the driver wrote %u bytes at 0x%x of region %d (read-only)", width, off, region);
		write_config(d);
		break;
	}
}

/* ---- rings --------------------------------------------------------------- */

struct iova_find {
	uint64_t iova;
	size_t len;
	void *va;
};

static int iova_walk(void *ctx, const struct unic_mem_seg *seg)
{
	struct iova_find *f = ctx;

	if (f->iova >= seg->iova && f->len <= seg->len && f->iova - seg->iova <= seg->len - f->len) {
		f->va = (uint8_t *)seg->va + (f->iova - seg->iova);
		return 1;
	}
	return 0;
}

void *fake_virtio_iova(struct fake_virtio_dev *d, uint64_t iova, size_t len)
{
	struct iova_find f = { .iova = iova, .len = len };

	if (d->mem == NULL || iova == 0)
		return NULL;
	unic_mem_seg_walk(d->mem, iova_walk, &f);
	return f.va;
}

int fake_virtio_ring(struct fake_virtio_dev *d, uint16_t qn, struct fv_ring *r)
{
	struct fv_queue *q;

	memset(r, 0, sizeof(*r));
	if (qn >= nb_queues(d) || !d->q[qn].enable)
		return -EIO;
	q = &d->q[qn];
	r->size = q->size;
	if (has(d, FV_F_RING_PACKED)) {
		r->packed = true;
		r->pdesc = fake_virtio_iova(d, q->desc, 16u * q->size);
		r->drv_event = fake_virtio_iova(d, q->driver, 4);
		r->dev_event = fake_virtio_iova(d, q->device, 4);
		return r->pdesc && r->drv_event && r->dev_event ? 0 : -EPROTO;
	}
	r->desc = fake_virtio_iova(d, q->desc, 16u * q->size);
	r->avail = fake_virtio_iova(d, q->driver, 6u + 2u * q->size);
	r->used = fake_virtio_iova(d, q->device, 6u + 8u * q->size);
	if (r->desc == NULL || r->avail == NULL || r->used == NULL)
		return -EPROTO;
	r->used_event = &r->avail->ring[q->size];
	r->avail_event = (uint16_t *)&r->used->ring[q->size];
	return 0;
}

static uint16_t avail_idx(struct fake_virtio_dev *d, uint16_t qn)
{
	struct fv_ring r;

	if (fake_virtio_ring(d, qn, &r) != 0 || r.packed)
		return 0;
	return __atomic_load_n(&r.avail->idx, __ATOMIC_ACQUIRE);
}

int fake_virtio_avail_count(struct fake_virtio_dev *d, uint16_t qn)
{
	struct fv_ring r;
	int rc = fake_virtio_ring(d, qn, &r);

	if (rc != 0)
		return rc;
	if (r.packed)
		return pk_avail_count(d, qn, &r);
	return (uint16_t)(__atomic_load_n(&r.avail->idx, __ATOMIC_ACQUIRE) - d->q[qn].last_avail);
}

/* What the device asks of the driver's kicks, in the ring. */
static void ask_kicks(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, bool want)
{
	uint16_t idx;

	if (r->packed) {
		/* 2.7.10: DESC names the next descriptor the device reads. */
		const struct fv_queue *q = &d->q[qn];

		if (want && has(d, FV_F_EVENT_IDX)) {
			__atomic_store_n(&r->dev_event->off_wrap, (uint16_t)(q->pk_avail | (q->pk_avail_wrap ? 0x8000u : 0)),
					 __ATOMIC_RELEASE);
			__atomic_store_n(&r->dev_event->flags, FV_PEVENT_DESC, __ATOMIC_RELEASE);
		} else {
			__atomic_store_n(&r->dev_event->flags, want ? FV_PEVENT_ENABLE : FV_PEVENT_DISABLE,
					 __ATOMIC_RELEASE);
		}
		__atomic_thread_fence(__ATOMIC_SEQ_CST);
		return;
	}
	idx = __atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE);
	if (has(d, FV_F_EVENT_IDX))
		/* Kick when the avail index passes idx (the next buffer), or
		 * half the index space away: never, in practice. */
		__atomic_store_n(r->avail_event, want ? idx : (uint16_t)(idx + 0x8000), __ATOMIC_RELEASE);
	else
		__atomic_store_n(&r->used->flags, want ? 0 : FV_USED_F_NO_NOTIFY, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	(void)qn;
}

static void apply_policy(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	struct fv_queue *q = &d->q[qn];
	bool want;

	switch (q->kick_policy) {
	case FV_KICK_ALWAYS:
		want = true;
		break;
	case FV_KICK_NEVER:
		want = false;
		break;
	default:
		/* QEMU: an rx queue wants no kick while it has buffers; tx always. */
		want = qn % 2 == 1 || fake_virtio_avail_count(d, qn) == 0;
		break;
	}
	ask_kicks(d, qn, r, want);
}

void fake_virtio_kick_policy(struct fake_virtio_dev *d, uint16_t qn, enum fv_kick_policy p)
{
	struct fv_ring r;

	d->q[qn].kick_policy = p;
	if (fake_virtio_ring(d, qn, &r) == 0)
		apply_policy(d, qn, &r);
}

bool fake_virtio_intr_suppressed(struct fake_virtio_dev *d, uint16_t qn)
{
	struct fv_ring r;
	uint16_t u = d->q[qn].used_idx;

	if (fake_virtio_ring(d, qn, &r) != 0)
		return true;
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (r.packed) {
		uint16_t fl = *(volatile uint16_t *)&r.drv_event->flags;
		uint16_t ow = *(volatile uint16_t *)&r.drv_event->off_wrap;

		if (fl == FV_PEVENT_ENABLE)
			return false;
		if (fl != FV_PEVENT_DESC)
			return true;
		/* The next used descriptor is written at pk_used. */
		return ow != (uint16_t)(d->q[qn].pk_used | (d->q[qn].pk_used_wrap ? 0x8000u : 0));
	}
	if (has(d, FV_F_EVENT_IDX))
		return !fv_need_event(*(volatile uint16_t *)r.used_event, (uint16_t)(u + 1), u);
	return (*(volatile uint16_t *)&r.avail->flags & FV_AVAIL_F_NO_INTERRUPT) != 0;
}

static void raise_irq(struct fake_virtio_dev *d, uint16_t qn)
{
	struct fv_queue *q = &d->q[qn];

	q->interrupts++;
	d->isr |= 1u;
	if (q->msix != FV_NO_VECTOR)
		signal_fd(q->irq_fd);
}

void fake_virtio_interrupt(struct fake_virtio_dev *d, uint16_t qn)
{
	raise_irq(d, qn);
}

/* Publish used->idx moving from old to the device's used_idx, then notify
 * if the driver allows it (2.7.10). */
static void publish(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t old)
{
	struct fv_queue *q = &d->q[qn];
	bool send;

	__atomic_store_n(&r->used->idx, q->used_idx, __ATOMIC_RELEASE);
	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	if (has(d, FV_F_EVENT_IDX))
		send = fv_need_event(*(volatile uint16_t *)r->used_event, q->used_idx, old);
	else
		send = !(*(volatile uint16_t *)&r->avail->flags & FV_AVAIL_F_NO_INTERRUPT);
	if (send)
		raise_irq(d, qn);
	else
		q->suppressed++;
}

struct fv_seg {
	uint8_t *p;
	uint32_t len;
	bool write;
};

/* Walk the chain at @p head (2.6.5, indirect 2.6.5.3). @return segments, or -EPROTO. */
static int walk_chain(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint32_t head,
		      struct fv_seg *segs, bool *indirect)
{
	const struct fv_desc *table = r->desc;
	uint32_t n = r->size, i = head, steps = 0;
	int nb = 0;
	bool seen_write = false, io = has(d, FV_F_IN_ORDER) && !d->io_lax;

	*indirect = false;
	d->walk_main = 0;
	if (head >= r->size) {
		fv_error(d, "queue %u: avail ring names descriptor %u of %u", qn, head, r->size);
		return -EPROTO;
	}
	for (;;) {
		struct fv_desc desc = *(volatile struct fv_desc *)&table[i];

		if (table == r->desc)
			d->walk_main++;
		/* IN_ORDER: next = x + 1 (0 after the table's last), indirect
		 * entries in sequence (2.6.5, 2.6.5.3). */
		if (io && (desc.flags & FV_DESC_F_NEXT) && desc.next != (i + 1) % n) {
			fv_error(d, "queue %u: IN_ORDER: descriptor %u of the %s has next %u, not %u", qn, i,
				 table == r->desc ? "table" : "indirect table", desc.next, (i + 1) % n);
			return -EPROTO;
		}
		if (desc.flags & FV_DESC_F_INDIRECT) {
			if (*indirect || table != r->desc) {
				fv_error(d, "queue %u: an indirect descriptor inside an indirect table", qn);
				return -EPROTO;
			}
			if (!has(d, FV_F_INDIRECT_DESC) || (desc.flags & FV_DESC_F_NEXT) || desc.len % 16 ||
			    desc.len == 0) {
				fv_error(d, "queue %u: indirect descriptor %u (flags 0x%x, len %u) not allowed",
					 qn, i, desc.flags, desc.len);
				return -EPROTO;
			}
			table = fake_virtio_iova(d, desc.addr, desc.len);
			if (table == NULL) {
				fv_error(d, "queue %u: indirect table at 0x%llx outside the DMA memory", qn,
					 (unsigned long long)desc.addr);
				return -EPROTO;
			}
			*indirect = true;
			n = desc.len / 16;
			i = 0;
			steps = 0;
			continue;
		}
		if (nb >= FV_MAX_CHAIN || ++steps > n) {
			fv_error(d, "queue %u: the chain at %u loops or is longer than the ring", qn, head);
			return -EPROTO;
		}
		segs[nb].p = desc.len ? fake_virtio_iova(d, desc.addr, desc.len) : NULL;
		segs[nb].len = desc.len;
		segs[nb].write = (desc.flags & FV_DESC_F_WRITE) != 0;
		if (desc.len && segs[nb].p == NULL) {
			fv_error(d, "queue %u: descriptor %u: %u bytes at 0x%llx outside the DMA memory", qn, i,
				 desc.len, (unsigned long long)desc.addr);
			return -EPROTO;
		}
		if (seen_write && !segs[nb].write) {
			fv_error(d, "queue %u: a device-readable descriptor after a writable one (2.6.4.2)", qn);
			return -EPROTO;
		}
		seen_write |= segs[nb].write;
		nb++;
		if (!(desc.flags & FV_DESC_F_NEXT))
			return nb;
		i = desc.next;
		if (i >= n) {
			fv_error(d, "queue %u: descriptor next %u of %u", qn, i, n);
			return -EPROTO;
		}
	}
}

static int live_ring(struct fake_virtio_dev *d, uint16_t qn, struct fv_ring *r)
{
	int rc;

	if (d->gone || !d->driver_ok || qn >= nb_queues(d) || !d->q[qn].enable)
		return -EIO;
	rc = fake_virtio_ring(d, qn, r);
	if (rc != 0)
		fv_error(d, "queue %u: rings outside the DMA memory", qn);
	return rc;
}

static int check_avail(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	uint16_t n = (uint16_t)(__atomic_load_n(&r->avail->idx, __ATOMIC_ACQUIRE) - d->q[qn].last_avail);

	if (n > r->size) {
		fv_error(d, "queue %u: avail idx moved %u entries past the device, ring of %u", qn, n, r->size);
		return -EPROTO;
	}
	return n;
}

/* ---- IN_ORDER (2.6.9, 2.7.9) ------------------------------------------------ */

static bool io_on(const struct fake_virtio_dev *d)
{
	return has(d, FV_F_IN_ORDER);
}

/* Split, IN_ORDER: the chain the device takes must start where the last
 * one ended (the driver uses descriptors in ring order, 2.6.5). */
static int io_head(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t head)
{
	struct fv_queue *q = &d->q[qn];

	if (!io_on(d) || d->io_lax)
		return 0;
	if (head != q->io_next_desc) {
		fv_error(d, "queue %u: IN_ORDER: a chain at descriptor %u, expected %u (ring order)", qn, head,
			 q->io_next_desc);
		return -EPROTO;
	}
	q->io_next_desc = (uint16_t)((head + d->walk_main) % r->size);
	return 0;
}

static void pk_used_write(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t id,
			  uint32_t len, uint16_t ndesc);

/* Report the open batch: one used entry naming its last buffer. */
static void io_flush(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	struct fv_queue *q = &d->q[qn];

	if (q->io_open == 0)
		return;
	if (r->packed) {
		pk_used_write(d, qn, r, q->io_id, q->io_len, q->io_ndesc);
	} else {
		r->used->ring[q->used_idx % r->size].id = q->io_id;
		r->used->ring[q->used_idx % r->size].len = q->io_len;
		q->used_idx = (uint16_t)(q->used_idx + q->io_open);
	}
	q->io_open = 0;
	q->io_ndesc = 0;
	q->io_batches++;
}

/* A buffer used (@p ndesc positions; @p full: written completely, or a
 * tx buffer): its used entry now, or with IN_ORDER into the batch. */
static void used_add(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t id, uint32_t len,
		     uint16_t ndesc, bool full)
{
	struct fv_queue *q = &d->q[qn];
	unsigned size = 1;

	if (!io_on(d)) {
		if (r->packed) {
			pk_used_write(d, qn, r, id, len, ndesc);
		} else {
			r->used->ring[q->used_idx % r->size].id = id;
			r->used->ring[q->used_idx % r->size].len = len;
			q->used_idx++;
		}
		return;
	}
	if (d->nb_io_batch > 0 && d->io_batch[q->io_batches % d->nb_io_batch] > 0)
		size = d->io_batch[q->io_batches % d->nb_io_batch];
	q->io_open++;
	q->io_ndesc = (uint16_t)(q->io_ndesc + ndesc);
	q->io_id = id;
	q->io_len = len;
	if (!full || q->io_open >= size)
		io_flush(d, qn, r);
}

/* The end of a call: the open batch reported unless held. */
static void io_end(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	if (io_on(d) && !d->io_hold)
		io_flush(d, qn, r);
}

/* ---- packed virtqueues (2.7) ---------------------------------------------- */

/* A position and its wrap counter as one number in [0, 2 * size): laps
 * with wrap counter 1 first. */
static uint32_t pk_lin(uint16_t size, uint16_t pos, bool wrap)
{
	return pos + (wrap ? 0u : size);
}

static void pk_advance(uint16_t size, uint16_t *pos, bool *wrap, uint16_t n)
{
	uint32_t p = (uint32_t)*pos + n;

	while (p >= size) {
		p -= size;
		*wrap = !*wrap;
	}
	*pos = (uint16_t)p;
}

/* Is the descriptor at @p pos available in the lap of wrap counter @p wrap (2.7.1)? */
static bool pk_is_avail(const struct fv_ring *r, uint16_t pos, bool wrap)
{
	uint16_t fl = __atomic_load_n(&r->pdesc[pos].flags, __ATOMIC_ACQUIRE);

	return !!(fl & FV_PDESC_F_AVAIL) == wrap && !!(fl & FV_PDESC_F_USED) != wrap;
}

/*
 * The buffer at @p pos (2.7.6 chains through NEXT over the following
 * positions, 2.7.7 one indirect descriptor): its segments, the positions
 * it takes (*ndesc) and its buffer id (the last descriptor's).
 * @return segments, 0 if the descriptor at @p pos is not available, or -EPROTO.
 */
static int pk_walk(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t pos, bool wrap,
		   struct fv_seg *segs, uint16_t *ndesc, uint16_t *id, bool *indirect)
{
	int nb = 0;
	uint16_t steps = 0;
	bool seen_write = false;

	*indirect = false;
	for (;;) {
		struct fv_pdesc desc;

		if (!pk_is_avail(r, pos, wrap)) {
			if (steps == 0)
				return 0;
			fv_error(d, "queue %u: a chain goes on (NEXT) into position %u, which is not available", qn, pos);
			return -EPROTO;
		}
		desc = *(volatile struct fv_pdesc *)&r->pdesc[pos];
		if (++steps > r->size || nb >= FV_MAX_CHAIN) {
			fv_error(d, "queue %u: a chain longer than the ring", qn);
			return -EPROTO;
		}
		if (desc.flags & FV_DESC_F_INDIRECT) {
			const struct fv_pdesc *t;

			if (!has(d, FV_F_INDIRECT_DESC) || (desc.flags & FV_DESC_F_NEXT) || desc.len % 16 ||
			    desc.len == 0 || steps != 1) {
				fv_error(d, "queue %u: indirect descriptor at %u (flags 0x%x, len %u) not allowed (2.7.7)",
					 qn, pos, desc.flags, desc.len);
				return -EPROTO;
			}
			t = fake_virtio_iova(d, desc.addr, desc.len);
			if (t == NULL) {
				fv_error(d, "queue %u: indirect table at 0x%llx outside the DMA memory", qn,
					 (unsigned long long)desc.addr);
				return -EPROTO;
			}
			for (uint32_t k = 0; k < desc.len / 16 && nb < FV_MAX_CHAIN; k++) {
				struct fv_pdesc e = t[k];

				if (e.flags & ~FV_DESC_F_WRITE) {
					fv_error(d, "queue %u: indirect entry %u has flags 0x%x; only WRITE is valid (2.7.7)",
						 qn, k, e.flags);
					return -EPROTO;
				}
				segs[nb].p = e.len ? fake_virtio_iova(d, e.addr, e.len) : NULL;
				segs[nb].len = e.len;
				segs[nb].write = (e.flags & FV_DESC_F_WRITE) != 0;
				if (e.len && segs[nb].p == NULL) {
					fv_error(d, "queue %u: indirect entry %u outside the DMA memory", qn, k);
					return -EPROTO;
				}
				nb++;
			}
			*indirect = true;
			*ndesc = 1;
			*id = desc.id;
			return nb;
		}
		segs[nb].p = desc.len ? fake_virtio_iova(d, desc.addr, desc.len) : NULL;
		segs[nb].len = desc.len;
		segs[nb].write = (desc.flags & FV_DESC_F_WRITE) != 0;
		if (desc.len && segs[nb].p == NULL) {
			fv_error(d, "queue %u: descriptor at %u: %u bytes at 0x%llx outside the DMA memory", qn, pos,
				 desc.len, (unsigned long long)desc.addr);
			return -EPROTO;
		}
		if (seen_write && !segs[nb].write) {
			fv_error(d, "queue %u: a device-readable descriptor after a writable one (2.7.4)", qn);
			return -EPROTO;
		}
		seen_write |= segs[nb].write;
		nb++;
		if (!(desc.flags & FV_DESC_F_NEXT)) {
			*ndesc = steps;
			*id = desc.id;
			return nb;
		}
		pk_advance(r->size, &pos, &wrap, 1);
	}
}

static int pk_avail_count(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	uint16_t pos = d->q[qn].pk_avail, nd, id;
	bool wrap = d->q[qn].pk_avail_wrap, ind;
	int n = 0, rc;

	for (uint32_t taken = 0; taken < r->size; taken += nd, n++) {
		rc = pk_walk(d, qn, r, pos, wrap, segs, &nd, &id, &ind);
		if (rc <= 0)
			break;
		pk_advance(r->size, &pos, &wrap, nd);
	}
	return n;
}

static bool pk_kick_asked(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	uint16_t fl = *(volatile uint16_t *)&r->dev_event->flags;
	uint16_t ow = *(volatile uint16_t *)&r->dev_event->off_wrap;

	(void)d;
	(void)qn;
	if (fl == FV_PEVENT_ENABLE)
		return true;
	if (fl != FV_PEVENT_DESC)
		return false;
	/* Asked once the descriptor it names is available. */
	return pk_is_avail(r, (uint16_t)(ow & 0x7fffu) % r->size, (ow & 0x8000u) != 0);
}

/* Write a used descriptor (2.7.8): id and len, then the flags. */
static void pk_used_write(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t id,
			  uint32_t len, uint16_t ndesc)
{
	struct fv_queue *q = &d->q[qn];
	struct fv_pdesc *u = &r->pdesc[q->pk_used];

	u->id = id;
	u->len = len;
	__atomic_store_n(&u->flags, (uint16_t)(q->pk_used_wrap ? FV_PDESC_F_AVAIL | FV_PDESC_F_USED : 0),
			 __ATOMIC_RELEASE);
	pk_advance(r->size, &q->pk_used, &q->pk_used_wrap, ndesc);
}

/* Used descriptors written from (old, old_wrap) to the device's used
 * position: a notification if the driver's structure allows (2.7.10). */
static void pk_publish(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, uint16_t old, bool old_wrap)
{
	struct fv_queue *q = &d->q[qn];
	uint16_t fl, ow;
	bool send;

	__atomic_thread_fence(__ATOMIC_SEQ_CST);
	fl = *(volatile uint16_t *)&r->drv_event->flags;
	ow = *(volatile uint16_t *)&r->drv_event->off_wrap;
	if (fl == FV_PEVENT_DESC) {
		uint32_t two = 2u * r->size;
		uint32_t n = pk_lin(r->size, q->pk_used, q->pk_used_wrap), o = pk_lin(r->size, old, old_wrap);
		uint32_t e = pk_lin(r->size, (uint16_t)((ow & 0x7fffu) % r->size), (ow & 0x8000u) != 0);

		if (!has(d, FV_F_EVENT_IDX))
			fv_error(d, "queue %u: driver event flags DESC without EVENT_IDX (2.7.10)", qn);
		send = (n + two - 1 - e) % two < (n + two - o) % two;
	} else if (fl == FV_PEVENT_ENABLE) {
		send = true;
	} else {
		if (fl != FV_PEVENT_DISABLE)
			fv_error(d, "queue %u: driver event flags %u (reserved)", qn, fl);
		send = false;
	}
	if (send)
		raise_irq(d, qn);
	else
		q->suppressed++;
}

static int pk_rx(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, const struct fv_net_hdr *hdr,
		 const void *frame, size_t len)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	struct fv_queue *q = &d->q[qn];
	struct fv_net_hdr h = { 0 };
	bool mrg = has(d, FV_F_MRG_RXBUF), ind, wrap = q->pk_avail_wrap, old_wrap = q->pk_used_wrap;
	size_t hlen = fake_virtio_hdr_len(d), total = hlen + len, cap = 0;
	uint8_t hbytes[FV_NET_HDR_HASH_LEN] = { 0 };
	uint16_t pos = q->pk_avail, heads = 0, nd, id, old = q->pk_used;
	int rc;

	if (q->waiting)
		return -EAGAIN;
	while (cap < total) {
		if (!mrg && heads >= 1)
			return -EMSGSIZE;
		rc = pk_walk(d, qn, r, pos, wrap, segs, &nd, &id, &ind);
		if (rc < 0)
			return rc;
		if (rc == 0 || heads >= r->size) {
			if (q->kick_policy != FV_KICK_NEVER)
				q->waiting = true;
			ask_kicks(d, qn, r, q->kick_policy != FV_KICK_NEVER);
			return -EAGAIN;
		}
		for (int s = 0; s < rc; s++) {
			if (!segs[s].write) {
				fv_error(d, "rx queue %u: a device-readable descriptor in buffer %u", qn, id);
				return -EPROTO;
			}
			cap += segs[s].len;
		}
		pk_advance(r->size, &pos, &wrap, nd);
		heads++;
	}
	if (hdr != NULL)
		h = *hdr;
	h.num_buffers = mrg ? heads : 1;
	/* The header as long as negotiated: 20 bytes with HASH_REPORT. */
	memcpy(hbytes, &h, FV_NET_HDR_LEN);
	if (hlen == FV_NET_HDR_HASH_LEN) {
		memcpy(hbytes + 12, &d->rx_hash_value, 4);
		memcpy(hbytes + 16, &d->rx_hash_report, 2);
	}
	{
		const uint8_t *src[2] = { hbytes, frame };
		size_t left[2] = { hlen, len }, part = 0;

		for (uint16_t k = 0; k < heads; k++) {
			uint32_t written = 0;
			int nb = pk_walk(d, qn, r, q->pk_avail, q->pk_avail_wrap, segs, &nd, &id, &ind);

			for (int s = 0; s < nb && part < 2; s++) {
				uint32_t at = 0;

				while (at < segs[s].len && part < 2) {
					size_t c = segs[s].len - at < left[part] ? segs[s].len - at : left[part];

					memcpy(segs[s].p + at, src[part], c);
					src[part] += c;
					left[part] -= c;
					at += (uint32_t)c;
					written += (uint32_t)c;
					if (left[part] == 0)
						part++;
				}
			}
			pk_advance(r->size, &q->pk_avail, &q->pk_avail_wrap, nd);
			{
				uint32_t room = 0;

				for (int s = 0; s < nb; s++)
					room += segs[s].len;
				used_add(d, qn, r, id, written, nd, written == room);
			}
		}
	}
	io_end(d, qn, r);
	if (q->pk_used != old || q->pk_used_wrap != old_wrap)
		pk_publish(d, qn, r, old, old_wrap);
	apply_policy(d, qn, r);
	return heads;
}

static int pk_tx(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r, struct fv_frame *out, unsigned max)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	struct fv_queue *q = &d->q[qn];
	uint16_t old = q->pk_used, nd, id;
	bool old_wrap = q->pk_used_wrap, ind;
	unsigned done = 0;
	int rc = 0;

	while (done < max) {
		size_t total = 0, at = 0;
		int nb = pk_walk(d, qn, r, q->pk_avail, q->pk_avail_wrap, segs, &nd, &id, &ind);

		if (nb <= 0) {
			rc = nb;
			break;
		}
		for (int s = 0; s < nb; s++) {
			if (segs[s].write) {
				fv_error(d, "tx queue %u: a device-writable descriptor in buffer %u", qn, id);
				rc = -EPROTO;
				break;
			}
			total += segs[s].len;
		}
		if (rc != 0)
			break;
		if (total < FV_NET_HDR_LEN) {
			fv_error(d, "tx queue %u: buffer %u holds %zu bytes, less than the 12-byte header", qn, id, total);
			rc = -EPROTO;
			break;
		}
		if (out != NULL) {
			struct fv_frame *f = &out[done];
			uint8_t *all = malloc(total);

			if (all == NULL) {
				rc = -ENOMEM;
				break;
			}
			for (int s = 0; s < nb; s++) {
				memcpy(all + at, segs[s].p, segs[s].len);
				at += segs[s].len;
			}
			memcpy(&f->hdr, all, FV_NET_HDR_LEN);
			f->len = total - FV_NET_HDR_LEN;
			f->data = malloc(f->len ? f->len : 1);
			if (f->data == NULL) {
				free(all);
				rc = -ENOMEM;
				break;
			}
			memcpy(f->data, all + FV_NET_HDR_LEN, f->len);
			free(all);
			f->nb_desc = (unsigned)nb;
			f->indirect = ind;
		}
		pk_advance(r->size, &q->pk_avail, &q->pk_avail_wrap, nd);
		used_add(d, qn, r, id, 0, nd, true);
		done++;
	}
	io_end(d, qn, r);
	if (q->pk_used != old || q->pk_used_wrap != old_wrap)
		pk_publish(d, qn, r, old, old_wrap);
	apply_policy(d, qn, r);
	return rc != 0 ? rc : (int)done;
}

void fake_virtio_packed_put(struct fake_virtio_dev *d, uint16_t qn, uint16_t slot, uint16_t id, uint32_t len,
			    uint16_t flags, bool advance)
{
	struct fv_ring r;

	if (fake_virtio_ring(d, qn, &r) != 0 || !r.packed)
		return;
	slot %= r.size;
	r.pdesc[slot].id = id;
	r.pdesc[slot].len = len;
	__atomic_store_n(&r.pdesc[slot].flags, flags, __ATOMIC_RELEASE);
	if (advance)
		pk_advance(r.size, &d->q[qn].pk_used, &d->q[qn].pk_used_wrap, 1);
}

uint16_t fake_virtio_packed_used_slot(struct fake_virtio_dev *d, uint16_t qn, uint16_t *used_flags)
{
	const struct fv_queue *q = &d->q[qn];

	if (used_flags != NULL)
		*used_flags = q->pk_used_wrap ? FV_PDESC_F_AVAIL | FV_PDESC_F_USED : 0;
	return q->pk_used;
}


int fake_virtio_rx(struct fake_virtio_dev *d, uint16_t qn, const struct fv_net_hdr *hdr, const void *frame,
		   size_t len)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	struct fv_queue *q = &d->q[qn];
	struct fv_net_hdr h = { 0 };
	bool mrg = has(d, FV_F_MRG_RXBUF), ind;
	size_t hlen = fake_virtio_hdr_len(d), total = hlen + len, cap = 0;
	uint8_t hbytes[FV_NET_HDR_HASH_LEN] = { 0 };
	uint16_t old, heads = 0;
	struct fv_ring r;
	int rc, navail;

	rc = live_ring(d, qn, &r);
	if (rc != 0)
		return rc;
	if (has(d, FV_F_MQ) && qn / 2u >= d->vq_pairs)
		return -EIO; /* a pair the driver did not enable (5.1.6.5.5) */
	if (r.packed)
		return pk_rx(d, qn, &r, hdr, frame, len);
	if (q->waiting)
		return -EAGAIN;
	navail = check_avail(d, qn, &r);
	if (navail < 0)
		return navail;
	/* Enough buffers for the whole frame, or nothing taken (QEMU's
	 * virtio_net_has_buffers): it waits for a kick. */
	for (uint16_t k = 0; cap < total; k++) {
		uint16_t head;

		if (k >= navail || (!mrg && k >= 1)) {
			if (!mrg && k >= 1)
				return -EMSGSIZE;
			if (q->kick_policy != FV_KICK_NEVER)
				q->waiting = true;
			apply_policy(d, qn, &r);
			ask_kicks(d, qn, &r, q->kick_policy != FV_KICK_NEVER);
			return -EAGAIN;
		}
		head = r.avail->ring[(uint16_t)(q->last_avail + k) % r.size];
		rc = walk_chain(d, qn, &r, head, segs, &ind);
		if (rc < 0)
			return rc;
		for (int s = 0; s < rc; s++) {
			if (!segs[s].write) {
				fv_error(d, "rx queue %u: a device-readable descriptor in buffer %u", qn, head);
				return -EPROTO;
			}
			cap += segs[s].len;
		}
		heads++;
	}
	if (hdr != NULL)
		h = *hdr;
	h.num_buffers = mrg ? heads : 1;
	memcpy(hbytes, &h, FV_NET_HDR_LEN);
	if (hlen == FV_NET_HDR_HASH_LEN) {
		memcpy(hbytes + 12, &d->rx_hash_value, 4);
		memcpy(hbytes + 16, &d->rx_hash_report, 2);
	}
	/* Write: the header then the frame, buffer after buffer. */
	old = q->used_idx;
	{
		const uint8_t *src[2] = { hbytes, frame };
		size_t left[2] = { hlen, len }, part = 0;

		for (uint16_t k = 0; k < heads; k++) {
			uint16_t head = r.avail->ring[q->last_avail % r.size];
			uint32_t written = 0, room = 0;
			int nb = walk_chain(d, qn, &r, head, segs, &ind);

			if (io_head(d, qn, &r, head) < 0)
				return -EPROTO;
			for (int s = 0; s < nb; s++)
				room += segs[s].len;
			for (int s = 0; s < nb && part < 2; s++) {
				uint32_t at = 0;

				while (at < segs[s].len && part < 2) {
					size_t c = segs[s].len - at < left[part] ? segs[s].len - at : left[part];

					memcpy(segs[s].p + at, src[part], c);
					src[part] += c;
					left[part] -= c;
					at += (uint32_t)c;
					written += (uint32_t)c;
					if (left[part] == 0)
						part++;
				}
			}
			used_add(d, qn, &r, head, written, 1, written == room);
			q->last_avail++;
		}
	}
	io_end(d, qn, &r);
	if (q->used_idx != old)
		publish(d, qn, &r, old);
	apply_policy(d, qn, &r);
	return heads;
}

void fv_frame_free(struct fv_frame *f)
{
	free(f->data);
	f->data = NULL;
}

int fake_virtio_tx(struct fake_virtio_dev *d, uint16_t qn, struct fv_frame *out, unsigned max)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	struct fv_queue *q = &d->q[qn];
	struct fv_ring r;
	uint16_t old;
	unsigned done = 0;
	int rc, navail;

	rc = live_ring(d, qn, &r);
	if (rc != 0)
		return rc;
	if (r.packed)
		return pk_tx(d, qn, &r, out, max);
	navail = check_avail(d, qn, &r);
	if (navail < 0)
		return navail;
	old = q->used_idx;
	while (done < max && navail-- > 0) {
		uint16_t head = r.avail->ring[q->last_avail % r.size];
		size_t total = 0, at = 0;
		bool ind;
		int nb = walk_chain(d, qn, &r, head, segs, &ind);

		if (nb < 0 || io_head(d, qn, &r, head) < 0) {
			rc = nb < 0 ? nb : -EPROTO;
			break;
		}
		for (int s = 0; s < nb; s++) {
			if (segs[s].write) {
				fv_error(d, "tx queue %u: a device-writable descriptor in chain %u", qn, head);
				rc = -EPROTO;
				break;
			}
			total += segs[s].len;
		}
		if (rc != 0)
			break;
		if (total < fake_virtio_hdr_len(d)) {
			fv_error(d, "tx queue %u: chain %u holds %zu bytes, less than the %zu-byte header", qn, head,
				 total, fake_virtio_hdr_len(d));
			rc = -EPROTO;
			break;
		}
		if (out != NULL) {
			struct fv_frame *f = &out[done];
			uint8_t *all = malloc(total);

			if (all == NULL) {
				rc = -ENOMEM;
				break;
			}
			for (int s = 0; s < nb; s++) {
				memcpy(all + at, segs[s].p, segs[s].len);
				at += segs[s].len;
			}
			memcpy(&f->hdr, all, FV_NET_HDR_LEN);
			f->len = total - fake_virtio_hdr_len(d);
			f->data = malloc(f->len ? f->len : 1);
			if (f->data == NULL) {
				free(all);
				rc = -ENOMEM;
				break;
			}
			memcpy(f->data, all + fake_virtio_hdr_len(d), f->len);
			free(all);
			f->nb_desc = (unsigned)nb;
			f->indirect = ind;
		}
		used_add(d, qn, &r, head, 0, 1, true);
		q->last_avail++;
		done++;
	}
	io_end(d, qn, &r);
	if (q->used_idx != old)
		publish(d, qn, &r, old);
	apply_policy(d, qn, &r);
	return rc != 0 ? rc : (int)done;
}

size_t fake_virtio_hdr_len(const struct fake_virtio_dev *d)
{
	return has(d, FV_F_HASH_REPORT) ? FV_NET_HDR_HASH_LEN : FV_NET_HDR_LEN;
}

/* ---- multi-queue: the MQ class of control commands ------------------------ */

static uint16_t le16_at(const uint8_t *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

/*
 * struct virtio_net_rss_config (5.1.6.5.7.1) or, for HASH_CONFIG
 * (5.1.6.5.6.4), struct virtio_net_hash_config, which lays out the same
 * bytes with reserved fields where the table and max_tx_vq are.
 */
static uint8_t ctrl_rss(struct fake_virtio_dev *d, bool rss, const uint8_t *b, size_t len)
{
	struct fv_rss *r = &d->rss;
	const char *what = rss ? "RSS_CONFIG" : "HASH_CONFIG";
	uint32_t types;
	uint16_t mask, tbl, uncl, max_tx;
	size_t at;
	uint8_t klen;

	if (len < 8 + 2 + 3) {
		fv_error(d, "MQ %s: %zu bytes, shorter than the smallest configuration", what, len);
		return FV_NET_ERR;
	}
	types = (uint32_t)b[0] | (uint32_t)b[1] << 8 | (uint32_t)b[2] << 16 | (uint32_t)b[3] << 24;
	mask = le16_at(b + 4);
	uncl = le16_at(b + 6);
	tbl = rss ? (uint16_t)(mask + 1) : 1;
	at = 8 + 2u * tbl;
	if (rss && (tbl > d->cfg.rss_max_table || (tbl & mask) != 0)) {
		fv_error(d, "MQ RSS_CONFIG: indirection_table_mask 0x%x: the table must be a power of two up to %u entries (5.1.6.5.7.1)",
			 mask, d->cfg.rss_max_table);
		return FV_NET_ERR;
	}
	if (!rss && (mask || uncl || le16_at(b + 8) || le16_at(b + 10))) {
		fv_error(d, "MQ HASH_CONFIG: reserved fields not zero");
		return FV_NET_ERR;
	}
	if (len < at + 3) {
		fv_error(d, "MQ %s: %zu bytes, shorter than its %u-entry table", what, len, tbl);
		return FV_NET_ERR;
	}
	max_tx = le16_at(b + at);
	klen = b[at + 2];
	if (len != at + 3 + klen) {
		fv_error(d, "MQ %s: %zu bytes, not the %zu its table and %u-byte key make", what, len,
			 at + 3 + (size_t)klen, klen);
		return FV_NET_ERR;
	}
	if (types & ~d->cfg.hash_types) {
		fv_error(d, "MQ %s: hash types 0x%x, the device supports 0x%x", what, types, d->cfg.hash_types);
		return FV_NET_ERR;
	}
	if (klen > d->cfg.rss_max_key || (types && klen == 0)) {
		fv_error(d, "MQ %s: a %u-byte key (the device takes up to %u; hash types need one)", what, klen,
			 d->cfg.rss_max_key);
		return FV_NET_ERR;
	}
	if (rss) {
		if (max_tx == 0 || max_tx > d->cfg.max_pairs || uncl >= d->cfg.max_pairs) {
			fv_error(d, "MQ RSS_CONFIG: max_tx_vq %u, unclassified_queue %u; the device has %u pairs",
				 max_tx, uncl, d->cfg.max_pairs);
			return FV_NET_ERR;
		}
		for (uint16_t i = 0; i < tbl; i++)
			if (le16_at(b + 8 + 2u * i) >= max_tx) {
				fv_error(d, "MQ RSS_CONFIG: indirection_table[%u] = %u, not an enabled queue (max_tx_vq %u)",
					 i, le16_at(b + 8 + 2u * i), max_tx);
				return FV_NET_ERR;
			}
	} else if (max_tx != 0) {
		fv_error(d, "MQ HASH_CONFIG: reserved fields not zero");
		return FV_NET_ERR;
	}
	r->hash_types = types;
	r->hash = types != 0;
	r->rss = rss && types != 0;
	r->table_len = tbl;
	for (uint16_t i = 0; i < tbl; i++)
		r->table[i] = rss ? le16_at(b + 8 + 2u * i) : 0;
	r->unclassified = uncl;
	r->max_tx_vq = max_tx;
	r->key_len = klen;
	memcpy(r->key, b + at + 3, klen);
	if (rss)
		d->vq_pairs = max_tx; /* RSS_CONFIG sets the pairs in use as VQ_PAIRS_SET does */
	return FV_NET_OK;
}

uint8_t fake_virtio_ctrl_mq(struct fake_virtio_dev *d, uint8_t cmd, const uint8_t *data, size_t len)
{
	struct fv_rss *r = &d->rss;

	if (len <= sizeof(r->raw)) {
		memcpy(r->raw, data, len);
		r->raw_len = len;
	}
	switch (cmd) {
	case FV_CTRL_MQ_VQ_PAIRS_SET: {
		uint16_t n;

		r->nb_pairs_set++;
		if (d->mq_answer_err)
			return FV_NET_ERR;
		if (!has(d, FV_F_MQ)) {
			fv_error(d, "MQ VQ_PAIRS_SET without VIRTIO_NET_F_MQ negotiated");
			return FV_NET_ERR;
		}
		if (len != 2) {
			fv_error(d, "MQ VQ_PAIRS_SET: %zu bytes, not 2", len);
			return FV_NET_ERR;
		}
		n = le16_at(data);
		if (n < 1 || n > d->cfg.max_pairs) {
			fv_error(d, "MQ VQ_PAIRS_SET: %u pairs; the device has 1..%u", n, d->cfg.max_pairs);
			return FV_NET_ERR;
		}
		d->vq_pairs = n;
		return FV_NET_OK;
	}
	case FV_CTRL_MQ_RSS_CONFIG:
		r->nb_rss_config++;
		if (d->mq_answer_err)
			return FV_NET_ERR;
		if (!has(d, FV_F_RSS)) {
			fv_error(d, "MQ RSS_CONFIG without VIRTIO_NET_F_RSS negotiated");
			return FV_NET_ERR;
		}
		return ctrl_rss(d, true, data, len);
	case FV_CTRL_MQ_HASH_CONFIG:
		r->nb_hash_config++;
		if (d->mq_answer_err)
			return FV_NET_ERR;
		if (!has(d, FV_F_HASH_REPORT)) {
			fv_error(d, "MQ HASH_CONFIG without VIRTIO_NET_F_HASH_REPORT negotiated");
			return FV_NET_ERR;
		}
		return ctrl_rss(d, false, data, len);
	default:
		fv_error(d, "MQ command %u: not in the specification", cmd);
		return FV_NET_ERR;
	}
}

/* The hash input of a frame (5.1.6.4.3.1) and its report; 0 bytes: none. */
static unsigned hash_input(const struct fv_rss *r, const uint8_t *f, size_t len, uint8_t *in, uint16_t *report)
{
	uint16_t et;

	*report = FV_REPORT_NONE;
	if (len < 14)
		return 0;
	et = (uint16_t)(f[12] << 8 | f[13]);
	if (et == 0x0800 && len >= 14 + 20 && (f[14] >> 4) == 4) {
		const uint8_t *ip = f + 14;
		unsigned ihl = (ip[0] & 15u) * 4u;
		bool frag = ((ip[6] & 0x3f) | ip[7]) != 0;
		bool l4 = !frag && len >= 14 + ihl + 4;

		memcpy(in, ip + 12, 8);
		if (l4 && ip[9] == 6 && (r->hash_types & FV_HASH_TCPV4)) {
			memcpy(in + 8, ip + ihl, 4);
			*report = FV_REPORT_TCPV4;
			return 12;
		}
		if (l4 && ip[9] == 17 && (r->hash_types & FV_HASH_UDPV4)) {
			memcpy(in + 8, ip + ihl, 4);
			*report = FV_REPORT_UDPV4;
			return 12;
		}
		if (r->hash_types & FV_HASH_IPV4) {
			*report = FV_REPORT_IPV4;
			return 8;
		}
		return 0;
	}
	if (et == 0x86dd && len >= 14 + 40 && (f[14] >> 4) == 6) {
		const uint8_t *ip = f + 14;
		bool l4 = len >= 14 + 40 + 4;

		memcpy(in, ip + 8, 32);
		if (l4 && ip[6] == 6 && (r->hash_types & FV_HASH_TCPV6)) {
			memcpy(in + 32, ip + 40, 4);
			*report = FV_REPORT_TCPV6;
			return 36;
		}
		if (l4 && ip[6] == 17 && (r->hash_types & FV_HASH_UDPV6)) {
			memcpy(in + 32, ip + 40, 4);
			*report = FV_REPORT_UDPV6;
			return 36;
		}
		if (r->hash_types & FV_HASH_IPV6) {
			*report = FV_REPORT_IPV6;
			return 32;
		}
	}
	return 0;
}

int fake_virtio_rx_steer(struct fake_virtio_dev *d, const void *frame, size_t len)
{
	const struct fv_rss *r = &d->rss;
	uint8_t in[36], key[FV_RSS_KEY_MAX + 4] = { 0 };
	uint16_t report = FV_REPORT_NONE, q = 0;
	uint32_t hash = 0;
	unsigned n = 0;
	int rc;

	if (r->hash) {
		n = hash_input(r, frame, len, in, &report);
		memcpy(key, r->key, r->key_len);
		if (n > 0)
			hash = toeplitz(key, in, n);
	}
	if (r->rss)
		q = n > 0 ? r->table[hash & (uint32_t)(r->table_len - 1)] : r->unclassified;
	d->rx_hash_value = n > 0 ? hash : 0;
	d->rx_hash_report = report;
	rc = fake_virtio_rx(d, (uint16_t)(2 * q), NULL, frame, len);
	d->rx_hash_value = 0;
	d->rx_hash_report = 0;
	return rc < 0 ? rc : q;
}

int fake_virtio_flush(struct fake_virtio_dev *d, uint16_t qn)
{
	struct fv_queue *q = &d->q[qn];
	struct fv_ring r;
	uint16_t old = q->used_idx, old_pos = q->pk_used, held = q->io_open;
	bool old_wrap = q->pk_used_wrap;
	int rc = live_ring(d, qn, &r);

	if (rc != 0)
		return rc;
	if (held == 0)
		return 0;
	io_flush(d, qn, &r);
	if (r.packed)
		pk_publish(d, qn, &r, old_pos, old_wrap);
	else
		publish(d, qn, &r, old);
	return held;
}

void fake_virtio_used_put(struct fake_virtio_dev *d, uint16_t qn, uint32_t id, uint32_t len, bool publish_idx)
{
	struct fv_ring r;

	if (fake_virtio_ring(d, qn, &r) != 0)
		return;
	if (r.packed) {
		struct fv_queue *q = &d->q[qn];

		/* Without publish: id and len only, the flags left as they are. */
		fake_virtio_packed_put(d, qn, q->pk_used, (uint16_t)id, len,
				       publish_idx ? (q->pk_used_wrap ? FV_PDESC_F_AVAIL | FV_PDESC_F_USED : 0) :
						     r.pdesc[q->pk_used].flags,
				       true);
		return;
	}
	r.used->ring[d->q[qn].used_idx % r.size].id = id;
	r.used->ring[d->q[qn].used_idx % r.size].len = len;
	d->q[qn].used_idx++;
	if (publish_idx)
		__atomic_store_n(&r.used->idx, d->q[qn].used_idx, __ATOMIC_RELEASE);
}

void fake_virtio_used_idx_set(struct fake_virtio_dev *d, uint16_t qn, uint16_t idx)
{
	struct fv_ring r;

	if (fake_virtio_ring(d, qn, &r) != 0 || r.packed)
		return;
	d->q[qn].used_idx = idx;
	__atomic_store_n(&r.used->idx, idx, __ATOMIC_RELEASE);
}

/* ---- the control queue (5.1.6.5), as QEMU 7.2 carries it out ------------------- */

uint16_t fake_virtio_ctrl_queue(const struct fake_virtio_dev *d)
{
	return (uint16_t)(has(d, FV_F_MQ) ? 2u * d->cfg.max_pairs : 2u);
}

static bool need(struct fake_virtio_dev *d, unsigned f, const char *cmd)
{
	if (has(d, f))
		return true;
	fv_error(d, "control command %s sent without its feature bit %u negotiated (5.1.6.5)", cmd, f);
	return false;
}

/* The MAC table (5.1.6.5.2): le32 n, n addresses, le32 m, m addresses,
 * exactly; over QEMU's 64 entries a table overflows (accept all). */
static uint8_t mac_table_set(struct fake_virtio_dev *d, const uint8_t *p, size_t len)
{
	struct fv_filter *f = &d->filter;
	uint32_t n, m;
	size_t at = 0;

	f->nb_uc = f->nb_mc = 0;
	f->uc_overflow = f->mc_overflow = false;
	if (len < 4)
		return FV_NET_ERR;
	memcpy(&n, p, 4);
	at = 4;
	if (n > (len - at) / 6)
		return FV_NET_ERR;
	if (n <= FV_MAC_TABLE_ENTRIES) {
		memcpy(f->uc, p + at, (size_t)n * 6);
		f->nb_uc = n;
	} else {
		f->uc_overflow = true;
	}
	at += (size_t)n * 6;
	if (len - at < 4)
		return FV_NET_ERR;
	memcpy(&m, p + at, 4);
	at += 4;
	if ((size_t)m * 6 != len - at)
		return FV_NET_ERR;
	if (m <= FV_MAC_TABLE_ENTRIES) {
		memcpy(f->mc, p + at, (size_t)m * 6);
		f->nb_mc = m;
	} else {
		f->mc_overflow = true;
	}
	return FV_NET_OK;
}

static uint8_t ctrl_exec(struct fake_virtio_dev *d, uint8_t cls, uint8_t cmd, const uint8_t *p, size_t len)
{
	struct fv_filter *f = &d->filter;

	if (d->nb_ctrl_log == sizeof(d->ctrl_log) / sizeof(d->ctrl_log[0])) {
		memmove(d->ctrl_log, d->ctrl_log + 1, sizeof(d->ctrl_log) - sizeof(d->ctrl_log[0]));
		d->nb_ctrl_log--;
	}
	d->ctrl_log[d->nb_ctrl_log].cls = cls;
	d->ctrl_log[d->nb_ctrl_log].cmd = cmd;
	d->nb_ctrl_log++;
	if (d->ctrl_mode == FV_CTRL_REFUSE)
		return FV_NET_ERR;
	switch (cls) {
	case FV_CTRL_RX: {
		bool *b;

		if (len != 1)
			return FV_NET_ERR;
		switch (cmd) {
		case FV_CTRL_RX_PROMISC: b = &f->promisc; break;
		case FV_CTRL_RX_ALLMULTI: b = &f->allmulti; break;
		case FV_CTRL_RX_ALLUNI: b = &f->alluni; break;
		case FV_CTRL_RX_NOMULTI: b = &f->nomulti; break;
		case FV_CTRL_RX_NOUNI: b = &f->nouni; break;
		case FV_CTRL_RX_NOBCAST: b = &f->nobcast; break;
		default: return FV_NET_ERR;
		}
		if (!need(d, cmd <= FV_CTRL_RX_ALLMULTI ? FV_F_CTRL_RX : FV_F_CTRL_RX_EXTRA, "RX"))
			return FV_NET_ERR;
		*b = p[0] != 0;
		return FV_NET_OK;
	}
	case FV_CTRL_MAC:
		if (cmd == FV_CTRL_MAC_ADDR_SET) {
			if (!need(d, FV_F_CTRL_MAC_ADDR, "MAC_ADDR_SET") || len != 6)
				return FV_NET_ERR;
			memcpy(d->mac, p, 6);
			write_config(d);
			return FV_NET_OK;
		}
		if (cmd == FV_CTRL_MAC_TABLE_SET)
			return need(d, FV_F_CTRL_RX, "MAC_TABLE_SET") ? mac_table_set(d, p, len) : FV_NET_ERR;
		return FV_NET_ERR;
	case FV_CTRL_VLAN: {
		uint16_t vid;

		if (!need(d, FV_F_CTRL_VLAN, "VLAN") || len != 2)
			return FV_NET_ERR;
		memcpy(&vid, p, 2);
		if (vid >= 4096)
			return FV_NET_ERR;
		if (cmd == FV_CTRL_VLAN_ADD)
			f->vlans[vid / 8] |= (uint8_t)(1u << (vid % 8));
		else if (cmd == FV_CTRL_VLAN_DEL)
			f->vlans[vid / 8] &= (uint8_t)~(1u << (vid % 8));
		else
			return FV_NET_ERR;
		return FV_NET_OK;
	}
	case FV_CTRL_MQ:
		return fake_virtio_ctrl_mq(d, cmd, p, len);
	default:
		return FV_NET_ERR;
	}
}

/* A control command's chain: the readable bytes into @p data (at most
 * @p cap), the first writable byte's address into *ackp. @return the
 * readable bytes, or -1 when the chain is not a command (logged). */
static long ctrl_gather(struct fake_virtio_dev *d, const struct fv_seg *segs, int nb, uint16_t head, uint8_t *data,
			size_t cap, uint8_t **ackp)
{
	size_t in = 0, out = 0;

	*ackp = NULL;
	for (int s = 0; s < nb; s++) {
		if (segs[s].write) {
			if (*ackp == NULL && segs[s].len)
				*ackp = segs[s].p;
			in += segs[s].len;
		} else if (out + segs[s].len <= cap) {
			memcpy(data + out, segs[s].p, segs[s].len);
			out += segs[s].len;
		} else {
			out = cap + 1;
		}
	}
	/* QEMU: "virtio-net ctrl missing headers" is a device error. */
	if (out < 2 || out > cap || in < 1 || *ackp == NULL) {
		fv_error(d, "control queue: chain %u has %zu readable bytes and %zu writable; a command needs a 2-byte header and a 1-byte ack (5.1.6.5)",
			 head, out, in);
		return -1;
	}
	return (long)out;
}

/* The control queue on a packed ring: each available chain executed, its
 * used descriptor written (the same malicious modes as the split ring's:
 * a bad id, a bad length; a jump has no meaning here and is a bad id). */
static void pk_ctrl_process(struct fake_virtio_dev *d, uint16_t qn, const struct fv_ring *r)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	struct fv_queue *q = &d->q[qn];
	uint16_t old = q->pk_used, nd, id;
	bool old_wrap = q->pk_used_wrap, ind;

	for (;;) {
		uint8_t data[4096], *ackp, ack;
		int nb = pk_walk(d, qn, r, q->pk_avail, q->pk_avail_wrap, segs, &nd, &id, &ind);
		long out;

		if (nb <= 0)
			break;
		out = ctrl_gather(d, segs, nb, id, data, sizeof(data), &ackp);
		if (out < 0)
			return;
		ack = ctrl_exec(d, data[0], data[1], data + 2, (size_t)out - 2);
		*ackp = ack;
		if (ack == FV_NET_OK)
			d->ctrl_cmds++;
		else
			d->ctrl_refused++;
		pk_advance(r->size, &q->pk_avail, &q->pk_avail_wrap, nd);
		pk_used_write(d, qn, r, (d->ctrl_mode == FV_CTRL_BAD_ID || d->ctrl_mode == FV_CTRL_JUMP) ? d->ctrl_bad : id,
			      d->ctrl_mode == FV_CTRL_BAD_LEN ? d->ctrl_bad : 1, nd);
	}
	if (q->pk_used != old || q->pk_used_wrap != old_wrap)
		pk_publish(d, qn, r, old, old_wrap);
}

static void ctrl_process(struct fake_virtio_dev *d, uint16_t qn)
{
	static struct fv_seg segs[FV_MAX_CHAIN];
	struct fv_queue *q = &d->q[qn];
	struct fv_ring r;
	uint16_t old;
	int navail;

	if (d->ctrl_mode == FV_CTRL_SILENT || live_ring(d, qn, &r) != 0)
		return;
	if (r.packed) {
		pk_ctrl_process(d, qn, &r);
		return;
	}
	navail = check_avail(d, qn, &r);
	old = q->used_idx;
	while (navail-- > 0) {
		uint16_t head = r.avail->ring[q->last_avail % r.size];
		uint8_t data[4096], *ackp, ack;
		bool ind;
		int nb = walk_chain(d, qn, &r, head, segs, &ind);
		long out;

		if (nb < 0 || io_head(d, qn, &r, head) < 0)
			return;
		out = ctrl_gather(d, segs, nb, head, data, sizeof(data), &ackp);
		if (out < 0)
			return;
		ack = ctrl_exec(d, data[0], data[1], data + 2, (size_t)out - 2);
		*ackp = ack;
		if (ack == FV_NET_OK)
			d->ctrl_cmds++;
		else
			d->ctrl_refused++;
		r.used->ring[q->used_idx % r.size].id = d->ctrl_mode == FV_CTRL_BAD_ID ? d->ctrl_bad : head;
		r.used->ring[q->used_idx % r.size].len = d->ctrl_mode == FV_CTRL_BAD_LEN ? d->ctrl_bad : 1;
		q->used_idx = (uint16_t)(q->used_idx + (d->ctrl_mode == FV_CTRL_JUMP ? d->ctrl_bad : 1));
		q->last_avail++;
	}
	if (q->used_idx != old)
		publish(d, qn, &r, old);
	ask_kicks(d, qn, &r, true); /* QEMU: every command is kicked */
}

static bool mac_eq(const uint8_t *a, const uint8_t *b)
{
	return memcmp(a, b, 6) == 0;
}

bool fake_virtio_filter_accepts(const struct fake_virtio_dev *d, const uint8_t *frame, size_t len)
{
	const struct fv_filter *f = &d->filter;
	static const uint8_t bcast[6] = { 0xff, 0xff, 0xff, 0xff, 0xff, 0xff };

	if (f->promisc)
		return true;
	if (len >= 16 && frame[12] == 0x81 && frame[13] == 0x00) {
		uint16_t vid = (uint16_t)((frame[14] << 8 | frame[15]) & 0xfff);

		if (!(f->vlans[vid / 8] & (1u << (vid % 8))))
			return false;
	}
	if (frame[0] & 1) {
		if (mac_eq(frame, bcast))
			return !f->nobcast;
		if (f->nomulti)
			return false;
		if (f->allmulti || f->mc_overflow)
			return true;
		for (unsigned i = 0; i < f->nb_mc; i++)
			if (mac_eq(frame, f->mc[i]))
				return true;
		return false;
	}
	if (f->nouni)
		return false;
	if (f->alluni || f->uc_overflow || mac_eq(frame, d->mac))
		return true;
	for (unsigned i = 0; i < f->nb_uc; i++)
		if (mac_eq(frame, f->uc[i]))
			return true;
	return false;
}

/* ---- the driver on the fake device ---------------------------------------- */

static void hooks_read(void *ctx, enum virtio_region r, uint32_t off, unsigned width)
{
	fake_virtio_hook_read(ctx, (int)r, off, width);
}

static void hooks_written(void *ctx, enum virtio_region r, uint32_t off, unsigned width)
{
	fake_virtio_hook_written(ctx, (int)r, off, width);
}

static const struct virtio_hw_hooks fake_hooks = { .read = hooks_read, .written = hooks_written };

int fake_virtio_create(struct fake_virtio *f, const struct fake_virtio_config *c, bool iommu,
		       void (*before)(struct fake_virtio_dev *d))
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "fake-virtio", .count = 1024,
					.dataroom = 2048 };
	struct virtio_attach a = { 0 };
	int rc;

	memset(f, 0, sizeof(*f));
	f->mem = unic_mem_create(&mc);
	if (f->mem == NULL)
		return -ENOMEM;
	pc.mem = f->mem;
	f->pool = unic_pktpool_create(&pc);
	if (f->pool == NULL || fake_virtio_dev_create(&f->dev, c, f->mem) != 0) {
		fake_virtio_destroy(f);
		return -ENOMEM;
	}
	if (before != NULL)
		before(&f->dev);
	a.cfg = f->dev.pci_cfg;
	a.cfg_len = sizeof(f->dev.pci_cfg);
	a.bar[4].va = f->dev.bar;
	a.bar[4].len = FV_BAR_LEN;
	a.hooks = &fake_hooks;
	a.hooks_ctx = &f->dev;
	a.dma_mem = f->mem;
	a.iommu = iommu;
	a.bus_addr = "fake";
	a.numa_node = 0;
	rc = virtio_port_attach(&a, &f->port);
	f->attach_rc = rc;
	if (rc != 0) {
		f->port = NULL;
		return rc;
	}
	f->vp = virtio_priv(f->port);
	return 0;
}

int fake_virtio_start(struct fake_virtio *f, uint16_t nb_desc, const struct unic_port_conf *pc)
{
	struct unic_port_conf def = { .sz = sizeof(def), .nb_rxq = 1, .nb_txq = 1, .mtu = 1500,
				      .rx_mode = UNIC_RX_MODE_POLL };
	struct unic_rxq_conf rq = { .sz = sizeof(rq), .nb_desc = nb_desc, .numa_node = -1, .pool = f->pool };
	struct unic_txq_conf tq = { .sz = sizeof(tq), .nb_desc = nb_desc, .numa_node = -1 };
	int rc;

	if (pc == NULL)
		pc = &def;
	rc = unic_port_configure(f->port, pc);
	for (uint16_t q = 0; rc == 0 && q < pc->nb_rxq; q++)
		rc = unic_port_rx_queue_setup(f->port, q, &rq);
	for (uint16_t q = 0; rc == 0 && q < pc->nb_txq; q++)
		rc = unic_port_tx_queue_setup(f->port, q, &tq);
	if (rc == 0)
		rc = unic_port_start(f->port);
	return rc;
}

void fake_virtio_destroy(struct fake_virtio *f)
{
	if (f->port != NULL) {
		if (unic_port_state(f->port) == UNIC_PORT_STARTED)
			unic_port_stop(f->port);
		unic_port_detach(f->port);
		unic_port_put(f->port);
	}
	unic_pool_destroy(f->pool);
	fake_virtio_dev_destroy(&f->dev);
	unic_mem_destroy(f->mem);
	memset(f, 0, sizeof(*f));
}
