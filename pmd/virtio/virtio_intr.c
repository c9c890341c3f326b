/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * virtio-net interrupts (virtio 1.1 4.1.4.5, 4.1.5.1.2): MSI-X with the
 * vector plan of virtio_vec_plan() (virtio_priv.h: vector 0 for
 * configuration changes, one vector per rx queue, shared round-robin when
 * the device has fewer; tx and control queues have none, they are
 * polled), or, without MSI-X or under uio_pci_generic, INTx shared by
 * every rx queue, acknowledged by reading ISR (with link events, the event
 * thread reads it and relays the rx cause: virtio_intx_demux). The
 * per-queue arm/disarm calls are on the fast path (virtio_rxtx.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "virtio_priv.h"

#define VEC_CONFIG 0

void virtio_vec_plan(unsigned nvec, uint16_t nb_rxq, bool config, struct virtio_vec_plan *p)
{
	memset(p, 0, sizeof(*p));
	p->config = VIRTIO_MSI_NO_VECTOR;
	for (unsigned q = 0; q < VIRTIO_MAX_PAIRS; q++)
		p->rx[q] = VIRTIO_MSI_NO_VECTOR;
	if (nvec == 0 || nb_rxq == 0)
		return;
	if (nb_rxq > VIRTIO_MAX_PAIRS)
		nb_rxq = VIRTIO_MAX_PAIRS;
	if (nvec == 1) {
		/* One vector: the rx queues have it, configuration changes
		 * none (the event thread and the pollers would both read it). */
		p->nb_vec = 1;
		for (uint16_t q = 0; q < nb_rxq; q++)
			p->rx[q] = 0;
		p->shared = nb_rxq > 1;
		return;
	}
	if (config)
		p->config = VEC_CONFIG;
	if (nvec > nb_rxq + 1u)
		nvec = nb_rxq + 1u;
	p->nb_vec = nvec;
	for (uint16_t q = 0; q < nb_rxq; q++)
		p->rx[q] = (uint16_t)(1 + q % (nvec - 1));
	p->shared = nvec - 1 < nb_rxq;
}

bool virtio_intr_wanted(const struct unic_port *port)
{
	return port->conf.rx_mode != UNIC_RX_MODE_POLL || port->conf.link_intr;
}

/*
 * A configuration change (5.1.4: the status field changed), @p count of
 * them since the last call: post UNIC_EVENT_LINK when the link bit moved,
 * or when there was more than one (the link may have gone down and up
 * again before this thread ran: the application reads the link now). Also
 * reports a device that asks to be reset (DEVICE_NEEDS_RESET, 2.1.2).
 */
static void virtio_config_changed(struct unic_port *port, uint64_t count)
{
	struct virtio_port *vp = virtio_priv(port);
	uint16_t st = 0;
	bool up;

	__atomic_fetch_add(&vp->config_changes, count, __ATOMIC_RELAXED);
	if (virtio_hw_check_gone(&vp->hw))
		return;
	if (virtio_hw_status(&vp->hw) & VIRTIO_STATUS_NEEDS_RESET)
		UNIC_PORT_LOG(port, ERR, "the device set DEVICE_NEEDS_RESET: it hit an error it cannot recover from; stop and start the port");
	if (!(vp->hw.features & VIRTIO_BIT(VIRTIO_NET_F_STATUS)) ||
	    virtio_hw_cfg_read(&vp->hw, VIRTIO_NET_CFG_STATUS, &st, sizeof(st)) < 0)
		return;
	up = (st & VIRTIO_NET_S_LINK_UP) != 0;
	if (up != vp->link_up_last || count > 1) {
		vp->link_up_last = up;
		__atomic_fetch_add(&vp->link_events, 1, __ATOMIC_RELAXED);
		unic_port_event_post(port, UNIC_EVENT_LINK);
	}
}

/* MSI-X vector 0: the eventfd counts the configuration interrupts. */
static void virtio_config_handler(int fd, void *arg)
{
	struct unic_port *port = arg;
	uint64_t v;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v) || virtio_hw_off(virtio_priv(port)))
		return;
	virtio_config_changed(port, v);
}

void virtio_intr_off(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);

	if (!vp->intr_on)
		return;
	if (vp->config_watched || vp->intx_demux)
		unic_event_fd_remove(vp->irq_fds[VEC_CONFIG]);
	vp->config_watched = false;
	vp->intx_demux = false;
	if (vp->intx_rx_fd >= 0)
		close(vp->intx_rx_fd);
	vp->intx_rx_fd = -1;
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
	virtio_vec_plan(0, 0, false, &vp->plan);
}

