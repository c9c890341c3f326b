/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * e1000e interrupts: MSI-X (one vector per rx and tx queue, one for link
 * changes) or a shared INTx, the link-change handler, coalescing. The
 * per-queue arm/disarm calls are on the fast path (e1000e_rxtx.c).
 */
#include <errno.h>
#include <string.h>
#include <sys/eventfd.h>
#include <unistd.h>

#include "e1000e_priv.h"

/*
 * MSI-X (datasheet 7.4.2): vector 0/1 for rx queue 0/1, 2/3 for tx queue
 * 0/1 (mapped, never enabled: tx completions are reclaimed by polling), 4
 * for "other" (link changes). EIAC auto-clears a queue's ICR bit when its
 * message fires; QEMU 7.2 with CTRL_EXT.IAME clear then also clears the
 * bit in IMS (auto-mask), and it sends a message only for a cause not
 * already pending in ICR. So enabling clears the queue's ICR bit and sets
 * it in IMS, explicitly; disabling sets it in IMC. IMS/IMC/ICR writes touch
 * only the bits written, so queues and the link handler never race on a
 * read-modify-write.
 */
#define E1000E_MSIX_CAUSES (E1000E_ICR_RXQ(0) | E1000E_ICR_RXQ(1) | E1000E_ICR_TXQ(0) | \
			    E1000E_ICR_TXQ(1) | E1000E_ICR_OTHER)

static void e1000e_other_handler(int fd, void *arg)
{
	struct unic_port *port = arg;
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	uint64_t v;
	uint32_t icr;

	if (read(fd, &v, sizeof(v)) != (ssize_t)sizeof(v) || hw->gone)
		return;
	icr = read32(hw, E1000E_ICR);
	if (icr == 0xffffffffu) {
		e1000e_hw_gone(hw);
		return;
	}
	/* In MSI-X mode reading ICR does not clear it: write back the "other"
	 * causes (never the queue bits, which belong to the pollers). */
	write32(hw, E1000E_ICR, icr & ~(E1000E_ICR_RXQ(0) | E1000E_ICR_RXQ(1) |
					 E1000E_ICR_TXQ(0) | E1000E_ICR_TXQ(1)));
	if (icr & E1000E_ICR_LSC) {
		__atomic_fetch_add(&ep->link_events, 1, __ATOMIC_RELAXED);
		unic_port_event_post(port, UNIC_EVENT_LINK);
	}
	write32(hw, E1000E_IMS, E1000E_ICR_OTHER | E1000E_ICR_LSC); /* re-arm after auto-mask */
}

bool e1000e_intr_wanted(const struct unic_port *port)
{
	return port->conf.rx_mode != UNIC_RX_MODE_POLL || port->conf.link_intr;
}

/* EITR/ITR take 256 ns units (datasheet 10.2.4.11); 0 leaves them off. */
static uint32_t usecs_to_itr(uint32_t us)
{
	uint64_t v = ((uint64_t)us * 1000u + 255u) / 256u;

	return v > 0xffffu ? 0xffffu : (uint32_t)v;
}

static uint32_t itr_to_usecs(uint32_t itr)
{
	return (uint32_t)(((uint64_t)(itr & 0xffffu) * 256u + 500u) / 1000u);
}

void e1000e_coalesce_program(struct e1000e_port *ep)
{
	struct e1000e_hw *hw = &ep->hw;

	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		write32(hw, E1000E_EITR(E1000E_VEC_RX(q)), usecs_to_itr(ep->rx_usecs));
		write32(hw, E1000E_EITR(E1000E_VEC_TX(q)), usecs_to_itr(ep->tx_usecs));
	}
	write32(hw, E1000E_ITR, usecs_to_itr(ep->rx_usecs));
}

