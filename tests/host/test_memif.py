# SPDX-License-Identifier: BSD-3-Clause
"""memif ports across processes, judged by DPDK 22.11's net_memif.

dpdk-testpmd (Debian's dpdk package) as the server and unic as the client,
then the other way round: DPDK txonly and unic rxonly, the receiver counts
what the sender counts; unic sending, DPDK (io) sends every frame back and
unic-pktgen checks that all came back in order. Then frames forwarded through both
(unic-pktgen -> dpdk-testpmd io -> unic-l2fwd -> unic-pktgen), unic <-> unic
(unic-pktgen and unic-l2fwd, 100 000 frames of 60..1514 bytes at a paced
rate: none lost, none reordered), and unic-l2fwd's CPU when idle in hybrid
mode. Sockets are abstract, named after this process: nothing on disk.

Environment: UNIC_TESTPMD, UNIC_L2FWD, UNIC_PKTGEN (the binaries, set by meson;
tests/host/apps.py runs them); DPDK_TESTPMD (default: dpdk-testpmd on PATH).
"""
import os
import re
import shutil
import subprocess
import time
import unittest

import apps

DPDK = os.environ.get("DPDK_TESTPMD") or shutil.which("dpdk-testpmd")
SEQ = [0]


def sock(tag):
    SEQ[0] += 1
    return f"unic-host-memif-{os.getpid()}-{SEQ[0]}-{tag}"


def dpdk(vdevs, fwd, prefix):
    """dpdk-testpmd, non-interactive: a newline on stdin stops it and it
    prints its totals."""
    if DPDK is None:
        raise AssertionError("dpdk-testpmd not found: apt-get install -y dpdk (tools/install-deps)")
    argv = [DPDK, "--no-pci", "--no-huge", "-m", "512", "--file-prefix", prefix, "-l", "0-1"]
    argv += [f"--vdev={v}" for v in vdevs]
    # --no-flush-rx: testpmd otherwise drops what its rx queues hold when it
    # starts forwarding, and a unic peer that connected during testpmd's
    # link check has sent frames by then.
    argv += ["--", f"--forward-mode={fwd}", "--auto-start", "--total-num-mbufs=16384",
             "--no-lsc-interrupt", "--no-flush-rx"]
    return subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True)


def dpdk_stop(p):
    try:
        out, _ = p.communicate("\n", timeout=20)
    except subprocess.TimeoutExpired:
        p.kill()
        out, _ = p.communicate()
    return out


def dpdk_fwd_totals(out):
    """RX-packets and TX-packets of the last 'Forward statistics for port N'
    block of each port, as {port: (rx, tx)}."""
    res = {}
    for m in re.finditer(r"Forward statistics for port (\d+)\s+-+\s+RX-packets: (\d+).*?\n\s+TX-packets: (\d+)",
                         out, re.S):
        res[int(m.group(1))] = (int(m.group(2)), int(m.group(3)))
    return res



def assert_all_back(tc, rep, n, ctx):
    """unic-pktgen's report says n frames went out and all came back, none
    lost, reordered or duplicated."""
    tc.assertIsNotNone(rep, ctx)
    tc.assertEqual(rep["sent"], n, ctx)
    tc.assertEqual(rep["received"], n, ctx)
    tc.assertEqual(rep["lost"], 0, ctx)
    tc.assertEqual(rep["reordered"], 0, ctx)
    tc.assertEqual(rep["duplicated"], 0, ctx)

