"""tests/summary.py on canned meson testlog.json files: TAP cases passed,
failed and skipped, a plan with cases never reported, a non-TAP failure, a
timeout, expected failures, and the "failed:" lines above the summary.

Run by meson (suite unit, test summary-parser) from this directory:
python3 -m unittest -v test_summary
"""
import contextlib
import io
import json
import os
import tempfile
import unittest

import summary


def tap(*lines):
    return "\n".join(lines) + "\n"


class SummaryTest(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.nb_logs = 0

    def tearDown(self):
        self.tmp.cleanup()

    def log(self, *tests, build="build-test"):
        """A testlog.json in <tmp>/<build>/meson-logs/, one test a line."""
        self.nb_logs += 1
        d = os.path.join(self.tmp.name, str(self.nb_logs), build, "meson-logs")
        os.makedirs(d)
        path = os.path.join(d, "testlog.json")
        with open(path, "w", encoding="utf-8") as f:
            for t in tests:
                f.write(json.dumps(t) + "\n")
        return path

    def run_summary(self, *paths):
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            rc = summary.main(list(paths))
        return rc, out.getvalue().splitlines(), err.getvalue()

    def test_tap_cases_count_one_each_and_a_skip_is_not_a_pass(self):
        path = self.log({"name": "ring", "result": "OK",
                         "stdout": tap("1..3", "ok 1 - ring::a", "ok 2 - ring::b # SKIP no hugepages",
                                       "ok 3 - ring::c")})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, ["summary: 2 passed, 0 failed, 1 skipped"])
        self.assertEqual(rc, 0)

    def test_a_failing_case_is_named_with_its_first_diagnostic_above_the_summary(self):
        path = self.log({"name": "port", "result": "FAIL",
                         "stdout": tap("1..2", "ok 1 - port::a", "not ok 2 - port::b",
                                       "  # test_port.c:42: Assertion failed: expected 0, got -22",
                                       "  # second line")})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, [
            "failed: build-test: port: not ok 2 - port::b | test_port.c:42: Assertion failed: expected 0, got -22",
            "summary: 1 passed, 1 failed",
        ])
        self.assertEqual(rc, 1)

    def test_cases_the_plan_announced_but_never_reported_count_as_failed(self):
        path = self.log({"name": "napi", "result": "FAIL", "stdout": tap("1..5", "ok 1 - a", "ok 2 - b")})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, [
            "failed: build-test: napi: FAIL, 3 case(s) never reported (the program died or timed out)",
            "summary: 2 passed, 3 failed",
        ])
        self.assertEqual(rc, 1)

    def test_a_failing_case_and_missing_ones_are_both_named(self):
        path = self.log({"name": "bus", "result": "FAIL",
                         "stdout": tap("1..4", "ok 1 - a", "not ok 2 - b")})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, [
            "failed: build-test: bus: not ok 2 - b",
            "failed: build-test: bus: 2 planned case(s) never reported",
            "summary: 1 passed, 3 failed",
        ])
        self.assertEqual(rc, 1)

    def test_a_non_tap_test_counts_as_one_pass_or_one_failure(self):
        path = self.log({"name": "stress_ring", "result": "OK", "stdout": "100000 rounds\n"},
                        {"name": "stress_pool", "result": "FAIL", "stdout": "stress_pool: check failed\n"})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, ["failed: build-test: stress_pool: FAIL", "summary: 1 passed, 1 failed"])
        self.assertEqual(rc, 1)

    def test_a_timeout_fails_the_cases_it_did_not_reach(self):
        path = self.log({"name": "testpmd", "result": "TIMEOUT", "stdout": tap("1..4", "ok 1 - a")})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, [
            "failed: build-test: testpmd: TIMEOUT, 3 case(s) never reported (the program died or timed out)",
            "summary: 1 passed, 3 failed",
        ])
        self.assertEqual(rc, 1)

    def test_a_timeout_after_every_case_passed_still_fails_once(self):
        path = self.log({"name": "l2fwd", "result": "TIMEOUT", "stdout": tap("1..1", "ok 1 - a")})
        rc, out, err = self.run_summary(path)
        self.assertEqual(out[-1], "summary: 1 passed, 1 failed")
        self.assertIn("l2fwd: TIMEOUT without a failing case", err)
        self.assertEqual(rc, 1)

    def test_an_expected_failure_is_one_pass_and_a_skipped_test_is_not_counted(self):
        path = self.log({"name": "selftest", "result": "EXPECTEDFAIL", "stdout": tap("1..2", "not ok 1 - x")},
                        {"name": "vm-uio", "result": "SKIP", "stdout": ""},
                        {"name": "log", "result": "OK", "stdout": tap("1..1", "ok 1 - a")})
        rc, out, _ = self.run_summary(path)
        self.assertEqual(out, ["summary: 2 passed, 0 failed"])
        self.assertEqual(rc, 0)

    def test_logs_of_several_builds_add_up_and_name_their_build(self):
        a = self.log({"name": "pool", "result": "OK", "stdout": tap("1..2", "ok 1", "ok 2")}, build="build-test")
        b = self.log({"name": "pool", "result": "FAIL", "stdout": tap("1..2", "ok 1", "not ok 2 - leak")},
                     build="build-asan")
        rc, out, _ = self.run_summary(a, b)
        self.assertEqual(out, ["failed: build-asan: pool: not ok 2 - leak", "summary: 3 passed, 1 failed"])
        self.assertEqual(rc, 1)

    def test_nothing_run_or_a_missing_log_is_a_failure(self):
        rc, out, _ = self.run_summary(self.log())
        self.assertEqual(out, ["summary: 0 passed, 0 failed"])
        self.assertEqual(rc, 1, "nothing ran")
        rc, out, err = self.run_summary(os.path.join(self.tmp.name, "nosuch", "testlog.json"))
        self.assertEqual(out, ["summary: 0 passed, 1 failed"])
        self.assertIn("cannot read", err)
        self.assertEqual(rc, 1)

    def test_past_40_failing_cases_the_rest_are_counted_on_one_line(self):
        lines = ["1..45"] + [f"not ok {i} - case{i}" for i in range(1, 46)]
        rc, out, _ = self.run_summary(self.log({"name": "big", "result": "FAIL", "stdout": tap(*lines)}))
        self.assertEqual(len(out), 42)
        self.assertEqual(out[39], "failed: build-test: big: not ok 40 - case40")
        self.assertEqual(out[40], "failed: ... and 5 more")
        self.assertEqual(out[41], "summary: 0 passed, 45 failed")
        self.assertEqual(rc, 1)


if __name__ == "__main__":
    unittest.main()
