# SPDX-License-Identifier: BSD-3-Clause
"""unic-telemetry (apps/telemetry/unic_telemetry.py) against a fake server.

The fake speaks the protocol of lib/telemetry (a SOCK_SEQPACKET socket, a
hello, one JSON answer a request) with canned answers shaped as the
library's, so the client's one-shot, --jsonl, --list, --prometheus (parsed
back) and --listen are checked without an application. The library side is
tests/unit/test_telemetry.c and test_telemetry_l2fwd.c.
Run by meson (telemetry-client); by hand: cd tests && python3 -m unittest test_telemetry_client
"""
import contextlib
import io
import json
import os
import socket
import sys
import tempfile
import threading
import unittest
import urllib.error
import urllib.request

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "apps", "telemetry"))
import unic_telemetry as ut  # noqa: E402

ANSWERS = {
    "/ports/list": [0, 1],
    "/ports/info,0": {"id": 0, "name": "null0", "driver": "null", "numa_node": -1, "link": {"up": True}},
    "/ports/info,1": {"id": 1, "name": 'we"ird\\name', "driver": "null", "numa_node": 1,
                      "link": {"up": False}},
    "/ports/stats,0": {"ipackets": 1000, "opackets": 900, "ibytes": 64000, "obytes": 57600,
                       "imissed": 3, "ierrors": 0, "oerrors": 0, "rx_nombuf": 0},
    "/ports/stats,1": {"ipackets": 900, "opackets": 1000, "ibytes": 57600, "obytes": 64000,
                       "imissed": 0, "ierrors": 0, "oerrors": 1, "rx_nombuf": 0},
    "/napi/list": [0],
    "/napi/context,0": {"id": 0, "name": "l2fwd0", "mode": "hybrid", "rounds": 50, "polls": 60,
                        "empty_polls": 10, "packets": 1000, "interrupts": 4, "sleeps": 5,
                        "wakeups": 5, "arms": 5, "asleep_ns": 2500000000, "cpu_ns": 1500000000,
                        "adaptive": {"busy_polls_kept": 0, "moderation_set": 7},
                        "wake_latency_ns": {"p50": 2048, "p90": 4096, "p99": 8192,
                                            "p99_9": 8192, "max": 16384},
                        "queues": [{"port": 0, "port_name": "null0", "queue": 0, "polls": 30,
                                    "moderation": "adaptive", "moderation_us": 50,
                                    "moderation_effect_us": 128},
                                   {"port": 1, "port_name": 'we"ird\\name', "queue": 0, "polls": 30,
                                    "moderation": "fixed", "moderation_us": -1,
                                    "moderation_effect_us": -1}]},
    "/mem/pools": [{"name": "l2fwd", "size": 1344, "in_use": 100, "avail": 1244, "cache": 40,
                    "get_fail": 2}],
    "/proc/cpu": {"pid": 4242, "cpu_seconds": 3.25,
                  "threads": [{"tid": 4242, "name": "unic-l2fwd", "cpu_seconds": 0.25},
                              {"tid": 4243, "name": "unic-l2fwd", "cpu_seconds": 3.0}]},
}


class FakeServer:
    """A SEQPACKET server in a thread, answering from ANSWERS."""

    def __init__(self, path):
        self.path = path
        self.requests = []
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
        self.sock.bind(path)
        self.sock.listen(4)
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while True:
            try:
                c, _ = self.sock.accept()
            except OSError:
                return
            threading.Thread(target=self._serve, args=(c,), daemon=True).start()

    def _serve(self, c):
        c.send(json.dumps({"version": "unic 9.9.9", "pid": 4242, "max_output_len": 65536}).encode())
        while True:
            req = c.recv(2048)
            if not req:
                c.close()
                return
            req = req.decode()
            self.requests.append(req)
            key = req.split(",", 1)[0]
            if req in ANSWERS:
                ans = {key: ANSWERS[req]}
            else:
                ans = {"error": "unknown command '%s' ('/' lists them)" % key}
            c.send(json.dumps(ans).encode())

    def close(self):
        self.sock.close()


class ClientTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.old_xdg = os.environ.get("XDG_RUNTIME_DIR")
        os.environ["XDG_RUNTIME_DIR"] = self.tmp.name
        os.makedirs(os.path.join(self.tmp.name, "unic", "fwd"))
        self.path = ut.socket_path("fwd", 0)
        self.server = FakeServer(self.path)

    def tearDown(self):
        self.server.close()
        if self.old_xdg is None:
            del os.environ["XDG_RUNTIME_DIR"]
        else:
            os.environ["XDG_RUNTIME_DIR"] = self.old_xdg
        self.tmp.cleanup()

    def run_main(self, *argv):
        out = io.StringIO()
        err = io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = ut.main(list(argv))
        return rc, out.getvalue(), err.getvalue()

    def test_socket_path_follows_prefix_and_instance(self):
        self.assertEqual(ut.socket_path("fwd", 0), os.path.join(self.tmp.name, "unic/fwd/telemetry.sock"))
        self.assertEqual(ut.socket_path("fwd", 2), os.path.join(self.tmp.name, "unic/fwd/telemetry.2.sock"))

    def test_one_shot_prints_each_answer_as_json(self):
        rc, out, _ = self.run_main("--file-prefix", "fwd", "/ports/stats,0", "/napi/list")
        self.assertEqual(rc, 0)
        lines = out.strip().split("\n")
        self.assertEqual(json.loads(lines[0]), {"/ports/stats": ANSWERS["/ports/stats,0"]})
        self.assertEqual(json.loads(lines[1]), {"/napi/list": [0]})

    def test_an_error_answer_exits_1_with_the_message(self):
        rc, _, err = self.run_main("--file-prefix", "fwd", "/bogus")
        self.assertEqual(rc, 1)
        self.assertIn("unknown command '/bogus'", err)

    def test_no_application_is_an_error_that_says_what_to_run(self):
        rc, _, err = self.run_main("--file-prefix", "fwd", "-i", "3", "/ports/list")
        self.assertEqual(rc, 1)
        self.assertIn("telemetry.3.sock", err)
        self.assertIn("unic-telemetry --list", err)

    def test_list_shows_the_running_instances(self):
        rc, out, _ = self.run_main("--list")
        self.assertEqual(rc, 0)
        self.assertIn(self.path + "  pid 4242  unic 9.9.9", out)

    def test_jsonl_writes_one_line_per_command_per_sample(self):
        f = os.path.join(self.tmp.name, "s.jsonl")
        rc, _, _ = self.run_main("--file-prefix", "fwd", "--watch", "0.01", "--count", "3",
                                 "--jsonl", f, "/proc/cpu", "/napi/context,0")
        self.assertEqual(rc, 0)
        with open(f) as fh:
            rows = [json.loads(line) for line in fh]
        self.assertEqual(len(rows), 6)
        self.assertEqual([r["command"] for r in rows[:2]], ["/proc/cpu", "/napi/context,0"])
        self.assertEqual(rows[0]["data"], ANSWERS["/proc/cpu"])
        self.assertIsInstance(rows[0]["time"], float)
        self.assertLessEqual(rows[0]["time"], rows[2]["time"])
        self.assertEqual(set(rows[0]), {"time", "command", "data"})

    def test_prometheus_output_parses_back_with_types_and_values(self):
        rc, out, _ = self.run_main("--file-prefix", "fwd", "--prometheus")
        self.assertEqual(rc, 0)
        samples, types = ut.parse_prometheus(out)
        lab0 = frozenset({"port": "0", "name": "null0"}.items())
        lab1 = frozenset({"port": "1", "name": 'we"ird\\name'}.items())
        self.assertEqual(samples[("unic_port_rx_packets_total", lab0)], 1000)
        self.assertEqual(samples[("unic_port_rx_missed_total", lab0)], 3)
        self.assertEqual(samples[("unic_port_tx_errors_total", lab1)], 1)
        self.assertEqual(samples[("unic_port_link_up", lab1)], 0)
        ctx = {"context": "0", "name": "l2fwd0", "mode": "hybrid"}
        self.assertEqual(samples[("unic_napi_sleeps_total", frozenset(ctx.items()))], 5)
        self.assertEqual(samples[("unic_napi_asleep_seconds_total", frozenset(ctx.items()))], 2.5)
        q99 = dict(ctx, quantile="0.99")
        self.assertAlmostEqual(samples[("unic_napi_wake_latency_seconds", frozenset(q99.items()))], 8.192e-6)
        # The port's NUMA node, -1 (none) included, as /ports/info says.
        self.assertEqual(samples[("unic_port_numa_node", lab0)], -1)
        self.assertEqual(samples[("unic_port_numa_node", lab1)], 1)
        # Each queue's device moderation: who sets it (a state a label, 1 for
        # the one in force), what the policy set and what the port took, in
        # seconds; a queue with none set (-1) has no value samples.
        self.assertEqual(samples[("unic_napi_moderation_changes_total", frozenset(ctx.items()))], 7)
        q0 = dict(ctx, port="0", queue="0")
        q1 = dict(ctx, port="1", queue="0")
        self.assertEqual(samples[("unic_napi_queue_moderation_mode", frozenset(dict(q0, moderation="adaptive").items()))], 1)
        self.assertEqual(samples[("unic_napi_queue_moderation_mode", frozenset(dict(q0, moderation="fixed").items()))], 0)
        self.assertEqual(samples[("unic_napi_queue_moderation_mode", frozenset(dict(q1, moderation="adaptive").items()))], 0)
        self.assertEqual(samples[("unic_napi_queue_moderation_mode", frozenset(dict(q1, moderation="fixed").items()))], 1)
        self.assertAlmostEqual(samples[("unic_napi_queue_moderation_seconds", frozenset(q0.items()))], 50e-6)
        self.assertAlmostEqual(samples[("unic_napi_queue_moderation_effect_seconds", frozenset(q0.items()))], 128e-6)
        self.assertNotIn(("unic_napi_queue_moderation_seconds", frozenset(q1.items())), samples)
        self.assertNotIn(("unic_napi_queue_moderation_effect_seconds", frozenset(q1.items())), samples)
        pool = frozenset({"pool": "l2fwd"}.items())
        self.assertEqual(samples[("unic_pool_in_use", pool)], 100)
        self.assertEqual(samples[("unic_process_cpu_seconds_total", frozenset({"pid": "4242"}.items()))], 3.25)
        # Counters end in _total and are typed counter; the rest are gauges.
        for name, kind in types.items():
            self.assertEqual(kind, "counter" if name.endswith("_total") else "gauge", name)
        # Every family has its HELP and TYPE before its samples.
        lines = out.splitlines()
        for name in types:
            first = next(i for i, line in enumerate(lines) if line.startswith(name + " ") or
                         line.startswith(name + "{"))
            self.assertEqual(lines[first - 1], "# TYPE %s %s" % (name, types[name]))
            self.assertTrue(lines[first - 2].startswith("# HELP %s " % name))

    def test_listen_serves_metrics_over_http(self):
        srv = ut.serve("127.0.0.1", 0, lambda: self.path)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        try:
            port = srv.server_address[1]
            with urllib.request.urlopen("http://127.0.0.1:%d/metrics" % port, timeout=10) as r:
                self.assertIn("text/plain; version=0.0.4", r.headers["Content-Type"])
                body = r.read().decode()
            samples, _ = ut.parse_prometheus(body)
            self.assertEqual(samples[("unic_up", frozenset())], 1)
            with self.assertRaises(urllib.error.HTTPError) as cm:
                urllib.request.urlopen("http://127.0.0.1:%d/other" % port, timeout=10)
            self.assertEqual(cm.exception.code, 404)
        finally:
            srv.shutdown()
            srv.server_close()

    def test_listen_address_forms(self):
        self.assertEqual(ut.parse_listen("9101"), ("127.0.0.1", 9101))
        self.assertEqual(ut.parse_listen(":9101"), ("127.0.0.1", 9101))
        self.assertEqual(ut.parse_listen("0.0.0.0:80"), ("0.0.0.0", 80))
        with self.assertRaises(ValueError):
            ut.parse_listen("host:port")


if __name__ == "__main__":
    unittest.main()
