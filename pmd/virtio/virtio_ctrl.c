/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The control virtqueue (virtio 1.1 section 5.1.6.5): a synchronous
 * command primitive. One command is in flight at a time (the queue's lock):
 * header (class, command) and data in device-readable descriptors, the ack
 * in a device-writable byte, a kick, then the used ring is polled until the
 * device answers or VIRTIO_CTRL_TIMEOUT_US pass.
 *
 * Nothing the device writes is trusted: the used index must move by one,
 * the used id must be the chain posted, its length at most the one byte
 * the device may write; anything else is counted (bad_used, used_jumps),
 * refused, and leaves the queue out of service until the next start resets
 * the device (the chain may still be the device's). The ack byte is set to
 * a value that is not VIRTIO_NET_OK before each command, so an answer that
 * did not write it fails.
 */
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "virtio_priv.h"

#define CTRL_QUEUE_SIZE 16  /* one chain of at most 3 descriptors is ever posted */
#define CTRL_HDR_OFF    0   /* u8 class, u8 command */
#define CTRL_ACK_OFF    8   /* u8 ack */
#define CTRL_DATA_OFF   64
#define CTRL_BUF_LEN    (CTRL_DATA_OFF + VIRTIO_CTRL_DATA_MAX)
#define CTRL_ACK_UNSET  0xa5 /* neither VIRTIO_NET_OK nor VIRTIO_NET_ERR */

static uint64_t now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000u + (uint64_t)ts.tv_nsec / 1000u;
}

static bool has(const struct virtio_hw *hw, unsigned bit)
{
	return (hw->features & VIRTIO_BIT(bit)) != 0;
}

/* ---- setup ------------------------------------------------------------------ */

/* The control queue's number (5.1.2): after every data queue pair. */
static int ctrl_index(struct virtio_hw *hw, uint16_t *index)
{
	uint16_t pairs = 1;

	if (has(hw, VIRTIO_NET_F_MQ)) {
		int rc = virtio_hw_cfg_read(hw, VIRTIO_NET_CFG_MAX_PAIRS, &pairs, sizeof(pairs));

		if (rc < 0)
			return rc;
		/* 5.1.4: 1 to 0x8000 pairs. */
		if (pairs == 0 || pairs > 0x8000) {
			UNIC_PORT_LOG(hw->port, ERR, "control queue: the device says max_virtqueue_pairs is %u; the specification allows 1 to 32768",
				      pairs);
			return -EIO;
		}
	}
	*index = (uint16_t)(2u * pairs);
	if (*index >= hw->num_queues) {
		UNIC_PORT_LOG(hw->port, ERR, "control queue: it would be virtqueue %u (after %u queue pairs), and the device has %u virtqueues",
			      *index, pairs, hw->num_queues);
		return -EIO;
	}
	return 0;
}

int virtio_ctrl_setup(struct virtio_hw *hw)
{
	struct virtio_ctrlq *cq = hw->ctrl;
	uint16_t index, max, size;
	int rc;

	if (!has(hw, VIRTIO_NET_F_CTRL_VQ))
		return 0;
	rc = ctrl_index(hw, &index);
	if (rc < 0)
		return rc;
	max = virtio_hw_queue_max(hw, index);
	for (size = CTRL_QUEUE_SIZE; size > max; size /= 2)
		;
	if (size < 4) {
		UNIC_PORT_LOG(hw->port, ERR, "control queue (virtqueue %u): the device takes at most %u entries; a command needs 3",
			      index, max);
		return -EIO;
	}
	if (cq == NULL) {
		cq = calloc(1, sizeof(*cq));
		if (cq == NULL)
			return -ENOMEM;
		pthread_mutex_init(&cq->lock, NULL);
		hw->ctrl = cq;
	}
	pthread_mutex_lock(&cq->lock);
	if (cq->vq.size != size) {
		free(cq->vq.next);
		unic_port_dma_free(hw->port, &cq->vq.dma);
		cq->vq.size = 0;
		cq->vq.next = calloc(size, sizeof(*cq->vq.next));
		rc = cq->vq.next == NULL ? -ENOMEM :
		     unic_port_dma_alloc(hw->port, "control virtqueue", virtio_vq_bytes(size, CTRL_BUF_LEN), 4096,
					 hw->port->numa_node, &cq->vq.dma);
		if (rc < 0) {
			free(cq->vq.next);
			cq->vq.next = NULL;
			pthread_mutex_unlock(&cq->lock);
			UNIC_PORT_LOG(hw->port, ERR, "control queue: no memory for its virtqueue: %s", strerror(-rc));
			return rc;
		}
		cq->vq.size = size;
	}
	/* Every virtqueue of the device has the negotiated format. */
	cq->vq.packed = has(hw, VIRTIO_F_RING_PACKED);
	virtio_vq_init(&cq->vq); /* polled: no used-buffer notification asked */
	cq->vq.index = index;
	cq->vq.event_idx = has(hw, VIRTIO_F_EVENT_IDX);
	cq->vq.in_order = has(hw, VIRTIO_F_IN_ORDER);
	cq->buf = (volatile uint8_t *)cq->vq.dma.va + virtio_vq_bytes(size, 0);
	cq->buf_iova = cq->vq.dma.iova + virtio_vq_bytes(size, 0);
	cq->broken = false;
	cq->broken_by[0] = '\0';
	rc = virtio_hw_queue_setup(hw, &cq->vq, VIRTIO_MSI_NO_VECTOR);
	cq->live = rc == 0;
	pthread_mutex_unlock(&cq->lock);
	return rc;
}

void virtio_ctrl_stop(struct virtio_hw *hw)
{
	if (hw->ctrl == NULL)
		return;
	pthread_mutex_lock(&hw->ctrl->lock);
	hw->ctrl->live = false;
	pthread_mutex_unlock(&hw->ctrl->lock);
}

void virtio_ctrl_free(struct virtio_hw *hw)
{
	struct virtio_ctrlq *cq = hw->ctrl;

	if (cq == NULL)
		return;
	hw->ctrl = NULL;
	free(cq->vq.next);
	unic_port_dma_free(hw->port, &cq->vq.dma);
	pthread_mutex_destroy(&cq->lock);
	free(cq);
}

/* ---- commands ---------------------------------------------------------------- */

/* The queue is out of service until the next start; @p why is logged. */
static void ctrl_break(struct virtio_ctrlq *cq, const char *what)
{
	cq->broken = true;
	snprintf(cq->broken_by, sizeof(cq->broken_by), "%s", what);
}

/* Wait for the used entry of the one chain posted (split: at @p head). @return 0, or -errno (logged). */
static int ctrl_wait(struct virtio_hw *hw, struct virtio_ctrlq *cq, uint16_t head, const char *what)
{
	struct virtio_vq *vq = &cq->vq;
	uint64_t start = now_us(), checked = start;
	uint16_t n = 0;

	uint32_t plen = 0;
	int prc = 0;

	for (unsigned spins = 0;; spins++) {
		uint64_t t;

		if (vq->packed) {
			prc = virtio_packed_request_done(vq, &plen);
			if (prc != 0)
				break;
		} else {
			n = (uint16_t)(__atomic_load_n(&vq->used[1], __ATOMIC_ACQUIRE) - vq->used_idx);
			if (n != 0)
				break;
		}
		if (spins < 64)
			continue; /* QEMU answers during the kick itself */
		t = now_us();
		if (t - checked >= 1000) {
			uint8_t st;

			checked = t;
			if (virtio_hw_check_gone(hw)) {
				ctrl_break(cq, what);
				return -ENODEV;
			}
			st = virtio_hw_status(hw);
			if (st & VIRTIO_STATUS_NEEDS_RESET) {
				unic_counter_add(&cq->errors, 1);
				ctrl_break(cq, what);
				UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the device set DEVICE_NEEDS_RESET instead of answering (device_status 0x%02x); stop and start the port",
					      what, st);
				return -EIO;
			}
		}
		if (t - start >= VIRTIO_CTRL_TIMEOUT_US) {
			unic_counter_add(&cq->timeouts, 1);
			ctrl_break(cq, what);
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": no answer from the device in %u ms (used index still %u); the control queue is out of service until the port is stopped and started",
				      what, VIRTIO_CTRL_TIMEOUT_US / 1000, vq->used_idx);
			return -ETIMEDOUT;
		}
		usleep(20);
	}
	if (vq->packed) {
		/* The used descriptor: id 0 (a bad one was counted in bad_used),
		 * at most the one ack byte written. */
		if (prc < 0 || plen > 1) {
			if (prc > 0)
				unic_counter_add(&vq->bad_used, 1);
			ctrl_break(cq, what);
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the device's used descriptor has %s (expected id 0, length at most 1); not trusted, the control queue is out of service until the port is stopped and started",
				      what, prc < 0 ? "another buffer id" : "a length over the ack byte");
			return -EIO;
		}
		return 0;
	}
	unic_io_rmb(); /* the entry after the index that covers it */
	if (n != 1) {
		unic_counter_add(&vq->used_jumps, 1);
		ctrl_break(cq, what);
		UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the device moved the used index by %u with one command posted; not trusted, the control queue is out of service until the port is stopped and started",
			      what, n);
		return -EIO;
	}
	{
		volatile struct virtq_used_elem *e = &vq->used_ring[vq->used_idx & vq->mask];
		uint32_t id = e->id, len = e->len;

		vq->used_idx++;
		if (id != head || len > 1) {
			unic_counter_add(&vq->bad_used, 1);
			ctrl_break(cq, what);
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the device answered with used id %" PRIu32 " and length %" PRIu32 " (expected id %u, length at most 1); not trusted, the control queue is out of service until the port is stopped and started",
				      what, id, len, head);
			return -EIO;
		}
	}
	return 0;
}

