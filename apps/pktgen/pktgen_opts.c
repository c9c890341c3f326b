/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-pktgen options: every error names the option, the value given and
 * the accepted forms, and returns -EINVAL; nothing exits.
 */
#include <arpa/inet.h>
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <unic/env.h>

#include "app_opts.h"
#include <unic/port.h>

#include "pktgen_opts.h"
#include "rfc2544.h"

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

void pg_opts_init(struct pg_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->tx_port = -1;
	o->rx_port = -1;
	o->sizes[0] = 60;
	o->nb_sizes = 1;
	o->src_port = (struct pg_port_range){ 1024, 1 };
	o->dst_port = (struct pg_port_range){ 1024, 1 };
	o->drain = 0.5;
	o->txq = 1;
	o->rxq = 1;
	pg_bench_opts_init(&o->bench);
}

static int parse_sizes(const char *v, struct pg_opts *o, char *err, size_t errlen)
{
	char buf[512], *save = NULL, *t;
	uint64_t x;

	if (strlen(v) >= sizeof(buf) || v[0] == '\0')
		goto bad;
	snprintf(buf, sizeof(buf), "%s", v);
	o->nb_sizes = 0;
	for (t = strtok_r(buf, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
		if (o->nb_sizes == PG_MAX_SIZES)
			return ERR("option --sizes: '%s' lists more than %d sizes", v, PG_MAX_SIZES);
		if (app_parse_u64("--sizes", t, PG_SIZE_MIN, PG_SIZE_MAX, &x, err, errlen))
			goto bad;
		o->sizes[o->nb_sizes++] = (unsigned)x;
	}
	if (o->nb_sizes == 0)
		goto bad;
	return 0;
bad:
	return ERR("option --sizes: bad value '%s'; expected sizes %d..%d separated by commas, e.g. 64,512,1500",
		   v, PG_SIZE_MIN, PG_SIZE_MAX);
}

/*
 * Which file a path names, whatever its spelling: an existing file's
 * (dev, ino); for one not there yet, its directory's (dev, ino) and its last
 * name (./a and a, or d/../a, then compare equal). A dangling symbolic link
 * names the file it would create. Devices, pipes and sockets are not files
 * two outputs could clobber (both to /dev/null is fine): kind NONE, as is a
 * path whose directory does not exist (its open fails later, with the
 * reason). "-" is stdout.
 */
enum file_kind { FILE_NONE, FILE_EXISTS, FILE_NEW };

struct file_id {
	enum file_kind kind;
	dev_t dev;
	ino_t ino;
	char name[256];    /* FILE_NEW: the last component */
};

static void file_id_get(const char *path, struct file_id *id, unsigned depth)
{
	char dirbuf[4096], link[4096];
	const char *slash, *name;
	struct stat st;
	ssize_t n;

	memset(id, 0, sizeof(*id));
	if (strcmp(path, "-") == 0 ? fstat(STDOUT_FILENO, &st) == 0 : stat(path, &st) == 0) {
		if (S_ISREG(st.st_mode)) {
			id->kind = FILE_EXISTS;
			id->dev = st.st_dev;
			id->ino = st.st_ino;
		}
		return;
	}
	if (errno != ENOENT || strcmp(path, "-") == 0)
		return;
	slash = strrchr(path, '/');
	/* A dangling link: follow it to the name it would create. */
	if (depth < 8 && lstat(path, &st) == 0 && S_ISLNK(st.st_mode)) {
		n = readlink(path, link, sizeof(link) - 1);
		if (n <= 0)
			return;
		link[n] = '\0';
		if (link[0] == '/' || slash == NULL) {
			file_id_get(link, id, depth + 1);
		} else if (snprintf(dirbuf, sizeof(dirbuf), "%.*s/%s", (int)(slash - path), path, link) <
			   (int)sizeof(dirbuf)) {
			file_id_get(dirbuf, id, depth + 1);
		}
		return;
	}
	name = slash ? slash + 1 : path;
	if (name[0] == '\0' || strlen(name) >= sizeof(id->name))
		return;
	if (slash == NULL)
		snprintf(dirbuf, sizeof(dirbuf), ".");
	else if (slash == path)
		snprintf(dirbuf, sizeof(dirbuf), "/");
	else if ((size_t)(slash - path) < sizeof(dirbuf))
		snprintf(dirbuf, sizeof(dirbuf), "%.*s", (int)(slash - path), path);
	else
		return;
	if (stat(dirbuf, &st) != 0 || !S_ISDIR(st.st_mode))
		return;
	id->kind = FILE_NEW;
	id->dev = st.st_dev;
	id->ino = st.st_ino;
	snprintf(id->name, sizeof(id->name), "%s", name);
}

/* Do paths @p a and @p b name one file? Identical strings always do (unless
 * both are "-" for a device, which cannot happen: only --csv takes "-"). */
static bool same_file(const char *a, const char *b)
{
	struct file_id x, y;

	file_id_get(a, &x, 0);
	file_id_get(b, &y, 0);
	if (x.kind == FILE_NONE || y.kind == FILE_NONE) {
		struct stat st;

		/* Not comparable by identity: a device is fine twice; anything
		 * else (a directory that does not exist yet) by its spelling. */
		if (strcmp(a, b) != 0)
			return false;
		return !(stat(a, &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode));
	}
	return x.kind == y.kind && x.dev == y.dev && x.ino == y.ino && strcmp(x.name, y.name) == 0;
}

/* Options that take a value. */
static const char *const with_value[] = {
	"--tx-port", "--rx-port", "--size", "--sizes", "--size-range", "--vlan", "--src-ip",
	"--dst-ip", "--src-port", "--dst-port", "--rate", "--count", "--duration", "--drain", "--write-tx",
	"--write-rx", "--replay", "--csv", "--rxd", "--stream", "--stream-file", "--src-mac",
	"--dst-mac", "--txq", "--rxq", NULL,
};

/* Options that shape the frames pktgen builds: meaningless with --replay. */
static const char *const frame_opts[] = {
	"--size", "--sizes", "--size-range", "--ipv6", "--vlan", "--src-ip", "--dst-ip",
	"--src-port", "--dst-port", NULL,
};

static int check_sizes(struct pg_opts *o, char *err, size_t errlen)
{
	struct pg_frame_tmpl t = { .ipv6 = o->ipv6, .vlan = o->vlan };
	char why[256];
	unsigned min = o->nb_sizes ? o->sizes[0] : o->size_lo;

	for (unsigned i = 1; i < o->nb_sizes; i++)
		if (o->sizes[i] < min)
			min = o->sizes[i];
	if (o->bench.mode != PG_RFC2544_NONE) {  /* RFC sizes count the FCS */
		const struct pg_bench_opts *b = &o->bench;

		min = b->frame_sizes[0];
		for (unsigned i = 1; i < b->nb_frame_sizes; i++)
			min = b->frame_sizes[i] < min ? b->frame_sizes[i] : min;
		if (pg_frame_size_check(&t, min - 4, why, sizeof(why)))
			return ERR("option --frame-sizes: RFC 2544 frame size %u (%u bytes built, the NIC adds the 4-byte FCS): %s",
				   min, min - 4, why);
		return 0;
	}
	if (pg_frame_size_check(&t, min, why, sizeof(why)))
		return ERR("option %s: %s", o->nb_sizes ? "--size/--sizes" : "--size-range", why);
	return 0;
}

/* --stream-file FILE: its streams go after those given so far. */
static int read_stream_file(struct pg_opts *o, const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "r");
	char *text;
	size_t n;
	int rc;

	if (f == NULL)
		return ERR("option --stream-file: cannot read '%s': %s", path, strerror(errno));
	text = malloc(PG_STREAM_FILE_MAX + 1);
	if (text == NULL) {
		fclose(f);
		return ERR("option --stream-file: out of memory");
	}
	n = fread(text, 1, PG_STREAM_FILE_MAX + 1, f);
	if (ferror(f)) {
		rc = ERR("option --stream-file: cannot read '%s': %s", path, strerror(errno));
	} else if (n > PG_STREAM_FILE_MAX) {
		rc = ERR("option --stream-file: '%s' is larger than %u bytes; a stream file holds at most %d streams",
			 path, PG_STREAM_FILE_MAX, PG_MAX_STREAMS);
	} else {
		unsigned before = 1 + o->nb_streams, nb = before;

		rc = pg_stream_file_parse(text, n, path, o->streams, 1 + PG_MAX_STREAMS, &nb, err, errlen);
		o->nb_streams = nb - 1;
		if (rc == 0 && nb == before)
			rc = ERR("option --stream-file: '%s' holds no stream (only blank lines and comments)", path);
	}
	free(text);
	fclose(f);
	return rc;
}

