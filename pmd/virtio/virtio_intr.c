/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net interrupts (virtio 1.1 4.1.4.5, 4.1.5.1.2): MSI-X with vector
 * 0 for configuration changes and vector 1 + q for rx queue q (tx queues
 * have none: their buffers are reclaimed by polling), or, when the device
 * has fewer than nb_rxq + 1 vectors or is bound to uio_pci_generic, INTx
 * shared by every rx queue, acknowledged by reading ISR. The per-queue
 * arm/disarm calls are on the fast path (virtio_rxtx.c).
 */
#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "virtio_priv.h"

#define VEC_CONFIG 0
#define VEC_RX(q) (uint16_t)(1 + (q))

bool virtio_intr_wanted(const struct unic_port *port)
{
	return port->conf.rx_mode != UNIC_RX_MODE_POLL || port->conf.link_intr;
}

/*
 * A configuration-change interrupt (5.1.4: the status field changed):
 * post UNIC_EVENT_LINK when the link bit moved, or when the eventfd held
 * more than one interrupt (the link may have gone down and up again before
 * this thread ran: the application reads the link now). Also reports a
 * device that asks to be reset (DEVICE_NEEDS_RESET, 2.1.2).
 */
static void virtio_config_handler(int fd, void *arg)
{
	struct unic_port *port = arg;
	struct virtio_port *vp = virtio_priv(port);
	uint64_t v;
	uint16_t st = 0;
	bool up;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v) || virtio_hw_off(vp))
		return;
	__atomic_fetch_add(&vp->config_changes, v, __ATOMIC_RELAXED);
	if (virtio_hw_check_gone(&vp->hw))
		return;
	if (virtio_hw_status(&vp->hw) & VIRTIO_STATUS_NEEDS_RESET)
		UNIC_PORT_LOG(port, ERR, "the device set DEVICE_NEEDS_RESET: it hit an error it cannot recover from; stop and start the port");
	if (!(vp->hw.features & VIRTIO_BIT(VIRTIO_NET_F_STATUS)) ||
	    virtio_hw_cfg_read(&vp->hw, VIRTIO_NET_CFG_STATUS, &st, sizeof(st)) < 0)
		return;
	up = (st & VIRTIO_NET_S_LINK_UP) != 0;
	if (up != vp->link_up_last || v > 1) {
		vp->link_up_last = up;
		__atomic_fetch_add(&vp->link_events, 1, __ATOMIC_RELAXED);
		unic_port_event_post(port, UNIC_EVENT_LINK);
	}
}

void virtio_intr_off(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);

	if (!vp->intr_on)
		return;
	if (vp->config_watched)
		unic_event_fd_remove(vp->irq_fds[VEC_CONFIG]);
	vp->config_watched = false;
	if (vp->dev != NULL)
		unic_pci_irq_disable(vp->dev);
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(vp->irq_fds); i++)
		vp->irq_fds[i] = -1;
	for (unsigned q = 0; q < VIRTIO_MAX_PAIRS; q++) {
		vp->rxq[q].irq_fd = -1;
		vp->rxq[q].vector = VIRTIO_MSI_NO_VECTOR;
		vp->rxq[q].intr_on = false;
	}
	vp->intr_on = false;
	vp->intx = false;
	vp->nb_irq = 0;
}

/* INTx: read ISR (which clears it and drops the level), then unmask. */
static int virtio_intx_ack(void *ctx)
{
	struct virtio_port *vp = ctx;

	if (!virtio_hw_off(vp))
		(void)vio_read8(&vp->hw, VIRTIO_REGION_ISR, 0);
	return unic_pci_intx_unmask(vp->dev);
}

static int virtio_intx_on(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	int rc;

	if (unic_pci_irq_count(vp->dev, UNIC_PCI_IRQ_INTX) < 1) {
		UNIC_PORT_LOG(port, ERR, "the device offers neither %u MSI-X vectors (one per rx queue and one for configuration changes) nor INTx; use rx mode poll",
			      port->conf.nb_rxq + 1u);
		return -ENOTSUP;
	}
	if (port->conf.link_intr)
		UNIC_PORT_LOG(port, WARNING, "INTx: link changes are not reported through events (read the link with unic_port_link_get)");
	rc = unic_pci_irq_enable(vp->dev, UNIC_PCI_IRQ_INTX, 1, vp->irq_fds);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "cannot enable INTx: %s", strerror(-rc));
		return rc;
	}
	vp->intr_on = true;
	vp->intx = true;
	vp->nb_irq = 1;
	(void)vio_read8(&vp->hw, VIRTIO_REGION_ISR, 0); /* nothing pending from before */
	return 0;
}

