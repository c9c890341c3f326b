/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen streams (stream.h): the --stream grammar, the stream file, the
 * checks of a stream and of a set, and the per-stream size and flow cycles.
 * Every error names where (the option, or the file and line), the key and
 * the value, and returns -EINVAL; nothing exits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "app_opts.h"
#include "stream.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

const unsigned pg_imix_sizes[PG_IMIX_LEN] = { 64, 570, 64, 64, 570, 64, 1518, 64, 570, 64, 570, 64 };

/* Decimal digits only, within [min, max]. */
static bool parse_u64(const char *v, uint64_t min, uint64_t max, uint64_t *out)
{
	char *end;
	unsigned long long x;

	if (v[0] < '0' || v[0] > '9')
		return false;
	errno = 0;
	x = strtoull(v, &end, 10);
	if (errno || *end != '\0' || x < min || x > max)
		return false;
	*out = x;
	return true;
}

/* A whole number for @p opt ("option --stream: key tx"). */
static int opt_u64(const char *opt, const char *v, uint64_t min, uint64_t max, uint64_t *out,
		   char *err, size_t errlen)
{
	if (parse_u64(v, min, max, out))
		return 0;
	return ERR("%s: bad value '%s'; expected a whole number from %" PRIu64 " to %" PRIu64, opt,
		   v, min, max);
}

int pg_parse_urange(const char *opt, const char *v, uint64_t min, uint64_t max, bool need_dash,
		    uint64_t *lo, uint64_t *hi, char *err, size_t errlen)
{
	char buf[64];
	const char *dash = strchr(v, '-');

	if ((need_dash && dash == NULL) || strlen(v) >= sizeof(buf))
		goto bad;
	if (dash == NULL) {
		if (!parse_u64(v, min, max, lo))
			goto bad;
		*hi = *lo;
		return 0;
	}
	memcpy(buf, v, (size_t)(dash - v));
	buf[dash - v] = '\0';
	if (!parse_u64(buf, min, max, lo) || !parse_u64(dash + 1, min, max, hi) || *hi < *lo)
		goto bad;
	return 0;
bad:
	return ERR("%s: bad value '%s'; expected %sLO-HI with %" PRIu64 " <= LO <= HI <= %" PRIu64,
		   opt, v, need_dash ? "" : "N or ", min, max);
}

int pg_parse_ip_range(const char *opt, const char *v, struct pg_ip_range *r, char *err, size_t errlen)
{
	char buf[2][INET6_ADDRSTRLEN + 1];
	uint8_t a[16] = { 0 }, b[16] = { 0 };
	const char *dash = strchr(v, '-');
	bool v6 = strchr(v, ':') != NULL;
	int af = v6 ? AF_INET6 : AF_INET;
	size_t n = dash ? (size_t)(dash - v) : strlen(v);
	uint32_t lo, hi;
	unsigned off = v6 ? 12 : 0;

	if (n >= sizeof(buf[0]) || (dash && strlen(dash + 1) >= sizeof(buf[1])))
		goto bad;
	memcpy(buf[0], v, n);
	buf[0][n] = '\0';
	snprintf(buf[1], sizeof(buf[1]), "%s", dash ? dash + 1 : buf[0]);
	if (inet_pton(af, buf[0], a) != 1 || inet_pton(af, buf[1], b) != 1)
		goto bad;
	if (v6 && memcmp(a, b, 12) != 0)
		goto bad;
	lo = (uint32_t)a[off] << 24 | (uint32_t)a[off + 1] << 16 | (uint32_t)a[off + 2] << 8 | a[off + 3];
	hi = (uint32_t)b[off] << 24 | (uint32_t)b[off + 1] << 16 | (uint32_t)b[off + 2] << 8 | b[off + 3];
	if (hi < lo || (uint64_t)hi - lo + 1 > UINT32_MAX)
		goto bad;
	memcpy(r->lo, a, 16);
	r->count = hi - lo + 1;
	r->given = true;
	return v6 ? 6 : 4;
bad:
	return ERR("%s: bad value '%s'; expected an address or a range ADDR-ADDR "
		   "(IPv4 such as 10.0.0.1-10.0.0.254, or IPv6 such as fd00::1-fd00::ff that differ only in the last 32 bits)",
		   opt, v);
}

