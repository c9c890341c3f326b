/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * unic-l2fwd's own options and port pairing. No exits, no globals: every
 * error is a message naming the option, the value given and the accepted
 * forms, and -EINVAL (tests/unit/test_l2fwd.c).
 */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <unic/env.h>

#include "app_opts.h"

#include "l2fwd.h"

void l2fwd_opts_init(struct l2fwd_opts *o)
{
	memset(o, 0, sizeof(*o));
	o->ports_per_thread = 1;
	o->stats_period = 10;
	o->mac_updating = true;
	o->irq_affinity = true;
	o->mode = UNIC_RX_MODE_HYBRID;
	o->weight = 32;
	o->nb_queues = 1;
}

#define ERR(...) (snprintf(err, errlen, __VA_ARGS__), -EINVAL)

/* Seconds: a non-negative decimal such as 10, 0.5; at most a day. */
static int parse_seconds(const char *opt, const char *v, double *out, char *err, size_t errlen)
{
	char *end;
	double x;

	errno = 0;
	if ((v[0] < '0' || v[0] > '9') && v[0] != '.')
		goto bad;
	x = strtod(v, &end);
	if (errno || *end != '\0' || !isfinite(x) || x < 0 || x > 86400)
		goto bad;
	*out = x;
	return 0;
bad:
	return ERR("option %s: bad value '%s'; expected seconds from 0 to 86400, e.g. 10 or 0.5", opt, v);
}

static int parse_portmask(const char *v, uint64_t *out, char *err, size_t errlen)
{
	const char *p = v;
	char *end;
	unsigned long long x;

	if (p[0] == '0' && (p[1] == 'x' || p[1] == 'X'))
		p += 2;
	errno = 0;
	if (!((*p >= '0' && *p <= '9') || (*p >= 'a' && *p <= 'f') || (*p >= 'A' && *p <= 'F')))
		goto bad;
	x = strtoull(p, &end, 16);
	if (errno || *end != '\0' || x == 0)
		goto bad;
	*out = x;
	return 0;
bad:
	return ERR("option -p: bad port mask '%s'; expected a non-zero hexadecimal mask of 64 bits at most, bit N for port N, e.g. -p 0x3 (ports 0 and 1) or -p f",
		   v);
}

int l2fwd_portmap_parse(struct l2fwd_opts *o, const char *s, char *err, size_t errlen)
{
	const char *p = s;
	uint64_t seen = 0;
	unsigned n = 0;

#define PM_BAD(why, ...) ERR("option --portmap: bad port map '%s': " why "; expected pairs of port numbers in parentheses, each port once, e.g. --portmap \"(0,1)(2,3)\"", s, ##__VA_ARGS__)
	while (*p == ' ')
		p++;
	if (*p == '\0')
		return PM_BAD("it is empty");
	while (*p != '\0') {
		unsigned long v[2];
		char *end;

		if (*p != '(')
			return PM_BAD("expected '(' at '%s'", p);
		p++;
		for (int i = 0; i < 2; i++) {
			if (*p < '0' || *p > '9')
				return PM_BAD("expected a port number at '%s'", p);
			v[i] = strtoul(p, &end, 10);
			if (v[i] >= L2FWD_MAX_PORTS)
				return PM_BAD("port %lu is out of range (0..%u)", v[i], L2FWD_MAX_PORTS - 1);
			p = end;
			if (*p != (i == 0 ? ',' : ')'))
				return PM_BAD("expected '%c' at '%s'", i == 0 ? ',' : ')', *p ? p : "the end");
			p++;
		}
		if (v[0] == v[1])
			return PM_BAD("pair (%lu,%lu) names one port twice", v[0], v[1]);
		for (int i = 0; i < 2; i++) {
			if (seen & (1ull << v[i]))
				return PM_BAD("port %lu is in two pairs", v[i]);
			seen |= 1ull << v[i];
		}
		o->pairs[n][0] = (uint16_t)v[0];
		o->pairs[n][1] = (uint16_t)v[1];
		n++;
		while (*p == ' ')
			p++;
	}
#undef PM_BAD
	o->nb_pairs = n;
	return 0;
}

