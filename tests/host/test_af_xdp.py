# SPDX-License-Identifier: BSD-3-Clause
"""The af_xdp port on veth pairs (docs/ports.md, "af_xdp"; docs/testing.md).

unic-pktgen in one process and unic-l2fwd in another, each on af_xdp ports
over veth pairs in a namespace of their own; the Linux stack of two
namespaces talking through unic-l2fwd; the errors a user meets. Needs root.
Binaries from the environment (tests/host/apps.py).
"""
import hashlib
import json
import os
import subprocess
import time
import unittest

import hostnet
from apps import ENV, L2FWD
import apps

FOREIGN_PROG = "/usr/lib/x86_64-linux-gnu/bpf/xdpfilt_alw_all.o"


def l2fwd(ns, if_a, if_b, extra=(), devargs=""):
    """unic-l2fwd forwarding between af_xdp ports on if_a and if_b."""
    return apps.L2fwd(ns, [f"af_xdp0,iface={if_a}{devargs}", f"af_xdp1,iface={if_b}{devargs}"],
                      ["--no-mac-updating", "-P", "--log-level", "pmd:info"] + list(extra))


class Forwarding(unittest.TestCase):
    """unic-pktgen -> veth -> unic-l2fwd -> veth -> unic-pktgen, all af_xdp."""

    @classmethod
    def setUpClass(cls):
        cls.net = hostnet.Net()
        # No IPv6 autoconfiguration frames on the pairs: only pktgen's.
        cls.ns = cls.net.ns("f", quiet=True)
        cls.p0, cls.p1 = cls.net.veth("p0", cls.ns, "p1", cls.ns)
        cls.p2, cls.p3 = cls.net.veth("p2", cls.ns, "p3", cls.ns)

    @classmethod
    def tearDownClass(cls):
        cls.net.close()

    def test_100000_frames_of_60_to_1514_bytes_cross_l2fwd_none_lost_none_reordered(self):
        before = {i: self.net.link_stats(i, self.ns) for i in (self.p1, self.p3)}
        fwd = l2fwd(self.ns, self.p1, self.p2)
        try:
            pout, rep = self.pktgen(100000)
        finally:
            out = fwd.stop()
        self.assertEqual(rep["sent"], 100000, pout)
        self.assertEqual(rep["received"], 100000, pout)
        self.assertEqual(rep["lost"], 0)
        self.assertEqual(rep["reordered"], 0)
        self.assertEqual(rep["duplicated"], 0)
        self.assertEqual(apps.l2fwd_totals(out), (100000, 100000), out)
        after = {i: self.net.link_stats(i, self.ns) for i in (self.p1, self.p3)}
        # The kernel's counters agree: p1 received what pktgen sent (and the
        # XDP program redirected it to l2fwd's socket), p3 what l2fwd sent.
        # veth counts rx bytes without the 14-byte Ethernet header.
        for i in (self.p1, self.p3):
            self.assertEqual(after[i]["rx_packets"] - before[i]["rx_packets"], 100000, i)
            self.assertEqual(after[i]["rx_bytes"] - before[i]["rx_bytes"],
                             rep["rx_port_stats"]["ibytes"] - 14 * 100000, i)
        self.assertEqual(rep["rx_port_stats"]["ibytes"], rep["tx_port_stats"]["obytes"])

    def test_rings_smaller_than_the_default_forward_too(self):
        # The rx queue's pool check counted a transmit queue not set up yet
        # at the driver's default (4096): l2fwd, whose pool is sized for
        # --txd 1024, was refused ("pool l2fwd has 5312 packets but the
        # port's queues may hold 5536": tx 4096 counted). Transmit queues
        # are set up first now, in l2fwd and testpmd.
        fwd = l2fwd(self.ns, self.p1, self.p2, ["--rxd", "1024", "--txd", "1024"])
        try:
            pout, rep = self.pktgen(10000)
        finally:
            out = fwd.stop()
        self.assertEqual((rep["received"], rep["lost"]), (10000, 0), pout)
        # One pool per port: each sized for its own rx ring and the tx ring
        # its packets are forwarded to.
        self.assertIn("port 0 (af_xdp0): pool l2fwd-af_xdp0 of", out)
        self.assertIn("rx descriptors 1024 + tx descriptors 1024 of port 1", out)
        self.assertIn("rx descriptors 1024 + tx descriptors 1024 of port 0", out)

    def pktgen(self, count, devargs=""):
        rep, out = apps.pktgen(self.ns, [f"af_xdp0,iface={self.p0}{devargs}", f"af_xdp1,iface={self.p3}{devargs}"],
                               ["--tx-port", "0", "--rx-port", "1", "--size-range", "60-1514",
                                "--count", str(count), "--rate", "60000pps", "-P"])
        return out, rep

    def test_a_users_xdp_program_the_copy_layout_and_busy_polling_forward_every_frame_too(self):
        prog = "/usr/lib/x86_64-linux-gnu/bpf/xsk_def_xdp_prog.o"
        fwd = l2fwd(self.ns, self.p1, self.p2, devargs=f",xdp_prog={prog},xdp_prog_sec=xdp,pool_umem=0,busy_budget=64")
        try:
            out, rep = self.pktgen(20000)
        finally:
            l2 = fwd.stop()
        self.assertIn(f"XDP program {prog}", l2)
        self.assertIn("copying between the UMEM and pool", l2)
        self.assertIn("; busy polling", l2)
        # Each pktgen port's own pool is its UMEM.
        self.assertIn("af_xdp0: queue 0 on", out)
        self.assertIn("packets of pool 'pktgen-af_xdp0' are the UMEM frames (no copy)", out)
        self.assertIn("packets of pool 'pktgen-af_xdp1' are the UMEM frames (no copy)", out)
        self.assertEqual((rep["received"], rep["lost"], rep["reordered"]), (20000, 0, 0), out)
        for ifn in (self.p1, self.p2):
            link = json.loads(self.ns.run(["ip", "-j", "link", "show", ifn]).stdout)[0]
            self.assertNotIn("xdp", link, f"{ifn}: the user's program is detached at stop")

    def test_hybrid_mode_idles_below_one_percent_of_a_core(self):
        fwd = l2fwd(self.ns, self.p1, self.p2, ["--rx-mode", "hybrid"])
        try:
            time.sleep(0.3)
            c0, t0 = apps.cpu_seconds(fwd.pid()), time.monotonic()
            time.sleep(2)
            c1, t1 = apps.cpu_seconds(fwd.pid()), time.monotonic()
        finally:
            out = fwd.stop()
        share = (c1 - c0) / (t1 - t0)
        self.assertLess(share, 0.01, f"{share:.2%} of a core while idle\n{out}")


