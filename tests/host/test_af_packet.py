# SPDX-License-Identifier: BSD-3-Clause
"""The af_packet port on real veth pairs (docs/ports.md, "af_packet"): root only.

unic-pktgen in one process and unic-l2fwd in another, each on its own ends
of veth pairs in a namespace the test makes; the Linux stack of two more
namespaces talking through unic-l2fwd; hybrid mode at idle; the errors a
user meets. Binaries from the environment (tests/host/apps.py).
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


def quiet_ns(net, short):
    return net.ns(short, quiet=True)


class AfPacket(unittest.TestCase):
    def test_pktgen_to_l2fwd_in_another_process_loses_nothing_and_counts_agree_with_the_kernel(self):
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            a0, a1 = net.veth("a0", u, "a1", u)
            b0, b1 = net.veth("b0", u, "b1", u)
            # Rings of 4 MiB: room for the forwarder to be descheduled a
            # while on a loaded machine without a loss.
            big = ",framecnt=2048"
            fwd = apps.L2fwd(u, [f"af_packet0,iface={a1}{big}", f"af_packet1,iface={b1}{big}"], ["--json", "-P"])
            k0 = {n: net.link_stats(n, u) for n in (a0, a1, b0, b1)}
            r, _ = apps.pktgen(u, [f"af_packet0,iface={a0}{big}", f"af_packet1,iface={b0}{big}"],
                       ["--tx-port", "0", "--rx-port", "1", "-P", "--count", "100000",
                        "--rate", "25kpps", "--size-range", "60-1514", "--drain", "2"])
            tot = fwd.stop_totals()
            k = {n: {c: v - k0[n][c] for c, v in net.link_stats(n, u).items()} for n in k0}
        self.assertEqual(r["sent"], 100000, r)
        self.assertEqual(r["lost"], 0, r)
        self.assertEqual(r["reordered"], 0, r)
        self.assertEqual(r["duplicated"], 0, r)
        # Each count against the kernel's (ip -s link) on the same interface.
        self.assertEqual(r["tx_port_stats"]["opackets"], k[a0]["tx_packets"])
        self.assertEqual(r["tx_port_stats"]["obytes"], k[a0]["tx_bytes"])
        self.assertEqual(r["rx_port_stats"]["ipackets"], k[b0]["rx_packets"])
        self.assertEqual(r["rx_port_stats"]["ibytes"], k[b0]["rx_bytes"])
        p0, p1 = tot["ports"][0], tot["ports"][1]
        self.assertEqual(p0["ipackets"], k[a1]["rx_packets"])
        self.assertEqual(p0["ipackets"], 100000)
        self.assertEqual(p1["opackets"], k[b1]["tx_packets"])
        self.assertEqual(p1["opackets"], 100000)
        self.assertEqual(p0["ierrors"] + p0["imissed"] + p1["oerrors"] + p1["dropped"], 0, tot)

    def test_jumbo_frames_up_to_9000_bytes_cross_a_veth_pair_intact(self):
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            j0, j1 = net.veth("j0", u, "j1", u, mtu=9000)
            geo = ",blocksz=65536,framesz=16384,framecnt=256"
            r, _ = apps.pktgen(u, [f"af_packet0,iface={j0}{geo}", f"af_packet1,iface={j1}{geo}"],
                       ["--tx-port", "0", "--rx-port", "1", "--count", "10000", "--rate", "10kpps",
                        "--sizes", "1515,4000,8999,9000", "--drain", "2"])
            kj1 = net.link_stats(j1, u)
        self.assertEqual(r["lost"], 0, r)
        self.assertEqual(r["reordered"], 0, r)
        self.assertEqual(r["rx_port_stats"]["ipackets"], 10000)
        self.assertEqual(r["rx_port_stats"]["ipackets"], kj1["rx_packets"])

    def test_a_vlan_tag_the_kernel_takes_out_of_the_frame_is_restored(self):
        # The receiving side's stack moves an 802.1Q tag out of the frame
        # (skb_vlan_untag) before the packet socket sees it; the port puts
        # it back, so every byte sent comes back.
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            v0, v1 = net.veth("v0", u, "v1", u)
            r, _ = apps.pktgen(u, [f"af_packet0,iface={v0}", f"af_packet1,iface={v1}"],
                       ["--tx-port", "0", "--rx-port", "1", "--count", "2000", "--rate", "10kpps",
                        "--vlan", "100", "--sizes", "64,1518", "--drain", "2"])
        self.assertEqual(r["lost"], 0, r)
        self.assertEqual(r["no_stamp"], 0, r)
        self.assertEqual(r["rx_port_stats"]["ibytes"], r["tx_port_stats"]["obytes"], r)

    def test_two_queue_pairs_spread_flows_over_both_queues_and_lose_nothing(self):
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            a0, a1 = net.veth("a0", u, "a1", u)
            b0, b1 = net.veth("b0", u, "b1", u)
            big = ",framecnt=2048"
            fwd = apps.L2fwd(u, [f"af_packet0,iface={a1},qpairs=2{big}", f"af_packet1,iface={b1},qpairs=2{big}"],
                             ["--json", "-P", "--queues", "2"])
            r, _ = apps.pktgen(u, [f"af_packet0,iface={a0}{big}", f"af_packet1,iface={b0}{big}"],
                       ["--tx-port", "0", "--rx-port", "1", "-P", "--count", "20000", "--rate", "10kpps",
                        "--src-port", "1000-1063", "--drain", "2"])
            tot = fwd.stop_totals()
        # Order holds per flow (one flow, one queue); pktgen's sequence runs
        # across all 64 flows, so frames of two queues interleave.
        self.assertEqual(r["lost"], 0, (r, tot))
        q = tot["ports"][0]["q_ipackets"]
        self.assertEqual(sum(q), 20000, tot)
        self.assertGreater(min(q), 2000, f"the fanout hash left a queue nearly idle: {q}")

    def test_hybrid_mode_at_idle_takes_below_one_percent_of_a_core(self):
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            _, a1 = net.veth("a0", u, "a1", u)
            _, b1 = net.veth("b0", u, "b1", u)
            fwd = apps.L2fwd(u, [f"af_packet0,iface={a1}", f"af_packet1,iface={b1}"], ["--json", "--rx-mode", "hybrid"])
            time.sleep(0.5)
            c0, t0 = apps.cpu_seconds(fwd.pid()), time.monotonic()
            time.sleep(3)
            c1, t1 = apps.cpu_seconds(fwd.pid()), time.monotonic()
            fwd.stop_totals()
        util = (c1 - c0) / (t1 - t0)
        self.assertLess(util, 0.01, f"unic-l2fwd used {util:.2%} of a core at idle in hybrid mode")

    def test_the_linux_stack_of_two_namespaces_pings_and_moves_a_tcp_stream_through_l2fwd(self):
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            a, b = net.ns("a"), net.ns("b")
            a0, a1 = net.veth("a0", a, "a1", u, addrs=("10.78.0.1/24", None))
            b0, b1 = net.veth("b0", b, "b1", u, addrs=("10.78.0.2/24", None))
            # The stacks hand veth frames with the checksum left to the
            # device (CHECKSUM_PARTIAL) and TSO super-frames; a packet
            # socket forwards bytes, so the senders finish both themselves.
            for ns, ifn in ((a, a0), (b, b0)):
                ns.run(["ethtool", "-K", ifn, "tx", "off"])
            fwd = apps.L2fwd(u, [f"af_packet0,iface={a1}", f"af_packet1,iface={b1}"],
                             ["--json", "-P", "--no-mac-updating"])
            try:
                a.run(["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.78.0.2"])
                data = os.urandom(4 << 20)
                digest = hashlib.sha256(data).hexdigest()
                srv = b.popen(["python3", "-c",
                               "import socket,hashlib\n"
                               "s=socket.socket();s.setsockopt(socket.SOL_SOCKET,socket.SO_REUSEADDR,1)\n"
                               "s.bind(('10.78.0.2',5201));s.listen(1);c,_=s.accept();h=hashlib.sha256();n=0\n"
                               "while True:\n"
                               "    d=c.recv(65536)\n"
                               "    if not d: break\n"
                               "    h.update(d);n+=len(d)\n"
                               "print(n,h.hexdigest())\n"],
                              stdout=subprocess.PIPE, text=True)
                time.sleep(0.3)
                cli = a.popen(["python3", "-c",
                               "import socket,sys\n"
                               "d=sys.stdin.buffer.read()\n"
                               "for i in range(50):\n"
                               "    try:\n"
                               "        s=socket.create_connection(('10.78.0.2',5201),timeout=5);break\n"
                               "    except OSError:\n"
                               "        import time;time.sleep(0.1)\n"
                               "s.sendall(d);s.close()\n"],
                              stdin=subprocess.PIPE)
                cli.communicate(data, timeout=60)
                out, _ = srv.communicate(timeout=60)
            finally:
                tot = fwd.stop_totals()
        self.assertEqual(cli.returncode, 0)
        self.assertEqual(out.split(), [str(len(data)), digest])
        self.assertGreater(tot["ports"][0]["rx"], 1000, tot)
        self.assertGreater(tot["ports"][1]["rx"], 100, tot)

    def test_mac_link_mtu_and_promiscuous_mode_are_the_interfaces(self):
        script = "\n".join(["show port info 0", "show port link 0", "set promisc 0 on", "sleep 1500",
                            "port stop 0", "port config 0 mtu 1900", "port start 0",
                            "show port info 0", "quit", ""])
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            x0, x1 = net.veth("x0", u, "x1", u, mtu=1900)
            u.run(["ip", "link", "set", x0, "mtu", "1500"])
            u.run(["ip", "link", "set", x0, "address", "02:11:22:33:44:55"])
            tp = apps.Testpmd(u, [f"af_packet0,iface={x0}"], script)
            time.sleep(1)
            during = json.loads(u.run(["ip", "-d", "-j", "link", "show", x0]).stdout)[0]
            out = tp.wait(30)
            after = json.loads(u.run(["ip", "-d", "-j", "link", "show", x0]).stdout)[0]
        self.assertEqual(tp.p.returncode, 0, out)
        self.assertIn("MAC address: 02:11:22:33:44:55", out)
        self.assertIn("Port 0 Link up - speed 10 Gbps - full-duplex", out)
        self.assertIn("Min/max MTU: 68/1982", out)
        self.assertEqual(during["promiscuity"], 1, "PACKET_MR_PROMISC while the port lives")
        self.assertEqual(after["promiscuity"], 0, "the membership goes with the socket")
        self.assertEqual(after["mtu"], 1900, "the MTU the configuration asked was raised on the interface")

    def test_qdisc_bypass_sends_past_the_interfaces_qdisc(self):
        def qdisc_sent(ns, ifn):
            js = json.loads(ns.run(["tc", "-s", "-j", "qdisc", "show", "dev", ifn]).stdout)
            return sum(q.get("packets", 0) for q in js)

        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            q0, q1 = net.veth("q0", u, "q1", u)
            u.run(["tc", "qdisc", "add", "dev", q0, "root", "pfifo"])
            sent = {}
            for bypass in (1, 0):
                before = qdisc_sent(u, q0)
                r, _ = apps.pktgen(u, [f"af_packet0,iface={q0},qdisc_bypass={bypass}", f"af_packet1,iface={q1}"],
                           ["--tx-port", "0", "--rx-port", "1", "--count", "1000", "--rate", "10kpps"])
                self.assertEqual(r["lost"], 0, r)
                sent[bypass] = qdisc_sent(u, q0) - before
        self.assertEqual(sent[1], 0, "qdisc_bypass=1: nothing went through the qdisc")
        self.assertEqual(sent[0], 1000, "qdisc_bypass=0: every frame went through it")

    def test_frames_the_kernel_drops_for_want_of_a_block_are_counted_as_missed(self):
        # One 64 KiB block, and a port nobody reads (started, not forwarding):
        # the kernel fills the block, then drops, and says how many.
        script = "\n".join(["sleep 6000", "show port xstats 0", "show port stats 0", "quit", ""])
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            x0, x1 = net.veth("x0", u, "x1", u)
            tp = apps.Testpmd(u, [f"af_packet0,iface={x0},framecnt=32"], script)
            time.sleep(1)
            # Exits 1: none came back (nothing forwards them).
            _, pktgen_out = apps.pktgen(u, [f"af_packet0,iface={x1}"],
                                        ["--tx-port", "0", "--rx-port", "0", "--count", "5000",
                                         "--rate", "50kpps", "--drain", "0.1"], check=False)
            out = tp.wait(30)
        self.assertEqual(tp.p.returncode, 0, out)
        xs = apps.testpmd_xstats(out, 0)
        self.assertEqual(xs["rx_kernel_packets"], 5000, out + pktgen_out)
        self.assertGreater(xs["rx_kernel_drops"], 4000, out)
        self.assertIn(f"RX-missed: {xs['rx_kernel_drops']}", out)

    def test_more_queues_than_qpairs_is_refused_naming_the_spec_to_use(self):
        with hostnet.Net() as net:
            u = quiet_ns(net, "u")
            _, a1 = net.veth("a0", u, "a1", u)
            r = u.run([L2FWD] + ENV + ["--vdev", f"af_packet0,iface={a1}", "--queues", "2", "-t", "1"],
                      check=False, timeout=30)
        self.assertEqual(r.returncode, 1, r.stdout)
        self.assertIn(f"create it with qpairs=2 (--vdev af_packet0,iface={a1},qpairs=2)", r.stdout)

    def test_an_interface_of_another_namespace_is_refused_naming_ip_link(self):
        with hostnet.Net() as net:
            u, v = quiet_ns(net, "u"), net.ns("v")
            _, a1 = net.veth("a0", u, "a1", v)
            r = u.run([L2FWD] + ENV + ["--vdev", f"af_packet0,iface={a1}", "-t", "1"],
                      check=False, timeout=30)
        self.assertNotEqual(r.returncode, 0, r.stdout)
        self.assertIn(f"interface '{a1}' does not exist in this network namespace", r.stdout)
        self.assertIn("ip link", r.stdout)


if __name__ == "__main__":
    unittest.main()