static int parse_mode(const char *v, enum unic_rx_mode *m, char *err, size_t errlen)
{
	if (strcmp(v, "poll") == 0)
		*m = UNIC_RX_MODE_POLL;
	else if (strcmp(v, "interrupt") == 0)
		*m = UNIC_RX_MODE_INTERRUPT;
	else if (strcmp(v, "hybrid") == 0)
		*m = UNIC_RX_MODE_HYBRID;
	else
		return ERR("option --rx-mode: unknown mode '%s'; expected poll, interrupt or hybrid (--rx-mode MODE or --rx-mode=MODE)", v);
	return 0;
}

static int parse_stats_format(const char *v, enum l2fwd_stats_format *f, char *err, size_t errlen)
{
	if (strcmp(v, "text") == 0)
		*f = L2FWD_STATS_TEXT;
	else if (strcmp(v, "json") == 0)
		*f = L2FWD_STATS_JSON;
	else if (strcmp(v, "dpdk") == 0)
		*f = L2FWD_STATS_DPDK;
	else
		return ERR("option --stats-format: unknown format '%s'; expected text, json or dpdk (--stats-format FORMAT or --stats-format=FORMAT)", v);
	return 0;
}

enum opt_id {
	O_PORTMASK, O_QUEUES, O_PERIOD, O_PROMISC, O_NO_MAC, O_MAC, O_PORTMAP, O_MODE,
	O_BUDGET, O_WEIGHT, O_EMPTY, O_IDLE, O_TARGET, O_CPU, O_MODER, O_RETRY, O_MAXSLEEP, O_RXD, O_TXD,
	O_JSON, O_DURATION, O_HELP, O_NB_QUEUES, O_NO_IRQAFF, O_IRQAFF,
	O_STATS_FORMAT, O_TX_DRAIN, O_STAMP_AGE,
};

struct opt_def {
	char s;          /* short name, or 0 */
	const char *l;   /* long name, or NULL */
	bool has_arg;
	enum opt_id id;
};

static const struct opt_def opt_defs[] = {
	{ 'p', "portmask", true, O_PORTMASK },
	{ 'q', "ports-per-thread", true, O_QUEUES },
	{ 'T', "stats-period", true, O_PERIOD },
	{ 'P', "promisc", false, O_PROMISC },
	{ 0, "no-mac-updating", false, O_NO_MAC },
	{ 0, "mac-updating", false, O_MAC },
	{ 0, "portmap", true, O_PORTMAP },
	{ 0, "rx-mode", true, O_MODE },
	{ 0, "budget", true, O_BUDGET },
	{ 0, "weight", true, O_WEIGHT },
	{ 0, "hybrid-empty-polls", true, O_EMPTY },
	{ 0, "hybrid-idle-us", true, O_IDLE },
	{ 0, "latency-target", true, O_TARGET },
	{ 0, "cpu-budget", true, O_CPU },
	{ 0, "tx-drain-us", true, O_TX_DRAIN },
	{ 0, "moderation", true, O_MODER },
	{ 0, "stamp-age", false, O_STAMP_AGE },
	{ 0, "retry-us", true, O_RETRY },
	{ 0, "max-sleep-ms", true, O_MAXSLEEP },
	{ 0, "rxd", true, O_RXD },
	{ 0, "txd", true, O_TXD },
	{ 0, "queues", true, O_NB_QUEUES },
	{ 0, "no-irq-affinity", false, O_NO_IRQAFF },
	{ 0, "irq-affinity", false, O_IRQAFF },
	{ 0, "json", false, O_JSON },
	{ 0, "stats-format", true, O_STATS_FORMAT },
	{ 't', "duration", true, O_DURATION },
	{ 'h', "help", false, O_HELP },
};

