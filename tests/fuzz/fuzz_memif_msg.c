/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * libFuzzer harness for the memif control-message checks
 * (pmd/memif/memif_msg.c): a malicious peer's side of the handshake, in
 * either role. The input is a role byte, then steps; each step is an
 * opcode byte (which fd rides along: none, a sealed or unsealed memfd of a
 * size from the input, an eventfd, a pipe; and whether the message type is
 * taken from the opcode, to reach the later states quickly), a length
 * byte (most often 128) and up to 128 message bytes. The memfds are filled
 * with the ring cookie at every 4 bytes, so a ring offset the input picks can
 * pass the cookie check and the fuzzer reaches CONNECT's mapping.
 *
 * After every step it checks:
 * - the result is one of MEMIF_IN_* or -EPROTO; with -EPROTO a reason for
 *   the log and a DISCONNECT for the peer;
 * - once connected, every ring lies inside its mapped region (its cookie and
 *   last descriptor are read), and there are 1..16 rings each way;
 * - after a reset no fd is left open and nothing is mapped: the fds the
 *   peer passed are all owned (kept, then closed) and none leaks.
 *
 *   tests/fuzz/run   (docs/testing.md, "The fuzz suite")
 */
#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <dirent.h>
#include <sys/eventfd.h>
#include <sys/mman.h>

#include "memif_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static void check(bool ok)
{
	if (!ok)
		abort();
}

static int open_fds(void)
{
	DIR *d = opendir("/proc/self/fd");
	struct dirent *e;
	int n = 0;

	if (d == NULL)
		return -1;
	while ((e = readdir(d)) != NULL)
		n += e->d_name[0] != '.';
	closedir(d);
	return n;
}

static int make_fd(unsigned kind, unsigned size)
{
	int fd, p[2];

	switch (kind) {
	case 1: case 2:
		fd = memfd_create("fuzz", MFD_ALLOW_SEALING | MFD_CLOEXEC);
		if (fd < 0)
			return -1;
		if (ftruncate(fd, size) == 0 && size >= 4) {
			uint32_t *m = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);

			if (m != MAP_FAILED) {
				for (unsigned i = 0; i < size / 4; i++)
					m[i] = MEMIF_COOKIE;
				munmap(m, size);
			}
		}
		if (kind == 1)
			fcntl(fd, F_ADD_SEALS, F_SEAL_SHRINK);
		return fd;
	case 3:
		return eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
	case 4:
		if (pipe(p) != 0)
			return -1;
		close(p[1]);
		return p[0];
	default:
		return -1;
	}
}

static void check_up(const struct memif_conn *c)
{
	check(c->nb_c2s >= 1 && c->nb_c2s <= MEMIF_MAX_QUEUES);
	check(c->nb_s2c >= 1 && c->nb_s2c <= MEMIF_MAX_QUEUES);
	for (unsigned d = 0; d < 2; d++) {
		for (uint16_t q = 0; q < (d ? c->nb_s2c : c->nb_c2s); q++) {
			const struct memif_ring_desc *rd = &c->rings[d][q];
			const struct memif_region *r;
			volatile const struct memif_ring *ring = memif_conn_ring(c, d, q);

			check(ring != NULL && rd->region < c->nb_regions);
			r = &c->regions[rd->region];
			check((const uint8_t *)ring >= r->addr &&
			      (const uint8_t *)ring + memif_ring_bytes(rd->log2) <= r->addr + r->size);
			check(r->size <= r->map_len);
			/* Touch the header and the last descriptor: ASan and the
			 * kernel (a SIGBUS) say if the mapping is short. */
			check(ring->cookie == MEMIF_COOKIE);
			(void)ring->desc[(1u << rd->log2) - 1].length;
			check(rd->efd >= 0);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	int base;
	struct memif_cfg cfg = { 0 };
	struct memif_conn *c;
	struct memif_msg reply, hello, msgs[3 + 2 * MEMIF_MAX_QUEUES];
	int fds[3 + 2 * MEMIF_MAX_QUEUES];
	size_t pos = 0;

	if (size < 1)
		return 0;
	base = open_fds();
	c = malloc(sizeof(*c));
	if (c == NULL)
		return 0;
	cfg.role = (data[pos] & 1) ? MEMIF_SERVER : MEMIF_CLIENT;
	cfg.id = (data[pos] >> 1) & 3;
	cfg.nb_rxq = (uint16_t)(1 + ((data[pos] >> 3) & 1));
	cfg.nb_txq = (uint16_t)(1 + ((data[pos] >> 4) & 1));
	cfg.log2 = 4;
	cfg.bsize = 256;
	if (data[pos] & 0x20)
		memcpy(cfg.secret, "s3cret", 7);
	pos++;
	memif_conn_init(c, &cfg);
	if (cfg.role == MEMIF_SERVER)
		memif_conn_hello(c, &hello);
	else
		c->state = MEMIF_C_WAIT_HELLO;

	while (pos + 2 <= size) {
		uint8_t op = data[pos], lenb = data[pos + 1];
		uint8_t buf[MEMIF_MSG_SIZE] = { 0 };
		size_t len = (lenb & 0x80) ? (size_t)(lenb & 0x7f) : MEMIF_MSG_SIZE;
		size_t take;
		unsigned fsize;
		int fd, rc;

		pos += 2;
		take = UNIC_MIN(len, size - pos);
		memcpy(buf, data + pos, take);
		pos += take;
		if (op & 0x80)
			buf[0] = (uint8_t)(((op >> 3) & 0x0f) % 9), buf[1] = 0;
		fsize = 64u * (1u + ((op >> 3) & 0x0f)) * (1u + (lenb & 0x3f));
		fd = make_fd(op & 7, fsize);
		rc = memif_conn_input(c, buf, len, fd, &reply);
		if (rc < 0) {
			check(rc == -EPROTO);
			check(c->reason[0] != '\0');
			check(reply.type == MEMIF_MSG_DISCONNECT);
			memif_conn_reset(c);
			if (cfg.role == MEMIF_SERVER)
				memif_conn_hello(c, &hello);
			else
				c->state = MEMIF_C_WAIT_HELLO;
			continue;
		}
		check(rc <= MEMIF_IN_PEER_GONE);
		if (rc == MEMIF_IN_REPLY)
			check(reply.type == MEMIF_MSG_ACK);
		if (rc == MEMIF_IN_HELLO) {
			int n = memif_conn_client_build(c, msgs, fds, UNIC_ARRAY_SIZE(msgs));

			check(n < 0 || (n >= 5 && msgs[0].type == MEMIF_MSG_INIT &&
					msgs[n - 1].type == MEMIF_MSG_CONNECT));
			if (n < 0) {
				memif_conn_reset(c);
				c->state = MEMIF_C_WAIT_HELLO;
			}
		}
		if (rc == MEMIF_IN_UP) {
			if (cfg.role == MEMIF_SERVER)
				check(reply.type == MEMIF_MSG_CONNECTED);
			check_up(c);
		}
		if (rc == MEMIF_IN_PEER_GONE) {
			memif_conn_reset(c);
			if (cfg.role == MEMIF_SERVER)
				memif_conn_hello(c, &hello);
			else
				c->state = MEMIF_C_WAIT_HELLO;
		}
	}
	memif_conn_reset(c);
	free(c);
	check(open_fds() == base);
	return 0;
}