void pg_ip_at(const struct pg_ip_range *r, bool ipv6, uint32_t i, uint8_t out[16])
{
	unsigned off = ipv6 ? 12 : 0;
	uint32_t lo = (uint32_t)r->lo[off] << 24 | (uint32_t)r->lo[off + 1] << 16 |
		      (uint32_t)r->lo[off + 2] << 8 | r->lo[off + 3];

	memcpy(out, r->lo, 16);
	pg_put32(out + off, lo + i);
}

int pg_parse_mac(const char *v, uint8_t mac[6])
{
	return app_parse_mac(v, mac);
}

const char *pg_proto_name(uint8_t proto)
{
	return proto == PG_PROTO_TCP ? "tcp" : proto == PG_PROTO_ICMP ? "icmp" : "udp";
}

void pg_stream_spec_init(struct pg_stream_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->tx_port = -1;
	s->rx_port = -1;
	s->src_port = (struct pg_port_range){ 1024, 1 };
	s->dst_port = (struct pg_port_range){ 1024, 1 };
}

/* size=N | N/N/... | N-M | imix */
static int parse_size(const char *where, const char *v, struct pg_stream_spec *s, char *err,
		      size_t errlen)
{
	char buf[512], *save = NULL, *t, opt[160];
	uint64_t x, lo, hi;

	snprintf(opt, sizeof(opt), "%s: key size", where);
	s->sizes_given = true;
	s->imix = false;
	if (strcmp(v, "imix") == 0) {
		memcpy(s->sizes, pg_imix_sizes, sizeof(pg_imix_sizes));
		s->nb_sizes = PG_IMIX_LEN;
		s->imix = true;
		return 0;
	}
	if (strchr(v, '-')) {
		if (pg_parse_urange(opt, v, PG_SIZE_MIN, PG_SIZE_MAX, true, &lo, &hi, err, errlen))
			return -EINVAL;
		s->nb_sizes = 0;
		s->size_lo = (unsigned)lo;
		s->size_hi = (unsigned)hi;
		return 0;
	}
	if (strlen(v) >= sizeof(buf) || v[0] == '\0' || v[0] == '/' || v[strlen(v) - 1] == '/' ||
	    strstr(v, "//"))
		goto bad;
	snprintf(buf, sizeof(buf), "%s", v);
	s->nb_sizes = 0;
	for (t = strtok_r(buf, "/", &save); t; t = strtok_r(NULL, "/", &save)) {
		if (s->nb_sizes == PG_MAX_SIZES)
			return ERR("%s: key size: '%s' lists more than %d sizes", where, v, PG_MAX_SIZES);
		if (!parse_u64(t, PG_SIZE_MIN, PG_SIZE_MAX, &x))
			goto bad;
		s->sizes[s->nb_sizes++] = (unsigned)x;
	}
	if (s->nb_sizes == 0)
		goto bad;
	return 0;
bad:
	return ERR("%s: key size: bad value '%s'; expected a size, sizes separated by '/' (64/512/1500), a range LO-HI, or imix; each %d..%d",
		   where, v, PG_SIZE_MIN, PG_SIZE_MAX);
}

static const char *const stream_keys[] = {
	"tx", "rx", "size", "share", "proto", "l3", "vlan", "src-ip", "dst-ip", "src-port",
	"dst-port", "src-mac", "dst-mac", NULL,
};

