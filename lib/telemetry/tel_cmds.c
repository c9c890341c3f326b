/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * The built-in commands: ports, napi contexts, pools, CPU time. Each reads
 * through the owning module's API from the telemetry thread: a port through
 * a reference (a detached port answers -ENODEV), contexts and pools inside
 * their registries' foreach (not freed while read). docs/telemetry.md shows
 * their answers.
 */
#include <dirent.h>
#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "tel_priv.h"

/* ---- ports ------------------------------------------------------------------ */

static int tel_ports_list(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	uint16_t ids[UNIC_PORT_MAX];
	unsigned n = unic_port_list(ids, UNIC_PORT_MAX);

	(void)cmd, (void)param, (void)arg;
	unic_tel_out_printf(out, "[");
	for (unsigned i = 0; i < n && i < UNIC_PORT_MAX; i++)
		unic_tel_out_printf(out, "%s%u", i ? "," : "", ids[i]);
	unic_tel_out_printf(out, "]");
	return 0;
}

/* The port named by the parameter, with a reference (put it). */
static struct unic_port *tel_port(const char *cmd, const char *param, struct unic_tel_out *out)
{
	unsigned long id;
	struct unic_port *port;

	if (tel_param_id(cmd, param, UINT16_MAX, &id, out) < 0)
		return NULL;
	port = unic_port_get_by_id((uint16_t)id);
	if (port == NULL)
		unic_tel_out_error(out, "%s: no port %lu (/ports/list lists them)", cmd, id);
	return port;
}

static int tel_port_gone(const char *cmd, struct unic_port *port, int rc, struct unic_tel_out *out)
{
	unic_tel_out_error(out, "%s: port %u (%s): %s", cmd, unic_port_id(port), unic_port_name(port),
			   rc == -ENODEV ? "detached or closed" : strerror(-rc));
	unic_port_put(port);
	return rc;
}

static int tel_ports_info(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct unic_port *port = tel_port(cmd, param, out);
	struct unic_port_info info;
	struct unic_port_conf conf;
	struct unic_link link;
	uint8_t mac[UNIC_ETHER_ADDR_LEN];
	int rc;

	(void)arg;
	if (port == NULL)
		return -ENOENT;
	memset(&info, 0, sizeof(info));
	rc = unic_port_info_get(port, &info);
	if (rc < 0)
		return tel_port_gone(cmd, port, rc, out);
	unic_tel_out_printf(out, "{\"id\":%u,\"name\":", unic_port_id(port));
	unic_tel_out_str(out, unic_port_name(port));
	unic_tel_out_printf(out, ",\"driver\":");
	unic_tel_out_str(out, info.driver);
	unic_tel_out_printf(out, ",\"bus_addr\":");
	unic_tel_out_str(out, info.bus_addr);
	unic_tel_out_printf(out, ",\"state\":");
	unic_tel_out_str(out, unic_port_state_name(unic_port_state(port)));
	if (unic_port_mac_get(port, mac) == 0)
		unic_tel_out_printf(out, ",\"mac\":\"%02x:%02x:%02x:%02x:%02x:%02x\"", mac[0], mac[1],
				    mac[2], mac[3], mac[4], mac[5]);
	unic_tel_out_printf(out, ",\"numa_node\":%d,\"max_rxq\":%u,\"max_txq\":%u,\"rx_intr\":%s",
			    info.numa_node, info.max_rxq, info.max_txq, info.has_intr ? "true" : "false");
	if (unic_port_conf_get(port, &conf) == 0)
		unic_tel_out_printf(out, ",\"nb_rxq\":%u,\"nb_txq\":%u", conf.nb_rxq, conf.nb_txq);
	if (unic_port_link_get(port, &link) == 0)
		unic_tel_out_printf(out, ",\"link\":{\"up\":%s,\"speed_mbps\":%u,\"full_duplex\":%s}",
				    link.up ? "true" : "false", link.speed_mbps,
				    link.full_duplex ? "true" : "false");
	unic_tel_out_printf(out, "}");
	unic_port_put(port);
	return 0;
}