void e1000e_intr_off(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);

	if (!ep->hw.gone)
		write32(&ep->hw, E1000E_IMC, 0xffffffffu);
	if (!ep->intr_on)
		return;
	if (ep->other_watched)
		unic_event_fd_remove(ep->irq_fds[E1000E_VEC_OTHER]);
	ep->other_watched = false;
	if (ep->intx_demux)
		unic_event_fd_remove(ep->irq_fds[0]);
	ep->intx_demux = false;
	if (ep->intx_rx_fd >= 0)
		close(ep->intx_rx_fd);
	ep->intx_rx_fd = -1;
	unic_pci_irq_disable(ep->dev);
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++)
		ep->rxq[q].irq_fd = -1;
	ep->intr_on = false;
	ep->intx = false;
	ep->nb_irq = 0;
}

/*
 * INTx (uio_pci_generic, or a device without MSI-X): one shared source for
 * both rx queues, cause RXT0 (datasheet 7.4.1); a queue arms it by setting
 * its bit in intx_armed, the last one to disarm masks RXT0. The source's
 * unmask callback (after each wake) clears RXT0 in ICR so the level drops,
 * then unmasks INTx (uio_pci_generic masks it in the command register when
 * it fires, and has no irqcontrol write).
 *
 * With conf.link_intr the line also carries LSC, and one reader must see
 * every cause: the event thread then owns the INTx fd (e1000e_intx_demux).
 * It reads ICR, which clears it in INTx mode (82574 datasheet, ICR; QEMU 7.2
 * likewise: e1000e_mac_icr_read without MSI-X), posts UNIC_EVENT_LINK on
 * LSC, passes RXT0 on to an eventfd that is the rx queues' source, and
 * unmasks INTx. The pollers sleep on that eventfd like on an MSI-X vector.
 */
static int e1000e_intx_ack(void *ctx)
{
	struct e1000e_port *ep = ctx;

	/* Drop the level first, then unmask: no second interrupt. */
	write32(&ep->hw, E1000E_ICR, E1000E_ICR_RXT0);
	return unic_pci_intx_unmask(ep->dev);
}

static void e1000e_intx_demux(int fd, void *arg)
{
	struct unic_port *port = arg;
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	uint32_t count, icr;
	uint64_t one = 1;

	if (read(fd, &count, sizeof(count)) != (ssize_t)sizeof(count) || hw->gone)
		return;                       /* EAGAIN: another wake took it */
	icr = read32(hw, E1000E_ICR);         /* clears every cause: the level drops */
	if (icr == 0xffffffffu) {
		e1000e_hw_gone(hw);
		return;
	}
	if (icr & E1000E_ICR_LSC) {
		__atomic_fetch_add(&ep->link_events, 1, __ATOMIC_RELAXED);
		unic_port_event_post(port, UNIC_EVENT_LINK);
	}
	if ((icr & E1000E_ICR_RXT0) && ep->intx_rx_fd >= 0 &&
	    __atomic_load_n(&ep->intx_armed, __ATOMIC_RELAXED) != 0 &&
	    write(ep->intx_rx_fd, &one, sizeof(one)) != (ssize_t)sizeof(one)) {
		/* Only EAGAIN (the counter is full): the poller is awake anyway. */
	}
	(void)unic_pci_intx_unmask(ep->dev);
}