/*
 * INTx (4.1.4.5): one line for every cause, and one ISR byte that says
 * which (bit 0 a used buffer on some queue, bit 1 a configuration change)
 * and clears both at the read, which also drops the level.
 *
 * Without link events the pollers own the line: the source is the line
 * itself and its unmask callback (after each wake) reads ISR, then
 * unmasks INTx (uio_pci_generic masks it in the command register when it
 * fires). A configuration cause is dropped there: nobody asked for it.
 *
 * With link events (conf.link_intr) both causes must reach their consumer,
 * and a read by one would clear the other's: so the event thread alone
 * owns the line (unic_event_fd_add on the UIO or VFIO INTx fd) and reads
 * ISR in virtio_intx_demux(); the queue cause goes on to an eventfd that
 * is the rx queues' one source (the pollers sleep on it as on an MSI-X
 * vector and never read ISR), the configuration cause to the link
 * handler. Then it unmasks. Nothing is lost between the two:
 *  - a cause the device sets before the ISR read is in that read, and
 *    each read gives each cause to exactly one consumer;
 *  - a cause set after the read keeps the line asserted while INTx is
 *    still masked; the unmask lets it through at once (level-triggered),
 *    and the next round reads it;
 *  - rx: the poller arms, fences and re-checks the ring before it sleeps
 *    on the eventfd (virtio_rx_intr_enable): a used buffer added after the
 *    device saw the arm raises the line and is relayed, one added before
 *    is found by the re-check;
 *  - configuration: changes between two reads share one ISR bit; the
 *    config_generation counter (which the device bumps at each change,
 *    4.1.4.3.1) tells how many, and more than one posts UNIC_EVENT_LINK
 *    even when the link reads as it was (down and up again).
 * The rx cause is relayed whether a queue is armed or not: a queue the
 * driver disarmed sends none (VRING_AVAIL_F_NO_INTERRUPT or used_event),
 * and a spare wake costs one empty poll, a lost one a stranded packet.
 */
static int virtio_intx_ack(void *ctx)
{
	struct virtio_port *vp = ctx;

	if (!virtio_hw_off(vp))
		(void)vio_read8(&vp->hw, VIRTIO_REGION_ISR, 0);
	return unic_pci_intx_unmask(vp->dev);
}

uint8_t virtio_intx_demux(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	uint64_t one = 1;
	uint8_t isr, gen;

	if (virtio_hw_off(vp))
		return 0;
	isr = vio_read8(&vp->hw, VIRTIO_REGION_ISR, 0); /* clears both causes: the level drops */
	if (isr == 0xff && virtio_hw_check_gone(&vp->hw))
		return 0;
	/* The rx cause first: a sleeping poller should not wait for the
	 * configuration read. */
	if ((isr & VIRTIO_ISR_QUEUE) && vp->intx_rx_fd >= 0 &&
	    write(vp->intx_rx_fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		/* Only EAGAIN (the counter is full): the poller is awake anyway. */
	}
	if (isr & VIRTIO_ISR_CONFIG) {
		gen = vio_read8(&vp->hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_CFGGEN);
		/* A change after the ISR read but before this one is counted
		 * here and its own ISR bit is seen at the next round (one
		 * more, at worst, in config_changes). */
		virtio_config_changed(port, gen != vp->cfg_gen_last ? (uint8_t)(gen - vp->cfg_gen_last) : 1u);
		vp->cfg_gen_last = gen;
	}
	return isr;
}

/* The event thread's handler for the INTx fd (UIO: a 4-byte count; VFIO: an
 * eventfd). */
static void virtio_intx_handler(int fd, void *arg)
{
	struct unic_port *port = arg;
	struct virtio_port *vp = virtio_priv(port);
	uint64_t v;
	size_t len = unic_pci_access(vp->dev) == UNIC_PCI_ACCESS_UIO ? sizeof(uint32_t) : sizeof(uint64_t);

	if (read(fd, &v, len) != (ssize_t)len || virtio_hw_off(vp))
		return;                       /* EAGAIN: nothing new */
	(void)virtio_intx_demux(port);
	(void)unic_pci_intx_unmask(vp->dev);
}

static int virtio_intx_on(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	int rc;

	if (unic_pci_irq_count(vp->dev, UNIC_PCI_IRQ_INTX) < 1) {
		UNIC_PORT_LOG(port, ERR, "the device offers neither MSI-X nor INTx; use rx mode poll");
		return -ENOTSUP;
	}
	rc = unic_pci_irq_enable(vp->dev, UNIC_PCI_IRQ_INTX, 1, vp->irq_fds);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "cannot enable INTx: %s", strerror(-rc));
		return rc;
	}
	vp->intr_on = true;
	vp->intx = true;
	vp->nb_irq = 1;
	vp->cfg_gen_last = vio_read8(&vp->hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_CFGGEN);
	(void)vio_read8(&vp->hw, VIRTIO_REGION_ISR, 0); /* nothing pending from before */
	if (!port->conf.link_intr)
		return 0;
	vp->intx_rx_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
	if (vp->intx_rx_fd < 0) {
		rc = -errno;
		UNIC_PORT_LOG(port, ERR, "INTx: cannot create the rx eventfd: %s", strerror(-rc));
		virtio_intr_off(port);
		return rc;
	}
	/* One rx queue has the eventfd to itself: its arm drops a stale
	 * count. Several share it: a count may be another queue's wake-up. */
	if (port->conf.nb_rxq == 1)
		vp->rxq[0].irq_fd = vp->intx_rx_fd;
	rc = unic_event_fd_add(vp->irq_fds[0], virtio_intx_handler, port);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "INTx: cannot watch the interrupt for link changes: %s", strerror(-rc));
		virtio_intr_off(port);
		return rc;
	}
	vp->intx_demux = true;
	return 0;
}