static int apply(struct l2fwd_opts *o, const struct opt_def *d, const char *name, const char *v,
		 char *err, size_t errlen)
{
	uint64_t x = 0;
	int rc = 0;

	switch (d->id) {
	case O_PORTMASK:
		return parse_portmask(v, &o->portmask, err, errlen);
	case O_QUEUES:
		rc = app_parse_u64(name, v, 1, L2FWD_MAX_THREAD_PORTS, &x, err, errlen);
		if (rc == 0) {
			o->ports_per_thread = (unsigned)x;
			o->ports_per_thread_set = true;
		}
		break;
	case O_PERIOD:
		return parse_seconds(name, v, &o->stats_period, err, errlen);
	case O_DURATION:
		return parse_seconds(name, v, &o->duration, err, errlen);
	case O_PROMISC:
		o->promisc = true;
		break;
	case O_NO_MAC:
		o->mac_updating = false;
		break;
	case O_MAC:
		o->mac_updating = true;
		break;
	case O_NO_IRQAFF:
		o->irq_affinity = false;
		break;
	case O_IRQAFF:
		o->irq_affinity = true;
		break;
	case O_PORTMAP:
		return l2fwd_portmap_parse(o, v, err, errlen);
	case O_MODE:
		return parse_mode(v, &o->mode, err, errlen);
	case O_BUDGET:
		rc = app_parse_u64(name, v, 1, UNIC_NAPI_BUDGET_MAX, &x, err, errlen);
		if (rc == 0)
			o->budget = (uint32_t)x;
		break;
	case O_WEIGHT:
		rc = app_parse_u64(name, v, 1, UNIC_NAPI_WEIGHT_MAX, &x, err, errlen);
		if (rc == 0)
			o->weight = (uint16_t)x;
		break;
	case O_EMPTY:
		rc = app_parse_u64(name, v, 1, UINT32_MAX, &x, err, errlen);
		if (rc == 0)
			o->hybrid_empty_polls = (uint32_t)x;
		break;
	case O_IDLE:
		rc = app_parse_u64(name, v, 1, UINT32_MAX, &x, err, errlen);
		if (rc == 0)
			o->hybrid_idle_us = (uint32_t)x;
		break;
	case O_TARGET:
		rc = app_parse_u64(name, v, 1, UNIC_NAPI_LATENCY_TARGET_MAX_US, &x, err, errlen);
		if (rc == 0)
			o->latency_target_us = (uint32_t)x;
		break;
	case O_CPU:
		rc = app_parse_u64(name, v, 1, 100, &x, err, errlen);
		if (rc == 0)
			o->cpu_budget = (uint32_t)x;
		break;
	case O_TX_DRAIN:
		rc = app_parse_u64(name, v, 0, L2FWD_TX_DRAIN_MAX_US, &x, err, errlen);
		if (rc == 0)
			o->tx_drain_us = (uint32_t)x;
		break;
	case O_MODER:
		if (strcmp(v, "adaptive") == 0)
			o->moderation_fixed = false;
		else if (strcmp(v, "fixed") == 0)
			o->moderation_fixed = true;
		else
			return ERR("option --moderation: unknown value '%s'; expected adaptive (the adaptive policy sets the devices' rx-usecs) or fixed (they keep theirs)", v);
		break;
	case O_STAMP_AGE:
		o->stamp_age = true;
		break;
	case O_RETRY:
		rc = app_parse_u64(name, v, 1, 1000000, &x, err, errlen);
		if (rc == 0)
			o->retry_us = (uint32_t)x;
		break;
	case O_MAXSLEEP:
		rc = app_parse_u64(name, v, 1, 60000, &x, err, errlen);
		if (rc == 0)
			o->max_sleep_ms = (uint32_t)x;
		break;
	case O_RXD:
		rc = app_parse_u64(name, v, 1, 32768, &x, err, errlen);
		if (rc == 0)
			o->rxd = (uint16_t)x;
		break;
	case O_TXD:
		rc = app_parse_u64(name, v, 1, 32768, &x, err, errlen);
		if (rc == 0)
			o->txd = (uint16_t)x;
		break;
	case O_NB_QUEUES:
		rc = app_parse_u64(name, v, 1, UNIC_PORT_MAX_QUEUES, &x, err, errlen);
		if (rc == 0)
			o->nb_queues = (uint16_t)x;
		break;
	case O_JSON:
		o->stats_format = L2FWD_STATS_JSON;
		break;
	case O_STATS_FORMAT:
		return parse_stats_format(v, &o->stats_format, err, errlen);
	case O_HELP:
		o->help = true;
		break;
	}
	return rc;
}