/* --src-mac / --dst-mac [PORT=]MAC: for one port, or (no PORT) for all. */
static int parse_port_mac(struct pg_opts *o, const char *name, const char *v, char *err, size_t errlen)
{
	const char *eq = strchr(v, '=');
	uint64_t port = 0, mask = ~0ull;
	uint8_t mac[6];
	bool src = name[2] == 's';

	if (eq) {
		char num[8];

		if ((size_t)(eq - v) >= sizeof(num))
			goto bad;
		memcpy(num, v, (size_t)(eq - v));
		num[eq - v] = '\0';
		if (app_parse_u64(name, num, 0, PG_MAX_PORTS - 1, &port, err, errlen))
			return -EINVAL;
		mask = 1ull << port;
		v = eq + 1;
	}
	if (pg_parse_mac(v, mac))
		goto bad;
	for (unsigned p = 0; p < PG_MAX_PORTS; p++)
		if (mask & (1ull << p))
			memcpy(src ? o->src_mac[p] : o->dst_mac[p], mac, 6);
	*(src ? &o->src_mac_set : &o->dst_mac_set) |= mask;
	return 0;
bad:
	return ERR("option %s: bad value '%s'; expected [PORT=]MAC, e.g. 1=02:00:00:00:00:01 (without PORT: every port)",
		   name, v);
}