int virtio_intr_on(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);
	struct virtio_hw *hw = &vp->hw;
	struct virtio_vec_plan *plan = &vp->plan;
	int nvec;
	uint16_t got;
	int rc;

	if (vp->dev == NULL) {
		UNIC_PORT_LOG(port, ERR, "no PCI device: no interrupts; use rx mode poll");
		return -ENOTSUP;
	}
	nvec = unic_pci_irq_count(vp->dev, UNIC_PCI_IRQ_MSIX);
	virtio_vec_plan(nvec > 0 ? (unsigned)nvec : 0, port->conf.nb_rxq, port->conf.link_intr, plan);
	if (plan->nb_vec == 0)
		return virtio_intx_on(port);
	if (plan->shared)
		UNIC_PORT_LOG(port, INFO, "MSI-X: the device has %d vectors for %u rx queues%s: rx queue q takes vector %s (queues on one vector wake together)",
			      nvec, port->conf.nb_rxq, plan->config != VIRTIO_MSI_NO_VECTOR ? " and configuration changes" : "",
			      plan->nb_vec == 1 ? "0" : "1 + q mod (vectors - 1)");
	if (port->conf.link_intr && plan->config == VIRTIO_MSI_NO_VECTOR)
		UNIC_PORT_LOG(port, WARNING, "MSI-X: one vector, taken by the rx queues: link changes are not reported through events (read the link with unic_port_link_get)");
	rc = unic_pci_irq_enable(vp->dev, UNIC_PCI_IRQ_MSIX, plan->nb_vec, vp->irq_fds);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "cannot enable %u MSI-X vectors: %s", plan->nb_vec, strerror(-rc));
		return rc;
	}
	vp->intr_on = true;
	vp->intx = false;
	vp->nb_irq = plan->nb_vec;
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++) {
		/* A vector of its own: the arm may drop a stale count. A
		 * shared one is left alone (the count may be another queue's
		 * wake-up). */
		bool alone = true;

		for (uint16_t o = 0; o < port->conf.nb_rxq; o++)
			alone &= o == q || plan->rx[o] != plan->rx[q];
		vp->rxq[q].irq_fd = alone ? vp->irq_fds[plan->rx[q]] : -1;
		vp->rxq[q].vector = plan->rx[q];
	}
	/* 4.1.5.1.2: the vector reads back NO_VECTOR when the device has no
	 * room for it. */
	vio_write16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_MSIX, plan->config);
	got = vio_read16(hw, VIRTIO_REGION_COMMON, VIRTIO_COMMON_MSIX);
	if (plan->config != VIRTIO_MSI_NO_VECTOR) {
		if (got != plan->config) {
			UNIC_PORT_LOG(port, ERR, "configuration changes lost their interrupt: the device did not take MSI-X vector %u (reads back %u%s)",
				      plan->config, got, got == VIRTIO_MSI_NO_VECTOR ? ", NO_VECTOR" : "");
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
		/* One source for every rx queue: the eventfd the event thread
		 * relays the queue cause to (virtio_intx_demux), or else the
		 * line itself. */
		bool relay = vp->intx_demux;

		if (max > 0)
			src[0] = (struct unic_intr_source){
				.fd = relay ? vp->intx_rx_fd : vp->irq_fds[0],
				.kind = !relay && unic_pci_access(vp->dev) == UNIC_PCI_ACCESS_UIO ? UNIC_INTR_UIO
												 : UNIC_INTR_EVENTFD,
				.queue_mask = (1u << port->conf.nb_rxq) - 1,
				.index = 0,
				.unmask = relay ? NULL : virtio_intx_ack,
				.unmask_ctx = relay ? NULL : vp,
			};
		return 1;
	}
	/* One source per vector the rx queues use, with every queue on it. */
	for (unsigned v = 0; v < vp->plan.nb_vec; v++) {
		uint32_t mask = 0;

		for (uint16_t q = 0; q < port->conf.nb_rxq; q++)
			if (vp->plan.rx[q] == v)
				mask |= 1u << q;
		if (mask == 0)
			continue;
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = vp->irq_fds[v],
				.kind = UNIC_INTR_EVENTFD,
				.queue_mask = mask,
				.index = (uint16_t)v,
			};
		n++;
	}
	return (int)n;
}