int virtio_ctrl_cmdv(struct virtio_hw *hw, uint8_t cls, uint8_t cmd, const struct virtio_ctrl_seg *segs,
		     unsigned nb, const char *what)
{
	struct virtio_ctrlq *cq = hw->ctrl;
	struct virtio_vq *vq;
	size_t total = 0;
	uint16_t d = 0, head = 0;
	uint8_t ack;
	int rc;

	if (!has(hw, VIRTIO_NET_F_CTRL_VQ)) {
		UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the device has no control queue (VIRTIO_NET_F_CTRL_VQ not offered)",
			      what);
		return -ENOTSUP;
	}
	for (unsigned i = 0; i < nb; i++)
		total += segs[i].len;
	if (total > VIRTIO_CTRL_DATA_MAX) {
		UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": %zu bytes of data; at most %u", what, total,
			      VIRTIO_CTRL_DATA_MAX);
		return -EINVAL;
	}
	if (cq == NULL || hw->gone)
		return hw->gone ? -ENODEV : -EIO;
	pthread_mutex_lock(&cq->lock);
	if (!cq->live || cq->broken) {
		if (cq->broken)
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the control queue is out of service since \"%s\" failed; stop and start the port",
				      what, cq->broken_by);
		else
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the control queue is not running (the port is not started)",
				      what);
		rc = -EIO;
		goto out;
	}
	if (virtio_hw_check_gone(hw)) {
		rc = -ENODEV;
		goto out;
	}
	vq = &cq->vq;
	cq->buf[CTRL_HDR_OFF] = cls;
	cq->buf[CTRL_HDR_OFF + 1] = cmd;
	cq->buf[CTRL_ACK_OFF] = CTRL_ACK_UNSET;
	for (unsigned i = 0, at = 0; i < nb; i++) {
		memcpy((uint8_t *)cq->buf + CTRL_DATA_OFF + at, segs[i].data, segs[i].len);
		at += (unsigned)segs[i].len;
	}
	if (vq->packed) {
		struct virtio_req_seg rs[3];
		unsigned k = 0;

		rs[k++] = (struct virtio_req_seg){ .iova = cq->buf_iova + CTRL_HDR_OFF, .len = 2 };
		if (total > 0)
			rs[k++] = (struct virtio_req_seg){ .iova = cq->buf_iova + CTRL_DATA_OFF, .len = (uint32_t)total };
		rs[k++] = (struct virtio_req_seg){ .iova = cq->buf_iova + CTRL_ACK_OFF, .len = 1, .write = true };
		rc = virtio_packed_request(vq, rs, k);
		if (rc < 0) {
			ctrl_break(cq, what);
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the packed control queue cannot take it (%s); stop and start the port",
				      what, strerror(-rc));
			rc = -EIO;
			goto out;
		}
		rc = ctrl_wait(hw, cq, 0, what);
		goto answered;
	}
	/* The chain: header, data, ack (2.6.4.2: readable before writable),
	 * at descriptor 0, or with IN_ORDER where the last one ended (the
	 * driver uses descriptors in ring order, next = x + 1: 2.6.5). */
	head = vq->in_order ? vq->free_head : 0;
	d = head;
	vq->desc[d] = (struct virtq_desc){ .addr = cq->buf_iova + CTRL_HDR_OFF, .len = 2,
					   .flags = VRING_DESC_F_NEXT, .next = (uint16_t)((d + 1) & vq->mask) };
	d = (uint16_t)((d + 1) & vq->mask);
	if (total > 0) {
		vq->desc[d] = (struct virtq_desc){ .addr = cq->buf_iova + CTRL_DATA_OFF, .len = (uint32_t)total,
						   .flags = VRING_DESC_F_NEXT, .next = (uint16_t)((d + 1) & vq->mask) };
		d = (uint16_t)((d + 1) & vq->mask);
	}
	vq->desc[d] = (struct virtq_desc){ .addr = cq->buf_iova + CTRL_ACK_OFF, .len = 1,
					   .flags = VRING_DESC_F_WRITE, .next = 0 };
	vq->free_head = (uint16_t)((d + 1) & vq->mask);
	vq->avail[2 + (vq->avail_idx & vq->mask)] = head;
	vq->avail_idx++;
	vq->nb_free = (uint16_t)(vq->size - (total > 0 ? 3 : 2));
	virtio_vq_publish(vq);
	rc = ctrl_wait(hw, cq, head, what);
	vq->nb_free = vq->size;