/* Stream 0 from the single-stream options. */
static void legacy_stream(const struct pg_opts *o, struct pg_stream_spec *s)
{
	pg_stream_spec_init(s);
	s->tx_port = o->tx_port;
	s->rx_port = o->rx_port;
	memcpy(s->sizes, o->sizes, sizeof(s->sizes));
	s->nb_sizes = o->nb_sizes;
	s->size_lo = o->size_lo;
	s->size_hi = o->size_hi;
	s->sizes_given = true;
	s->ipv6 = o->ipv6;
	s->vlan = o->vlan;
	s->vid = o->vid;
	s->src_ip = o->src_ip;
	s->dst_ip = o->dst_ip;
	s->src_port = o->src_port;
	s->dst_port = o->dst_port;
}

int pg_opts_parse(struct pg_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	int fam_src = 0, fam_dst = 0;
	bool sizes_given = false;

	for (int i = 1; i < argc; i++) {
		char name[32];
		const char *a = argv[i], *v = NULL, *eq;
		uint64_t x, lo, hi;
		int rc = 0;

		eq = strchr(a, '=');
		if (strncmp(a, "--", 2) == 0 && eq && (size_t)(eq - a) < sizeof(name)) {
			memcpy(name, a, (size_t)(eq - a));
			name[eq - a] = '\0';
			v = eq + 1;
		} else {
			snprintf(name, sizeof(name), "%s", a);
		}
		bool takes = false;

		for (unsigned k = 0; with_value[k]; k++)
			takes |= strcmp(name, with_value[k]) == 0;
		takes |= pg_bench_opt_takes_value(name);
		sizes_given |= strcmp(name, "--size") == 0 || strcmp(name, "--sizes") == 0 ||
			       strcmp(name, "--size-range") == 0;
		for (unsigned k = 0; frame_opts[k] && o->gen_opt == NULL; k++)
			if (strcmp(name, frame_opts[k]) == 0)
				o->gen_opt = frame_opts[k];
		if (takes && v == NULL) {
			if (i + 1 >= argc)
				return ERR("option %s: missing value", name);
			v = argv[++i];
		} else if (!takes && v != NULL) {
			return ERR("option %s: takes no value (given '%s')", name, v);
		}
		if (strcmp(name, "--tx-port") == 0 || strcmp(name, "--rx-port") == 0) {
			rc = app_parse_u64(name, v, 0, UNIC_PORT_MAX - 1, &x, err, errlen);
			if (!rc)
				*(name[2] == 't' ? &o->tx_port : &o->rx_port) = (int)x;
		} else if (strcmp(name, "--size") == 0) {
			rc = app_parse_u64(name, v, PG_SIZE_MIN, PG_SIZE_MAX, &x, err, errlen);
			if (!rc) {
				o->sizes[0] = (unsigned)x;
				o->nb_sizes = 1;
			}
		} else if (strcmp(name, "--sizes") == 0) {
			rc = parse_sizes(v, o, err, errlen);
		} else if (strcmp(name, "--size-range") == 0) {
			rc = pg_parse_urange("option --size-range", v, PG_SIZE_MIN, PG_SIZE_MAX, true, &lo, &hi,
					     err, errlen);
			if (!rc) {
				o->size_lo = (unsigned)lo;
				o->size_hi = (unsigned)hi;
				o->nb_sizes = 0;
			}
		} else if (strcmp(name, "--ipv6") == 0) {
			o->ipv6 = true;
		} else if (strcmp(name, "--vlan") == 0) {
			rc = app_parse_u64(name, v, 0, 4095, &x, err, errlen);
			if (!rc) {
				o->vlan = true;
				o->vid = (uint16_t)x;
			}
		} else if (strcmp(name, "--src-ip") == 0) {
			rc = pg_parse_ip_range("option --src-ip", v, &o->src_ip, err, errlen);
			if (rc > 0) {
				fam_src = rc;
				rc = 0;
			}
		} else if (strcmp(name, "--dst-ip") == 0) {
			rc = pg_parse_ip_range("option --dst-ip", v, &o->dst_ip, err, errlen);
			if (rc > 0) {
				fam_dst = rc;
				rc = 0;
			}
		} else if (strcmp(name, "--src-port") == 0 || strcmp(name, "--dst-port") == 0) {
			char opt[48];

			snprintf(opt, sizeof(opt), "option %s", name);
			rc = pg_parse_urange(opt, v, 0, 65535, false, &lo, &hi, err, errlen);
			if (!rc)
				*(name[2] == 's' ? &o->src_port : &o->dst_port) =
					(struct pg_port_range){ (uint16_t)lo, (uint32_t)(hi - lo + 1) };
		} else if (strcmp(name, "--rate") == 0) {
			rc = pg_rate_parse(v, &o->rate, err, errlen);
		} else if (strcmp(name, "--count") == 0) {
			rc = app_parse_u64(name, v, 1, UINT64_MAX, &o->count, err, errlen);
		} else if (strcmp(name, "--duration") == 0) {
			char *end;
			double d;

			errno = 0;
			d = strtod(v, &end);
			if (errno || *end || !isfinite(d) || d <= 0 || d > 86400 * 365 ||
			    ((v[0] < '0' || v[0] > '9') && v[0] != '.'))
				return ERR("option --duration: bad value '%s'; expected seconds, e.g. 10 or 0.5", v);
			o->duration = d;
		} else if (strcmp(name, "--drain") == 0) {
			char *end;
			double d;

			errno = 0;
			d = strtod(v, &end);
			if (errno || *end || !isfinite(d) || d <= 0 || d > 3600 ||
			    ((v[0] < '0' || v[0] > '9') && v[0] != '.'))
				return ERR("option --drain: bad value '%s'; expected seconds above 0 and at most 3600, e.g. 5 or 0.5", v);
			o->drain = d;
		} else if (strcmp(name, "--write-tx") == 0 || strcmp(name, "--write-rx") == 0 ||
			   strcmp(name, "--replay") == 0 || strcmp(name, "--csv") == 0) {
			if (v[0] == '\0')
				return ERR("option %s: empty file name", name);
			if (strcmp(name, "--write-tx") == 0)
				o->write_tx = v;
			else if (strcmp(name, "--write-rx") == 0)
				o->write_rx = v;
			else if (strcmp(name, "--replay") == 0)
				o->replay = v;
			else
				o->csv = v;
		} else if (strcmp(name, "--stream") == 0) {
			if (o->nb_streams >= PG_MAX_STREAMS)
				return ERR("option --stream: more than %d streams; at most %d a run", PG_MAX_STREAMS,
					   PG_MAX_STREAMS);
			if (pg_stream_parse(v, &o->streams[1 + o->nb_streams], "option --stream", err, errlen))
				return -EINVAL;
			o->nb_streams++;
			if (o->stream_opt == NULL)
				o->stream_opt = "--stream";
		} else if (strcmp(name, "--stream-file") == 0) {
			rc = read_stream_file(o, v, err, errlen);
			if (o->stream_opt == NULL)
				o->stream_opt = "--stream-file";
		} else if (strcmp(name, "--src-mac") == 0 || strcmp(name, "--dst-mac") == 0) {
			rc = parse_port_mac(o, name, v, err, errlen);
		} else if (strcmp(name, "--arp-reply") == 0) {
			o->arp_reply = true;
		} else if (strcmp(name, "--json") == 0) {
			o->json = true;
		} else if (strcmp(name, "--rxd") == 0) {
			rc = app_parse_u64(name, v, 1, 32768, &x, err, errlen);
			if (!rc)
				o->rxd = (uint16_t)x;
		} else if (strcmp(name, "--txq") == 0 || strcmp(name, "--rxq") == 0) {
			rc = app_parse_u64(name, v, 1, PG_MAX_QUEUES, &x, err, errlen);
			if (!rc && name[2] == 't')
				o->txq = (unsigned)x;
			else if (!rc)
				o->rxq = (unsigned)x;
		} else if (strcmp(name, "--quiet") == 0 || strcmp(name, "-q") == 0) {
			o->quiet = true;
		} else if (strcmp(name, "-P") == 0 || strcmp(name, "--promisc") == 0) {
			o->promisc = true;
		} else if (strcmp(name, "-h") == 0 || strcmp(name, "--help") == 0) {
			o->help = true;
		} else if ((rc = pg_bench_opt(&o->bench, name, v, err, errlen)) != 0) {
			rc = rc > 0 ? 0 : rc;  /* --sweep, --rfc2544 and theirs: trial.c */
		} else {
			return ERR("unknown option '%s' (see --help)", a);
		}
		if (rc)
			return -EINVAL;
	}
	if (o->help)
		return 0;
	if (o->stream_opt && (o->tx_port < 0) != (o->rx_port < 0))
		return ERR("option %s: given alone; with --stream, give both (stream 0) or neither",
			   o->tx_port < 0 ? "--rx-port" : "--tx-port");
	if (o->stream_opt == NULL && (o->tx_port < 0 || o->rx_port < 0))
		return ERR("options --tx-port and --rx-port: both are required (port numbers in the order the ports were created: PCI devices, then --vdev), or give streams with --stream / --stream-file");
	if (o->stream_opt && o->replay)
		return ERR("options %s and --replay: a replay sends the capture's frames, not streams", o->stream_opt);
	if (o->stream_opt && o->tx_port < 0 && o->gen_opt)
		return ERR("option %s: shapes stream 0 of --tx-port/--rx-port, which are not given; give it as the stream's key instead (see --stream)",
			   o->gen_opt);
	if (o->replay && o->gen_opt)
		return ERR("option %s: has no effect with --replay (the capture's frames are sent as they are)",
			   o->gen_opt);
	if (pg_bench_opts_check(&o->bench, o->rate.unit != PG_RATE_NONE, o->count || o->duration > 0,
				sizes_given, o->replay != NULL, err, errlen))
		return -EINVAL;
	if ((o->bench.sweep_arg || o->bench.mode != PG_RFC2544_NONE) && o->stream_opt)
		return ERR("options %s and %s: a sweep or a search runs one stream, the one of --tx-port/--rx-port and the single-stream options; give those instead",
			   o->bench.sweep_arg ? "--sweep" : "--rfc2544", o->stream_opt);
	if (o->bench.mode != PG_RFC2544_NONE && o->csv)
		return ERR("options --csv and --rfc2544: the search reports as a table or JSON (--json, --json-out FILE); --csv is for the per-second series or a --sweep's rows");
	if (o->bench.mode != PG_RFC2544_NONE && !o->bench.frame_sizes_given) {
		static const unsigned rfc[] = PG_RFC2544_SIZES;

		memcpy(o->bench.frame_sizes, rfc, sizeof(rfc));
		o->bench.nb_frame_sizes = PG_RFC2544_NB_SIZES;
	}
	if (o->txq > 1 || o->rxq > 1) {
		const char *q = o->txq > 1 ? "--txq" : "--rxq", *other = NULL;

		if (o->replay)
			other = "--replay";
		else if (o->write_tx)
			other = "--write-tx";
		else if (o->write_rx)
			other = "--write-rx";
		else if (o->arp_reply)
			other = "--arp-reply";
		if (other)
			return ERR("options %s %u and %s: %s runs on one thread (one tx and one rx queue a port); give it without %s, or use --json for the report",
				   q, o->txq > 1 ? o->txq : o->rxq, other, other, q);
	}
	if (o->csv && strcmp(o->csv, "-") == 0 && o->json)
		return ERR("options --csv - and --json: both want stdout; give --csv a file name");
	{
		const char *files[4] = { o->write_tx, o->write_rx, o->replay, o->csv };
		const char *names[4] = { "--write-tx", "--write-rx", "--replay", "--csv" };

		for (int i = 0; i < 4; i++)
			for (int k = i + 1; k < 4; k++) {
				if (files[i] == NULL || files[k] == NULL || !same_file(files[i], files[k]))
					continue;
				if (strcmp(files[i], files[k]) == 0)
					return ERR("options %s and %s: both name '%s'; give each its own file",
						   names[i], names[k], files[i]);
				return ERR("options %s and %s: '%s' and '%s' name the same file; give each its own file",
					   names[i], names[k], files[i], files[k]);
			}
	}
	if ((fam_src && fam_src != (o->ipv6 ? 6 : 4)) || (fam_dst && fam_dst != (o->ipv6 ? 6 : 4)))
		return ERR("option %s: an %s address with%s --ipv6",
			   fam_src && fam_src != (o->ipv6 ? 6 : 4) ? "--src-ip" : "--dst-ip",
			   o->ipv6 ? "IPv4" : "IPv6", o->ipv6 ? "" : "out");
	if (!o->src_ip.given)
		pg_parse_ip_range("--src-ip", o->ipv6 ? "fd00::1" : "10.0.0.1", &o->src_ip, err, errlen);
	if (!o->dst_ip.given)
		pg_parse_ip_range("--dst-ip", o->ipv6 ? "fd00::2" : "10.0.0.2", &o->dst_ip, err, errlen);
	if (check_sizes(o, err, errlen))
		return -EINVAL;
	/* The stream list: stream 0 of the single-stream options first. */
	if (o->tx_port >= 0) {
		if (o->nb_streams + 1 > PG_MAX_STREAMS)
			return ERR("options --tx-port/--rx-port and %s: %u streams; at most %d a run",
				   o->stream_opt, o->nb_streams + 1, PG_MAX_STREAMS);
		legacy_stream(o, &o->streams[0]);
		o->legacy_stream = true;
		o->nb_streams++;
	} else {
		memmove(o->streams, o->streams + 1, o->nb_streams * sizeof(o->streams[0]));
	}
	if (pg_streams_check_shares(o->streams, o->nb_streams, err, errlen))
		return -EINVAL;
	if ((o->txq > 1 || o->rxq > 1) && o->csv && o->nb_streams > 1)
		return ERR("options %s %u, --csv and %u streams: with several threads --csv gives the total's row only; give one stream, or --json for each stream's figures",
			   o->txq > 1 ? "--txq" : "--rxq", o->txq > 1 ? o->txq : o->rxq, o->nb_streams);
	for (unsigned i = 0; i < o->nb_streams; i++)
		if (fabs(o->streams[i].share - o->streams[0].share) > 1e-9 && o->rate.unit == PG_RATE_NONE)
			return ERR("option --stream: key share: shares split --rate, which is not given; give --rate (without it every stream sends as fast as its port takes frames, in turn)");
	return 0;
}

