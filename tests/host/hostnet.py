# SPDX-License-Identifier: BSD-3-Clause
"""Network namespaces and veth pairs for the host suite (docs/testing.md).

Every name this module creates carries a per-process tag, so tests can run
side by side, and everything is removed when the test ends: on a normal
return, on an exception, on SIGTERM/SIGINT (meson's timeout) and, for what a
killed process left behind, by `sweep()` at the next start.

    with hostnet.Net() as net:
        a, b = net.ns("a"), net.ns("b")
        net.veth("x0", a, "x1", b, addrs=("10.9.0.1/24", "10.9.0.2/24"))
        a.run(["ping", "-c", "1", "10.9.0.2"])
        print(net.link_stats("x0", a)["rx_packets"])

Needs root (CAP_NET_ADMIN) and the `ip` command (iproute2).
"""
import atexit
import json
import os
import signal
import subprocess
import sys

# Every namespace and interface name starts with this, then the owner's pid.
PREFIX = "un"


class HostNetError(RuntimeError):
    pass


def require_root():
    """Fail with what to do when the suite cannot make namespaces."""
    if os.geteuid() != 0:
        raise HostNetError("the host suite makes network namespaces and veth pairs: "
                           "run it as root (sudo meson test -C build --suite host)")
    for tool in ("ip",):
        if subprocess.run(["sh", "-c", f"command -v {tool}"], stdout=subprocess.DEVNULL).returncode:
            raise HostNetError(f"'{tool}' not found: apt-get install -y iproute2")


def _ip(args, ns=None, check=True, capture=False):
    cmd = (["ip", "netns", "exec", ns] if ns else []) + ["ip"] + args
    r = subprocess.run(cmd, stdout=subprocess.PIPE if capture else subprocess.DEVNULL,
                       stderr=subprocess.PIPE, text=True)
    if check and r.returncode != 0:
        raise HostNetError(f"'{' '.join(cmd)}' failed ({r.returncode}): {r.stderr.strip()}")
    return r


def _pid_alive(pid):
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def sweep():
    """Remove namespaces a killed test left behind (their owner pid is gone).

    Returns the names removed. Veth pairs go with their namespace; a veth
    left in the root namespace is removed the same way.
    """
    removed = []
    r = _ip(["-j", "netns", "list"], check=False, capture=True)
    names = [n["name"] for n in json.loads(r.stdout or "[]")] if r.returncode == 0 else []
    r = _ip(["-j", "link", "show"], check=False, capture=True)
    links = [l["ifname"] for l in json.loads(r.stdout or "[]")] if r.returncode == 0 else []
    for name in names + links:
        if not name.startswith(PREFIX):
            continue
        pid = name[len(PREFIX):].split("-", 1)[0].split("_", 1)[0]
        if not pid.isdigit() or _pid_alive(int(pid)):
            continue
        if name in names:
            _ip(["netns", "del", name], check=False)
        else:
            _ip(["link", "del", name], check=False)
        removed.append(name)
    return removed


class Ns:
    """One network namespace; `name` is what `ip netns exec` takes."""

    def __init__(self, name):
        self.name = name

    def run(self, argv, check=True, timeout=60, **kw):
        """Run argv inside the namespace; raises HostNetError with its output on failure."""
        r = subprocess.run(["ip", "netns", "exec", self.name] + list(argv), stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=timeout, **kw)
        if check and r.returncode != 0:
            raise HostNetError(f"in {self.name}: '{' '.join(argv)}' exited {r.returncode}:\n{r.stdout}")
        return r

    def popen(self, argv, **kw):
        """Start argv inside the namespace (the caller waits for it)."""
        return subprocess.Popen(["ip", "netns", "exec", self.name] + list(argv), **kw)

    def prefix(self):
        """The command prefix that runs a program in this namespace."""
        return ["ip", "netns", "exec", self.name]


class Net:
    """The namespaces and veth pairs of one test, removed on exit."""

    def __init__(self):
        require_root()
        sweep()
        self.tag = f"{PREFIX}{os.getpid()}"
        self.namespaces = []
        self.links = []  # (ifname, Ns or None) of veth ends, deleted with their pair
        self._closed = False
        atexit.register(self.close)
        for sig in (signal.SIGTERM, signal.SIGINT):
            if signal.getsignal(sig) in (signal.SIG_DFL, signal.default_int_handler):
                signal.signal(sig, self._on_signal)

    def _on_signal(self, signum, _frame):
        self.close()
        sys.exit(128 + signum)

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False

    def name(self, short):
        """A unique interface name (at most 15 bytes) for the short name."""
        n = f"{self.tag}_{short}"
        if len(n) > 15:
            raise HostNetError(f"interface name '{n}' is longer than 15 bytes: use a shorter name than '{short}'")
        return n

    def ns(self, short, quiet=False):
        """A new namespace with its loopback up.

        quiet: its own stack sends nothing on its links (no IPv6, so no
        autoconfiguration frames): every frame counted there is the test's.
        """
        name = f"{self.tag}-{short}"
        _ip(["netns", "add", name])
        ns = Ns(name)
        self.namespaces.append(ns)
        _ip(["link", "set", "lo", "up"], ns=name)
        if quiet:
            ns.run(["sysctl", "-qw", "net.ipv6.conf.all.disable_ipv6=1",
                    "net.ipv6.conf.default.disable_ipv6=1"])
        return ns

    def veth(self, a, ns_a, b, ns_b, addrs=None, mtu=None, up=True, queues=1):
        """A veth pair a <-> b; ns_a/ns_b None means the root namespace.

        `a` and `b` are short names (see name()); returns the full names.
        addrs: (cidr for a, cidr for b), or None for no address.
        queues: rx and tx queues of each end (veth hands a frame sent on
        tx queue q of one end to rx queue q of the other).
        """
        na, nb = self.name(a), self.name(b)
        nq = ["numrxqueues", str(queues), "numtxqueues", str(queues)] if queues > 1 else []
        _ip(["link", "add", na] + nq + ["type", "veth", "peer", "name", nb] + nq)
        self.links.append((na, None))
        for ifn, ns in ((na, ns_a), (nb, ns_b)):
            if ns is not None:
                _ip(["link", "set", ifn, "netns", ns.name])
        for i, (ifn, ns) in enumerate(((na, ns_a), (nb, ns_b))):
            nsn = ns.name if ns else None
            if mtu:
                _ip(["link", "set", ifn, "mtu", str(mtu)], ns=nsn)
            if addrs and addrs[i]:
                _ip(["addr", "add", addrs[i], "dev", ifn], ns=nsn)
            if up:
                _ip(["link", "set", ifn, "up"], ns=nsn)
        self.links[-1] = (na, ns_a)
        return na, nb

    def link_stats(self, ifname, ns=None):
        """The kernel's counters of an interface (`ip -s link`): rx_/tx_ packets, bytes, dropped, errors."""
        r = _ip(["-s", "-j", "link", "show", ifname], ns=ns.name if ns else None, capture=True)
        st = json.loads(r.stdout)[0]["stats64"]
        out = {}
        for d in ("rx", "tx"):
            for k in ("packets", "bytes", "dropped", "errors"):
                out[f"{d}_{k}"] = st[d][k]
        return out

    def close(self):
        if self._closed:
            return
        self._closed = True
        for ifn, ns in self.links:
            _ip(["link", "del", ifn], ns=ns.name if ns else None, check=False)
        for ns in self.namespaces:
            _ip(["netns", "del", ns.name], check=False)