answered:
	if (rc < 0)
		goto out;
	ack = cq->buf[CTRL_ACK_OFF];
	if (ack != VIRTIO_NET_OK) {
		unic_counter_add(&cq->errors, 1);
		UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\" (class %u, command %u): the device answered %s (ack %u), not VIRTIO_NET_OK",
			      what, cls, cmd, ack == VIRTIO_NET_ERR ? "VIRTIO_NET_ERR" :
			      ack == CTRL_ACK_UNSET ? "without writing the ack" : "an unknown ack", ack);
		rc = -EIO;
		goto out;
	}
	unic_counter_add(&cq->cmds, 1);
	rc = 0;
out:
	pthread_mutex_unlock(&cq->lock);
	return rc;
}

int virtio_ctrl_cmd(struct virtio_hw *hw, uint8_t cls, uint8_t cmd, const void *data, size_t len,
		    const char *what)
{
	struct virtio_ctrl_seg seg = { .data = data, .len = len };

	return virtio_ctrl_cmdv(hw, cls, cmd, &seg, len ? 1 : 0, what);
}

/* ---- receive filters (5.1.6.5.1, 5.1.6.5.2, 5.1.6.5.3) ------------------------- */

/*
 * The port keeps its filter settings (promiscuous, all-multicast, the MAC
 * address, the unicast and multicast tables, the VLAN ids) and sends them
 * to a started device; a stopped one gets them all at the next start
 * (virtio_ctrl_restore), since a reset takes the device back to its
 * defaults (QEMU: promiscuous, empty tables, its own MAC, no VLAN).
 */

