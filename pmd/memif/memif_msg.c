/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif handshake as a state machine over received messages: every
 * field the peer sends is checked here against what this side offered
 * (queue counts, ring sizes, region count, version, id, secret) before it is
 * kept, and every fd it passes is owned from the moment it arrives (kept or
 * closed, never leaked). No socket I/O: memif_ctrl.c reads and writes the
 * socket; tests/fuzz/fuzz_memif_msg.c feeds this file directly.
 *
 * A message that breaks the protocol ends the connection: the result is
 * -EPROTO, c->reason says what was wrong for this side's log, and *reply is
 * a DISCONNECT with a short reason for the peer's log.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <sys/eventfd.h>
#include <sys/mman.h>
#include <sys/stat.h>

#include "memif_priv.h"

#define MEMIF_HUGE_SIZE (UINT64_C(2) << 20)

static void memif_close_fd(int *fd)
{
	if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

void memif_conn_init(struct memif_conn *c, const struct memif_cfg *cfg)
{
	memset(c, 0, sizeof(*c));
	c->cfg = *cfg;
	for (unsigned i = 0; i < MEMIF_MAX_REGIONS; i++)
		c->regions[i].fd = -1;
	for (unsigned d = 0; d < 2; d++)
		for (unsigned q = 0; q < MEMIF_MAX_QUEUES; q++)
			c->rings[d][q].efd = -1;
}

void memif_conn_reset(struct memif_conn *c)
{
	struct memif_cfg cfg = c->cfg;

	for (unsigned i = 0; i < MEMIF_MAX_REGIONS; i++) {
		struct memif_region *r = &c->regions[i];

		if (r->borrowed)
			continue; /* a pool's memory: lib/mem keeps it */
		if (r->addr != NULL)
			munmap(r->addr, r->map_len);
		memif_close_fd(&r->fd);
	}
	for (unsigned d = 0; d < 2; d++)
		for (unsigned q = 0; q < MEMIF_MAX_QUEUES; q++)
			memif_close_fd(&c->rings[d][q].efd);
	memif_conn_init(c, &cfg);
}

/* Copy a name the peer sent (not necessarily terminated, maybe binary). */
static void memif_name_copy(char *dst, const uint8_t *src, size_t n)
{
	size_t i;

	for (i = 0; i < n && src[i] != '\0'; i++)
		dst[i] = (src[i] >= 0x20 && src[i] < 0x7f) ? (char)src[i] : '?';
	dst[i] = '\0';
}

void memif_msg_disconnect(struct memif_msg *m, const char *reason)
{
	memset(m, 0, sizeof(*m));
	m->type = MEMIF_MSG_DISCONNECT;
	snprintf((char *)m->disconnect.reason, sizeof(m->disconnect.reason), "%s", reason);
}

void memif_conn_hello(struct memif_conn *c, struct memif_msg *out)
{
	memset(out, 0, sizeof(*out));
	out->type = MEMIF_MSG_HELLO;
	snprintf((char *)out->hello.name, sizeof(out->hello.name), "unic");
	out->hello.min_version = MEMIF_VERSION;
	out->hello.max_version = MEMIF_VERSION;
	out->hello.max_region = MEMIF_MAX_REGIONS - 1;
	/* Our rx queues take the client's C2S rings, our tx queues its S2C. */
	out->hello.max_c2s_ring = (uint16_t)(c->cfg.nb_rxq - 1);
	out->hello.max_s2c_ring = (uint16_t)(c->cfg.nb_txq - 1);
	out->hello.max_log2_ring_size = MEMIF_LOG2_RING_MAX;
	c->state = MEMIF_C_WAIT_INIT;
}

/* Fail: our reason (printf) for the log, a short one for the peer. */
static int UNIC_PRINTF(4, 5) memif_fail(struct memif_conn *c, struct memif_msg *reply,
					const char *peer_msg, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(c->reason, sizeof(c->reason), fmt, ap);
	va_end(ap);
	memif_msg_disconnect(reply, peer_msg);
	return -EPROTO;
}

static void memif_ack(struct memif_msg *reply)
{
	memset(reply, 0, sizeof(*reply));
	reply->type = MEMIF_MSG_ACK;
}

/* ---- server side ----------------------------------------------------- */

static int memif_in_init(struct memif_conn *c, const struct memif_msg *m, struct memif_msg *reply)
{
	const struct memif_msg_init *in = &m->init;
	char name[MEMIF_NAME_SZ + 1];

	memif_name_copy(name, in->name, MEMIF_NAME_SZ);
	if (in->version != MEMIF_VERSION)
		return memif_fail(c, reply, "Incompatible memif version",
				  "client '%s' speaks memif version %u.%u, this port 2.0 only",
				  name, in->version >> 8, in->version & 0xff);
	if (in->id != c->cfg.id)
		return memif_fail(c, reply, "ID not found",
				  "client '%s' asked for id=%u but this server port has id=%u; start "
				  "the client with id=%u (or this port with id=%u)",
				  name, in->id, c->cfg.id, c->cfg.id, in->id);
	if (in->mode != MEMIF_MODE_ETHERNET)
		return memif_fail(c, reply, "Only ethernet mode supported",
				  "client '%s' asked for interface mode %u; this port supports "
				  "ethernet (mode 0) only", name, in->mode);
	if (c->cfg.secret[0] != '\0' &&
	    strncmp(c->cfg.secret, (const char *)in->secret, MEMIF_SECRET_SZ) != 0)
		return memif_fail(c, reply, in->secret[0] ? "Incorrect secret" : "Secret required",
				  "client '%s' sent %s; give both sides the same secret=",
				  name, in->secret[0] ? "a different secret" : "no secret");
	memcpy(c->peer_name, name, sizeof(name));
	c->state = MEMIF_C_ADDING;
	memif_ack(reply);
	return MEMIF_IN_REPLY;
}

static int memif_in_add_region(struct memif_conn *c, const struct memif_msg *m, int fd,
			       struct memif_msg *reply)
{
	const struct memif_msg_add_region *ar = &m->add_region;

	if (fd < 0)
		return memif_fail(c, reply, "Missing region fd",
				  "ADD_REGION %u came without its memory fd", ar->index);
	if (ar->index != c->nb_regions || ar->index >= MEMIF_MAX_REGIONS) {
		close(fd);
		return memif_fail(c, reply, "Invalid region index",
				  "ADD_REGION index %u, expected %u (at most %u regions)",
				  ar->index, c->nb_regions, MEMIF_MAX_REGIONS);
	}
	if (ar->size == 0 || ar->size > MEMIF_REGION_MAX_SIZE) {
		close(fd);
		return memif_fail(c, reply, "Invalid region size",
				  "ADD_REGION %u of %llu bytes; expected 1..%llu", ar->index,
				  (unsigned long long)ar->size,
				  (unsigned long long)MEMIF_REGION_MAX_SIZE);
	}
	c->regions[ar->index].fd = fd;
	c->regions[ar->index].size = ar->size;
	c->nb_regions++;
	memif_ack(reply);
	return MEMIF_IN_REPLY;
}

static int memif_in_add_ring(struct memif_conn *c, const struct memif_msg *m, int fd,
			     struct memif_msg *reply)
{
	const struct memif_msg_add_ring *ar = &m->add_ring;
	unsigned dir = (ar->flags & MEMIF_ADD_RING_C2S) ? 0 : 1;
	uint16_t max = dir == 0 ? c->cfg.nb_rxq : c->cfg.nb_txq;
	struct memif_ring_desc *r;

	if (fd < 0)
		return memif_fail(c, reply, "Missing interrupt fd",
				  "ADD_RING %s %u came without its eventfd", dir ? "S2C" : "C2S",
				  ar->index);
	if ((ar->flags & ~MEMIF_ADD_RING_C2S) != 0 || ar->index >= max ||
	    c->rings[dir][ar->index].added) {
		close(fd);
		return memif_fail(c, reply, "Invalid ring index",
				  "ADD_RING %s index %u (flags 0x%x): this port has %u %s queues%s",
				  dir ? "S2C" : "C2S", ar->index, ar->flags, max, dir ? "tx" : "rx",
				  ar->index < max && c->rings[dir][ar->index].added ? ", and it was added already" : "");
	}
	if (ar->log2_ring_size == 0 || ar->log2_ring_size > MEMIF_LOG2_RING_MAX ||
	    ar->private_hdr_size != 0 || ar->offset % 8 != 0) {
		close(fd);
		return memif_fail(c, reply, "Invalid ring",
				  "ADD_RING %s %u: log2 size %u (1..%u), private header %u (0), "
				  "offset %u (a multiple of 8)", dir ? "S2C" : "C2S", ar->index,
				  ar->log2_ring_size, MEMIF_LOG2_RING_MAX, ar->private_hdr_size,
				  ar->offset);
	}
	r = &c->rings[dir][ar->index];
	r->added = true;
	r->region = ar->region;
	r->offset = ar->offset;
	r->log2 = ar->log2_ring_size;
	r->efd = fd;
	memif_ack(reply);
	return MEMIF_IN_REPLY;
}

/* Is @p fd an eventfd? The peer's interrupt is written by our tx path and
 * waited on by our poller: nothing else is accepted. */
static bool memif_is_eventfd(int fd)
{
	char path[64], target[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, target, sizeof(target) - 1);
	if (n < 0)
		return false;
	target[n] = '\0';
	return strcmp(target, "anon_inode:[eventfd]") == 0;
}

/* Map region @p i, whose fd and size the peer gave. */
static int memif_region_map(struct memif_conn *c, unsigned i, struct memif_msg *reply)
{
	struct memif_region *r = &c->regions[i];
	struct stat st;
	int seals;
	void *p;

	if (fstat(r->fd, &st) != 0 || !S_ISREG(st.st_mode))
		return memif_fail(c, reply, "Invalid region fd",
				  "region %u: the fd is not a memory file", i);
	if ((uint64_t)st.st_size < r->size)
		return memif_fail(c, reply, "Region smaller than announced",
				  "region %u: announced %llu bytes, the file has %lld", i,
				  (unsigned long long)r->size, (long long)st.st_size);
	/* Without F_SEAL_SHRINK the peer could truncate the file under our
	 * mapping, and our next read of it would be a SIGBUS. */
	seals = fcntl(r->fd, F_GET_SEALS);
	if (seals < 0 || !(seals & F_SEAL_SHRINK))
		return memif_fail(c, reply, "Region must be sealed against shrinking",
				  "region %u is not sealed with F_SEAL_SHRINK: the peer could "
				  "truncate it under this process; peers that create regions with "
				  "memfd_create(MFD_ALLOW_SEALING) and seal them (DPDK, libmemif) "
				  "are accepted, a zero-copy DPDK client (hugepage files) is not", i);
	r->map_len = r->size;
	if (st.st_blksize > 4096)  /* hugetlbfs: whole huge pages */
		r->map_len = (r->size + (uint64_t)st.st_blksize - 1) / (uint64_t)st.st_blksize *
			     (uint64_t)st.st_blksize;
	p = mmap(NULL, r->map_len, PROT_READ | PROT_WRITE, MAP_SHARED, r->fd, 0);
	if (p == MAP_FAILED)
		return memif_fail(c, reply, "Cannot map region",
				  "region %u: mmap of %llu bytes: %s", i,
				  (unsigned long long)r->map_len, strerror(errno));
	r->addr = p;
	return 0;
}

struct memif_ring *memif_conn_ring(const struct memif_conn *c, unsigned dir, uint16_t q)
{
	const struct memif_ring_desc *rd = &c->rings[dir][q];

	if (!rd->added || rd->region >= c->nb_regions || c->regions[rd->region].addr == NULL)
		return NULL;
	return (struct memif_ring *)(c->regions[rd->region].addr + rd->offset);
}

static int memif_in_connect(struct memif_conn *c, const struct memif_msg *m,
			    struct memif_msg *reply)
{
	uint16_t n[2] = { 0, 0 };
	int rc;

	for (unsigned d = 0; d < 2; d++) {
		while (n[d] < MEMIF_MAX_QUEUES && c->rings[d][n[d]].added)
			n[d]++;
		for (unsigned q = n[d]; q < MEMIF_MAX_QUEUES; q++)
			if (c->rings[d][q].added)
				return memif_fail(c, reply, "Ring indexes not contiguous",
						  "%s ring %u was added but ring %u was not",
						  d ? "S2C" : "C2S", q, n[d]);
		if (n[d] == 0)
			return memif_fail(c, reply, "No rings",
					  "CONNECT with no %s ring; a memif connection needs at "
					  "least one ring each way", d ? "S2C" : "C2S");
	}
	if (c->nb_regions == 0)
		return memif_fail(c, reply, "No regions", "CONNECT before any ADD_REGION");
	for (unsigned i = 0; i < c->nb_regions; i++) {
		rc = memif_region_map(c, i, reply);
		if (rc < 0)
			return rc;
	}
	for (unsigned d = 0; d < 2; d++) {
		for (unsigned q = 0; q < n[d]; q++) {
			const struct memif_ring_desc *rd = &c->rings[d][q];
			struct memif_ring *ring;

			if (rd->region >= c->nb_regions ||
			    (uint64_t)rd->offset + memif_ring_bytes(rd->log2) > c->regions[rd->region].size)
				return memif_fail(c, reply, "Ring outside its region",
						  "%s ring %u: %zu bytes at offset %u of region %u "
						  "(%u regions)", d ? "S2C" : "C2S", q,
						  memif_ring_bytes(rd->log2), rd->offset, rd->region,
						  c->nb_regions);
			ring = memif_conn_ring(c, d, (uint16_t)q);
			if (__atomic_load_n(&ring->cookie, __ATOMIC_RELAXED) != MEMIF_COOKIE)
				return memif_fail(c, reply, "Wrong ring cookie",
						  "%s ring %u: no memif cookie at its offset",
						  d ? "S2C" : "C2S", q);
			if (!memif_is_eventfd(rd->efd))
				return memif_fail(c, reply, "Interrupt fd is not an eventfd",
						  "%s ring %u: its interrupt fd is not an eventfd",
						  d ? "S2C" : "C2S", q);
		}
	}
	c->nb_c2s = n[0];
	c->nb_s2c = n[1];
	memif_name_copy(c->peer_if, m->connect.if_name, MEMIF_NAME_SZ);
	memset(reply, 0, sizeof(*reply));
	reply->type = MEMIF_MSG_CONNECTED;
	snprintf((char *)reply->connect.if_name, sizeof(reply->connect.if_name), "%s",
		 c->cfg.if_name);
	c->state = MEMIF_C_UP;
	return MEMIF_IN_UP;
}

/* ---- client side ----------------------------------------------------- */

static int memif_in_hello(struct memif_conn *c, const struct memif_msg *m, struct memif_msg *reply)
{
	const struct memif_msg_hello *h = &m->hello;

	memif_name_copy(c->peer_name, h->name, MEMIF_NAME_SZ);
	if (h->min_version > MEMIF_VERSION || h->max_version < MEMIF_VERSION)
		return memif_fail(c, reply, "Incompatible memif version",
				  "server '%s' speaks memif versions 0x%04x..0x%04x, this port 0x0200",
				  c->peer_name, h->min_version, h->max_version);
	if (h->max_log2_ring_size == 0)
		return memif_fail(c, reply, "Ring size too small",
				  "server '%s' allows rings of 1 descriptor only", c->peer_name);
	c->nb_c2s = (uint16_t)UNIC_MIN((uint32_t)c->cfg.nb_txq, (uint32_t)h->max_c2s_ring + 1);
	c->nb_s2c = (uint16_t)UNIC_MIN((uint32_t)c->cfg.nb_rxq, (uint32_t)h->max_s2c_ring + 1);
	c->log2 = (uint8_t)UNIC_MIN(c->cfg.log2, h->max_log2_ring_size);
	return MEMIF_IN_HELLO;
}

int memif_conn_client_build(struct memif_conn *c, struct memif_msg *msgs, int *fds, unsigned max)
{
	size_t rbytes = memif_ring_bytes(c->log2);
	unsigned nrings = (unsigned)c->nb_c2s + c->nb_s2c, n = 0, slot = 0;
	uint64_t size, map_len;
	struct memif_region *r = &c->regions[0];
	void *p = MAP_FAILED;
	int fd;

	if (max < 3 + nrings + c->cfg.nb_zc) {
		snprintf(c->reason, sizeof(c->reason), "too many rings for one handshake");
		return -EINVAL;
	}
	c->buf_off = (uint32_t)((nrings * rbytes + 63) & ~(size_t)63);
	size = c->buf_off + (uint64_t)c->cfg.bsize * ((uint64_t)nrings << c->log2);
	if (size > MEMIF_REGION_MAX_SIZE) {
		snprintf(c->reason, sizeof(c->reason),
			 "the region would be %llu bytes, over 4 GiB: lower rsize= or bsize=",
			 (unsigned long long)size);
		return -EINVAL;
	}
	/* Hugepages where the machine has them free, else ordinary pages. */
	map_len = (size + MEMIF_HUGE_SIZE - 1) & ~(MEMIF_HUGE_SIZE - 1);
	fd = memfd_create("memif_region_0", MFD_CLOEXEC | MFD_ALLOW_SEALING | MFD_HUGETLB);
	if (fd >= 0 && ftruncate(fd, (off_t)map_len) == 0)
		p = mmap(NULL, map_len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, fd, 0);
	if (p == MAP_FAILED) {
		if (fd >= 0)
			close(fd);
		map_len = size;
		fd = memfd_create("memif_region_0", MFD_CLOEXEC | MFD_ALLOW_SEALING);
		if (fd < 0 || ftruncate(fd, (off_t)size) != 0 ||
		    (p = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0)) == MAP_FAILED) {
			snprintf(c->reason, sizeof(c->reason),
				 "cannot create the %llu-byte shared memory region: %s",
				 (unsigned long long)size, strerror(errno));
			if (fd >= 0)
				close(fd);
			return -ENOMEM;
		}
	}
	if (fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK) != 0) {
		snprintf(c->reason, sizeof(c->reason), "cannot seal the region: %s", strerror(errno));
		munmap(p, map_len);
		close(fd);
		return -errno;
	}
	r->fd = fd;
	r->addr = p;
	r->size = size;
	r->map_len = map_len;
	c->nb_regions = 1;

	memset(&msgs[n], 0, sizeof(msgs[n]));
	msgs[n].type = MEMIF_MSG_INIT;
	msgs[n].init.version = MEMIF_VERSION;
	msgs[n].init.id = c->cfg.id;
	msgs[n].init.mode = MEMIF_MODE_ETHERNET;
	memcpy(msgs[n].init.secret, c->cfg.secret, strnlen(c->cfg.secret, MEMIF_SECRET_SZ));
	snprintf((char *)msgs[n].init.name, sizeof(msgs[n].init.name), "unic");
	fds[n++] = -1;

	memset(&msgs[n], 0, sizeof(msgs[n]));
	msgs[n].type = MEMIF_MSG_ADD_REGION;
	msgs[n].add_region.index = 0;
	msgs[n].add_region.size = size;
	fds[n++] = fd;
	/* Zero-copy: each pool lent is one more region, mapped by the server
	 * whole (its memfd holds that pool's zone alone: lib/mem). */
	for (unsigned i = 0; i < c->cfg.nb_zc; i++) {
		const struct memif_zc_pool *zp = &c->cfg.zcp[i];
		struct memif_region *zr = &c->regions[zp->region];

		zr->addr = zp->base;
		zr->size = zp->size;
		zr->map_len = zp->size;
		zr->fd = zp->fd;
		zr->borrowed = true;
		c->nb_regions++;
		memset(&msgs[n], 0, sizeof(msgs[n]));
		msgs[n].type = MEMIF_MSG_ADD_REGION;
		msgs[n].add_region.index = zp->region;
		msgs[n].add_region.size = zp->size;
		fds[n++] = zp->fd;
	}

	for (unsigned d = 0; d < 2; d++) {
		uint16_t cnt = d == 0 ? c->nb_c2s : c->nb_s2c;

		for (uint16_t q = 0; q < cnt; q++, slot++) {
			struct memif_ring_desc *rd = &c->rings[d][q];
			struct memif_ring *ring;
			int efd = eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);

			if (efd < 0) {
				snprintf(c->reason, sizeof(c->reason), "eventfd: %s", strerror(errno));
				return -errno;
			}
			rd->added = true;
			rd->region = 0;
			rd->offset = (uint32_t)(slot * rbytes);
			rd->log2 = c->log2;
			rd->efd = efd;
			ring = memif_conn_ring(c, d, q);
			ring->cookie = MEMIF_COOKIE;
			ring->flags = MEMIF_RING_FLAG_MASK_INT;
			ring->head = 0;
			ring->tail = 0;
			for (uint32_t j = 0; j < (1u << c->log2); j++) {
				ring->desc[j].flags = 0;
				ring->desc[j].region = 0;
				ring->desc[j].offset = c->buf_off +
					(uint32_t)(((uint64_t)slot << c->log2) + j) * c->cfg.bsize;
				ring->desc[j].length = c->cfg.bsize;
				ring->desc[j].metadata = 0;
			}
			memset(&msgs[n], 0, sizeof(msgs[n]));
			msgs[n].type = MEMIF_MSG_ADD_RING;
			msgs[n].add_ring.flags = d == 0 ? MEMIF_ADD_RING_C2S : 0;
			msgs[n].add_ring.index = q;
			msgs[n].add_ring.region = 0;
			msgs[n].add_ring.offset = rd->offset;
			msgs[n].add_ring.log2_ring_size = c->log2;
			fds[n++] = efd;
		}
	}
	memset(&msgs[n], 0, sizeof(msgs[n]));
	msgs[n].type = MEMIF_MSG_CONNECT;
	snprintf((char *)msgs[n].connect.if_name, sizeof(msgs[n].connect.if_name), "%s",
		 c->cfg.if_name);
	fds[n++] = -1;
	c->acks_due = n - 1;  /* INIT, each ADD_REGION and each ADD_RING */
	c->state = MEMIF_C_WAIT_CONNECTED;
	return (int)n;
}

