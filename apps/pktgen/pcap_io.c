/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen captures (pcap_io.h): libpcap's dump writer over our own
 * stdio stream (a 1 MiB buffer), and a loader that checks each record
 * before any of it is sent.
 */
#include <errno.h>
#include <stdio.h>
#include <stdio_ext.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <pcap/pcap.h>

#include "pcap_io.h"

#define ERR(e, ...) (snprintf(err, errlen, __VA_ARGS__), (e))

struct pg_pcap_writer {
	pcap_t *dead;            /* a handle without a device: linktype and precision */
	pcap_dumper_t *dump;
	FILE *f;
	char *buf;               /* the stream's buffer */
	char path[256];
	uint64_t frames;
	uint64_t base_tsc;
	uint64_t base_ns;        /* CLOCK_REALTIME at base_tsc */
	double ns_per_cycle;
};

struct pg_pcap_writer *pg_pcap_writer_open(const char *path, uint64_t tsc_hz, uint64_t tsc_now,
					   char *err, size_t errlen)
{
	struct pg_pcap_writer *w = calloc(1, sizeof(*w));
	struct timespec ts;
	int e;

	if (w == NULL) {
		snprintf(err, errlen, "cannot write '%s': out of memory", path);
		return NULL;
	}
	snprintf(w->path, sizeof(w->path), "%s", path);
	w->f = fopen(path, "wb");
	if (w->f == NULL) {
		e = errno;
		snprintf(err, errlen, "cannot create '%s': %s", path, strerror(e));
		goto free_w;
	}
	/* One thread writes the stream: no stdio lock per fwrite (pcap_dump
	 * makes two a frame). */
	__fsetlocking(w->f, FSETLOCKING_BYCALLER);
	w->buf = malloc(PG_PCAP_BUFSZ);
	if (w->buf == NULL || setvbuf(w->f, w->buf, _IOFBF, PG_PCAP_BUFSZ) != 0) {
		e = ENOMEM;
		snprintf(err, errlen, "cannot write '%s': no memory for its buffer", path);
		goto close_f;
	}
	w->dead = pcap_open_dead_with_tstamp_precision(DLT_EN10MB, PG_PCAP_SNAPLEN,
							PCAP_TSTAMP_PRECISION_NANO);
	if (w->dead == NULL) {
		e = ENOMEM;
		snprintf(err, errlen, "cannot write '%s': libpcap could not make a handle", path);
		goto close_f;
	}
	w->dump = pcap_dump_fopen(w->dead, w->f);
	if (w->dump == NULL) {
		e = EIO;
		snprintf(err, errlen, "cannot write '%s': %s", path, pcap_geterr(w->dead));
		goto close_dead;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	w->base_ns = (uint64_t)ts.tv_sec * 1000000000ull + (uint64_t)ts.tv_nsec;
	w->base_tsc = tsc_now;
	w->ns_per_cycle = tsc_hz ? 1e9 / (double)tsc_hz : 0;
	return w;

close_dead:
	pcap_close(w->dead);
close_f:
	fclose(w->f);   /* pcap_dump_fopen failed: the stream is still ours */
	free(w->buf);
free_w:
	free(w);
	errno = e;
	return NULL;
}

void pg_pcap_write(struct pg_pcap_writer *w, const uint8_t *data, uint32_t len, uint64_t tsc)
{
	struct pcap_pkthdr h;
	uint64_t ns = w->base_ns;

	if (tsc >= w->base_tsc)
		ns += (uint64_t)((double)(tsc - w->base_tsc) * w->ns_per_cycle);
	h.ts.tv_sec = (time_t)(ns / 1000000000ull);
	h.ts.tv_usec = (suseconds_t)(ns % 1000000000ull);  /* nanoseconds: the handle says so */
	h.caplen = len > PG_PCAP_SNAPLEN ? PG_PCAP_SNAPLEN : len;
	h.len = len;
	pcap_dump((u_char *)w->dump, &h, data);
	w->frames++;
}

int64_t pg_pcap_writer_tell(struct pg_pcap_writer *w)
{
	return pcap_dump_ftell64(w->dump);
}

int pg_pcap_writer_truncate(struct pg_pcap_writer *w, int64_t off, uint64_t frames)
{
	if (pcap_dump_flush(w->dump) != 0)
		return -EIO;
	if (ftruncate(fileno(w->f), (off_t)off) != 0 || fseeko(w->f, (off_t)off, SEEK_SET) != 0)
		return -errno;
	w->frames -= frames <= w->frames ? frames : w->frames;
	return 0;
}

uint64_t pg_pcap_writer_frames(const struct pg_pcap_writer *w)
{
	return w->frames;
}

int pg_pcap_writer_close(struct pg_pcap_writer *w, char *err, size_t errlen)
{
	int rc = 0;

	if (w == NULL)
		return 0;
	if (pcap_dump_flush(w->dump) != 0 || ferror(w->f))
		rc = ERR(-EIO, "writing '%s' failed: %s", w->path, strerror(errno ? errno : EIO));
	pcap_dump_close(w->dump);   /* closes the stream */
	pcap_close(w->dead);
	free(w->buf);
	free(w);
	return rc;
}

void pg_capture_free(struct pg_capture *c)
{
	free(c->data);
	free(c->off);
	free(c->len);
	memset(c, 0, sizeof(*c));
}

/* Grow the arrays for @p nb frames and the data for @p bytes. */
static int capture_grow(struct pg_capture *c, uint32_t *cap_nb, uint64_t *cap_bytes, uint64_t bytes)
{
	if (c->nb == *cap_nb) {
		uint32_t n = *cap_nb ? *cap_nb * 2 : 1024;
		uint64_t *o = realloc(c->off, n * sizeof(*o));
		uint32_t *l;

		if (o == NULL)
			return -ENOMEM;
		c->off = o;
		l = realloc(c->len, n * sizeof(*l));
		if (l == NULL)
			return -ENOMEM;
		c->len = l;
		*cap_nb = n;
	}
	if (bytes > *cap_bytes) {
		uint64_t n = *cap_bytes ? *cap_bytes : 1 << 16;
		uint8_t *d;

		while (n < bytes)
			n *= 2;
		d = realloc(c->data, n);
		if (d == NULL)
			return -ENOMEM;
		c->data = d;
		*cap_bytes = n;
	}
	return 0;
}

int pg_capture_load(struct pg_capture *c, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");

	if (f == NULL) {
		int e = errno;

		memset(c, 0, sizeof(*c));
		return ERR(-EINVAL, "cannot read capture '%s': %s", path, strerror(e));
	}
	return pg_capture_load_file(c, f, path, err, errlen);
}

int pg_capture_load_file(struct pg_capture *c, FILE *f, const char *path, char *err, size_t errlen)
{
	return pg_capture_load_file_limit(c, f, path, PG_REPLAY_FRAMES_MAX, err, errlen);
}

int pg_capture_load_file_limit(struct pg_capture *c, FILE *f, const char *path, uint32_t max_frames,
			       char *err, size_t errlen)
{
	char ebuf[PCAP_ERRBUF_SIZE] = "";
	struct pcap_pkthdr *h;
	const u_char *d;
	uint32_t cap_nb = 0;
	uint64_t cap_bytes = 0;
	pcap_t *p;
	int dlt, r, rc = 0;

	memset(c, 0, sizeof(*c));
	if (max_frames > PG_REPLAY_FRAMES_MAX)
		max_frames = PG_REPLAY_FRAMES_MAX;
	p = pcap_fopen_offline(f, ebuf);   /* owns f from here on; not on failure */
	if (p == NULL) {
		fclose(f);
		return ERR(-EINVAL, "cannot read capture '%s': %s", path, ebuf);
	}
	dlt = pcap_datalink(p);
	if (dlt != DLT_EN10MB) {
		const char *name = pcap_datalink_val_to_name(dlt);

		rc = ERR(-EINVAL, "capture '%s' has linktype %d (%s); only Ethernet (EN10MB, 1) can be replayed",
			 path, dlt, name ? name : "unknown");
		goto close;
	}
	while ((r = pcap_next_ex(p, &h, &d)) == 1) {
		uint32_t idx = c->nb + 1, l3;

		/* Frame numbers and the index are 32-bit: bounded long before
		 * they could wrap (or the index's doubling overflow). */
		if (c->nb >= max_frames) {
			rc = ERR(-EINVAL, "capture '%s' holds more than %u frames; at most %u can be replayed (split it, e.g. editcap -c %u)",
				 path, max_frames, max_frames, max_frames);
			goto close;
		}
		if (h->caplen < h->len) {
			rc = ERR(-EINVAL, "capture '%s': frame %u was captured cut short (%u of its %u bytes; snap length %d); it cannot be replayed as it was",
				 path, idx, h->caplen, h->len, pcap_snapshot(p));
			goto close;
		}
		if (h->len < 14 || h->len > PG_REPLAY_FRAME_MAX) {
			rc = ERR(-EINVAL, "capture '%s': frame %u is %u bytes; frames of 14..%d bytes (no FCS) can be replayed",
				 path, idx, h->len, PG_REPLAY_FRAME_MAX);
			goto close;
		}
		if (capture_grow(c, &cap_nb, &cap_bytes, c->bytes + h->len)) {
			rc = ERR(-ENOMEM, "capture '%s': out of memory at frame %u (%llu bytes loaded)", path,
				 idx, (unsigned long long)c->bytes);
			goto close;
		}
		memcpy(c->data + c->bytes, d, h->len);
		c->off[c->nb] = c->bytes;
		c->len[c->nb] = h->len;
		l3 = h->len - 14;
		if (h->len >= 18 && d[12] == 0x81 && d[13] == 0x00)
			l3 -= 4;
		if (h->len > c->max_len) {
			c->max_len = h->len;
			c->max_len_idx = c->nb;
		}
		if (l3 > c->mtu_needed) {
			c->mtu_needed = l3;
			c->mtu_needed_idx = c->nb;
		}
		c->bytes += h->len;
		c->nb++;
	}
	if (r != PCAP_ERROR_BREAK) {
		rc = ERR(-EINVAL, "capture '%s': unreadable after frame %u: %s", path, c->nb, pcap_geterr(p));
		goto close;
	}
	if (c->nb == 0)
		rc = ERR(-EINVAL, "capture '%s' holds no frames", path);
close:
	pcap_close(p);
	if (rc)
		pg_capture_free(c);
	return rc;
}
