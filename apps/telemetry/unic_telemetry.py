#!/usr/bin/env python3
# SPDX-License-Identifier: BSD-3-Clause
"""unic-telemetry: query a running unic application's telemetry socket.

    unic-telemetry                       interactive: a prompt, one command a line
    unic-telemetry /ports/stats,0        one-shot: print the answers, exit
    unic-telemetry --list                the running instances
    unic-telemetry --watch 1 --jsonl s.jsonl /proc/cpu /l2fwd/threads
                                         a sample a second, one JSON line per command
    unic-telemetry --prometheus          the Prometheus text exposition format
    unic-telemetry --listen 127.0.0.1:9101
                                         serve /metrics over HTTP for a scraper

The socket is $XDG_RUNTIME_DIR/unic/PREFIX/telemetry.sock (or /run/unic/...
without XDG_RUNTIME_DIR); instance N of a prefix listens on
telemetry.N.sock. docs/telemetry.md has the commands and their answers.
Python 3 standard library only.
"""
import argparse
import glob
import http.server
import json
import os
import socket
import sys
import time

PREFIX_DEFAULT = "unic"


def runtime_dirs():
    """Where sockets may be: the XDG runtime folder first, then /run."""
    dirs = []
    xdg = os.environ.get("XDG_RUNTIME_DIR")
    if xdg:
        dirs.append(os.path.join(xdg, "unic"))
    dirs.append("/run/unic")
    return dirs


def socket_path(prefix=PREFIX_DEFAULT, instance=0, base=None):
    """The path an application with this prefix and instance listens on."""
    name = "telemetry.sock" if instance == 0 else "telemetry.%d.sock" % instance
    if base is None:
        xdg = os.environ.get("XDG_RUNTIME_DIR")
        base = os.path.join(xdg, "unic") if xdg else "/run/unic"
    return os.path.join(base, prefix, name)


class TelemetryError(Exception):
    """The application answered {"error": ...}, or could not be reached."""


class Client:
    """One connection: the hello, then one request and one answer at a time."""

    def __init__(self, path, timeout=10.0):
        self.path = path
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.settimeout(timeout)
        try:
            self.sock.connect(path)
        except OSError as e:
            self.sock.close()
            raise TelemetryError("cannot connect to %s: %s (is the application running? "
                                 "unic-telemetry --list shows what runs)" % (path, e.strerror or e))
        hello = self._recv(4096)
        if "error" in hello:
            self.sock.close()
            raise TelemetryError("%s refused the connection: %s" % (path, hello["error"]))
        self.hello = hello
        self.max_len = int(hello.get("max_output_len", 65536))

    def _recv(self, size):
        data = self.sock.recv(size)
        if not data:
            raise TelemetryError("%s closed the connection" % self.path)
        return json.loads(data.decode())

    def request(self, cmd):
        """The answer's value (what follows the command key), or TelemetryError."""
        self.sock.send(cmd.encode())
        ans = self._recv(self.max_len + 4096)
        if "error" in ans:
            raise TelemetryError(ans["error"])
        key = cmd.split(",", 1)[0]
        return ans.get(key, ans)

    def close(self):
        self.sock.close()


def list_instances(bases=None):
    """[(path, hello or None, error or None)] for every socket found."""
    out = []
    for base in bases or runtime_dirs():
        for path in sorted(glob.glob(os.path.join(base, "*", "telemetry*.sock"))):
            try:
                c = Client(path, timeout=2.0)
                out.append((path, c.hello, None))
                c.close()
            except (TelemetryError, OSError, ValueError) as e:
                out.append((path, None, str(e)))
    return out


# ---- Prometheus ------------------------------------------------------------

def _esc(v):
    return str(v).replace("\\", "\\\\").replace("\"", "\\\"").replace("\n", "\\n")


class Metrics:
    """Families in order, each with its HELP, TYPE and samples."""

    def __init__(self):
        self.fams = {}

    def add(self, name, kind, help_, labels, value):
        fam = self.fams.setdefault(name, {"kind": kind, "help": help_, "samples": []})
        fam["samples"].append((labels, value))

    def text(self):
        lines = []
        for name, fam in self.fams.items():
            lines.append("# HELP %s %s" % (name, fam["help"]))
            lines.append("# TYPE %s %s" % (name, fam["kind"]))
            for labels, value in fam["samples"]:
                lab = ",".join('%s="%s"' % (k, _esc(v)) for k, v in labels.items())
                lines.append("%s%s %s" % (name, "{%s}" % lab if lab else "", _num(value)))
        return "\n".join(lines) + "\n"