static void tel_u64_array(struct unic_tel_out *out, const char *key, const uint64_t *v, unsigned n)
{
	unic_tel_out_printf(out, ",\"%s\":[", key);
	for (unsigned i = 0; i < n; i++)
		unic_tel_out_printf(out, "%s%" PRIu64, i ? "," : "", v[i]);
	unic_tel_out_printf(out, "]");
}

static int tel_ports_stats(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct unic_port *port = tel_port(cmd, param, out);
	struct unic_port_stats *st;
	struct unic_port_conf conf;
	unsigned nrx = 0, ntx = 0;
	int rc;

	(void)arg;
	if (port == NULL)
		return -ENOENT;
	st = calloc(1, sizeof(*st));
	if (st == NULL) {
		unic_port_put(port);
		return -ENOMEM;
	}
	rc = unic_port_stats_get(port, st);
	if (rc < 0) {
		free(st);
		return tel_port_gone(cmd, port, rc, out);
	}
	if (unic_port_conf_get(port, &conf) == 0) {
		nrx = conf.nb_rxq < UNIC_PORT_MAX_QUEUES ? conf.nb_rxq : UNIC_PORT_MAX_QUEUES;
		ntx = conf.nb_txq < UNIC_PORT_MAX_QUEUES ? conf.nb_txq : UNIC_PORT_MAX_QUEUES;
	}
	unic_tel_out_printf(out, "{\"ipackets\":%" PRIu64 ",\"opackets\":%" PRIu64 ",\"ibytes\":%" PRIu64
			    ",\"obytes\":%" PRIu64 ",\"imissed\":%" PRIu64 ",\"ierrors\":%" PRIu64
			    ",\"oerrors\":%" PRIu64 ",\"rx_nombuf\":%" PRIu64,
			    st->ipackets, st->opackets, st->ibytes, st->obytes, st->imissed, st->ierrors,
			    st->oerrors, st->rx_nombuf);
	tel_u64_array(out, "q_ipackets", st->q_ipackets, nrx);
	tel_u64_array(out, "q_ibytes", st->q_ibytes, nrx);
	tel_u64_array(out, "q_opackets", st->q_opackets, ntx);
	tel_u64_array(out, "q_obytes", st->q_obytes, ntx);
	unic_tel_out_printf(out, "}");
	free(st);
	unic_port_put(port);
	return 0;
}

static int tel_ports_xstats(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct unic_port *port = tel_port(cmd, param, out);
	struct unic_xstat_name *names = NULL;
	uint64_t *values = NULL;
	int n, m, rc = 0;

	(void)arg;
	if (port == NULL)
		return -ENOENT;
	names = calloc(UNIC_PORT_MAX_XSTATS, sizeof(*names));
	values = calloc(UNIC_PORT_MAX_XSTATS, sizeof(*values));
	if (names == NULL || values == NULL) {
		rc = -ENOMEM;
		goto out;
	}
	n = unic_port_xstats_names(port, names, UNIC_PORT_MAX_XSTATS);
	m = unic_port_xstats_get(port, values, UNIC_PORT_MAX_XSTATS);
	if (n < 0 || m < 0) {
		free(names);
		free(values);
		return tel_port_gone(cmd, port, n < 0 ? n : m, out);
	}
	/* A queue may join or leave a context between the two calls: the
	 * shorter list, within the arrays. */
	if (n > m)
		n = m;
	if (n > UNIC_PORT_MAX_XSTATS)
		n = UNIC_PORT_MAX_XSTATS;
	unic_tel_out_printf(out, "{");
	for (int i = 0; i < n; i++) {
		unic_tel_out_printf(out, "%s", i ? "," : "");
		unic_tel_out_str(out, names[i].name);
		unic_tel_out_printf(out, ":%" PRIu64, values[i]);
	}
	unic_tel_out_printf(out, "}");
out:
	free(names);
	free(values);
	unic_port_put(port);
	return rc;
}

/* ---- napi --------------------------------------------------------------------- */

static int tel_napi_list_one(struct unic_napi_ctx *ctx, void *arg)
{
	struct unic_tel_out *out = arg;

	unic_tel_out_printf(out, "%s%u", out->buf[out->len - 1] == '[' ? "" : ",",
			    unic_napi_ctx_id(ctx));
	return 0;
}