static struct virtio_port *vpriv(struct unic_port *port)
{
	return virtio_priv(port);
}

static bool started(struct unic_port *port)
{
	return unic_port_state(port) == UNIC_PORT_STARTED;
}

/* Can the device filter: @p bit (CTRL_RX, CTRL_MAC_ADDR, CTRL_VLAN) with a
 * control queue, as offered (what start negotiates). Logs why not. */
static int can(struct unic_port *port, unsigned bit, const char *op, const char *without)
{
	const struct virtio_hw *hw = &vpriv(port)->hw;
	uint64_t need = VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ) | VIRTIO_BIT(bit);

	if ((hw->dev_features & need) == need)
		return 0;
	UNIC_PORT_LOG(port, ERR, "%s: the device offers no %s%s; %s", op,
		      (hw->dev_features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)) ? "" : "control queue (VIRTIO_NET_F_CTRL_VQ), so no ",
		      bit == VIRTIO_NET_F_CTRL_RX ? "receive filter control (VIRTIO_NET_F_CTRL_RX)" :
		      bit == VIRTIO_NET_F_CTRL_MAC_ADDR ? "MAC address setting (VIRTIO_NET_F_CTRL_MAC_ADDR)" :
		      "VLAN filter (VIRTIO_NET_F_CTRL_VLAN)", without);
	return -ENOTSUP;
}