def _num(v):
    if isinstance(v, float):
        return repr(v)
    return str(int(v))


PORT_COUNTERS = [
    ("ipackets", "rx_packets_total", "Packets received"),
    ("opackets", "tx_packets_total", "Packets sent"),
    ("ibytes", "rx_bytes_total", "Bytes received"),
    ("obytes", "tx_bytes_total", "Bytes sent"),
    ("imissed", "rx_missed_total", "Packets the NIC dropped for lack of a descriptor"),
    ("ierrors", "rx_errors_total", "Bad frames received"),
    ("oerrors", "tx_errors_total", "Transmit failures"),
    ("rx_nombuf", "rx_nombuf_total", "Receive refills that found the pool empty"),
]

NAPI_COUNTERS = [
    ("rounds", "rounds_total", "Rounds run"),
    ("polls", "polls_total", "Receive burst calls"),
    ("empty_polls", "empty_polls_total", "Receive burst calls that returned nothing"),
    ("packets", "packets_total", "Packets consumed by the handlers"),
    ("interrupts", "interrupts_total", "Wake-ups by an interrupt source"),
    ("sleeps", "sleeps_total", "Sleeps begun"),
    ("wakeups", "wakeups_total", "Returns from a sleep"),
    ("arms", "arms_total", "Interrupts armed"),
]


MODERATION_MODES = ("adaptive", "fixed")


def _napi_queues(m, ctx_lab, queues):
    """Each rx queue's device moderation: who sets it, what was set, what the port took."""
    for q in queues:
        lab = dict(ctx_lab, port=str(q.get("port", "")), queue=str(q.get("queue", "")))
        mode = q.get("moderation")
        if mode is not None:
            # One sample a mode, 1 for the one in force (a state set).
            for one in MODERATION_MODES + (() if mode in MODERATION_MODES else (mode,)):
                m.add("unic_napi_queue_moderation_mode", "gauge",
                      "Who sets the queue's port's device moderation: adaptive (the policy) "
                      "or fixed (the application); 1 for the one in force", dict(lab, moderation=one),
                      1 if one == mode else 0)
        # -1 in the answer: none set, and no sample.
        us = q.get("moderation_us", -1)
        if us >= 0:
            m.add("unic_napi_queue_moderation_seconds", "gauge",
                  "Interrupt moderation the adaptive policy last set on the queue's port", lab, us / 1e6)
        us = q.get("moderation_effect_us", -1)
        if us >= 0:
            m.add("unic_napi_queue_moderation_effect_seconds", "gauge",
                  "Interrupt moderation the queue's port reported in effect right after", lab, us / 1e6)