/* "-p" / "--portmask" for messages: the form of the option as documented. */
static void forms(const struct opt_def *d, char *buf, size_t len)
{
	if (!d->has_arg) {
		if (d->s && d->l)
			snprintf(buf, len, "-%c or --%s, without a value", d->s, d->l);
		else
			snprintf(buf, len, "--%s, without a value", d->l);
	} else if (d->s && d->l) {
		snprintf(buf, len, "-%c VALUE, -%cVALUE, --%s VALUE or --%s=VALUE", d->s, d->s, d->l, d->l);
	} else {
		snprintf(buf, len, "--%s VALUE or --%s=VALUE", d->l, d->l);
	}
}

int l2fwd_opts_parse(struct l2fwd_opts *o, int argc, char **argv, char *err, size_t errlen)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i], *val = NULL;
		const struct opt_def *d = NULL;
		char name[64], f[160];

		if (a[0] != '-' || a[1] == '\0')
			return ERR("unexpected argument '%s'; options start with '-' (see --help)", a);
		if (a[1] == '-') {
			const char *eq = strchr(a + 2, '=');
			size_t len = eq ? (size_t)(eq - a - 2) : strlen(a + 2);

			for (size_t k = 0; k < UNIC_ARRAY_SIZE(opt_defs); k++)
				if (opt_defs[k].l && strlen(opt_defs[k].l) == len &&
				    strncmp(opt_defs[k].l, a + 2, len) == 0)
					d = &opt_defs[k];
			snprintf(name, sizeof(name), "--%.*s", (int)(len < 50 ? len : 50), a + 2);
			if (d == NULL)
				return ERR("unknown option '%s' (see --help for the options)", a);
			if (eq && !d->has_arg) {
				forms(d, f, sizeof(f));
				return ERR("option %s takes no value; got '%s'; expected %s", name, a, f);
			}
			if (eq)
				val = eq + 1;
		} else {
			for (size_t k = 0; k < UNIC_ARRAY_SIZE(opt_defs); k++)
				if (opt_defs[k].s == a[1])
					d = &opt_defs[k];
			snprintf(name, sizeof(name), "-%c", a[1]);
			if (d == NULL)
				return ERR("unknown option '%s' (see --help for the options)", a);
			if (a[2] != '\0') {
				if (!d->has_arg) {
					forms(d, f, sizeof(f));
					return ERR("option %s takes no value; got '%s'; expected %s", name, a, f);
				}
				val = a + 2;
			}
		}
		if (d->has_arg && val == NULL) {
			forms(d, f, sizeof(f));
			if (i + 1 >= argc)
				return ERR("option %s: missing value at the end of the command line; expected %s", name, f);
			if (argv[i + 1][0] == '-' && argv[i + 1][1] != '\0')
				return ERR("option %s: missing value, got the option '%s' instead; expected %s",
					   name, argv[i + 1], f);
			val = argv[++i];
		}
		if (d->has_arg && val[0] == '\0') {
			forms(d, f, sizeof(f));
			return ERR("option %s: empty value; expected %s", name, f);
		}
		int rc = apply(o, d, name, val, err, errlen);

		if (rc)
			return rc;
	}
	/* The adaptive policy is hybrid's, in place of the fixed window
	 * (the engine refuses the rest; say it in the options' terms). */
	if ((o->latency_target_us || o->cpu_budget) && o->mode != UNIC_RX_MODE_HYBRID)
		return ERR("options --latency-target and --cpu-budget set the hybrid mode's adaptive policy; "
			   "--rx-mode is %s: drop them or use --rx-mode hybrid (the default)",
			   unic_rx_mode_name(o->mode));
	if ((o->latency_target_us || o->cpu_budget) && o->hybrid_idle_us)
		return ERR("option --hybrid-idle-us sets the fixed polling window, which --latency-target and "
			   "--cpu-budget replace with the adaptive policy: give one or the other");
	return 0;
}