static int e1000e_intx_on(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	int rc;

	if (unic_pci_irq_count(ep->dev, UNIC_PCI_IRQ_INTX) < 1) {
		UNIC_PORT_LOG(port, ERR, "the device offers neither %u MSI-X vectors nor INTx; use rx mode poll",
			      E1000E_NB_VEC);
		return -ENOTSUP;
	}
	rc = unic_pci_irq_enable(ep->dev, UNIC_PCI_IRQ_INTX, 1, ep->irq_fds);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "cannot enable INTx: %s", strerror(-rc));
		return rc;
	}
	ep->intr_on = true;
	ep->intx = true;
	ep->nb_irq = 1;
	__atomic_store_n(&ep->intx_armed, 0, __ATOMIC_RELAXED);
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		ep->rxq[q].irq_fd = -1; /* not an eventfd: nothing to drop at arm time */
		ep->rxq[q].icr_cause = E1000E_ICR_RXT0;
	}
	write32(hw, E1000E_IMC, 0xffffffffu);
	write32(hw, E1000E_IVAR, 0);
	(void)read32(hw, E1000E_ICR);
	write32(hw, E1000E_ICR, 0xffffffffu);
	if (port->conf.link_intr) {
		ep->intx_rx_fd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
		if (ep->intx_rx_fd < 0) {
			rc = -errno;
			UNIC_PORT_LOG(port, ERR, "INTx: cannot create the rx eventfd: %s", strerror(-rc));
			e1000e_intr_off(port);
			return rc;
		}
		for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++)
			ep->rxq[q].irq_fd = ep->intx_rx_fd; /* a stale count is dropped at arm time */
		rc = unic_event_fd_add(ep->irq_fds[0], e1000e_intx_demux, port);
		if (rc < 0) {
			UNIC_PORT_LOG(port, ERR, "INTx: cannot watch the interrupt for link changes: %s",
				      strerror(-rc));
			e1000e_intr_off(port);
			return rc;
		}
		ep->intx_demux = true;
		write32(hw, E1000E_IMS, E1000E_ICR_LSC);
	}
	return 0;
}

int e1000e_intr_on(struct unic_port *port)
{
	struct e1000e_port *ep = e1000e_priv(port);
	struct e1000e_hw *hw = &ep->hw;
	uint32_t ivar = 0;
	int rc;

	if (unic_pci_irq_count(ep->dev, UNIC_PCI_IRQ_MSIX) < E1000E_NB_VEC)
		return e1000e_intx_on(port);
	rc = unic_pci_irq_enable(ep->dev, UNIC_PCI_IRQ_MSIX, E1000E_NB_VEC, ep->irq_fds);
	if (rc < 0) {
		UNIC_PORT_LOG(port, ERR, "cannot enable %u MSI-X vectors: %s", E1000E_NB_VEC, strerror(-rc));
		return rc;
	}
	ep->intr_on = true;
	ep->intx = false;
	ep->nb_irq = E1000E_NB_VEC;
	for (unsigned q = 0; q < E1000E_MAX_QUEUES; q++) {
		ep->rxq[q].irq_fd = ep->irq_fds[E1000E_VEC_RX(q)];
		ep->rxq[q].icr_cause = E1000E_ICR_RXQ(q);
		ivar |= (E1000E_IVAR_VALID | E1000E_VEC_RX(q)) << E1000E_IVAR_RXQ_SHIFT(q);
		ivar |= (E1000E_IVAR_VALID | E1000E_VEC_TX(q)) << E1000E_IVAR_TXQ_SHIFT(q);
	}
	ivar |= (E1000E_IVAR_VALID | E1000E_VEC_OTHER) << E1000E_IVAR_OTHER_SHIFT;
	write32(hw, E1000E_IMC, 0xffffffffu);
	write32(hw, E1000E_IVAR, ivar);
	write32(hw, E1000E_CTRL_EXT, (read32(hw, E1000E_CTRL_EXT) &
				      ~(E1000E_CTRL_EXT_IAME | E1000E_CTRL_EXT_EIAME)) |
		E1000E_CTRL_EXT_PBA_CLR);
	write32(hw, E1000E_EIAC, E1000E_MSIX_CAUSES);
	write32(hw, E1000E_IAM, 0);
	write32(hw, E1000E_ICR, 0xffffffffu);
	if (port->conf.link_intr) {
		rc = unic_event_fd_add(ep->irq_fds[E1000E_VEC_OTHER], e1000e_other_handler, port);
		if (rc < 0) {
			UNIC_PORT_LOG(port, ERR, "cannot watch the link interrupt: %s", strerror(-rc));
			e1000e_intr_off(port);
			return rc;
		}
		ep->other_watched = true;
		write32(hw, E1000E_IMS, E1000E_ICR_OTHER | E1000E_ICR_LSC);
	}
	return 0;
}

