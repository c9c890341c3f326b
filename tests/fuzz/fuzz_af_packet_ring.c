/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * A malicious kernel against the af_packet port's fast path: the input is
 * what the kernel wrote into one TPACKET_V3 rx block (handed over: its
 * status is forced to TP_STATUS_USER), then tx frame statuses. The block
 * sits in an allocation of exactly its size, so any read past it stops the
 * run (ASan). After the bursts: every block was given back, every frame
 * handed out fits its buffer, no buffer leaked, and a full tx ring takes
 * nothing more. tests/unit/test_af_packet.c has the hand-made cases.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <unic/log.h>
#include <unic/mem.h>

#include "../../pmd/af_packet/af_packet_priv.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define CHECK(c, ...)                                                                   \
	do {                                                                            \
		if (!(c)) {                                                             \
			fprintf(stderr, "fuzz_af_packet_ring: %s:%d: %s does not hold: ", \
				__FILE__, __LINE__, #c);                                \
			fprintf(stderr, __VA_ARGS__);                                   \
			fputc('\n', stderr);                                            \
			abort();                                                        \
		}                                                                       \
	} while (0)

#define BLK 4096u
#define FRAME 256u
#define NFRAMES 8u

static struct unic_mem *mem;
static struct unic_pool *pool;

static void once(void)
{
	struct unic_mem_conf mc = { .sz = sizeof(mc), .no_huge = true };
	struct unic_pktpool_conf pc = {
		.sz = sizeof(pc), .name = "fuzz_afp", .count = 128, .cache_size = 0, .numa_node = -1,
	};

	unic_log_set_level(-1, UNIC_LOG_ERR);
	mem = unic_mem_create(&mc);
	CHECK(mem != NULL, "no-huge memory");
	pc.mem = mem;
	pool = unic_pktpool_create(&pc);
	CHECK(pool != NULL, "packet pool");
}

static void fuzz_rx(const uint8_t *data, size_t size)
{
	uint8_t *blk = malloc(BLK);
	struct afp_rxq rxq;
	struct unic_pkt *p[32];
	unsigned bursts = 0;

	CHECK(blk != NULL, "block");
	memset(blk, 0, BLK);
	memcpy(blk, data, size < BLK ? size : BLK);
	((struct tpacket_block_desc *)blk)->hdr.bh1.block_status |= TP_STATUS_USER;
	memset(&rxq, 0, sizeof(rxq));
	rxq.ring = blk;
	rxq.block_size = BLK;
	rxq.nb_blocks = 1;
	rxq.pool = pool;
	rxq.fd = -1;
	rxq.filter_outgoing = size > 0 && (data[0] & 1);
	do {
		uint16_t n = afp_rx_burst(&rxq, p, 32);

		for (uint16_t i = 0; i < n; i++) {
			CHECK(p[i]->pkt_len == p[i]->data_len, "%u vs %u", p[i]->pkt_len, p[i]->data_len);
			CHECK(p[i]->data_off + p[i]->data_len <= p[i]->buf_len, "frame %u past its buffer",
			      p[i]->pkt_len);
		}
		unic_pkt_free_bulk(p, n);
		CHECK(++bursts < 1000, "the block never ends");
	} while (rxq.block_open);
	CHECK(((struct tpacket_block_desc *)blk)->hdr.bh1.block_status == TP_STATUS_KERNEL,
	      "the block went back");
	CHECK(!afp_rx_pending(&rxq), "nothing left");
	free(blk);
}

static void fuzz_tx(const uint8_t *data, size_t size)
{
	uint8_t *ring = malloc(NFRAMES * FRAME);
	struct afp_txq txq;
	struct unic_pkt *p[NFRAMES + 1];
	uint16_t taken, i;

	CHECK(ring != NULL, "tx ring");
	memset(ring, 0, NFRAMES * FRAME);
	for (i = 0; i < NFRAMES && (size_t)(i + 1) * 4 <= size; i++)
		memcpy(&((struct tpacket3_hdr *)(ring + i * FRAME))->tp_status, data + i * 4, 4);
	memset(&txq, 0, sizeof(txq));
	txq.ring = ring;
	txq.frame_size = FRAME;
	txq.nb_frames = NFRAMES;
	txq.fd = -1;
	for (i = 0; i < NFRAMES + 1; i++) {
		p[i] = unic_pkt_alloc(pool);
		CHECK(p[i] != NULL, "packet");
		CHECK(unic_pkt_append(p[i], (uint16_t)(60 + i * 20)) != NULL, "append");
	}
	taken = afp_tx_burst(&txq, p, NFRAMES + 1);
	CHECK(taken <= NFRAMES, "took %u into %u frames", taken, NFRAMES);
	unic_pkt_free_bulk(&p[taken], (uint32_t)(NFRAMES + 1 - taken));
	free(ring);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (pool == NULL)
		once();
	fuzz_rx(data, size);
	if (size > BLK)
		fuzz_tx(data + BLK, size - BLK);
	CHECK(unic_pool_in_use_count(pool) == 0, "%u buffers leaked", unic_pool_in_use_count(pool));
	return 0;
}