int l2fwd_pair_ports(const struct l2fwd_opts *o, unsigned nb_ports, int *dst,
		     char *err, size_t errlen, char *note, size_t notelen)
{
	uint64_t all = nb_ports >= 64 ? UINT64_MAX : (1ull << nb_ports) - 1;
	uint64_t mask = o->portmask, mapped = 0;
	int used = 0, last = -1;

	if (note && notelen)
		note[0] = '\0';
	for (unsigned p = 0; p < nb_ports; p++)
		dst[p] = -1;
	if (nb_ports == 0)
		return ERR("no ports to forward between; give virtual ports (--vdev null0 --vdev null1) or PCI devices bound to vfio-pci (unic-devbind, then -a BDF)");
	if (mask & ~all) {
		int bad = __builtin_ctzll(mask & ~all);

		return ERR("option -p: port mask 0x%" PRIx64 " names port %d, but there %s %u port%s (0..%u); expected a mask within 0x%" PRIx64,
			   mask, bad, nb_ports == 1 ? "is" : "are", nb_ports, nb_ports == 1 ? "" : "s",
			   nb_ports - 1, all);
	}
	if (o->nb_pairs) {
		for (unsigned i = 0; i < o->nb_pairs; i++) {
			for (int k = 0; k < 2; k++) {
				unsigned p = o->pairs[i][k];

				if (p >= nb_ports)
					return ERR("option --portmap: port %u does not exist; there %s %u port%s (0..%u)",
						   p, nb_ports == 1 ? "is" : "are", nb_ports,
						   nb_ports == 1 ? "" : "s", nb_ports - 1);
				mapped |= 1ull << p;
			}
			dst[o->pairs[i][0]] = o->pairs[i][1];
			dst[o->pairs[i][1]] = o->pairs[i][0];
		}
		if (mask && mask != mapped) {
			uint64_t diff = mask ^ mapped;
			int p = __builtin_ctzll(diff);

			for (unsigned q = 0; q < nb_ports; q++)
				dst[q] = -1;
			return ERR("options -p and --portmap disagree: port %d is %s; the port mask must name exactly the ports of the map (0x%" PRIx64 "), or leave -p out",
				   p, (mask >> p) & 1 ? "in the port mask but in no pair of --portmap" :
				   "in --portmap but not in the port mask", mapped);
		}
		return (int)o->nb_pairs * 2;
	}
	if (mask == 0)
		mask = all;
	for (unsigned p = 0; p < nb_ports; p++) {
		if (!((mask >> p) & 1))
			continue;
		used++;
		if (last < 0) {
			last = (int)p;
		} else {
			dst[last] = (int)p;
			dst[p] = last;
			last = -1;
		}
	}
	if (last >= 0) {
		dst[last] = last;
		if (note && notelen)
			snprintf(note, notelen, "odd number of ports (%d): port %d has no pair and forwards to itself",
				 used, last);
	}
	return used;
}