void pg_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"usage: %s [env options] --tx-port N --rx-port N [options]\n"
		"  --tx-port N, --rx-port N   ports to send on and receive on (may be the same)\n"
		"  --size N | --sizes a,b,c | --size-range a-b\n"
		"                             frame sizes without the FCS, %d..%d (default 60)\n"
		"  --ipv6                     UDP over IPv6 (default IPv4)\n"
		"  --vlan VID                 add an 802.1Q tag\n"
		"  --src-ip A[-B], --dst-ip A[-B]   address ranges (flows cycle through them)\n"
		"  --src-port P[-Q], --dst-port P[-Q]\n"
		"  --rate R                   1Mpps, 100Mbps (L2, FCS included), 10Gbps-wire\n"
		"                             (+20 bytes preamble and gap a frame), 10%% of link speed\n"
		"                             (default: as fast as the port takes frames)\n"
		"  --count N, --duration S    stop after N frames or S seconds (whichever first)\n"
		"  --drain S                  after the last frame, wait up to S seconds for the\n"
		"                             rest to come back (default 0.5)\n"
		"  --rxd N                    rx descriptors (default: the driver's); more give a\n"
		"                             receiver that falls behind more room\n"
		"  -P, --promisc              the rx port takes frames for any address (needed behind\n"
		"                             unic-l2fwd, which rewrites the destination to\n"
		"                             02:00:00:00:00:<port>, unless it runs with --no-mac-updating)\n"
		"  --json                     final report as one JSON object\n"
		"  --csv FILE|-               per-second time series as CSV (- : stdout)\n"
		"  --write-tx FILE            save the frames sent (pcap, ns timestamps)\n"
		"  --write-rx FILE            save the frames received\n"
		"  --replay FILE              send a capture's Ethernet frames as they are, paced\n"
		"                             by --rate per frame size; once, or --count frames\n"
		"                             (looping over the capture)\n"
		"  --sweep RATES              a trial a rate: a list (10kpps,50kpps,1%%) or\n"
		"                             START:STOP:STEPS[:lin|log] (1kpps:1Mpps:7:log); one row\n"
		"                             a step (text, --csv FILE for the rows, --json)\n"
		"  --step-duration S          measured seconds a step (default %.3g)\n"
		"  --warmup S                 seconds sent before each step or trial, not counted\n"
		"                             (default %.3g; 0: none)\n"
		"  --rfc2544 ndr|pdr[:LOSS]   RFC 2544 throughput search: no loss, or loss ratio\n"
		"                             at most LOSS (default 0.001 = 0.1%%); from the line rate\n"
		"                             (or --rate when the link speed is unknown) down\n"
		"  --frame-sizes a,b,...      RFC sizes, FCS included (default 64,128,256,512,1024,\n"
		"                             1280,1518)\n"
		"  --trial-duration S         seconds a trial (default %.3g; RFC 2544 says 60)\n"
		"  --resolution PCT           stop when the interval is below PCT%% of the upper\n"
		"                             bound (default %.3g)\n"
		"  --label TEXT               a name for the run in the sweep's or search's report\n"
		"  --json-out FILE            also write the sweep's or search's JSON to FILE\n"
		"  --stream SPEC              one more stream (repeat for several), KEY=VALUE,...:\n"
		"                             tx=N,rx=N (required), size=N|N/N/..|LO-HI|imix,\n"
		"                             share=PCT (of --rate), proto=udp|tcp|icmp, l3=ipv4|ipv6,\n"
		"                             vlan=VID, src-ip=, dst-ip= (A[-B]), src-port=, dst-port=\n"
		"                             (P[-Q]), src-mac=, dst-mac=\n"
		"  --stream-file FILE         streams, one a line in --stream's form (# comments)\n"
		"  --src-mac [PORT=]MAC       source MAC of frames sent on PORT (default its own)\n"
		"  --dst-mac [PORT=]MAC       destination MAC of frames sent on PORT (default the\n"
		"                             rx port's MAC)\n"
		"  --arp-reply                answer ARP requests and neighbour solicitations for\n"
		"                             the streams' source addresses on their ports\n"
		"  --txq N                    tx queues a port, one thread each (default 1, at most\n"
		"                             %d); the rate and --count are split over them\n"
		"  --rxq N                    rx queues a port, one thread each (default 1); thread t\n"
		"                             sends on tx queue t and receives on rx queue t: give\n"
		"                             -l with max(--txq, --rxq) cores, the first the main's\n"
		"  -q, --quiet                no live screen and no line a second: the report only\n"
		"\nenv options:\n%s",
		prog, PG_SIZE_MIN, PG_SIZE_MAX, PG_STEP_S_DEFAULT, PG_WARMUP_S_DEFAULT, PG_TRIAL_S_DEFAULT,
		PG_RESOLUTION_PCT_DEFAULT, PG_MAX_QUEUES, unic_env_usage());
}
