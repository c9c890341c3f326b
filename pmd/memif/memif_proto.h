/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The memif wire format (version 2.0): control messages on a UNIX
 * SOCK_SEQPACKET socket, and the ring and descriptor layout in the shared
 * memory regions. Written from the protocol's documentation (DPDK's
 * net_memif guide, FD.io libmemif); every size and offset is checked below
 * with a static_assert, since a peer built elsewhere reads these bytes.
 *
 * Byte order is the host's (both peers share a machine). Every message is
 * exactly MEMIF_MSG_SIZE bytes; a file descriptor rides along as SCM_RIGHTS
 * with ADD_REGION (the region's memfd) and ADD_RING (the ring's eventfd).
 *
 * The client creates the memory and the eventfds; the server maps them.
 * Ring C2S carries client -> server, S2C server -> client.
 *
 *   C2S ring: the client writes descriptors and head; the server reads up
 *             to head and writes tail (what it has consumed).
 *   S2C ring: the client hands empty buffers by writing descriptors and
 *             head; the server fills them, writes their length and tail;
 *             the client reads up to tail.
 *
 * flags in a ring: MEMIF_RING_FLAG_MASK_INT, set by the ring's receiver,
 * asks the sender not to signal the ring's eventfd after it moves head or
 * tail (the receiver polls).
 */
#ifndef PMD_MEMIF_PROTO_H
#define PMD_MEMIF_PROTO_H

#include <assert.h>
#include <stddef.h>
#include <stdint.h>

#define MEMIF_COOKIE          0x3E31F20u
#define MEMIF_VERSION         0x0200u  /* 2.0: major << 8 | minor */
#define MEMIF_MSG_SIZE        128
#define MEMIF_NAME_SZ         32
#define MEMIF_SECRET_SZ       24
#define MEMIF_REASON_SZ       96
#define MEMIF_LOG2_RING_MAX   14       /* 16384 descriptors */

enum memif_msg_type {
	MEMIF_MSG_NONE = 0,
	MEMIF_MSG_ACK = 1,
	MEMIF_MSG_HELLO = 2,        /* server -> client, first */
	MEMIF_MSG_INIT = 3,         /* client -> server: id, secret */
	MEMIF_MSG_ADD_REGION = 4,   /* client -> server, fd: memfd */
	MEMIF_MSG_ADD_RING = 5,     /* client -> server, fd: eventfd */
	MEMIF_MSG_CONNECT = 6,      /* client -> server: map and go */
	MEMIF_MSG_CONNECTED = 7,    /* server -> client */
	MEMIF_MSG_DISCONNECT = 8,   /* either way, with a reason */
};

#define MEMIF_MODE_ETHERNET   0
#define MEMIF_ADD_RING_C2S    1        /* add_ring.flags */
#define MEMIF_RING_FLAG_MASK_INT 1     /* ring.flags */
#define MEMIF_DESC_FLAG_NEXT  1        /* desc.flags: the frame goes on in the next slot */

struct memif_msg_hello {
	uint8_t name[MEMIF_NAME_SZ];
	uint16_t min_version;
	uint16_t max_version;
	uint16_t max_region;        /* highest region index the server takes */
	uint16_t max_s2c_ring;      /* highest ring index, per direction */
	uint16_t max_c2s_ring;
	uint8_t max_log2_ring_size;
} __attribute__((packed));

struct memif_msg_init {
	uint16_t version;
	uint32_t id;
	uint8_t mode;
	uint8_t secret[MEMIF_SECRET_SZ];
	uint8_t name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_add_region {
	uint16_t index;
	uint64_t size;
} __attribute__((packed));

struct memif_msg_add_ring {
	uint16_t flags;
	uint16_t index;
	uint16_t region;
	uint32_t offset;            /* of the ring header in the region */
	uint8_t log2_ring_size;
	uint16_t private_hdr_size;
} __attribute__((packed));

struct memif_msg_connect {
	uint8_t if_name[MEMIF_NAME_SZ];
} __attribute__((packed));

struct memif_msg_disconnect {
	uint32_t code;
	uint8_t reason[MEMIF_REASON_SZ];
} __attribute__((packed));

struct memif_msg {
	uint16_t type;
	union {
		struct memif_msg_hello hello;
		struct memif_msg_init init;
		struct memif_msg_add_region add_region;
		struct memif_msg_add_ring add_ring;
		struct memif_msg_connect connect;
		struct memif_msg_disconnect disconnect;
		uint8_t raw[MEMIF_MSG_SIZE - 2];
	};
} __attribute__((packed));

static_assert(sizeof(struct memif_msg) == MEMIF_MSG_SIZE, "a memif message is 128 bytes");
static_assert(offsetof(struct memif_msg, hello.max_log2_ring_size) == 44, "hello layout");
static_assert(offsetof(struct memif_msg, init.mode) == 8, "init layout");
static_assert(offsetof(struct memif_msg, init.secret) == 9, "init layout");
static_assert(offsetof(struct memif_msg, init.name) == 33, "init layout");
static_assert(offsetof(struct memif_msg, add_region.size) == 4, "add_region layout");
static_assert(offsetof(struct memif_msg, add_ring.offset) == 8, "add_ring layout");
static_assert(offsetof(struct memif_msg, add_ring.private_hdr_size) == 13, "add_ring layout");
static_assert(offsetof(struct memif_msg, disconnect.reason) == 6, "disconnect layout");

/* One buffer descriptor: 16 bytes. */
struct memif_desc {
	uint16_t flags;             /* MEMIF_DESC_FLAG_NEXT */
	uint16_t region;
	uint32_t length;
	uint32_t offset;            /* of the buffer in the region */
	uint32_t metadata;
};
static_assert(sizeof(struct memif_desc) == 16, "a memif descriptor is 16 bytes");

/* A ring: a header of two 64-byte lines (cookie, flags, head; then tail),
 * then 2^log2 descriptors. head and tail are free-running 16-bit indexes. */
struct memif_ring {
	uint32_t cookie;
	uint16_t flags;
	uint16_t head;
	uint8_t pad0[56];
	uint16_t tail;
	uint8_t pad1[62];
	struct memif_desc desc[];
};
static_assert(offsetof(struct memif_ring, tail) == 64, "memif ring: tail on the second line");
static_assert(sizeof(struct memif_ring) == 128, "memif ring header is 128 bytes");

static inline size_t memif_ring_bytes(unsigned log2)
{
	return sizeof(struct memif_ring) + sizeof(struct memif_desc) * ((size_t)1 << log2);
}

#endif /* PMD_MEMIF_PROTO_H */