int l2fwd_plan_threads(const struct l2fwd_opts *o, unsigned nb_used, unsigned nb_cores,
		       struct l2fwd_plan *pl, char *err, size_t errlen, char *note, size_t notelen)
{
	unsigned workers = nb_cores > 0 ? nb_cores - 1 : 0, q = o->ports_per_thread, need;

	memset(pl, 0, sizeof(*pl));
	if (note && notelen)
		note[0] = '\0';
	if (nb_used == 0)
		return ERR("no ports to forward between");
	if (nb_cores == 0) {
		pl->own_threads = true;
	} else if (!o->ports_per_thread_set) {
		/* Share the ports out over the worker cores, or give them all to
		 * the main core when it is the only one. */
		unsigned fwd = workers ? workers : 1;

		q = (nb_used + fwd - 1) / fwd;
		if (q > L2FWD_MAX_THREAD_PORTS)
			return ERR("%u ports over %u forwarding core%s is %u ports per thread, above the limit of %u; give more cores with -l",
				   nb_used, fwd, fwd == 1 ? "" : "s", q, L2FWD_MAX_THREAD_PORTS);
	}
	need = (nb_used + q - 1) / q;
	pl->per_thread = q;
	pl->nb_threads = need;
	if (nb_cores == 0 || need <= workers)
		return 0;
	if (need == workers + 1) {
		/* DPDK's l2fwd forwards on the main lcore as well. */
		pl->main_forwards = true;
		if (note && notelen && workers > 0)
			snprintf(note, notelen, "%u ports at %u per thread (-q %u) need %u forwarding threads and -l gives %u worker core%s: the main core forwards too and prints the statistics between bursts",
				 nb_used, q, q, need, workers, workers == 1 ? "" : "s");
		return 0;
	}
	return ERR("%u ports at %u per thread (-q %u) need %u forwarding cores, but -l gives %u (the main core, which forwards as well when the workers are one short, and %u worker%s); give more cores with -l, a larger -q, or leave -q out to share the ports out over the cores",
		   nb_used, q, q, need, nb_cores, workers, workers == 1 ? "" : "s");
}

