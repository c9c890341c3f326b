# SPDX-License-Identifier: BSD-3-Clause
"""unic's applications in the host suite: started, stopped, their outputs read.

The binaries come from the environment (meson sets UNIC_PKTGEN, UNIC_L2FWD,
UNIC_TESTPMD); each runs in a namespace of hostnet (`ns`) or, with
ns=None, in the test's own.

    fwd = apps.L2fwd(ns, ["af_xdp0,iface=p1", "af_xdp1,iface=p2"], ["-P"])
    rep, out = apps.pktgen(ns, ["af_xdp0,iface=p0", "af_xdp1,iface=p3"],
                           ["--tx-port", "0", "--rx-port", "1", "--count", "1000"])
    out = fwd.stop()
    rx, tx = apps.l2fwd_totals(out)
"""
import json
import os
import re
import signal
import subprocess
import tempfile
import time

PKTGEN = os.environ.get("UNIC_PKTGEN", "build/apps/unic-pktgen")
L2FWD = os.environ.get("UNIC_L2FWD", "build/apps/unic-l2fwd")
TESTPMD = os.environ.get("UNIC_TESTPMD", "build/apps/unic-testpmd")
# Ordinary pages, no PCI probe: what every host test runs with.
ENV = ["--no-pci", "--no-huge"]


def _vdevs(vdevs):
    return sum((["--vdev", v] for v in vdevs), [])


def _popen(ns, argv, **kw):
    return ns.popen(argv, **kw) if ns is not None else subprocess.Popen(argv, **kw)


def _run(ns, argv, timeout):
    if ns is not None:
        return ns.run(argv, check=False, timeout=timeout)
    return subprocess.run(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                          timeout=timeout)


def cpu_seconds(pid):
    """CPU time of a process, all its threads, in seconds (schedstat: ns)."""
    total = 0
    for t in os.listdir(f"/proc/{pid}/task"):
        try:
            with open(f"/proc/{pid}/task/{t}/schedstat") as f:
                total += int(f.read().split()[0])
        except FileNotFoundError:
            pass  # a thread that ended meanwhile
    return total / 1e9


def _pktgen_report(rc, out, check):
    js = [l for l in out.splitlines() if l.startswith("{")]
    if check and (rc != 0 or not js):
        raise AssertionError(f"unic-pktgen exited {rc}:\n{out}")
    return (json.loads(js[-1]) if js else None), out


def pktgen(ns, vdevs, args, timeout=60, check=True):
    """unic-pktgen --json on @vdevs; returns (its report, its output).

    check: fail unless it exits 0 with a report (it exits 1 when nothing
    came back, which some tests mean to provoke: check=False, and the
    report is None when there is none)."""
    r = _run(ns, [PKTGEN] + ENV + _vdevs(vdevs) + ["--json"] + list(args), timeout)
    return _pktgen_report(r.returncode, r.stdout, check)


class Pktgen:
    """unic-pktgen --json started in the background (a peer starts after
    it); report() waits for it and returns what pktgen() does."""

    def __init__(self, ns, vdevs, args):
        self.p = _popen(ns, [PKTGEN] + ENV + _vdevs(vdevs) + ["--json"] + list(args),
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def report(self, timeout=60, check=True):
        try:
            out, _ = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, _ = self.p.communicate()
        return _pktgen_report(self.p.returncode, out, check)


class L2fwd:
    """unic-l2fwd on @vdevs, started and ready (its ports are up), stopped
    with SIGTERM. With --json in @extra its report lines are on stdout and
    everything else on stderr; otherwise both go to one stream."""

    READY = "SIGINT or SIGTERM stops"

    def __init__(self, ns, vdevs, extra=(), timeout=20):
        self.json = "--json" in extra
        argv = [L2FWD] + ENV + _vdevs(vdevs) + ["-T", "0"] + list(extra)
        self.p = _popen(ns, argv, stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE if self.json else subprocess.STDOUT, text=True)
        stream = self.p.stderr if self.json else self.p.stdout
        self.head = []
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            line = stream.readline()
            if not line:
                break
            self.head.append(line)
            if self.READY in line:
                return
        self.p.kill()
        out, err = self.p.communicate()
        raise AssertionError("unic-l2fwd did not start:\n" + "".join(self.head) + (out or "") + (err or ""))

    def pid(self):
        # `ip netns exec` execs the program: the pid is unic-l2fwd's.
        return self.p.pid

    def stop(self):
        """SIGTERM; its whole output (stdout then stderr with --json)."""
        self.p.send_signal(signal.SIGTERM)
        out, err = self.p.communicate(timeout=20)
        text = out if self.json else "".join(self.head) + out
        self.log = "".join(self.head) + (err or "") if self.json else text
        if self.p.returncode != 0:
            raise AssertionError(f"unic-l2fwd exited {self.p.returncode}:\n{self.log}\n{out}")
        return text

    def stop_totals(self):
        """stop(), then the totals report (--json: the last 'totals' line)."""
        out = self.stop()
        tot = [json.loads(l) for l in out.splitlines() if l.startswith("{")]
        tot = [t for t in tot if t.get("type") == "totals"]
        if not tot:
            raise AssertionError("no totals in unic-l2fwd's output:\n" + self.log + out)
        return tot[-1]


def l2fwd_totals(out):
    """Received and sent totals of unic-l2fwd's final text report."""
    m = re.findall(r"total: received (\d+) .* sent (\d+) ", out)
    if not m:
        raise AssertionError("no totals in unic-l2fwd's output:\n" + out)
    return int(m[-1][0]), int(m[-1][1])


class Testpmd:
    """unic-testpmd on @vdevs running @script (its commands, one a line);
    wait() returns its output (stdout and stderr together)."""

    def __init__(self, ns, vdevs, script, extra=()):
        f = tempfile.NamedTemporaryFile("w", prefix="unic-host-", suffix=".txt", delete=False)
        f.write(script)
        f.close()
        self.script = f.name
        self.p = _popen(ns, [TESTPMD] + ENV + _vdevs(vdevs) + list(extra) + ["-f", self.script],
                        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)

    def pid(self):
        return self.p.pid

    def wait(self, timeout=30):
        try:
            out, _ = self.p.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            self.p.kill()
            out, _ = self.p.communicate()
        os.unlink(self.script)
        return out


def testpmd(ns, vdevs, script, extra=(), timeout=60):
    """Run unic-testpmd with @script to its end; (exit status, output)."""
    t = Testpmd(ns, vdevs, script, extra)
    out = t.wait(timeout)
    return t.p.returncode, out


def testpmd_port_stats(out):
    """The last 'RX-packets: N ... TX-packets: M' of unic-testpmd's show port stats."""
    rx = re.findall(r"RX-packets: (\d+)\s+RX-missed", out)
    tx = re.findall(r"TX-packets: (\d+)\s+TX-errors", out)
    if not rx or not tx:
        raise AssertionError("no port stats in unic-testpmd's output:\n" + out)
    return int(rx[-1]), int(tx[-1])


def testpmd_xstats(out, port):
    """{name: value} of the last 'show port xstats @port' in unic-testpmd's output."""
    blocks = re.findall(rf"NIC extended statistics for port {port}\s*\n((?:[a-z0-9_]+: \d+\n)+)", out)
    if not blocks:
        raise AssertionError(f"no xstats of port {port} in unic-testpmd's output:\n" + out)
    return {k: int(v) for k, v in re.findall(r"([a-z0-9_]+): (\d+)", blocks[-1])}