int e1000e_intr_sources(struct unic_port *port, struct unic_intr_source *src, unsigned max)
{
	struct e1000e_port *ep = e1000e_priv(port);
	unsigned n = 0;

	if (!ep->intr_on || port->conf.rx_mode == UNIC_RX_MODE_POLL)
		return -ENOTSUP;
	if (ep->intx) {
		/* One source for every rx queue: the eventfd the event thread
		 * relays RXT0 to (e1000e_intx_demux), or else the line itself. */
		bool relay = ep->intx_demux;

		if (max > 0)
			src[0] = (struct unic_intr_source){
				.fd = relay ? ep->intx_rx_fd : ep->irq_fds[0],
				.kind = !relay && unic_pci_access(ep->dev) == UNIC_PCI_ACCESS_UIO ? UNIC_INTR_UIO
												 : UNIC_INTR_EVENTFD,
				.queue_mask = (1u << port->conf.nb_rxq) - 1,
				.index = 0,
				.unmask = relay ? NULL : e1000e_intx_ack,
				.unmask_ctx = relay ? NULL : ep,
			};
		return 1;
	}
	for (uint16_t q = 0; q < port->conf.nb_rxq; q++, n++)
		if (n < max)
			src[n] = (struct unic_intr_source){
				.fd = ep->irq_fds[E1000E_VEC_RX(q)],
				.kind = UNIC_INTR_EVENTFD,
				.queue_mask = 1u << q,
				.index = E1000E_VEC_RX(q),
			};
	return (int)n;
}

/*
 * Rx queue q's Linux IRQ: its MSI-X vector, or the INTx line all queues
 * share (with link events on, the event thread takes that line and relays
 * rx causes through an eventfd: the IRQ's CPU is then where that thread is
 * woken, and the poller is woken from there).
 */
int e1000e_rx_intr_affinity(struct unic_port *port, uint16_t q, int cpu)
{
	struct e1000e_port *ep = e1000e_priv(port);
	unsigned vec = ep->intx ? 0 : E1000E_VEC_RX(q);

	if (!ep->intr_on) {
		UNIC_PORT_LOG(port, ERR, "rx queue %u: interrupts are off (rx mode poll)", q);
		return -EINVAL;
	}
	if (cpu < 0)
		return unic_pci_irq_kernel_num(ep->dev, vec);
	if (ep->intx && port->conf.nb_rxq > 1)
		UNIC_PORT_LOG(port, INFO, "rx queue %u: INTx is shared by the %u rx queues: they all move to CPU %d",
			      q, port->conf.nb_rxq, cpu);
	return unic_pci_irq_affinity_set(ep->dev, vec, cpu);
}

int e1000e_coalesce_set(struct unic_port *port, const struct unic_coalesce *c)
{
	struct e1000e_port *ep = e1000e_priv(port);

	ep->rx_usecs = c->rx_usecs;
	ep->tx_usecs = c->tx_usecs;
	e1000e_coalesce_program(ep);
	return 0;
}

/* The value in effect, read back: QEMU raises anything under 500 (128 us). */
int e1000e_coalesce_get(struct unic_port *port, struct unic_coalesce *c)
{
	struct e1000e_port *ep = e1000e_priv(port);
	uint32_t rx, tx;

	if (e1000e_hw_live(ep) < 0)
		return -ENODEV;
	rx = read32(&ep->hw, E1000E_EITR(E1000E_VEC_RX(0)));
	tx = read32(&ep->hw, E1000E_EITR(E1000E_VEC_TX(0)));
	/* Gone between the reads: the values are all-ones, not settings. */
	if (e1000e_hw_check_gone(&ep->hw))
		return -ENODEV;
	c->rx_usecs = itr_to_usecs(rx);
	c->tx_usecs = itr_to_usecs(tx);
	return 0;
}
