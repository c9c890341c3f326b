#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""A DPDK user's testpmd habits on unic-testpmd (the binary in UNIC_TESTPMD).

dpdk-testpmd-options.txt: one command line per documented dpdk-testpmd
option, as DPDK's user guide writes it; each must be accepted (with a
"note:" line where unic does it another way) or refused with exit status 2
and a reason naming the capability unic lacks -- never "unknown option" or
a parse error. dpdk-testpmd.cmds: a batch script in DPDK's spelling; every
line must work. Both run on a ring pair (unic's vdev names), no root needed.
"""
import os
import re
import signal
import subprocess
import tempfile
import unittest

HERE = os.path.dirname(os.path.abspath(__file__))
RING_PAIR = ["--no-huge", "--no-pci", "--no-telemetry", "--vdev", "ring0", "--vdev", "ring1,peer=ring0"]


def binary():
    path = os.environ.get("UNIC_TESTPMD")
    if not path:
        raise unittest.SkipTest("UNIC_TESTPMD is not set (meson sets it)")
    return path


def run(args, stdin="quit\n", seconds=20):
    """Run unic-testpmd; a headless run (--stats-period) gets SIGTERM after 2.5 s."""
    p = subprocess.Popen([binary()] + args, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                         stderr=subprocess.STDOUT, text=True)
    try:
        out, _ = p.communicate(stdin, timeout=2.5 if any("--stats-period" in a for a in args) else seconds)
    except subprocess.TimeoutExpired:
        p.send_signal(signal.SIGTERM)
        out, _ = p.communicate(timeout=seconds)
    return p.returncode, out


def option_lines(peers):
    with open(os.path.join(HERE, "dpdk-testpmd-options.txt")) as f:
        for n, line in enumerate(f, 1):
            line = line.rstrip("\n")
            if not line or line.startswith("#"):
                continue
            want, opts = line.split("\t", 1)
            yield n, want, opts.replace("@PEERS@", peers).split()


class DpdkTestpmdOptions(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory(prefix="unic-compat-")
        self.peers = os.path.join(self.tmp.name, "peers.txt")
        with open(self.peers, "w") as f:
            f.write("02:00:00:00:00:0a\n02:00:00:00:00:0b\n")

    def tearDown(self):
        self.tmp.cleanup()

    def test_every_documented_option_is_accepted_or_refused_with_a_reason(self):
        seen = 0
        for n, want, opts in option_lines(self.peers):
            with self.subTest(line=n, options=" ".join(opts)):
                rc, out = run(RING_PAIR + ["--"] + opts)
                self.assertNotIn("unknown option", out)
                self.assertNotIn("bad value", out)
                self.assertNotIn("missing value", out)
                if want.startswith("refused"):
                    self.assertEqual(rc, 2, out)
                    m = re.search(r"unic-testpmd: error: option (--[a-z0-9-]+): (not supported: .*|'.*' is a DPDK engine.*)", out)
                    self.assertIsNotNone(m, out)
                    self.assertIn(m.group(1), " ".join(opts))
                    self.assertIn(want.split(" ", 1)[1], m.group(2))
                else:
                    self.assertEqual(rc, 0, out)
                    self.assertIn("Usage:" if opts[0] in ("-h", "--help") else "Bye...", out)
                    if want == "note":
                        name = opts[0].split("=", 1)[0]
                        self.assertRegex(out, r"unic-testpmd: note: " + re.escape(name) + r"[= :]")
                seen += 1
        self.assertGreaterEqual(seen, 100)

    def test_stats_period_prints_statistics_until_sigterm(self):
        rc, out = run(RING_PAIR + ["--", "--stats-period", "1", "--tx-first"])
        self.assertEqual(rc, 0, out)
        self.assertIn("Port statistics ====", out)
        self.assertIn("forwards packets on 2 streams:", out)
        self.assertIn("SIGTERM: quitting", out)


class DpdkTestpmdBatch(unittest.TestCase):
    def test_a_batch_written_as_dpdk_documents_runs_every_line(self):
        rc, out = run(RING_PAIR + ["--", "--cmdline-file=" + os.path.join(HERE, "dpdk-testpmd.cmds")])
        self.assertEqual(rc, 0, out)
        self.assertNotIn("the command failed", out)
        self.assertIn("Number of available ports: 2", out)
        self.assertIn("peer=02:00:00:00:00:AA", out)
        self.assertIn("Bye...", out)


def script_lines(path):
    with open(path) as f:
        return [l.rstrip("\n") for l in f]


class DpdkTestpmdScripts(unittest.TestCase):
    """scripts/*.cmds (DPDK's guide and DTS test plans, run with their
    expectations on e1000e and virtio-net in the QEMU rig: tests/vm,
    guest/unic-compat-rig) on a ring pair: judge.awk with parse_only, so
    every line parses but those in pending.txt, which must not."""

    def test_every_line_parses_and_every_pending_line_does_not(self):
        scripts = sorted(f for f in os.listdir(os.path.join(HERE, "scripts")) if f.endswith(".cmds"))
        self.assertGreaterEqual(len(scripts), 10)
        used = set()
        with tempfile.TemporaryDirectory(prefix="unic-compat-") as tmp:
            for name in scripts:
                lines = script_lines(os.path.join(HERE, "scripts", name))
                used.update(lines)
                opts = [l[len("# options: "):] for l in lines if l.startswith("# options: ")]
                self.assertEqual(len(opts), 1, "%s: one '# options:' line" % name)
                # The same lines, sleeps cut short: only the parser is judged.
                short = os.path.join(tmp, name)
                with open(short, "w") as f:
                    f.write("".join(("sleep 10" if l.startswith("sleep ") else l) + "\n" for l in lines))
                with self.subTest(script=name):
                    rc, out = run(RING_PAIR + ["--"] + opts[0].split() + ["--continue", "-f", short], seconds=60)
                    self.assertIn(rc, (0, 1), out)
                    output = os.path.join(tmp, name + ".out")
                    with open(output, "w") as f:
                        f.write(out)
                    j = subprocess.run(["awk", "-v", "pass=ring", "-v", "parse_only=1", "-f",
                                        os.path.join(HERE, "judge.awk"), os.path.join(HERE, "pending.txt"),
                                        short, output], stdout=subprocess.PIPE, text=True)
                    self.assertEqual(j.returncode, 0, j.stdout)
                    self.assertRegex(j.stdout, r"ring: \d+ lines: .* 0 failed")
        # The rig gets the scripts tests/vm/guest/meson.build bundles.
        with open(os.path.join(HERE, "..", "vm", "guest", "meson.build")) as f:
            bundled = f.read()
        for name in scripts:
            self.assertTrue("'%s'" % name in bundled, "tests/vm/guest/meson.build does not bundle " + name)
        pending = [l for l in script_lines(os.path.join(HERE, "pending.txt")) if l and not l.startswith("#")]
        for line in pending:
            self.assertIn(line, used, "pending.txt lists a line no script has")


if __name__ == "__main__":
    unittest.main()