void l2fwd_usage(FILE *f, const char *prog)
{
	fprintf(f,
		"Usage: %s [common options] [--] [-p PORTMASK] [-q N] [-T SECONDS] [-P] [options]\n"
		"Forward every frame received on a port to its paired port (docs/l2fwd.md).\n"
		"\n"
		"  -p, --portmask MASK      hexadecimal mask of the ports to use, bit N for port N\n"
		"                           (default: every port)\n"
		"  -q, --ports-per-thread N rx ports (queues) each forwarding thread polls, 1..%u;\n"
		"                           ports go to threads in order (default: shared out\n"
		"                           over the worker cores of -l; 1 without -l). The main\n"
		"                           core forwards too when the workers are one short, and\n"
		"                           alone with -l MAIN\n"
		"  -T, --stats-period SECS  print statistics every SECS seconds; 0: only the totals\n"
		"                           at exit (default 10; fractions allowed)\n"
		"  -t, --duration SECS      stop after SECS seconds (default: run until SIGINT/SIGTERM)\n"
		"  -P, --promisc            put the ports in promiscuous mode\n"
		"      --no-mac-updating    forward frames unchanged\n"
		"      --mac-updating       rewrite the Ethernet addresses (default): destination\n"
		"                           02:00:00:00:00:<out port>, source the out port's MAC\n"
		"      --portmap MAP        pairs of ports, e.g. \"(0,1)(2,3)\" (default: in order of\n"
		"                           the mask, 0<->1, 2<->3)\n"
		"      --rx-mode MODE       poll, interrupt or hybrid (default hybrid)\n"
		"      --budget N           packets per round over a thread's queues, 1..%u (default %u)\n"
		"      --weight N           packets per poll of one queue, 1..%u (default 32)\n"
		"      --hybrid-empty-polls N  hybrid: empty polls before sleeping (default %u)\n"
		"      --hybrid-idle-us N   hybrid: longest polling window without a packet (default %u)\n"
		"      --latency-target US  hybrid, adaptive policy: keep the median latency under US\n"
		"                           microseconds when the CPU budget allows (1..%u; default none)\n"
		"      --cpu-budget PCT     hybrid, adaptive policy: percent of a core a thread may spend\n"
		"                           busy-waiting on drained queues, 1..100 (default %u with\n"
		"                           --latency-target; either option turns the policy on)\n"
		"      --tx-drain-us N      hold a tx burst that comes less than N us after the last one\n"
		"                           on its queue, up to N us or %u frames: fewer doorbells for\n"
		"                           dense traffic (0..%u; default 0: every burst sent at once)\n"
		"      --moderation MODE    adaptive (default): the adaptive policy sets each device's\n"
		"                           interrupt moderation (rx-usecs); fixed: the devices keep\n"
		"                           theirs (docs/napi.md, \"The device's moderation\")\n"
		"      --stamp-age          time each frame that carries unic-pktgen's stamp from its\n"
		"                           send to this forwarder's handler, and to the return of its\n"
		"                           transmit call (the TSC both read: one machine or one VM);\n"
		"                           in the totals (costs a parse a frame)\n"
		"      --retry-us N         longest sleep while packets are held (default %u)\n"
		"      --max-sleep-ms N     longest sleep (default %u)\n"
		"      --rxd N, --txd N     rx/tx descriptors per queue (default: the driver's)\n"
		"      --queues N           rx and tx queues per port, 1..%u (default 1); RSS spreads\n"
		"                           flows over the rx queues (af_xdp: the interface does);\n"
		"                           rx queue N sends on tx queue N\n"
		"      --no-irq-affinity    leave the rx interrupts where the kernel put them\n"
		"      --irq-affinity       (default) interrupt and hybrid modes: move each rx queue's\n"
		"                           interrupt (Linux IRQ) to the core of the thread that\n"
		"                           polls it, when -l pins the threads (needs root)\n"
		"      --json               statistics as one JSON object per line\n"
		"      --stats-format FMT   text (default), json (as --json) or dpdk: DPDK l2fwd's\n"
		"                           screen (Port statistics, Aggregate statistics)\n"
		"  -h, --help               this text\n"
		"\n"
		"%s\n"
		"Exit status: 0 stopped normally (duration, SIGINT, SIGTERM); 1 setup or run-time\n"
		"failure; 2 bad command line (option, value, port mask or port map).\n",
		prog, L2FWD_MAX_THREAD_PORTS, UNIC_NAPI_BUDGET_MAX, UNIC_NAPI_BUDGET_DEFAULT,
		UNIC_NAPI_WEIGHT_MAX, UNIC_NAPI_EMPTY_POLLS_DEFAULT, UNIC_NAPI_IDLE_US_DEFAULT,
		UNIC_NAPI_LATENCY_TARGET_MAX_US, UNIC_NAPI_CPU_BUDGET_DEFAULT,
		L2FWD_TXB_MAX, L2FWD_TX_DRAIN_MAX_US, UNIC_NAPI_RETRY_US_DEFAULT, UNIC_NAPI_MAX_SLEEP_MS_DEFAULT, UNIC_PORT_MAX_QUEUES,
		unic_env_usage());
}

void l2fwd_napi_conf(const struct l2fwd_opts *o, struct unic_napi_conf *c)
{
	*c = (struct unic_napi_conf){
		.sz = sizeof(*c), .mode = o->mode, .budget = o->budget,
		.hybrid_empty_polls = o->hybrid_empty_polls,
		.hybrid_idle_us = o->hybrid_idle_us, .retry_us = o->retry_us,
		.max_sleep_ms = o->max_sleep_ms,
		.latency_target_us = o->latency_target_us, .cpu_budget = o->cpu_budget,
		.moderation_fixed = o->moderation_fixed,
	};
}