static int tel_napi_list(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	(void)cmd, (void)param, (void)arg;
	unic_tel_out_printf(out, "[");
	unic_napi_ctx_foreach(tel_napi_list_one, out);
	unic_tel_out_printf(out, "]");
	return 0;
}

/* The most queues a context holds (unic_napi_conf max_queues). */
#define TEL_NAPI_QUEUES 1024

struct tel_napi_req {
	uint32_t id;
	bool found;
	int rc;
	struct unic_tel_out *out;
};

static void tel_latency(struct unic_tel_out *out, const uint64_t *hist)
{
	static const struct { const char *key; double p; } pct[] = {
		{ "p50", 0.5 }, { "p90", 0.9 }, { "p99", 0.99 }, { "p99_9", 0.999 }, { "max", 1.0 },
	};

	unic_tel_out_printf(out, ",\"wake_latency_ns\":{");
	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(pct); i++)
		unic_tel_out_printf(out, "%s\"%s\":%" PRIu64, i ? "," : "", pct[i].key,
				    unic_napi_hist_percentile(hist, UNIC_NAPI_HIST_BUCKETS, pct[i].p));
	unic_tel_out_printf(out, "}");
}

/* Under the registry lock: the context is not destroyed meanwhile. */
static int tel_napi_ctx_one(struct unic_napi_ctx *ctx, void *arg)
{
	struct tel_napi_req *r = arg;
	struct unic_tel_out *out = r->out;
	struct unic_napi_ctx_stats *st;
	struct unic_napi_queue_info *qi;
	int nq;

	if (unic_napi_ctx_id(ctx) != r->id)
		return 0;
	r->found = true;
	st = calloc(1, sizeof(*st));
	qi = calloc(TEL_NAPI_QUEUES, sizeof(*qi));
	if (st == NULL || qi == NULL) {
		r->rc = -ENOMEM;
		goto out;
	}
	unic_napi_ctx_stats_get(ctx, st);
	nq = unic_napi_queues_get(ctx, qi, TEL_NAPI_QUEUES);
	if (nq > TEL_NAPI_QUEUES)
		nq = TEL_NAPI_QUEUES;
	unic_tel_out_printf(out, "{\"id\":%u,\"name\":", r->id);
	unic_tel_out_str(out, unic_napi_ctx_name(ctx));
	unic_tel_out_printf(out, ",\"mode\":\"%s\"", unic_rx_mode_name(unic_napi_ctx_mode(ctx)));
	unic_tel_out_printf(out, ",\"rounds\":%" PRIu64 ",\"polls\":%" PRIu64 ",\"empty_polls\":%" PRIu64
			    ",\"packets\":%" PRIu64 ",\"refused\":%" PRIu64 ",\"injected\":%" PRIu64
			    ",\"dropped\":%" PRIu64 ",\"arms\":%" PRIu64 ",\"arm_failures\":%" PRIu64
			    ",\"rechecks_caught\":%" PRIu64 ",\"interrupts\":%" PRIu64
			    ",\"wakeups\":%" PRIu64 ",\"sleeps\":%" PRIu64 ",\"asleep_ns\":%" PRIu64
			    ",\"sleeps_retry\":%" PRIu64 ",\"tx_reclaimed\":%" PRIu64 ",\"cpu_ns\":%" PRIu64
			    ",\"wake_latency_samples\":%" PRIu64,
			    st->rounds, st->polls, st->empty_polls, st->packets, st->refused, st->injected,
			    st->dropped, st->arms, st->arm_failures, st->rechecks_caught, st->interrupts,
			    st->wakeups, st->sleeps, st->asleep_ns, st->sleeps_retry, st->tx_reclaimed,
			    st->cpu_ns, st->wake_latency_samples);
	unic_tel_out_printf(out, ",\"adaptive\":{\"busy_polls_kept\":%" PRIu64 ",\"sleeps_avoided\":%" PRIu64
			    ",\"busy_wait_ns\":%" PRIu64 ",\"budget_arms\":%" PRIu64 ",\"prewakes\":%" PRIu64
			    ",\"target_met\":%" PRIu64 ",\"target_missed\":%" PRIu64 ",\"target_early\":%" PRIu64 ",\"target_late_wake\":%" PRIu64
			    ",\"target_after_window\":%" PRIu64 ",\"target_no_window\":%" PRIu64
			    ",\"est_wake_ns\":%" PRIu64 ",\"est_gap_ns\":%" PRIu64
			    ",\"budget_left_ns\":%" PRIu64 ",\"moderation_set\":%" PRIu64 "}",
			    st->busy_polls_kept, st->sleeps_avoided, st->busy_wait_ns, st->budget_arms,
			    st->prewakes, st->target_met, st->target_missed, st->target_early, st->target_late_wake, st->target_after_window,
			    st->target_no_window, st->est_wake_ns, st->est_gap_ns,
			    st->budget_left_ns, st->moderation_set);
	tel_latency(out, st->wake_latency_ns);
	unic_tel_out_printf(out, ",\"queues\":[");
	for (int i = 0; i < nq; i++) {
		const struct unic_napi_queue_stats *q = &qi[i].stats;

		unic_tel_out_printf(out, "%s{\"port\":%u,\"port_name\":", i ? "," : "", qi[i].port_id);
		unic_tel_out_str(out, qi[i].port_name);
		unic_tel_out_printf(out, ",\"queue\":%u,\"weight\":%u,\"polls\":%" PRIu64
				    ",\"empty_polls\":%" PRIu64 ",\"packets\":%" PRIu64
				    ",\"refused\":%" PRIu64 ",\"injected\":%" PRIu64 ",\"dropped\":%" PRIu64
				    ",\"arms\":%" PRIu64 ",\"arm_failures\":%" PRIu64
				    ",\"rechecks_caught\":%" PRIu64 ",\"interrupts\":%" PRIu64
				    ",\"gap_ns\":%" PRIu64 ",\"moderation\":\"%s\",\"moderation_us\":%" PRId64
				    ",\"moderation_effect_us\":%" PRId64 "}",
				    qi[i].q, qi[i].weight, q->polls, q->empty_polls, q->packets, q->refused,
				    q->injected, q->dropped, q->arms, q->arm_failures, q->rechecks_caught,
				    q->interrupts, qi[i].gap_ns, qi[i].moderation_fixed ? "fixed" : "adaptive",
				    qi[i].moderation_us, qi[i].moderation_effect_us);
	}
	unic_tel_out_printf(out, "]}");
out:
	free(st);
	free(qi);
	return 1;
}