/* ---- dispatch -------------------------------------------------------- */

static const char *memif_msg_name(unsigned t)
{
	static const char *const names[] = { "NONE", "ACK", "HELLO", "INIT", "ADD_REGION",
					     "ADD_RING", "CONNECT", "CONNECTED", "DISCONNECT" };

	return t < UNIC_ARRAY_SIZE(names) ? names[t] : "unknown";
}

int memif_conn_input(struct memif_conn *c, const void *buf, size_t len, int fd,
		     struct memif_msg *reply)
{
	struct memif_msg m;
	bool server = c->cfg.role == MEMIF_SERVER;
	int rc;

	memset(reply, 0, sizeof(*reply));
	if (len != MEMIF_MSG_SIZE) {
		if (fd >= 0)
			close(fd);
		return memif_fail(c, reply, "Invalid message size",
				  "a control message of %zu bytes; every memif message is %d", len,
				  MEMIF_MSG_SIZE);
	}
	memcpy(&m, buf, sizeof(m));
	if (m.type == MEMIF_MSG_DISCONNECT) {
		if (fd >= 0)
			close(fd);
		memif_name_copy(c->peer_reason, m.disconnect.reason, MEMIF_REASON_SZ);
		return MEMIF_IN_PEER_GONE;
	}
	/* Only these two carry an fd. */
	if (fd >= 0 && m.type != MEMIF_MSG_ADD_REGION && m.type != MEMIF_MSG_ADD_RING) {
		close(fd);
		fd = -1;
	}
	rc = -1;
	switch (c->state) {
	case MEMIF_C_WAIT_INIT:
		if (server && m.type == MEMIF_MSG_INIT)
			rc = memif_in_init(c, &m, reply);
		break;
	case MEMIF_C_ADDING:
		if (!server)
			break;
		if (m.type == MEMIF_MSG_ADD_REGION)
			return memif_in_add_region(c, &m, fd, reply);
		if (m.type == MEMIF_MSG_ADD_RING)
			return memif_in_add_ring(c, &m, fd, reply);
		if (m.type == MEMIF_MSG_CONNECT)
			rc = memif_in_connect(c, &m, reply);
		break;
	case MEMIF_C_WAIT_HELLO:
		if (!server && m.type == MEMIF_MSG_HELLO)
			rc = memif_in_hello(c, &m, reply);
		break;
	case MEMIF_C_WAIT_CONNECTED:
		if (server)
			break;
		if (m.type == MEMIF_MSG_ACK && c->acks_due > 0) {
			c->acks_due--;
			rc = MEMIF_IN_NONE;
		} else if (m.type == MEMIF_MSG_CONNECTED && c->acks_due == 0) {
			memif_name_copy(c->peer_if, m.connect.if_name, MEMIF_NAME_SZ);
			c->state = MEMIF_C_UP;
			rc = MEMIF_IN_UP;
		}
		break;
	default:
		break;
	}
	if (fd >= 0 && rc != MEMIF_IN_REPLY)
		close(fd);
	if (rc == -1)
		return memif_fail(c, reply, "Unexpected message",
				  "unexpected %s message (type %u) in handshake state %d",
				  memif_msg_name(m.type), m.type, (int)c->state);
	return rc;
}