class MemifAgainstDpdk(unittest.TestCase):
    def dpdk_sends_unic_receives(self, unic_role):
        """dpdk-testpmd txonly, unic-testpmd rxonly: what DPDK counts as sent
        (its port's tx counter) unic counts as received, frame for frame."""
        s = sock("txrx")
        dpdk_role = "client" if unic_role == "server" else "server"
        unic_vdev = f"memif0,role={unic_role},id=7,socket={s}"
        dpdk_vdev = f"net_memif0,role={dpdk_role},id=7,socket={s}"
        script = "start\nsleep 5000\nshow port stats 0\nshow port xstats 0\nquit\n"
        if unic_role == "server":
            u = apps.Testpmd(None, [unic_vdev], script, ["--forward-mode", "rxonly"])
            time.sleep(0.3)
            d = dpdk([dpdk_vdev], "txonly", f"unicm{os.getpid()}")
        else:
            d = dpdk([dpdk_vdev], "txonly", f"unicm{os.getpid()}")
            time.sleep(1.0)
            u = apps.Testpmd(None, [unic_vdev], script, ["--forward-mode", "rxonly"])
        time.sleep(3.5)
        dout = dpdk_stop(d)  # stops sending, prints its totals, then disconnects
        uout = u.wait()
        urx, _ = apps.testpmd_port_stats(uout)
        dtx = dpdk_fwd_totals(dout).get(0, (None, None))[1]
        self.assertGreater(urx, 10000, "unic received almost nothing:\n" + uout + dout)
        # DPDK stops and disconnects at once: what it had put in the ring
        # and unic had not read yet goes with the connection, counted.
        m = re.findall(r"rx_lost_at_disconnect: (\d+)", uout)
        self.assertTrue(m, "no rx_lost_at_disconnect in unic-testpmd's xstats:\n" + uout)
        lost = int(m[-1])
        self.assertLessEqual(lost, 1024, "more frames lost at the disconnect than a ring holds")
        self.assertEqual(urx + lost, dtx, f"DPDK sent {dtx}, unic received {urx} and counted "
                         f"{lost} left in the ring at the disconnect\n{uout}\n{dout}")
        self.assertIn("rx_bad_desc: 0", uout)
        self.assertIn(f"memif connected ({unic_role}, id 7)", uout)

    def unic_sends_dpdk_echoes(self, unic_role):
        """unic-pktgen sends, dpdk-testpmd (io, one port) sends each frame
        back: every frame comes back, in order. (dpdk-testpmd's rx counters
        of a net_memif port cannot judge this: in 22.11 they read 0 on a
        server while connected and are zeroed at a disconnect.)"""
        s = sock("echo")
        dpdk_role = "client" if unic_role == "server" else "server"
        pg_vdevs = [f"memif0,role={unic_role},id=3,socket={s},rsize=13"]
        pg_args = ["--tx-port", "0", "--rx-port", "0", "--size-range", "60-1514",
                   "--count", "10000", "--rate", "5000pps", "--drain", "15", "-l", "0"]
        if unic_role == "server":
            pg = apps.Pktgen(None, pg_vdevs, pg_args)
            time.sleep(0.3)
            d = dpdk([f"net_memif0,role={dpdk_role},id=3,socket={s},rsize=13"], "io", f"unice{os.getpid()}")
        else:
            d = dpdk([f"net_memif0,role={dpdk_role},id=3,socket={s},rsize=13"], "io", f"unice{os.getpid()}")
            time.sleep(1.0)
            pg = apps.Pktgen(None, pg_vdevs, pg_args)
        rep, out = pg.report(timeout=40, check=False)
        dout = dpdk_stop(d)
        self.assertIsNotNone(rep, out)
        ctx = f"\npktgen: {out}\ndpdk: {dout[-3000:]}"
        assert_all_back(self, rep, 10000, ctx)
        self.assertIn(f"memif connected ({unic_role}, id 3)", out)

    def test_dpdk_server_gets_and_returns_every_frame_a_unic_client_sends(self):
        self.unic_sends_dpdk_echoes("client")

    def test_a_unic_client_receives_every_frame_a_dpdk_server_sends(self):
        self.dpdk_sends_unic_receives("client")

    def test_dpdk_client_gets_and_returns_every_frame_a_unic_server_sends(self):
        self.unic_sends_dpdk_echoes("server")

    def test_a_unic_server_receives_every_frame_a_dpdk_client_sends(self):
        self.dpdk_sends_unic_receives("server")

    def test_frames_forwarded_through_dpdk_and_unic_arrive_all_and_in_order(self):
        # unic-pktgen -> [A] dpdk-testpmd io [B] -> unic-l2fwd [C] -> unic-pktgen
        a, b, c = sock("a"), sock("b"), sock("c")
        d = dpdk([f"net_memif0,role=server,socket={a}", f"net_memif1,role=server,socket={b}"],
                 "io", f"unicf{os.getpid()}")
        time.sleep(1.0)
        l2 = apps.L2fwd(None, [f"memif0,socket={b},rsize=12", f"memif1,role=server,socket={c}"],
                        ["-l", "0", "--no-mac-updating"])
        time.sleep(0.5)
        rep, pout = apps.pktgen(None, [f"memif0,socket={a},rsize=12", f"memif1,socket={c},rsize=12"],
                                ["--tx-port", "0", "--rx-port", "1", "--size-range", "60-1514",
                                 "--count", "20000", "--rate", "10000pps", "--drain", "15", "-l", "0"],
                                timeout=40, check=False)
        dout = dpdk_stop(d)
        l2out = l2.stop()
        ctx = f"\npktgen: {pout}\nl2fwd: {l2out}\ndpdk: {dout[-3000:]}"
        self.assertIsNotNone(rep, ctx)
        assert_all_back(self, rep, 20000, ctx)