static int tel_napi_ctx(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct tel_napi_req r = { .out = out };
	unsigned long id;

	(void)arg;
	if (tel_param_id(cmd, param, UINT32_MAX, &id, out) < 0)
		return -EINVAL;
	r.id = (uint32_t)id;
	unic_napi_ctx_foreach(tel_napi_ctx_one, &r);
	if (!r.found) {
		unic_tel_out_error(out, "%s: no napi context %lu (/napi/list lists them)", cmd, id);
		return -ENOENT;
	}
	return r.rc;
}

/* ---- pools -------------------------------------------------------------------- */

static int tel_pool_one(struct unic_pool *pool, void *arg)
{
	struct unic_tel_out *out = arg;
	struct unic_pool_stats st;

	unic_pool_stats_get(pool, &st);
	unic_tel_out_printf(out, "%s{\"name\":", out->buf[out->len - 1] == '[' ? "" : ",");
	unic_tel_out_str(out, pool->name);
	unic_tel_out_printf(out, ",\"size\":%u,\"in_use\":%u,\"avail\":%u,\"cache\":%u,\"cache_size\":%u"
			    ",\"obj_size\":%u,\"packet_pool\":%s,\"numa_node\":%d,\"get_fail\":%" PRIu64 "}",
			    pool->count, unic_pool_in_use_count(pool), unic_pool_avail_count(pool),
			    unic_pool_cache_count(pool), pool->cache_size, pool->obj_size,
			    pool->is_pktpool ? "true" : "false", unic_pool_numa_node(pool), st.get_fail);
	return 0;
}

static int tel_mem_pools(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	(void)cmd, (void)param, (void)arg;
	unic_tel_out_printf(out, "[");
	unic_pool_foreach(tel_pool_one, out);
	unic_tel_out_printf(out, "]");
	return 0;
}

/* ---- CPU time ------------------------------------------------------------------- */