def prometheus(client):
    """The application's figures in the Prometheus text exposition format."""
    m = Metrics()
    m.add("unic_up", "gauge", "1 when the application answered", {}, 1)
    for pid in client.request("/ports/list"):
        try:
            info = client.request("/ports/info,%d" % pid)
            st = client.request("/ports/stats,%d" % pid)
        except TelemetryError:
            continue            # detached between the list and the read
        lab = {"port": str(pid), "name": info.get("name", "")}
        for key, name, help_ in PORT_COUNTERS:
            m.add("unic_port_" + name, "counter", help_, lab, st.get(key, 0))
        link = info.get("link")
        if link is not None:
            m.add("unic_port_link_up", "gauge", "1 when the link is up", lab, 1 if link.get("up") else 0)
        if "numa_node" in info:
            m.add("unic_port_numa_node", "gauge",
                  "NUMA node of the port's device; -1: none (a virtual device)", lab, info["numa_node"])
    for cid in client.request("/napi/list"):
        try:
            c = client.request("/napi/context,%d" % cid)
        except TelemetryError:
            continue            # destroyed between the list and the read
        lab = {"context": str(cid), "name": c.get("name", ""), "mode": c.get("mode", "")}
        for key, name, help_ in NAPI_COUNTERS:
            m.add("unic_napi_" + name, "counter", help_, lab, c.get(key, 0))
        m.add("unic_napi_asleep_seconds_total", "counter", "Time spent asleep", lab,
              c.get("asleep_ns", 0) / 1e9)
        m.add("unic_napi_cpu_seconds_total", "counter", "CPU time of the context's thread", lab,
              c.get("cpu_ns", 0) / 1e9)
        ad = c.get("adaptive", {})
        if "moderation_set" in ad:
            m.add("unic_napi_moderation_changes_total", "counter",
                  "Device moderation changes the adaptive policy made", lab, ad["moderation_set"])
        _napi_queues(m, lab, c.get("queues", []))
        for q, v in sorted(c.get("wake_latency_ns", {}).items()):
            ql = dict(lab)
            ql["quantile"] = {"p50": "0.5", "p90": "0.9", "p99": "0.99", "p99_9": "0.999",
                              "max": "1"}.get(q, q)
            m.add("unic_napi_wake_latency_seconds", "gauge",
                  "Interrupt to first packet handled: the upper edge of the histogram bucket "
                  "holding the quantile, over the context's life", ql, v / 1e9)
    for p in client.request("/mem/pools"):
        lab = {"pool": p.get("name", "")}
        m.add("unic_pool_size", "gauge", "Objects in the pool", lab, p.get("size", 0))
        m.add("unic_pool_in_use", "gauge", "Objects taken and not returned", lab, p.get("in_use", 0))
        m.add("unic_pool_cache", "gauge", "Free objects in the threads' caches", lab, p.get("cache", 0))
        m.add("unic_pool_get_fail_total", "counter", "Gets refused: pool exhausted", lab,
              p.get("get_fail", 0))
    cpu = client.request("/proc/cpu")
    m.add("unic_process_cpu_seconds_total", "counter", "User and system CPU time of the process",
          {"pid": str(cpu.get("pid", ""))}, float(cpu.get("cpu_seconds", 0)))
    for t in cpu.get("threads", []):
        m.add("unic_thread_cpu_seconds_total", "counter", "User and system CPU time of a thread",
              {"tid": str(t.get("tid")), "name": t.get("name", "")}, float(t.get("cpu_seconds", 0)))
    return m.text()


def parse_prometheus(text):
    """{(name, frozenset(labels)): value} and {name: type}: for the tests and checks."""
    samples, types = {}, {}
    for line in text.splitlines():
        if line.startswith("# TYPE "):
            _, _, name, kind = line.split(" ", 3)
            types[name] = kind
            continue
        if not line or line.startswith("#"):
            continue
        head, value = line.rsplit(" ", 1)
        labels = {}
        if "{" in head:
            name, rest = head.split("{", 1)
            rest = rest[:-1]
            i = 0
            while i < len(rest):
                eq = rest.index("=", i)
                key = rest[i:eq]
                j, val = eq + 2, []
                while rest[j] != '"':
                    if rest[j] == "\\":
                        j += 1
                        val.append({"n": "\n"}.get(rest[j], rest[j]))
                    else:
                        val.append(rest[j])
                    j += 1
                labels[key] = "".join(val)
                i = j + 2 if j + 1 < len(rest) and rest[j + 1] == "," else j + 1
        else:
            name = head
        samples[(name, frozenset(labels.items()))] = float(value)
    return samples, types


def serve(addr, port, path_fn, ready=None):
    """HTTP /metrics on addr:port; each scrape asks the application afresh."""

    class Handler(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            if self.path.split("?")[0] != "/metrics":
                self.send_error(404, "only /metrics is served")
                return
            try:
                c = Client(path_fn())
                try:
                    body = prometheus(c).encode()
                finally:
                    c.close()
                code = 200
            except (TelemetryError, OSError) as e:
                body = ("# the application did not answer: %s\nunic_up 0\n" % e).encode()
                code = 503
            self.send_response(code)
            self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, fmt, *args):
            pass

    srv = http.server.ThreadingHTTPServer((addr, port), Handler)
    if ready is not None:
        ready(srv)
    return srv


def parse_listen(s):
    """'ADDR:PORT', ':PORT' or 'PORT' (address 127.0.0.1) -> (addr, port)."""
    addr, _, port = s.rpartition(":")
    addr = addr.strip("[]") or "127.0.0.1"
    if not port.isdigit() or int(port) > 65535:
        raise ValueError("--listen %s: expected ADDR:PORT, :PORT or PORT, e.g. 127.0.0.1:9101" % s)
    return addr, int(port)


# ---- the command line ------------------------------------------------------------

def _print(ans, pretty):
    print(json.dumps(ans, indent=2 if pretty else None))


