/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * What the unic-testpmd tests share: see testpmd_fixture.h.
 */
#include <criterion/criterion.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <unic/cycles.h>
#include <unic/env.h>
#include <unic/log.h>
#include <unic/pool.h>

#include "testpmd.h"
#include "port_fixture.h"
#include "run_binary.h"
#include "testpmd_fixture.h"

/* ---- the engines, in this process --------------------------------------------- */

struct unic_env *env;
struct tp_app *app;
struct unic_port *far;     /* ring41: the test's side of the pair */
uint16_t near_id;          /* ring40: testpmd's port */
struct unic_pool *far_pool;
char *outbuf;
size_t outlen;

void eng_setup(void)
{
	struct unic_env_options o;
	struct unic_port *p = NULL;

	unic_log_set_level(-1, UNIC_LOG_ERR);
	memset(&o, 0, sizeof(o));
	o.no_huge = true;
	o.no_pci = true;
	env = unic_env_create(&o);
	cr_assert_not_null(env);
	app = calloc(1, sizeof(*app));
	app->out = open_memstream(&outbuf, &outlen);
	app->err = app->out;
	cr_assert_eq(tp_app_init(app, env), 0);
	app->engine = TP_FWD_IO;
	app->burst = 32;
	app->nbcore = 1;
	app->txpkts[0] = 64;
	app->nb_txpkts = 1;
	app->def_rxq = app->def_txq = 1;
	app->def_mode = UNIC_RX_MODE_HYBRID;
	cr_assert_eq(unic_vdev_create("ring40", &p), 0);
	cr_assert_eq(tp_port_add(app, p, true), 0);
	near_id = unic_port_id(p);
	unic_port_put(p);
	cr_assert_eq(tp_port_start(app, near_id), 0);

	/* The far side: ring41, driven by the test. */
	struct unic_pktpool_conf pc = { .sz = sizeof(pc), .name = "far", .mem = unic_env_mem(env),
					  .count = 4096, .numa_node = -1 };

	far_pool = unic_pktpool_create(&pc);
	cr_assert_not_null(far_pool);
	far = fixture_port_create("ring41,peer=ring40");
	fixture_port_up(far, far_pool, 1, 1024, UNIC_RX_MODE_DEFAULT);
}

void eng_teardown(void)
{
	/* Close the far side first: its ring holds packets of testpmd's pools,
	 * which tp_app_fini frees; testpmd's ring holds packets of far_pool. */
	unic_port_stop(far);
	unic_port_close(far);
	tp_app_fini(app);
	unic_port_detach(far);
	unic_port_put(far);
	unic_pool_destroy(far_pool);
	fclose(app->out);
	free(outbuf);
	free(app);
	unic_env_destroy(env);
}

int exec(const char *line)
{
	static struct tp_cmd c;
	char e[2048];

	cr_assert_eq(tp_cmd_parse(line, &c, e, sizeof(e)), TP_PARSE_OK, "%s: %s", line, e);
	return tp_exec(app, &c);
}

int execf(const char *fmt, ...)
{
	char line[512];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	return exec(line);
}

const char *printed(void)
{
	static size_t from;
	static char buf[1 << 18];
	size_t n;

	fflush(app->out);
	if (from > outlen)
		from = 0;
	n = outlen - from < sizeof(buf) - 1 ? outlen - from : sizeof(buf) - 1;
	memcpy(buf, outbuf + from, n);
	buf[n] = '\0';
	from = outlen;
	return buf;
}

/* Send @p n frames from the far side: dst 0a:.., src 0b:.., byte 12 = index. */
void far_send(unsigned n)
{
	struct unic_pkt *p[64];

	cr_assert_leq(n, 64);
	cr_assert_eq(unic_pkt_alloc_bulk(far_pool, p, n), 0);
	for (unsigned i = 0; i < n; i++) {
		uint8_t *d = unic_pkt_data(p[i]);

		memset(d, 0x0a, 6);
		memset(d + 6, 0x0b, 6);
		memset(d + 12, (int)i, 52);
		p[i]->data_len = p[i]->pkt_len = 64;
	}
	cr_assert_eq(unic_tx_burst(far, 0, p, (uint16_t)n), n);
}

/* Receive at least @p n frames on the far side within 5 s. */
unsigned far_recv(struct unic_pkt **p, unsigned n)
{
	unsigned got = 0;
	uint64_t end = unic_time_ns() + 5000000000ull;

	while (got < n && unic_time_ns() < end) {
		got += unic_rx_burst(far, 0, p + got, (uint16_t)(n - got));
		if (got < n)
			usleep(1000);
	}
	return got;
}

uint16_t be16(const uint8_t *p)
{
	return (uint16_t)(p[0] << 8 | p[1]);
}

uint16_t sum16(uint32_t s, const uint8_t *p, size_t n)
{
	for (size_t i = 0; i + 1 < n; i += 2)
		s += be16(p + i);
	if (n & 1)
		s += (uint32_t)p[n - 1] << 8;
	while (s >> 16)
		s = (s & 0xffff) + (s >> 16);
	return (uint16_t)s;
}

/* ---- the binary ---------------------------------------------------------------------- */

const char *binary(void)
{
	return binary_path("UNIC_TESTPMD");
}

/*
 * Run the binary with @p args and the script @p script (as -f FILE, or on
 * stdin with @p on_stdin); stdout and stderr into buf. @return exit status.
 */
int run_ex(const char *args, const char *script, bool on_stdin, char *buf, size_t len)
{
	char path[] = "/tmp/test_testpmd_XXXXXX", cmdline[2048];
	int fd = mkstemp(path), st;

	cr_assert_geq(fd, 0);
	cr_assert_eq(write(fd, script, strlen(script)), (ssize_t)strlen(script));
	close(fd);
	if (on_stdin)
		snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci %s < %s 2>&1", binary(), args, path);
	else
		snprintf(cmdline, sizeof(cmdline), "%s --no-huge --no-pci %s -f %s 2>&1 < /dev/null", binary(),
			 args, path);
	st = binary_run(cmdline, buf, len);
	unlink(path);
	return st;
}

int run(const char *args, const char *script, char *buf, size_t len)
{
	return run_ex(args, script, false, buf, len);
}

/* The number after @p key, in the text after @p anchor (which must be there). */
uint64_t num_after(const char *s, const char *anchor, const char *key)
{
	const char *a = strstr(s, anchor), *k;

	cr_assert_not_null(a, "'%s' not in:\n%s", anchor, s);
	k = strstr(a, key);
	cr_assert_not_null(k, "'%s' not after '%s' in:\n%s", key, anchor, s);
	return strtoull(k + strlen(key), NULL, 10);
}

char out[1 << 18];