class Queues(unittest.TestCase):
    """queue_count=2: one socket per queue, frames arriving on both."""

    def test_flows_sent_over_two_veth_queues_arrive_on_queue_0_and_queue_1_none_lost(self):
        # veth hands a frame to the peer's rx queue numbered as the tx queue
        # it was sent on, and the kernel picks that queue by the flow's hash
        # (veth has no XPS map; an af_packet socket that does not bypass the
        # qdisc goes through that choice): 64 UDP flows from unic-pktgen on
        # af_packet spread over both. unic-testpmd forwards rx queue q of one
        # af_xdp port to tx queue q of the other (l2fwd would want RSS).
        with hostnet.Net() as net:
            ns = net.ns("q", quiet=True)
            x0, x1 = net.veth("x0", ns, "x1", ns, queues=2)
            y0, y1 = net.veth("y0", ns, "y1", ns, queues=2)
            tp = apps.Testpmd(ns, [f"af_xdp0,iface={x1},queue_count=2", f"af_xdp1,iface={y1},queue_count=2"],
                              "start\nsleep 9000\nstop\nshow port xstats 0\nshow port xstats 1\n",
                              ["--rxq", "2", "--txq", "2", "--forward-mode", "io"])
            deadline = time.monotonic() + 10
            while "xdp" not in json.loads(ns.run(["ip", "-j", "link", "show", y1]).stdout)[0]:
                self.assertLess(time.monotonic(), deadline, "unic-testpmd did not bind its sockets in 10 s")
                time.sleep(0.05)
            time.sleep(0.5)
            rep, pout = apps.pktgen(ns, [f"af_packet0,iface={x0}", f"af_packet1,iface={y0}"],
                                    ["--tx-port", "0", "--rx-port", "1", "-P", "--count", "20000",
                                     "--rate", "10kpps", "--src-port", "1000-1063", "--drain", "2"])
            out = tp.wait(60)
        self.assertEqual(tp.p.returncode, 0, out)
        self.assertEqual((rep["received"], rep["lost"], rep["duplicated"]), (20000, 0, 0), pout)
        rx, tx = apps.testpmd_xstats(out, 0), apps.testpmd_xstats(out, 1)
        self.assertEqual(rx["rx_q0_packets"] + rx["rx_q1_packets"], 20000, out)
        for q in (0, 1):
            self.assertGreater(rx[f"rx_q{q}_packets"], 2000, f"rx queue {q} nearly idle:\n{out}")
            self.assertEqual(tx[f"tx_q{q}_packets"], rx[f"rx_q{q}_packets"], out)

    def test_l2fwd_with_two_queues_forwards_flows_on_both_none_lost(self):
        # The same two-queue veth pairs behind unic-l2fwd --queues 2: the
        # af_xdp port has no RSS to configure (rss_hash_capa 0) but its rx
        # queues are the interface's, filled by the kernel, so l2fwd takes
        # several; its thread polls both, rx queue q sending on tx queue q.
        with hostnet.Net() as net:
            ns = net.ns("l", quiet=True)
            x0, x1 = net.veth("x0", ns, "x1", ns, queues=2)
            y0, y1 = net.veth("y0", ns, "y1", ns, queues=2)
            fwd = apps.L2fwd(ns, [f"af_xdp0,iface={x1},queue_count=2", f"af_xdp1,iface={y1},queue_count=2"],
                             ["--no-mac-updating", "-P", "--queues", "2", "--json"])
            try:
                time.sleep(0.5)
                rep, pout = apps.pktgen(ns, [f"af_packet0,iface={x0}", f"af_packet1,iface={y0}"],
                                        ["--tx-port", "0", "--rx-port", "1", "-P", "--count", "20000",
                                         "--rate", "10kpps", "--src-port", "1000-1063", "--drain", "2"])
            finally:
                out = fwd.stop()
        self.assertEqual((rep["received"], rep["lost"], rep["duplicated"]), (20000, 0, 0), pout)
        last = json.loads([line for line in out.splitlines() if line.startswith("{")][-1])
        ports = {pt["port"]: pt for pt in last["ports"]}
        self.assertEqual(sum(ports[0]["q_ipackets"]), 20000, out)
        for q in (0, 1):
            self.assertGreater(ports[0]["q_ipackets"][q], 2000, f"rx queue {q} nearly idle:\n{out}")
            self.assertEqual(ports[1]["q_opackets"][q], ports[0]["q_ipackets"][q], out)