def sample(client, cmds, jsonl):
    """One answer per command; each a JSON line {"time","command","data"} in jsonl."""
    res = []
    for cmd in cmds:
        t = time.time()
        data = client.request(cmd)
        res.append((cmd, data))
        if jsonl is not None:
            jsonl.write(json.dumps({"time": t, "command": cmd, "data": data}) + "\n")
            jsonl.flush()
    return res


def interactive(client):
    print("Connected to %s: %s, pid %s. '/' lists the commands; quit or Ctrl-D leaves."
          % (client.path, client.hello.get("version"), client.hello.get("pid")))
    while True:
        try:
            line = input("--> ").strip()
        except (EOFError, KeyboardInterrupt):
            print()
            return 0
        if line in ("quit", "exit"):
            return 0
        if not line:
            continue
        try:
            _print({line.split(",", 1)[0]: client.request(line)}, True)
        except TelemetryError as e:
            print("error: %s" % e)
            if "closed the connection" in str(e):
                client = Client(client.path)


def main(argv=None):
    ap = argparse.ArgumentParser(prog="unic-telemetry", description=__doc__.split("\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter,
                                 epilog="\n".join(__doc__.split("\n")[2:12]))
    ap.add_argument("commands", nargs="*", help="commands, e.g. /ports/stats,0 ('/' lists them)")
    ap.add_argument("--file-prefix", default=PREFIX_DEFAULT, help="the application's --file-prefix")
    ap.add_argument("-i", "--instance", type=int, default=0,
                    help="instance N of the prefix (telemetry.N.sock)")
    ap.add_argument("-s", "--socket", help="the socket's path (instead of prefix and instance)")
    ap.add_argument("--list", action="store_true", help="list the running instances")
    ap.add_argument("--watch", type=float, metavar="SECS", help="repeat every SECS seconds")
    ap.add_argument("--count", type=int, help="with --watch: stop after this many samples")
    ap.add_argument("--jsonl", metavar="FILE",
                    help='append a line {"time","command","data"} per command per sample')
    ap.add_argument("--prometheus", action="store_true",
                    help="print the Prometheus text exposition format")
    ap.add_argument("--listen", metavar="ADDR:PORT",
                    help="serve /metrics over HTTP (address 127.0.0.1 unless given)")
    a = ap.parse_args(argv)

    if a.list:
        found = list_instances()
        for path, hello, err in found:
            if hello:
                print("%s  pid %s  %s" % (path, hello.get("pid"), hello.get("version")))
            else:
                print("%s  not answering: %s" % (path, err))
        if not found:
            print("no telemetry socket in %s" % " or ".join(runtime_dirs()))
        return 0
    if a.watch is not None and a.watch <= 0:
        ap.error("--watch %s: expected a number of seconds above 0" % a.watch)
    path = a.socket or socket_path(a.file_prefix, a.instance)

    if a.listen:
        try:
            addr, port = parse_listen(a.listen)
        except ValueError as e:
            ap.error(str(e))
        srv = serve(addr, port, lambda: path)
        print("unic-telemetry: serving http://%s:%d/metrics for %s" % (addr, srv.server_address[1], path),
              flush=True)
        try:
            srv.serve_forever()
        except KeyboardInterrupt:
            pass
        return 0

    try:
        client = Client(path)
    except TelemetryError as e:
        print("unic-telemetry: error: %s" % e, file=sys.stderr)
        return 1
    jsonl = open(a.jsonl, "a") if a.jsonl else None
    pretty = sys.stdout.isatty()
    try:
        if not a.commands and not a.prometheus:
            if a.watch is None and a.jsonl is None:
                return interactive(client)
            ap.error("--watch and --jsonl need commands, e.g. /proc/cpu")
        n = 0
        while True:
            t0 = time.monotonic()
            if a.prometheus:
                sys.stdout.write(prometheus(client))
            res = sample(client, a.commands, jsonl)
            if jsonl is None:
                for cmd, data in res:
                    _print({cmd.split(",", 1)[0]: data}, pretty)
            sys.stdout.flush()
            n += 1
            if a.watch is None or (a.count is not None and n >= a.count):
                return 0
            time.sleep(max(0.0, a.watch - (time.monotonic() - t0)))
    except TelemetryError as e:
        print("unic-telemetry: error: %s" % e, file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        return 0
    finally:
        client.close()
        if jsonl:
            jsonl.close()


if __name__ == "__main__":
    sys.exit(main())