static int send_rx_mode(struct virtio_hw *hw, uint8_t cmd, bool on)
{
	uint8_t b = on;

	return virtio_ctrl_cmd(hw, VIRTIO_NET_CTRL_RX, cmd, &b, 1,
			       cmd == VIRTIO_NET_CTRL_RX_PROMISC ? (on ? "promiscuous mode on" : "promiscuous mode off") :
			       (on ? "all-multicast mode on" : "all-multicast mode off"));
}

/* The MAC table (5.1.6.5.2): the unicast addresses added besides the
 * port's own, then the multicast list, each as le32 count and addresses. */
/* The port's address is not the one the device filters on and cannot be
 * made so (no CTRL_MAC_ADDR: a random address, the device gave none):
 * it goes into the unicast table. */
static bool own_mac_in_table(const struct virtio_port *vp)
{
	return !has(&vp->hw, VIRTIO_NET_F_CTRL_MAC_ADDR) &&
	       memcmp(vp->hw.port->mac, vp->dev_mac, UNIC_ETHER_ADDR_LEN) != 0;
}

static int send_mac_table(struct virtio_port *vp)
{
	bool own = own_mac_in_table(vp);
	uint32_t nuc = vp->nb_uc + own, nmc = vp->nb_mc;
	struct virtio_ctrl_seg segs[5] = {
		{ &nuc, sizeof(nuc) }, { vp->hw.port->mac, own ? UNIC_ETHER_ADDR_LEN : 0 },
		{ vp->uc, (size_t)vp->nb_uc * UNIC_ETHER_ADDR_LEN },
		{ &nmc, sizeof(nmc) }, { vp->mc, (size_t)vp->nb_mc * UNIC_ETHER_ADDR_LEN },
	};

	return virtio_ctrl_cmdv(&vp->hw, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_TABLE_SET, segs, 5, "MAC table");
}

static int send_mac(struct virtio_port *vp, const uint8_t *mac)
{
	return virtio_ctrl_cmd(&vp->hw, VIRTIO_NET_CTRL_MAC, VIRTIO_NET_CTRL_MAC_ADDR_SET, mac, UNIC_ETHER_ADDR_LEN,
			       "MAC address set");
}

static int send_vlan(struct virtio_port *vp, uint16_t id, bool on)
{
	char what[32];

	snprintf(what, sizeof(what), "VLAN %u filter %s", id, on ? "add" : "remove");
	return virtio_ctrl_cmd(&vp->hw, VIRTIO_NET_CTRL_VLAN, on ? VIRTIO_NET_CTRL_VLAN_ADD : VIRTIO_NET_CTRL_VLAN_DEL,
			       &id, sizeof(id), what);
}