int pg_stream_parse(const char *spec, struct pg_stream_spec *s, const char *where, char *err,
		    size_t errlen)
{
	char buf[PG_STREAM_LINE_MAX + 1], opt[192];
	char *save = NULL, *item;
	unsigned seen = 0;
	int fam_src = 0, fam_dst = 0, l3 = 0;
	bool ports_given = false;

	pg_stream_spec_init(s);
	if (strlen(spec) > PG_STREAM_LINE_MAX)
		return ERR("%s: a stream of %zu characters; at most %d", where, strlen(spec), PG_STREAM_LINE_MAX);
	snprintf(buf, sizeof(buf), "%s", spec);
	if (buf[0] == '\0')
		return ERR("%s: empty stream; expected KEY=VALUE[,KEY=VALUE...] with tx= and rx=", where);
	for (item = strtok_r(buf, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		char *eq = strchr(item, '=');
		const char *k = item, *v;
		unsigned ki;
		uint64_t x, lo, hi;

		if (eq == NULL || eq == item)
			return ERR("%s: '%s' is not KEY=VALUE (keys: tx, rx, size, share, proto, l3, vlan, src-ip, dst-ip, src-port, dst-port, src-mac, dst-mac)",
				   where, item);
		*eq = '\0';
		v = eq + 1;
		for (ki = 0; stream_keys[ki] && strcmp(stream_keys[ki], k) != 0; ki++)
			;
		if (stream_keys[ki] == NULL)
			return ERR("%s: unknown key '%s' (keys: tx, rx, size, share, proto, l3, vlan, src-ip, dst-ip, src-port, dst-port, src-mac, dst-mac)",
				   where, k);
		if (seen & (1u << ki))
			return ERR("%s: key %s given twice", where, k);
		seen |= 1u << ki;
		snprintf(opt, sizeof(opt), "%s: key %s", where, k);
		if (v[0] == '\0')
			return ERR("%s: empty value", opt);
		if (strcmp(k, "tx") == 0 || strcmp(k, "rx") == 0) {
			if (opt_u64(opt, v, 0, 63, &x, err, errlen))
				return -EINVAL;
			*(k[0] == 't' ? &s->tx_port : &s->rx_port) = (int)x;
		} else if (strcmp(k, "size") == 0) {
			if (parse_size(where, v, s, err, errlen))
				return -EINVAL;
		} else if (strcmp(k, "share") == 0) {
			char *end;
			double d;

			errno = 0;
			d = strtod(v, &end);
			if (errno || *end || !isfinite(d) || !(d > 0) || d > 100 || v[0] < '0' || v[0] > '9')
				return ERR("%s: bad value '%s'; expected a percentage of --rate above 0 and at most 100, e.g. 30 or 12.5",
					   opt, v);
			s->share = d;
		} else if (strcmp(k, "proto") == 0) {
			if (strcmp(v, "udp") == 0)
				s->proto = PG_PROTO_UDP;
			else if (strcmp(v, "tcp") == 0)
				s->proto = PG_PROTO_TCP;
			else if (strcmp(v, "icmp") == 0)
				s->proto = PG_PROTO_ICMP;
			else
				return ERR("%s: bad value '%s'; expected udp, tcp or icmp", opt, v);
		} else if (strcmp(k, "l3") == 0) {
			if (strcmp(v, "ipv4") == 0)
				l3 = 4;
			else if (strcmp(v, "ipv6") == 0)
				l3 = 6;
			else
				return ERR("%s: bad value '%s'; expected ipv4 or ipv6", opt, v);
		} else if (strcmp(k, "vlan") == 0) {
			if (opt_u64(opt, v, 0, 4095, &x, err, errlen))
				return -EINVAL;
			s->vlan = true;
			s->vid = (uint16_t)x;
		} else if (strcmp(k, "src-ip") == 0 || strcmp(k, "dst-ip") == 0) {
			int fam = pg_parse_ip_range(opt, v, k[0] == 's' ? &s->src_ip : &s->dst_ip, err, errlen);

			if (fam < 0)
				return -EINVAL;
			*(k[0] == 's' ? &fam_src : &fam_dst) = fam;
		} else if (strcmp(k, "src-port") == 0 || strcmp(k, "dst-port") == 0) {
			if (pg_parse_urange(opt, v, 0, 65535, false, &lo, &hi, err, errlen))
				return -EINVAL;
			*(k[0] == 's' ? &s->src_port : &s->dst_port) =
				(struct pg_port_range){ (uint16_t)lo, (uint32_t)(hi - lo + 1) };
			ports_given = true;
		} else {  /* src-mac, dst-mac */
			uint8_t *m = k[0] == 's' ? s->src_mac : s->dst_mac;

			if (pg_parse_mac(v, m))
				return ERR("%s: bad value '%s'; expected a MAC address such as 02:00:00:00:00:01",
					   opt, v);
			*(k[0] == 's' ? &s->src_mac_given : &s->dst_mac_given) = true;
		}
	}
	if (ports_given && s->proto == PG_PROTO_ICMP)
		return ERR("%s: keys src-port/dst-port: ICMP echo has no ports (its identifier is the stream id); give them with proto=udp or proto=tcp",
			   where);
	/* The family: l3= if given, else the addresses'; all must agree. */
	if (l3 == 0)
		l3 = fam_src ? fam_src : fam_dst ? fam_dst : 4;
	if ((fam_src && fam_src != l3) || (fam_dst && fam_dst != l3))
		return ERR("%s: key %s: an IPv%d address in an IPv%d stream (l3=ipv%d%s)", where,
			   fam_src && fam_src != l3 ? "src-ip" : "dst-ip", l3 == 4 ? 6 : 4, l3, l3,
			   seen & (1u << 5) ? "" : ", from the other address");
	s->ipv6 = l3 == 6;
	return pg_stream_check(s, where, err, errlen);
}

unsigned pg_stream_min_size(const struct pg_stream_spec *s)
{
	unsigned m = s->nb_sizes ? s->sizes[0] : s->size_lo;

	for (unsigned i = 1; i < s->nb_sizes; i++)
		m = s->sizes[i] < m ? s->sizes[i] : m;
	return m;
}

unsigned pg_stream_max_size(const struct pg_stream_spec *s)
{
	unsigned m = s->nb_sizes ? s->sizes[0] : s->size_hi;

	for (unsigned i = 1; i < s->nb_sizes; i++)
		m = s->sizes[i] > m ? s->sizes[i] : m;
	return m;
}

double pg_stream_mean_size(const struct pg_stream_spec *s)
{
	double sum = 0;

	if (s->nb_sizes == 0)
		return ((double)s->size_lo + (double)s->size_hi) / 2;
	for (unsigned i = 0; i < s->nb_sizes; i++)
		sum += s->sizes[i];
	return sum / s->nb_sizes;
}

int pg_stream_check(struct pg_stream_spec *s, const char *where, char *err, size_t errlen)
{
	struct pg_frame_tmpl t = { .ipv6 = s->ipv6, .vlan = s->vlan, .proto = s->proto };
	char why[256];

	if (s->tx_port < 0 || s->rx_port < 0)
		return ERR("%s: key %s missing; every stream names its ports (tx=N,rx=N)", where,
			   s->tx_port < 0 ? "tx" : "rx");
	if (!s->sizes_given) {
		s->sizes[0] = pg_frame_min_size_proto(s->ipv6, s->vlan, s->proto);
		s->nb_sizes = 1;
	}
	if (!s->src_ip.given)
		pg_parse_ip_range("src-ip", s->ipv6 ? "fd00::1" : "10.0.0.1", &s->src_ip, why, sizeof(why));
	if (!s->dst_ip.given)
		pg_parse_ip_range("dst-ip", s->ipv6 ? "fd00::2" : "10.0.0.2", &s->dst_ip, why, sizeof(why));
	s->src_ip.given = s->dst_ip.given = true;
	if (pg_frame_size_check(&t, pg_stream_min_size(s), why, sizeof(why)))
		return ERR("%s: key size: %s%s", where, why,
			   s->imix ? " (imix holds 64-byte frames)" : "");
	return 0;
}

int pg_streams_check_shares(struct pg_stream_spec *s, unsigned n, char *err, size_t errlen)
{
	unsigned given = 0;
	double sum = 0;

	for (unsigned i = 0; i < n; i++) {
		given += s[i].share > 0;
		sum += s[i].share;
	}
	if (given == 0) {
		for (unsigned i = 0; i < n; i++)
			s[i].share = 100.0 / n;
		return 0;
	}
	if (given < n) {
		for (unsigned i = 0; i < n; i++)
			if (s[i].share <= 0)
				return ERR("stream %u: key share missing; give every stream a share (summing to 100) or none (equal shares)",
					   i);
	}
	if (fabs(sum - 100) > 0.001)
		return ERR("streams: key share: the shares sum to %g; they must sum to 100 (percent of --rate)", sum);
	return 0;
}

int pg_stream_file_parse(const char *text, size_t len, const char *name, struct pg_stream_spec *out,
			 unsigned max, unsigned *nb, char *err, size_t errlen)
{
	char line[PG_STREAM_LINE_MAX + 1], where[384];
	size_t pos = 0;
	unsigned lineno = 0;

	while (pos < len) {
		size_t end = pos, n, a, b;

		while (end < len && text[end] != '\n')
			end++;
		lineno++;
		n = end - pos;
		if (memchr(text + pos, '\0', n))
			return ERR("stream file '%s' line %u: a NUL byte; a stream file is text", name, lineno);
		if (n > PG_STREAM_LINE_MAX)
			return ERR("stream file '%s' line %u: %zu characters; at most %d a line", name, lineno,
				   n, PG_STREAM_LINE_MAX);
		memcpy(line, text + pos, n);
		line[n] = '\0';
		pos = end + 1;
		if (strchr(line, '#'))
			*strchr(line, '#') = '\0';
		/* Leading and trailing blanks (and a CR) go; inner ones are an error. */
		for (a = 0; line[a] == ' ' || line[a] == '\t'; a++)
			;
		for (b = strlen(line); b > a && (line[b - 1] == ' ' || line[b - 1] == '\t' || line[b - 1] == '\r'); b--)
			;
		line[b] = '\0';
		if (a == b)
			continue;
		snprintf(where, sizeof(where), "stream file '%s' line %u", name, lineno);
		if (strpbrk(line + a, " \t\r"))
			return ERR("%s: a blank inside the stream; write KEY=VALUE,KEY=VALUE without spaces", where);
		if (*nb >= max)
			return ERR("%s: more than %u streams; at most %d a run", where, max, PG_MAX_STREAMS);
		if (pg_stream_parse(line + a, &out[*nb], where, err, errlen))
			return -EINVAL;
		(*nb)++;
	}
	return 0;
}

void pg_stream_run_init(struct pg_stream_run *r, const struct pg_stream_spec *s, uint16_t id)
{
	memset(r, 0, sizeof(*r));
	r->spec = s;
	r->id = id;
	r->tmpl.ipv6 = s->ipv6;
	r->tmpl.vlan = s->vlan;
	r->tmpl.vlan_tci = s->vid;
	r->tmpl.ttl = 64;
	r->tmpl.proto = s->proto;
}

unsigned pg_stream_next_size(struct pg_stream_run *r)
{
	const struct pg_stream_spec *s = r->spec;
	unsigned v;

	if (s->nb_sizes) {
		v = s->sizes[r->size_idx];
		r->size_idx = (r->size_idx + 1) % s->nb_sizes;
	} else {
		v = s->size_lo + r->size_idx;
		r->size_idx = (r->size_idx + 1) % (s->size_hi - s->size_lo + 1);
	}
	return v;
}

void pg_stream_next_flow(struct pg_stream_run *r, struct pg_flow *f)
{
	const struct pg_stream_spec *s = r->spec;
	const uint32_t n[4] = { s->src_ip.count, s->dst_ip.count, s->src_port.count, s->dst_port.count };

	pg_ip_at(&s->src_ip, s->ipv6, r->flow_k[0], f->src_ip);
	pg_ip_at(&s->dst_ip, s->ipv6, r->flow_k[1], f->dst_ip);
	f->src_port = (uint16_t)(s->src_port.lo + r->flow_k[2]);
	f->dst_port = (uint16_t)(s->dst_port.lo + r->flow_k[3]);
	for (unsigned i = 0; i < 4; i++) {
		if (++r->flow_k[i] < n[i])
			break;
		r->flow_k[i] = 0;
	}
}

void pg_stream_skip_flows(struct pg_stream_run *r, unsigned n)
{
	const struct pg_stream_spec *s = r->spec;
	const uint32_t cnt[4] = { s->src_ip.count, s->dst_ip.count, s->src_port.count, s->dst_port.count };

	for (unsigned k = 0; k < n; k++)
		for (unsigned i = 0; i < 4; i++) {
			if (++r->flow_k[i] < cnt[i])
				break;
			r->flow_k[i] = 0;
		}
}
