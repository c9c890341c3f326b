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
	virtio_vq_init(&cq->vq); /* polled: NO_INTERRUPT stays set */
	cq->vq.index = index;
	cq->vq.event_idx = has(hw, VIRTIO_F_EVENT_IDX);
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

/* Wait for the used entry of the one chain posted. @return 0, or -errno (logged). */
static int ctrl_wait(struct virtio_hw *hw, struct virtio_ctrlq *cq, const char *what)
{
	struct virtio_vq *vq = &cq->vq;
	uint64_t start = now_us(), checked = start;
	uint16_t n;

	for (unsigned spins = 0;; spins++) {
		uint64_t t;

		n = (uint16_t)(__atomic_load_n(&vq->used[1], __ATOMIC_ACQUIRE) - vq->used_idx);
		if (n != 0)
			break;
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
		if (id != 0 || len > 1) {
			unic_counter_add(&vq->bad_used, 1);
			ctrl_break(cq, what);
			UNIC_PORT_LOG(hw->port, ERR, "control command \"%s\": the device answered with used id %" PRIu32 " and length %" PRIu32 " (expected id 0, length at most 1); not trusted, the control queue is out of service until the port is stopped and started",
				      what, id, len);
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
	uint16_t d = 0;
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
	/* The chain: header, data, ack (2.6.4.2: readable before writable). */
	vq->desc[d] = (struct virtq_desc){ .addr = cq->buf_iova + CTRL_HDR_OFF, .len = 2,
					   .flags = VRING_DESC_F_NEXT, .next = (uint16_t)(d + 1) };
	d++;
	if (total > 0) {
		vq->desc[d] = (struct virtq_desc){ .addr = cq->buf_iova + CTRL_DATA_OFF, .len = (uint32_t)total,
						   .flags = VRING_DESC_F_NEXT, .next = (uint16_t)(d + 1) };
		d++;
	}
	vq->desc[d] = (struct virtq_desc){ .addr = cq->buf_iova + CTRL_ACK_OFF, .len = 1,
					   .flags = VRING_DESC_F_WRITE, .next = 0 };
	vq->avail[2 + (vq->avail_idx & vq->mask)] = 0;
	vq->avail_idx++;
	vq->nb_free = (uint16_t)(vq->size - d - 1);
	virtio_vq_publish(vq);
	rc = ctrl_wait(hw, cq, what);
	vq->nb_free = vq->size;
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