static int rx_mode_set(struct unic_port *port, bool allmulti, bool on)
{
	struct virtio_port *vp = vpriv(port);
	bool *b = allmulti ? &vp->allmulti : &vp->promisc;
	bool old = *b;
	int rc;

	/* Without a receive filter the device takes every frame: on is
	 * what it does anyway. */
	if (on && !(vp->hw.dev_features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_RX) &&
		    vp->hw.dev_features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VQ)))
		return 0;
	if (can(port, VIRTIO_NET_F_CTRL_RX, allmulti ? "all-multicast mode off" : "promiscuous mode off",
		"it receives every frame") < 0)
		return -ENOTSUP;
	*b = on;
	if (!started(port))
		return 0;
	rc = send_rx_mode(&vp->hw, allmulti ? VIRTIO_NET_CTRL_RX_ALLMULTI : VIRTIO_NET_CTRL_RX_PROMISC, on);
	if (rc < 0)
		*b = old;
	return rc;
}

int virtio_promisc_set(struct unic_port *port, bool on)
{
	return rx_mode_set(port, false, on);
}

int virtio_allmulti_set(struct unic_port *port, bool on)
{
	return rx_mode_set(port, true, on);
}

int virtio_mac_set(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct virtio_port *vp = vpriv(port);

	/* Without CTRL_MAC_ADDR a modern device's mac field is read-only
	 * (5.1.4: only a legacy driver writes it). */
	if (can(port, VIRTIO_NET_F_CTRL_MAC_ADDR, "MAC address set",
		"a virtio 1.x device's configuration MAC is read-only: set the address on the host (QEMU: -device virtio-net-pci,mac=...)") < 0)
		return -ENOTSUP;
	if (!started(port))
		return 0; /* the core keeps it in port->mac; sent at start */
	return send_mac(vp, mac);
}

static int uc_find(const struct virtio_port *vp, const uint8_t *mac)
{
	for (unsigned i = 0; i < vp->nb_uc; i++)
		if (memcmp(vp->uc[i], mac, UNIC_ETHER_ADDR_LEN) == 0)
			return (int)i;
	return -1;
}

/* Send the table if started; on failure put @p undo back. */
static int table_update(struct unic_port *port, const void *undo_uc, unsigned undo_nb_uc)
{
	struct virtio_port *vp = vpriv(port);
	int rc;

	if (!started(port))
		return 0;
	rc = send_mac_table(vp);
	if (rc < 0 && undo_uc != NULL) {
		memcpy(vp->uc, undo_uc, (size_t)undo_nb_uc * UNIC_ETHER_ADDR_LEN);
		vp->nb_uc = undo_nb_uc;
	}
	return rc;
}

int virtio_mac_add(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct virtio_port *vp = vpriv(port);
	uint8_t undo[VIRTIO_UC_MAX][UNIC_ETHER_ADDR_LEN];
	unsigned nb = vp->nb_uc;

	if (can(port, VIRTIO_NET_F_CTRL_RX, "mac_add", "it receives every frame, whatever its address") < 0)
		return -ENOTSUP;
	if (uc_find(vp, mac) >= 0 || memcmp(mac, port->mac, UNIC_ETHER_ADDR_LEN) == 0)
		return 0;
	if (vp->nb_uc == VIRTIO_UC_MAX) {
		UNIC_PORT_LOG(port, ERR, "mac_add: the driver's unicast table is full (%u addresses); remove one or turn promiscuous mode on",
			      VIRTIO_UC_MAX);
		return -ENOSPC;
	}
	memcpy(undo, vp->uc, sizeof(undo));
	memcpy(vp->uc[vp->nb_uc++], mac, UNIC_ETHER_ADDR_LEN);
	return table_update(port, undo, nb);
}