class LinuxStack(unittest.TestCase):
    """Two namespaces whose veth peers unic-l2fwd holds on af_xdp."""

    def test_ping_and_a_tcp_transfer_go_through_unic_intact(self):
        with hostnet.Net() as net:
            a, b, f = net.ns("a"), net.ns("b"), net.ns("f")
            _, a1 = net.veth("a0", a, "a1", f, addrs=("10.77.0.1/24", None))
            _, b1 = net.veth("b0", b, "b1", f, addrs=("10.77.0.2/24", None))
            # The stacks must put real checksums in their frames: with tx
            # checksum offload on, veth hands on frames whose TCP checksum is
            # only the pseudo-header's (CHECKSUM_PARTIAL), which an AF_XDP
            # socket copies as they are and the other stack then drops.
            a.run(["ethtool", "-K", net.name("a0"), "tx", "off"])
            b.run(["ethtool", "-K", net.name("b0"), "tx", "off"])
            fwd = l2fwd(f, a1, b1)
            try:
                a.run(["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.77.0.2"], timeout=20)
                data = os.urandom(4 << 20)
                server = b.popen(["python3", "-c", (
                    "import socket,hashlib\n"
                    "s=socket.socket(); s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)\n"
                    "s.bind(('10.77.0.2', 5201)); s.listen(1); c,_=s.accept(); h=hashlib.sha256(); n=0\n"
                    "while True:\n"
                    "    d=c.recv(65536)\n"
                    "    if not d: break\n"
                    "    h.update(d); n+=len(d)\n"
                    "print(n, h.hexdigest())\n")], stdout=subprocess.PIPE, text=True)
                time.sleep(0.3)
                client = a.popen(["python3", "-c", (
                    "import socket,sys\n"
                    "d=sys.stdin.buffer.read(); s=socket.create_connection(('10.77.0.2', 5201), timeout=20)\n"
                    "s.sendall(d); s.close()\n")], stdin=subprocess.PIPE)
                client.communicate(data, timeout=30)
                got, _ = server.communicate(timeout=30)
            finally:
                out = fwd.stop()
            self.assertEqual(client.returncode, 0)
            self.assertEqual(got.split(), [str(len(data)), hashlib.sha256(data).hexdigest()], out)
            rx, tx = apps.l2fwd_totals(out)
            self.assertGreater(rx, 3 * 2 + len(data) // 1500, out)


class Control(unittest.TestCase):
    """MAC, link, MTU from and to the interface; stop and start again."""

    def test_mac_link_and_mtu_are_the_interfaces_and_a_restart_rebinds(self):
        with hostnet.Net() as net:
            ns = net.ns("c")
            x0, _ = net.veth("c0", ns, "c1", ns)
            mac = json.loads(ns.run(["ip", "-j", "link", "show", x0]).stdout)[0]["address"]
            script = ("show port info 0\n"
                      "set link down 0\nshow port link 0\nset link up 0\nshow port link 0\n"
                      "port stop 0\nport config mtu 0 1400\nport start 0\nshow port info 0\n")
            rc, out = apps.testpmd(ns, [f"af_xdp0,iface={x0}"], script)
            self.assertEqual(rc, 0, out)
            self.assertIn(f"MAC address: {mac.upper()}", out)
            self.assertIn("Driver name: af_xdp", out)
            self.assertIn("Port 0 Link down", out)
            self.assertIn("Port 0 Link up - speed 10 Gbps - full-duplex", out)
            self.assertIn("Port 0: started", out, "stop then start binds the queue again")
            self.assertIn(f"MTU of {x0} set to 1400 (it was 1500; put back at close)", out)
            self.assertIn("MTU: 1400", out)
            link = json.loads(ns.run(["ip", "-j", "link", "show", x0]).stdout)[0]
            self.assertEqual(link["mtu"], 1500, "the MTU is put back at close")
            self.assertNotIn("PROMISC", link["flags"])


class Drops(unittest.TestCase):
    """What the socket cannot take is counted, and agrees with the kernel."""

    def test_frames_beyond_the_fill_ring_are_counted_in_imissed_and_xsk_rx_dropped(self):
        with hostnet.Net() as net:
            ns = net.ns("d", quiet=True)
            x0, x1 = net.veth("d0", ns, "d1", ns)
            before = net.link_stats(x1, ns)
            # testpmd starts the port and never polls it (no 'start'):
            # 4096 frames (the default ring) fill the fill ring's packets,
            # the rest are dropped.
            tp = apps.Testpmd(ns, [f"af_xdp0,iface={x1}"], "sleep 2500\nshow port xstats 0\nshow port stats 0\n")
            time.sleep(1)
            # Exits 1: none came back (nothing forwards them).
            apps.pktgen(ns, [f"af_xdp0,iface={x0}"], ["--tx-port", "0", "--rx-port", "0", "--size", "60",
                                                      "--count", "6000", "--drain", "0.1"], timeout=30, check=False)
            out = tp.wait(30)  # testpmd quits after the script
            after = net.link_stats(x1, ns)
            kernel = after["rx_dropped"] - before["rx_dropped"]
            self.assertEqual(after["rx_packets"] - before["rx_packets"], 6000)
            self.assertEqual(kernel, 6000 - 4096, out)
            self.assertIn(f"xsk_rx_dropped: {kernel}", out)
            self.assertRegex(out, rf"RX-missed: +{kernel}\b")


class Errors(unittest.TestCase):
    """What a user meets, each with a message that names the fix."""

    @classmethod
    def setUpClass(cls):
        cls.net = hostnet.Net()
        cls.ns = cls.net.ns("e")
        cls.x0, cls.x1 = cls.net.veth("x0", cls.ns, "x1", cls.ns)

    @classmethod
    def tearDownClass(cls):
        cls.net.close()

    def l2fwd(self, spec, prefix=()):
        r = self.ns.run(list(prefix) + [L2FWD] + ENV + ["--vdev", spec, "--vdev", f"af_xdp1,iface={self.x1}",
                                                        "-t", "0.2", "-T", "0"], check=False, timeout=30)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        return r.stdout

    def test_an_interface_that_does_not_exist_is_named_with_how_to_list_them(self):
        out = self.l2fwd("af_xdp0,iface=nosuch0")
        self.assertIn("no interface 'nosuch0' in this network namespace", out)
        self.assertIn("ip link", out)

    def test_without_cap_net_raw_the_message_names_the_capabilities(self):
        out = self.l2fwd(f"af_xdp0,iface={self.x0}",
                         ["setpriv", "--bounding-set", "-net_raw,-bpf,-net_admin,-sys_admin,-perfmon",
                          "--inh-caps", "-all"])
        self.assertIn("CAP_NET_RAW", out)
        self.assertIn("setcap", out)

    def test_a_queue_beyond_the_interfaces_channels_says_ethtool_l(self):
        out = self.l2fwd(f"af_xdp0,iface={self.x0},start_queue=1")
        # veth counts rx and tx channels, not combined ones.
        self.assertIn(f"ethtool -L {self.x0} rx 2 tx 2", out)

    def test_an_xdp_program_libxdp_cannot_share_is_named_with_how_to_remove_it(self):
        if not os.path.exists(FOREIGN_PROG):
            self.fail(f"{FOREIGN_PROG} missing: apt-get install xdp-tools")
        self.ns.run(["ip", "link", "set", "dev", self.x0, "xdpgeneric", "obj", FOREIGN_PROG, "sec", "xdp"])
        try:
            out = self.l2fwd(f"af_xdp0,iface={self.x0}")
        finally:
            self.ns.run(["ip", "link", "set", "dev", self.x0, "xdpgeneric", "off"])
        self.assertIn("'xdpfilt_alw_all' attached", out)
        self.assertIn(f"ip link set dev {self.x0} xdp off", out)

    def test_a_program_left_by_a_killed_process_is_taken_over_and_detached_at_exit(self):
        p = self.ns.popen([L2FWD] + ENV + ["--vdev", f"af_xdp0,iface={self.x0}",
                                           "--vdev", f"af_xdp1,iface={self.x1}", "-T", "0"],
                          stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        deadline = time.time() + 10
        while "xdp" not in json.loads(self.ns.run(["ip", "-j", "link", "show", self.x1]).stdout)[0]:
            self.assertLess(time.time(), deadline)
            time.sleep(0.05)
        p.kill()
        p.wait()
        left = json.loads(self.ns.run(["ip", "-j", "link", "show", self.x0]).stdout)[0]
        self.assertIn("xdp", left, "the killed process left its program (the case under test)")
        r = self.ns.run([L2FWD] + ENV + ["--vdev", f"af_xdp0,iface={self.x0}",
                                         "--vdev", f"af_xdp1,iface={self.x1}", "-t", "0.2", "-T", "0"],
                        timeout=30)
        self.assertIn("reusing it", r.stdout)
        for ifn in (self.x0, self.x1):
            link = json.loads(self.ns.run(["ip", "-j", "link", "show", ifn]).stdout)[0]
            self.assertNotIn("xdp", link, f"{ifn} still has an XDP program:\n{r.stdout}")


if __name__ == "__main__":
    unittest.main()
