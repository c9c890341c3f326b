/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen captures through libpcap: write what was sent or received
 * (--write-tx, --write-rx) and load a capture to replay (--replay).
 * docs/pktgen.md.
 *
 * Files are classic pcap with nanosecond timestamps (magic 0xa1b23c4d,
 * linktype EN10MB); frames are stored as the application sees them, without
 * the FCS. Timestamps: CLOCK_REALTIME at open plus TSC cycles since then.
 *
 * Cost on the fast path: each frame is copied (with a 16-byte record
 * header) into a 1 MiB stdio buffer; a write(2) follows every 1 MiB.
 */
#ifndef PG_PCAP_IO_H
#define PG_PCAP_IO_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define PG_PCAP_SNAPLEN 65535
#define PG_PCAP_BUFSZ (1u << 20)
/* Largest frame a capture may hold for --replay (the port decides below it):
 * a pool buffer's data room is 16 bits, headroom and slack included. */
#define PG_REPLAY_FRAME_MAX 16000
/* Most frames a capture may hold for --replay: the whole capture is held in
 * memory with 12 bytes of index a frame, and frame numbers are 32-bit. */
#define PG_REPLAY_FRAMES_MAX (1u << 26)

struct pg_pcap_writer;

/*
 * Create (truncate) @p path and write the file header. @p tsc_hz and
 * @p tsc_now map TSC values given to pg_pcap_write to wall-clock time.
 * @return the writer, or NULL with a message in @p err (naming the file and
 * why) and errno set.
 */
struct pg_pcap_writer *pg_pcap_writer_open(const char *path, uint64_t tsc_hz, uint64_t tsc_now,
					   char *err, size_t errlen);

/* Append one frame of @p len bytes (all of it: no snap length below 64 KiB),
 * time-stamped with @p tsc. Data over PG_PCAP_SNAPLEN is cut and the record
 * keeps the original length. */
void pg_pcap_write(struct pg_pcap_writer *w, const uint8_t *data, uint32_t len, uint64_t tsc);

/* Byte offset where the next record will start (for pg_pcap_writer_truncate). */
int64_t pg_pcap_writer_tell(struct pg_pcap_writer *w);

/* Drop every record from byte @p off on: the last @p frames records (written
 * for frames that were never sent). @return 0 or -errno (a pipe cannot be
 * truncated). */
int pg_pcap_writer_truncate(struct pg_pcap_writer *w, int64_t off, uint64_t frames);

/* Frames written (after any truncation). */
uint64_t pg_pcap_writer_frames(const struct pg_pcap_writer *w);

/* Flush and close; NULL is accepted. @return 0, or -errno with a message
 * (a write failed: disk full, ...). */
int pg_pcap_writer_close(struct pg_pcap_writer *w, char *err, size_t errlen);

/* A capture in memory, frames back to back. */
struct pg_capture {
	uint8_t *data;
	uint64_t *off;           /* frame i: data + off[i], len[i] bytes */
	uint32_t *len;
	uint32_t nb;
	uint32_t max_len;        /* largest frame */
	uint32_t max_len_idx;    /* its index (0-based) */
	uint32_t mtu_needed;     /* largest L3 size: frame - 14, - 4 more for an 802.1Q tag */
	uint32_t mtu_needed_idx;
	uint64_t bytes;
};

/*
 * Load every frame of the pcap/pcapng file @p path. Refused with a message
 * naming the file: a file libpcap cannot open (missing, not a capture), a
 * linktype other than Ethernet, a frame captured cut short (caplen < len), a
 * frame under 14 bytes or over PG_REPLAY_FRAME_MAX, a file with no frames.
 * @return 0, or -EINVAL / -ENOMEM / -errno with the message in @p err.
 */
int pg_capture_load(struct pg_capture *c, const char *path, char *err, size_t errlen);

/* The same from an open stream @p f (closed before return), named @p path in
 * messages. */
int pg_capture_load_file(struct pg_capture *c, FILE *f, const char *path, char *err, size_t errlen);

/* The same, refusing a capture of more than @p max_frames frames (at most
 * PG_REPLAY_FRAMES_MAX; pg_capture_load_file's limit). */
int pg_capture_load_file_limit(struct pg_capture *c, FILE *f, const char *path, uint32_t max_frames,
			       char *err, size_t errlen);

void pg_capture_free(struct pg_capture *c);

#endif /* PG_PCAP_IO_H */
