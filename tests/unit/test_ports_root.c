/* SPDX-License-Identifier: BSD-3-Clause */
/*
 * Port tests that need root (CAP_NET_RAW, CAP_NET_ADMIN, CAP_SYS_ADMIN for a
 * network namespace of the test's own): real af_packet and af_xdp sockets
 * on a loopback, without the veth pairs and applications of the host
 * suite's Python tests. Suite `host`.
 */
#include <criterion/criterion.h>
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <net/if.h>
#include <sys/ioctl.h>
#include <sys/socket.h>
#include <unistd.h>
#include <linux/if_ether.h>
#include <linux/if_packet.h>

#include <unic/cycles.h>
#include <unic/log.h>
#include <unic/napi.h>
#include <unic/pool.h>
#include <unic/port.h>

#include "log_capture.h"
#include "port_fixture.h"

static struct unic_mem *mem;
static struct unic_pool *pool;

static void setup(void)
{
	logcap_start(UNIC_LOG_WARNING, 0);
	unic_log_set_level(-1, UNIC_LOG_WARNING);
	fixture_mem_pool(&mem, &pool, "root", 2048, 0);
}

static void teardown(void)
{
	fixture_mem_pool_free(mem, pool);
	logcap_stop();
}

TestSuite(ports_root, .init = setup, .fini = teardown);

/* ---- af_xdp ---------------------------------------------------------------- */

Test(ports_root, an_af_xdp_mtu_over_one_umem_chunk_is_refused_saying_there_is_no_multi_buffer_and_what_to_use)
{
	struct unic_port_conf c = { .sz = sizeof(c), .nb_rxq = 1, .nb_txq = 1, .mtu = 9000 };
	struct unic_port_info info;
	struct unic_port *p = NULL;

	cr_assert_eq(unic_vdev_create("af_xdp0,iface=lo", &p), 0);
	cr_assert_eq(unic_port_info_get(p, &info), 0);
	cr_assert_eq(info.max_mtu, 4096 - 256 - 22);
	cr_assert_eq(unic_port_configure(p, &c), -EINVAL);
	cr_assert(logcap_has("MTU 9000; this port takes 68..3818: a frame is one 4096-byte UMEM chunk"),
		  "%s", logcap_buf);
	cr_assert(logcap_has("AF_XDP multi-buffer"), "%s", logcap_buf);
	cr_assert(logcap_has("--vdev af_packet0,iface="), "%s", logcap_buf);
	logcap_clear();
	cr_assert_eq(unic_port_mtu_set(p, 3819), -EINVAL);
	cr_assert(logcap_has("MTU 3819; this port takes 68..3818: a frame is one"), "%s", logcap_buf);
	fixture_port_down(p);
}

/* ---- af_packet ------------------------------------------------------------ */

/* In a network namespace of its own (Criterion runs each test in its own
 * process), so nothing else on the machine sends on its loopback. */
static void private_loopback_up(void)
{
	struct ifreq ifr = { .ifr_name = "lo" };
	int fd;

	cr_assert_eq(unshare(CLONE_NEWNET), 0, "unshare(CLONE_NEWNET): %s (run as root)", strerror(errno));
	fd = socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0);
	cr_assert_geq(fd, 0);
	cr_assert_eq(ioctl(fd, SIOCGIFFLAGS, &ifr), 0);
	ifr.ifr_flags |= IFF_UP;
	cr_assert_eq(ioctl(fd, SIOCSIFFLAGS, &ifr), 0);
	close(fd);
}

/* One 60-byte broadcast frame of a local experimental EtherType on lo. */
static void lo_send_frame(void)
{
	struct sockaddr_ll sll = { .sll_family = AF_PACKET, .sll_ifindex = (int)if_nametoindex("lo"),
				   .sll_halen = ETH_ALEN };
	uint8_t f[60];
	int fd = socket(AF_PACKET, SOCK_RAW | SOCK_CLOEXEC, 0);

	memset(f, 0, sizeof(f));
	memset(f, 0xff, ETH_ALEN);
	f[6] = 0x02;
	f[12] = 0x88;
	f[13] = 0xb5;
	if (fd < 0)
		return;
	(void)sendto(fd, f, sizeof(f), 0, (struct sockaddr *)&sll, sizeof(sll));
	close(fd);
}

struct afp_intr_test {
	uint64_t handled;
	unsigned hook_calls;
	bool send_in_window;
};

static uint16_t afp_count_handler(struct unic_port *port, uint16_t q, struct unic_pkt **pkts, uint16_t n,
				  void *arg)
{
	struct afp_intr_test *t = arg;

	(void)port;
	(void)q;
	unic_pkt_free_bulk(pkts, n);
	t->handled += n;
	return n;
}