class MemifUnicToUnic(unittest.TestCase):
    def test_100000_frames_of_60_to_1514_bytes_through_unic_l2fwd_none_lost_none_reordered(self):
        a, b = sock("a"), sock("b")
        l2 = apps.L2fwd(None, [f"memif0,role=server,socket={a}", f"memif1,role=server,socket={b}"],
                        ["--no-mac-updating"])
        rep, pout = apps.pktgen(None, [f"memif0,socket={a},rsize=13", f"memif1,socket={b},rsize=13"],
                                ["--tx-port", "0", "--rx-port", "1", "--size-range", "60-1514",
                                 "--count", "100000", "--rate", "50000pps", "--drain", "15"],
                                timeout=40, check=False)
        l2out = l2.stop()
        ctx = f"\npktgen: {pout}\nl2fwd: {l2out}"
        assert_all_back(self, rep, 100000, ctx)
        self.assertEqual(rep["tx_port_stats"]["opackets"], 100000, ctx)
        self.assertEqual(rep["rx_port_stats"]["ipackets"], 100000, ctx)

    def test_hybrid_unic_l2fwd_on_idle_memif_links_uses_under_1_percent_of_a_core(self):
        a, b = sock("a"), sock("b")
        l2 = apps.L2fwd(None, [f"memif0,role=server,socket={a}", f"memif1,role=server,socket={b}"],
                        ["--rx-mode", "hybrid"])
        script = "start\nsleep 6000\nquit\n"
        peers = [apps.Testpmd(None, [f"memif0,socket={s}"], script, ["--forward-mode", "rxonly"])
                 for s in (a, b)]
        time.sleep(1.5)  # both links up, the first wake-ups over
        c0, t0 = apps.cpu_seconds(l2.pid()), time.monotonic()
        time.sleep(3.0)
        used = (apps.cpu_seconds(l2.pid()) - c0) / (time.monotonic() - t0)
        l2out = l2.stop()
        for p in peers:
            p.wait()
        self.assertIn("port memif0: link up", l2out)
        self.assertIn("port memif1: link up", l2out)
        self.assertLess(used, 0.01, f"unic-l2fwd used {used * 100:.2f}% of a core while idle\n{l2out}")