int virtio_intr_on(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	struct virtio_hw *hw = &vp->hw;
	unsigned nvec = port->conf.nb_rxq + 1u;
	uint16_t got;
	int rc;

	if (vp->dev == NULL) {
		UNIC_PORT_LOG(port, ERR, "no PCI device: no interrupts; use rx mode poll");
		return -ENOTSUP;
	}
	if (unic_pci_irq_count(vp->dev, UNIC_PCI_IRQ_MSIX) < (int)nvec)
		return virtio_intx_on(port);
	rc = unic_pci_irq_enable(vp->dev, UNIC_PCI_IRQ_MSIX, nvec, vp->irq_fds);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "cannot enable %u MSI-X vectors: %s", nvec, strerror(-rc));
		return rc;
	}
	vp->intr_on = true;
	vp->intx = false;
	vp->nb_irq = nvec;
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		vp->rxq[q].irq_fd = vp->irq_fds[VEC_RX(q)];
		vp->rxq[q].vector = VEC_RX(q);
	}
	/* 4.1.5.1.2: the vector reads back NO_VECTOR when the device has no
	 * room for it. */
	vio_write16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_MSIX, port->conf.link_intr ? VEC_CONFIG : VIRTIO_MSI_NO_VECTOR);
	got = vio_read16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_MSIX);
	if (port->conf.link_intr) {
		if (got != VEC_CONFIG) {
			UNIC_PORT_LOG(port, ERR, "the device did not take MSI-X vector %u for configuration changes (reads back %u)",
				      VEC_CONFIG, got);
			virtio_intr_off(port);
			return -EIO;
		}
		rc = unic_event_fd_add(vp->irq_fds[VEC_CONFIG], virtio_config_handler, port);
		if (rc < 0) {
			UNIC_PORT_LOG(port, ERR, "cannot watch the configuration interrupt: %s", strerror(-rc));
			virtio_intr_off(port);
			return rc;
		}
		vp->config_watched = true;
	}
	return 0;
}

int virtio_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max)
{
	struct virtio_port *vp = virtio_priv(port);
	unsigned n = 0;

	if (!vp->intr_on || port->conf.rx_mode == UNIC_RX_MODE_POLL)
		return -ENOTSUP;
	if (vp->intx) {
		if (max > 0)
			src[0] = (struct unic_intr_source){
				.fd = vp->irq_fds[0],
				.kind = unic_pci_access(vp->dev) == UNIC_PCI_ACCESS_UIO ? UNIC_INTR_UIO
											: UNIC_INTR_EVENTFD,
				.queue_mask = (1u << port->conf.nb_rxq) - 1,
				.index = 0,
				.unmask = virtio_intx_ack,
				.unmask_ctx = vp,
			};
		return 1;
	}
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++, n++)
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = vp->irq_fds[VEC_RX(q)],
				.kind = UNIC_INTR_EVENTFD,
				.queue_mask = 1u << q,
				.index = VEC_RX(q),
			};
	return (int)n;
}

int virtio_rx_intr_affinity(struct unic_port *port, uint16_t q, int cpu)
{
	struct virtio_port *vp = virtio_priv(port);
	unsigned vec = vp->intx ? 0 : VEC_RX(q);

	if (!vp->intr_on) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: interrupts are off (rx mode poll)", q);
		return -EINVAL;
	}
	if (cpu < 0)
		return unic_pci_irq_kernel_num(vp->dev, vec);
	if (vp->intx && port->conf.nb_rxq > 1)
		UNIC_PORT_LOG(port, INFO, "rx queue %u: INTx is shared by the %u rx queues: they all move to CPU %d",
			      q, port->conf.nb_rxq, cpu);
	return unic_pci_irq_affinity_set(vp->dev, vec, cpu);
}