int virtio_mac_remove(struct unic_port *port, const uint8_t mac[UNIC_ETHER_ADDR_LEN])
{
	struct virtio_port *vp = vpriv(port);
	uint8_t undo[VIRTIO_UC_MAX][UNIC_ETHER_ADDR_LEN];
	unsigned nb = vp->nb_uc;
	int i = uc_find(vp, mac);

	if (i < 0)
		return -ENOENT;
	memcpy(undo, vp->uc, sizeof(undo));
	memmove(vp->uc[i], vp->uc[i + 1], (size_t)(vp->nb_uc - (unsigned)i - 1) * UNIC_ETHER_ADDR_LEN);
	vp->nb_uc--;
	return table_update(port, undo, nb);
}

int virtio_mc_addr_list_set(struct unic_port *port, const uint8_t (*addrs)[UNIC_ETHER_ADDR_LEN], unsigned nb)
{
	struct virtio_port *vp = vpriv(port);
	uint8_t (*undo)[UNIC_ETHER_ADDR_LEN];
	unsigned undo_nb = vp->nb_mc;
	int rc;

	if (can(port, VIRTIO_NET_F_CTRL_RX, "multicast list", "it receives every multicast frame") < 0)
		return -ENOTSUP;
	undo = malloc(sizeof(vp->mc));
	if (undo == NULL)
		return -ENOMEM;
	memcpy(undo, vp->mc, sizeof(vp->mc));
	if (nb > 0)
		memcpy(vp->mc, addrs, (size_t)nb * UNIC_ETHER_ADDR_LEN);
	vp->nb_mc = nb;
	rc = table_update(port, NULL, 0);
	if (rc < 0) {
		memcpy(vp->mc, undo, sizeof(vp->mc));
		vp->nb_mc = undo_nb;
	}
	free(undo);
	return rc;
}

int virtio_vlan_filter_set(struct unic_port *port, uint16_t vlan_id, bool on)
{
	struct virtio_port *vp = vpriv(port);
	uint8_t bit = (uint8_t)(1u << (vlan_id & 7));
	uint8_t old = vp->vlans[vlan_id >> 3];
	int rc;

	if (can(port, VIRTIO_NET_F_CTRL_VLAN, "VLAN filter", "it receives frames of every VLAN") < 0)
		return -ENOTSUP;
	if (on)
		vp->vlans[vlan_id >> 3] |= bit;
	else
		vp->vlans[vlan_id >> 3] &= (uint8_t)~bit;
	/* Sent when the filter is on (CTRL_VLAN negotiated: the VLAN filter
	 * offload), else kept for a start with it on. */
	if (!started(port) || !(vp->hw.features & VIRTIO_BIT(VIRTIO_NET_F_CTRL_VLAN)))
		return 0;
	rc = send_vlan(vp, vlan_id, on);
	if (rc < 0)
		vp->vlans[vlan_id >> 3] = old;
	return rc;
}

int virtio_ctrl_restore(struct unic_port *port)
{
	struct virtio_port *vp = vpriv(port);
	struct virtio_hw *hw = &vp->hw;
	int rc;

	if (has(hw, VIRTIO_NET_F_CTRL_MAC_ADDR) &&
	    memcmp(port->mac, vp->dev_mac, UNIC_ETHER_ADDR_LEN) != 0 && (rc = send_mac(vp, port->mac)) < 0)
		return rc;
	if (has(hw, VIRTIO_NET_F_CTRL_RX)) {
		if ((rc = send_rx_mode(hw, VIRTIO_NET_CTRL_RX_PROMISC, vp->promisc)) < 0 ||
		    (rc = send_rx_mode(hw, VIRTIO_NET_CTRL_RX_ALLMULTI, vp->allmulti)) < 0)
			return rc;
		if ((vp->nb_uc || vp->nb_mc || own_mac_in_table(vp)) && (rc = send_mac_table(vp)) < 0)
			return rc;
	}
	if (has(hw, VIRTIO_NET_F_CTRL_VLAN)) {
		for (unsigned id = 0; id < 4096; id++)
			if ((vp->vlans[id >> 3] & (1u << (id & 7))) && (rc = send_vlan(vp, (uint16_t)id, true)) < 0)
				return rc;
	}
	return 0;
}