static double tel_ts_s(const struct timespec *ts)
{
	return (double)ts->tv_sec + (double)ts->tv_nsec / 1e9;
}

/*
 * A thread's CPU time: the kernel's per-thread CPU clock of that tid (the
 * encoding of a thread clock id, include/linux/posix-timers.h: ~tid << 3,
 * per-thread bit 4, CPUCLOCK_SCHED 2; the kernel accepts it for the
 * threads of the caller's own process), else utime + stime of its stat.
 */
static double tel_thread_cpu(long tid)
{
	clockid_t clk = (clockid_t)((~(unsigned)tid << 3) | 4 | 2);
	struct timespec ts;
	char path[64], buf[1024], *p;
	unsigned long ut, st;
	FILE *f;

	if (clock_gettime(clk, &ts) == 0)
		return tel_ts_s(&ts);
	snprintf(path, sizeof(path), "/proc/self/task/%ld/stat", tid);
	f = fopen(path, "r");
	if (f == NULL)
		return 0;
	p = fgets(buf, sizeof(buf), f);
	fclose(f);
	if (p == NULL || (p = strrchr(buf, ')')) == NULL ||
	    sscanf(p + 2, "%*c %*d %*d %*d %*d %*d %*u %*u %*u %*u %*u %lu %lu", &ut, &st) != 2)
		return 0;
	return (double)(ut + st) / (double)sysconf(_SC_CLK_TCK);
}

static int tel_proc_cpu(const char *cmd, const char *param, struct unic_tel_out *out, void *arg)
{
	struct timespec ts = { 0, 0 };
	struct dirent *de;
	DIR *d;
	bool first = true;

	(void)cmd, (void)param, (void)arg;
	clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
	unic_tel_out_printf(out, "{\"pid\":%ld,\"cpu_seconds\":%.6f,\"threads\":[", (long)getpid(),
			    tel_ts_s(&ts));
	d = opendir("/proc/self/task");
	while (d && (de = readdir(d)) != NULL) {
		char path[64], name[32] = "";
		long tid;
		FILE *f;

		if (de->d_name[0] < '0' || de->d_name[0] > '9')
			continue;
		tid = strtol(de->d_name, NULL, 10);
		snprintf(path, sizeof(path), "/proc/self/task/%ld/comm", tid);
		f = fopen(path, "r");
		if (f) {
			if (fgets(name, sizeof(name), f))
				name[strcspn(name, "\n")] = '\0';
			fclose(f);
		}
		unic_tel_out_printf(out, "%s{\"tid\":%ld,\"name\":", first ? "" : ",", tid);
		unic_tel_out_str(out, name);
		unic_tel_out_printf(out, ",\"cpu_seconds\":%.6f}", tel_thread_cpu(tid));
		first = false;
	}
	if (d)
		closedir(d);
	unic_tel_out_printf(out, "]}");
	return 0;
}

int tel_cmds_register(struct unic_telemetry *tel)
{
	static const struct {
		const char *name;
		unic_telemetry_cb cb;
		const char *help;
	} cmds[] = {
		{ "/ports/list", tel_ports_list, "the port ids" },
		{ "/ports/info", tel_ports_info, "a port's driver, state, MAC, queues and link: /ports/info,N" },
		{ "/ports/stats", tel_ports_stats, "a port's counters, per queue too: /ports/stats,N" },
		{ "/ports/xstats", tel_ports_xstats, "a port's extended counters by name: /ports/xstats,N" },
		{ "/napi/list", tel_napi_list, "the napi context ids" },
		{ "/napi/context", tel_napi_ctx,
		  "a napi context's mode, counters, wake latency percentiles and queues: /napi/context,N" },
		{ "/mem/pools", tel_mem_pools, "every pool: size, in use, in the threads' caches" },
		{ "/proc/cpu", tel_proc_cpu, "CPU seconds (user + system) of the process and of each thread" },
	};

	for (unsigned i = 0; i < UNIC_ARRAY_SIZE(cmds); i++) {
		int rc = unic_telemetry_register(tel, cmds[i].name, cmds[i].cb, NULL, cmds[i].help);

		if (rc < 0)
			return rc;
	}
	return 0;
}