/* Sends once, exactly between the drained poll and the arm. */
static void afp_send_before_arm(struct unic_napi_ctx *ctx, struct unic_port *port, uint16_t q, void *arg)
{
	struct afp_intr_test *t = arg;

	(void)ctx;
	(void)port;
	(void)q;
	if (t->send_in_window && t->hook_calls++ == 0)
		lo_send_frame();
}

static void afp_run_until_handled(struct unic_napi_ctx *ctx, struct afp_intr_test *t, uint64_t want)
{
	uint64_t t0 = unic_time_ns();

	while (t->handled < want && unic_time_ns() - t0 < 2000000000ull)
		cr_assert_geq(unic_napi_run_once(ctx, 100000), 0);
}

static bool fd_readable(int fd)
{
	struct pollfd pfd = { .fd = fd, .events = POLLIN };

	return poll(&pfd, 1, 0) == 1 && (pfd.revents & POLLIN);
}

Test(ports_root, the_af_packet_socket_is_a_level_interrupt_that_wakes_on_a_frame_sent_before_the_arm_and_idles_quiet)
{
	struct unic_napi_conf conf = { .sz = sizeof(conf), .name = "afp", .mode = UNIC_RX_MODE_INTERRUPT };
	struct afp_intr_test t = { .send_in_window = true };
	struct unic_napi_hooks h = { .sz = sizeof(h), .pre_arm = afp_send_before_arm, .arg = &t };
	struct unic_intr_source src[2];
	struct unic_napi_ctx_stats st0, st;
	struct unic_napi_ctx *ctx;
	struct unic_port *port;
	uint64_t t0;

	private_loopback_up();
	port = fixture_port_create("af_packet0,iface=lo,tov=1");
	fixture_port_up(port, pool, 1, 0, UNIC_RX_MODE_INTERRUPT);
	cr_assert_eq(unic_port_intr_sources(port, src, 2), 1);
	/* Level-triggered, nothing to read: the socket is readable while a
	 * block is handed over, and acknowledging it is a no-op. */
	cr_assert_eq(src[0].kind, UNIC_INTR_SOCKET, "kind %d", (int)src[0].kind);

	ctx = unic_napi_ctx_create(&conf);
	cr_assert_not_null(ctx, "%s", logcap_buf);
	cr_assert_eq(unic_napi_hooks_set(ctx, &h), 0);
	cr_assert_eq(unic_napi_queue_add(ctx, port, 0, 64, afp_count_handler, &t), 0, "%s", logcap_buf);

	/* 1. A frame sent after the last poll found the ring empty, before
	 * the arm: the block it lands in is still open (the re-check cannot
	 * see it), so the socket's wake-up at the block's retirement is what
	 * ends the sleep. */
	afp_run_until_handled(ctx, &t, 1);
	cr_assert_geq(t.hook_calls, 1, "the pre-arm hook never ran");
	cr_assert_geq(t.handled, 1, "the frame sent in the window was not handled within 2 s");
	cr_assert_eq(unic_napi_ctx_stats_get(ctx, &st), 0);
	cr_assert_geq(st.interrupts + st.rechecks_caught, 1, "neither the socket nor the re-check saw it");

	/* 2. A frame the context has not polled yet: the socket is readable
	 * and acknowledging the source succeeds without reading it (reading
	 * a packet socket whose frames go to its ring finds nothing: an
	 * eventfd-style read fails with EAGAIN). */
	t.send_in_window = false;
	lo_send_frame();
	t0 = unic_time_ns();
	while (!fd_readable(src[0].fd) && unic_time_ns() - t0 < 1000000000ull)
		usleep(1000);
	cr_assert(fd_readable(src[0].fd), "the retired block did not make the socket readable");
	cr_assert_eq(unic_intr_source_ack(&src[0]), 0, "acknowledging a readable packet socket failed");
	afp_run_until_handled(ctx, &t, t.handled + 1);
	cr_assert(!fd_readable(src[0].fd), "a drained socket still reads as readable: a level "
					  "registration would wake the context forever");

	/* 3. Idle: level-triggered, the drained socket ends no sleep. */
	cr_assert_eq(unic_napi_ctx_stats_get(ctx, &st0), 0);
	t0 = unic_time_ns();
	while (unic_time_ns() - t0 < 300000000ull)
		cr_assert_geq(unic_napi_run_once(ctx, 100000), 0);
	cr_assert_eq(unic_napi_ctx_stats_get(ctx, &st), 0);
	cr_assert_eq(st.interrupts - st0.interrupts, 0, "%" PRIu64 " wake-ups by the socket at idle",
		     st.interrupts - st0.interrupts);

	unic_napi_ctx_destroy(ctx);
	fixture_port_down(port);
	cr_assert_eq(unic_pool_in_use_count(pool), 0);
}
