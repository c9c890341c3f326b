# SPDX-License-Identifier: BSD-3-Clause
"""The host suite's own helper (hostnet.py) on real namespaces: root only."""
import json
import subprocess
import unittest

import hostnet


def netns_names():
    r = subprocess.run(["ip", "-j", "netns", "list"], stdout=subprocess.PIPE, text=True, check=True)
    return {n["name"] for n in json.loads(r.stdout or "[]")}


class HostNet(unittest.TestCase):
    def test_a_veth_pair_between_two_namespaces_carries_a_ping_and_counts_it(self):
        with hostnet.Net() as net:
            a, b = net.ns("a"), net.ns("b")
            na, nb = net.veth("x0", a, "x1", b, addrs=("10.231.0.1/24", "10.231.0.2/24"))
            before = net.link_stats(nb, b)
            a.run(["ping", "-c", "3", "-i", "0.2", "-W", "2", "10.231.0.2"])
            after = net.link_stats(nb, b)
            # 3 echo requests (and possibly neighbour discovery) arrived at x1
            self.assertGreaterEqual(after["rx_packets"] - before["rx_packets"], 3)
            self.assertGreaterEqual(after["tx_packets"] - before["tx_packets"], 3)

    def test_a_failing_command_in_a_namespace_raises_with_its_output(self):
        with hostnet.Net() as net:
            a = net.ns("a")
            with self.assertRaises(hostnet.HostNetError) as cm:
                a.run(["ping", "-c", "1", "-W", "1", "10.231.9.9"])
            self.assertIn("exited", str(cm.exception))

    def test_closing_removes_every_namespace_and_link(self):
        net = hostnet.Net()
        a = net.ns("a")
        na, _ = net.veth("y0", None, "y1", a)
        self.assertIn(a.name, netns_names())
        net.close()
        self.assertNotIn(a.name, netns_names())
        r = subprocess.run(["ip", "link", "show", na], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        self.assertNotEqual(r.returncode, 0, f"{na} still exists after close()")

    def test_sweep_removes_what_a_killed_test_left_and_keeps_live_owners(self):
        p = subprocess.Popen(["true"])
        p.wait()
        dead = f"{hostnet.PREFIX}{p.pid}-left"
        subprocess.run(["ip", "netns", "add", dead], check=True)
        with hostnet.Net() as net:  # its constructor sweeps
            live = net.ns("live")
            self.assertNotIn(dead, netns_names())
            self.assertEqual(hostnet.sweep(), [])
            self.assertIn(live.name, netns_names())

    def test_an_interface_name_longer_than_the_kernel_takes_is_refused(self):
        with hostnet.Net() as net:
            with self.assertRaises(hostnet.HostNetError):
                net.name("a-much-too-long-name")


if __name__ == "__main__":
    unittest.main()