int virtio_rx_intr_affinity(struct unic_port *port, uint16_t q, int cpu)
{
	struct virtio_port *vp = virtio_priv(port);
	unsigned vec = vp->intx ? 0 : vp->plan.rx[q];

	if (!vp->intr_on) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: interrupts are off (rx mode poll)", q);
		return -EINVAL;
	}
	if (cpu < 0)
		return unic_pci_irq_kernel_num(vp->dev, vec);
	if (vp->intx && port->conf.nb_rxq > 1)
		UNIC_PORT_LOG(port, INFO, "rx queue %u: INTx is shared by the %u rx queues: they all move to CPU %d",
			      q, port->conf.nb_rxq, cpu);
	else if (vp->plan.shared)
		UNIC_PORT_LOG(port, INFO, "rx queue %u: MSI-X vector %u may be shared with other rx queues (fewer vectors than queues): they move to CPU %d too",
			      q, vec, cpu);
	return unic_pci_irq_affinity_set(vp->dev, vec, cpu);
}

/* ---- rx moderation through the event index ---------------------------------------- */

/*
 * With VIRTIO_F_EVENT_IDX the driver tells the device after which used
 * entry it wants the next interrupt: a split ring's used_event (2.7.10),
 * the device interrupting when its used index passes it; a packed ring's
 * driver event suppression structure with RING_EVENT_FLAGS_DESC and the
 * position (offset and wrap counter) whose use should interrupt (2.7.10
 * of 1.1, "Driver Event Suppression"). An arm that names the entry E - 1
 * past the next one the driver reads gets one interrupt after E more
 * entries instead of after one (virtio_rx_intr_enable). rx_max_frames N
 * counts frames, the entries do not: with mergeable buffers a frame
 * takes num_buffers of them, so E is N x the mean buffers a frame took
 * (virtio_rx_arm_entries). The device has no timer: a frame under a
 * raised event waits until the others come, or its poller looks. So
 * rx_max_frames > 1 needs rx_usecs, the bound the poller keeps (lib/napi's
 * adaptive policy sleeps no longer than it while a queue is armed so);
 * the driver only stores it.
 */
static int virtio_coalesce_check(struct unic_port *port)
{
	struct virtio_port *vp = virtio_priv(port);

	if (!(vp->hw.features & VIRTIO_BIT(VIRTIO_F_EVENT_IDX))) {
		UNIC_PORT_LOG(port, DEBUG, "coalesce: the device did not offer VIRTIO_F_EVENT_IDX: its rx interrupts cannot be moderated (one per armed wait)");
		return -ENOTSUP;
	}
	return 0;
}

int virtio_coalesce_get(struct unic_port *port, struct unic_coalesce *c)
{
	struct virtio_port *vp = virtio_priv(port);
	int rc = virtio_coalesce_check(port);

	if (rc < 0)
		return rc;
	c->rx_usecs = __atomic_load_n(&vp->rx_usecs, __ATOMIC_RELAXED);
	c->tx_usecs = 0;
	c->rx_max_frames = __atomic_load_n(&vp->rx_frames, __ATOMIC_RELAXED);
	return 0;
}

int virtio_coalesce_set(struct unic_port *port, const struct unic_coalesce *c)
{
	struct virtio_port *vp = virtio_priv(port);
	int rc = virtio_coalesce_check(port);

	if (rc < 0)
		return rc;
	if (c->tx_usecs) {
		UNIC_PORT_LOG(port, ERR, "coalesce: tx_usecs %u: virtio-net has no transmit interrupts here (completions are polled): set 0",
			      c->tx_usecs);
		return -EINVAL;
	}
	if (c->rx_max_frames > 1 && c->rx_usecs == 0) {
		UNIC_PORT_LOG(port, ERR, "coalesce: rx_max_frames %u without rx_usecs: the device has no timer, the frames would wait for the next ones without bound; give rx_usecs, the time within which the poller looks",
			      c->rx_max_frames);
		return -EINVAL;
	}
	/* Taken at each queue's next arm: an armed queue keeps the event
	 * it has (its poller re-arms it, napi_moderate does). More than
	 * VIRTIO_RX_FRAMES_MAX frames is rounded down (read back). */
	__atomic_store_n(&vp->rx_usecs, c->rx_usecs, __ATOMIC_RELAXED);
	__atomic_store_n(&vp->rx_frames, UNIC_MIN(c->rx_max_frames, (uint32_t)VIRTIO_RX_FRAMES_MAX),
			 __ATOMIC_RELAXED);
	return 0;
}