class MemifZeroCopyClient(unittest.TestCase):
    """unic-pktgen's memif ports as zero-copy clients (zero-copy=yes: the
    pool's packets are lent to the server), against a unic server and
    against DPDK 22.11's net_memif server, which maps whatever regions the
    client sends: 100 000 frames of 60..1514 bytes at a paced rate go out
    and come back through the lent pool, none lost, none reordered. Then
    unic-l2fwd as the zero-copy client. Each port of unic-pktgen and
    unic-l2fwd lends a pool of its own, never one another port uses."""

    ARGS = ["--size-range", "60-1514", "--count", "100000", "--rate", "50000pps", "--drain", "15"]

    def check(self, rep, ctx, out):
        assert_all_back(self, rep, 100000, ctx)
        self.assertIn("the server can read and write every packet of this pool", out)

    def assert_own_pools(self, out, app, ports, ctx):
        """Each zero-copy port lends one region, its own pool (named
        "<app>-<port>", of the packets the application made for that port),
        so a server sees none of another port's packets."""
        lent = {}
        for port, pool, count, region in re.findall(
                r"(memif\d+): memif zero-copy: pool (\S+) \((\d+) packets\) lent to the server as region (\d+)",
                out):
            lent.setdefault(port, []).append((pool, int(count), int(region)))
        self.assertEqual(sorted(lent), sorted(ports), ctx)
        for port in ports:
            self.assertEqual(len(lent[port]), 1, f"{port} lends one region{ctx}")
            pool, count, region = lent[port][0]
            self.assertEqual(pool, f"{app}-{port}", f"{port} lends a pool of its own{ctx}")
            self.assertEqual(region, 1, ctx)
        self.assertEqual(len({lent[p][0][0] for p in ports}), len(ports),
                         f"no two ports lend the same pool{ctx}")
        return {p: lent[p][0][1] for p in ports}

    def test_zero_copy_client_through_a_unic_server_none_lost_none_reordered(self):
        a, b = sock("za"), sock("zb")
        l2 = apps.L2fwd(None, [f"memif0,role=server,socket={a}", f"memif1,role=server,socket={b}"],
                        ["--no-mac-updating"])
        rep, pout = apps.pktgen(None, [f"memif0,socket={a},rsize=13,zero-copy=yes",
                                       f"memif1,socket={b},rsize=13,zero-copy=yes"],
                                ["--tx-port", "0", "--rx-port", "1"] + self.ARGS,
                                timeout=40, check=False)
        l2out = l2.stop()
        ctx = f"\npktgen: {pout}\nl2fwd: {l2out}"
        self.check(rep, ctx, pout)
        self.assertEqual(rep["tx_port_stats"]["opackets"], 100000, ctx)
        self.assertEqual(rep["rx_port_stats"]["ipackets"], 100000, ctx)
        self.assert_own_pools(pout, "pktgen", ["memif0", "memif1"], ctx)

    def test_l2fwd_zero_copy_clients_lend_each_port_its_own_pool_none_lost(self):
        """unic-l2fwd's two ports as zero-copy clients of unic-pktgen's
        servers: each lends only its own pool (a frame received on memif0
        goes out on memif1 copied into memif1's region 0, never as a
        buffer of memif0's pool), and all frames come back in order."""
        a, b = sock("la"), sock("lb")
        pg = apps.Pktgen(None, [f"memif0,role=server,socket={a},rsize=13",
                                f"memif1,role=server,socket={b},rsize=13"],
                         ["--tx-port", "0", "--rx-port", "1"] + self.ARGS)
        l2 = apps.L2fwd(None, [f"memif0,socket={a},rsize=13,zero-copy=yes",
                               f"memif1,socket={b},rsize=13,zero-copy=yes"],
                        ["--no-mac-updating"])
        rep, pout = pg.report(timeout=60, check=False)
        l2out = l2.stop()
        ctx = f"\npktgen: {pout}\nl2fwd: {l2out}"
        assert_all_back(self, rep, 100000, ctx)
        counts = self.assert_own_pools(l2out, "l2fwd", ["memif0", "memif1"], ctx)
        for i, port in enumerate(["memif0", "memif1"]):
            self.assertIn(f"l2fwd: port {i} ({port}): pool l2fwd-{port} of {counts[port]} packets", l2out, ctx)

    def test_zero_copy_client_through_a_dpdk_server_none_lost_none_reordered(self):
        s = sock("zd")
        d = dpdk([f"net_memif0,role=server,id=5,socket={s},rsize=13"], "io", f"unicz{os.getpid()}")
        # testpmd serves the socket once its own start-up (link check) is
        # over; on a loaded machine that takes over a second.
        time.sleep(2.0)
        rep, pout = apps.pktgen(None, [f"memif0,id=5,socket={s},rsize=13,zero-copy=yes"],
                                ["--tx-port", "0", "--rx-port", "0"] + self.ARGS,
                                timeout=40, check=False)
        dout = dpdk_stop(d)
        ctx = f"\npktgen: {pout}\ndpdk: {dout[-3000:]}"
        self.check(rep, ctx, pout)
        self.assertIn("memif connected (client, id 5)", pout)


if __name__ == "__main__":
    unittest.main()
