#!/usr/bin/env python3
"""Sum meson test logs into one line: "summary: N passed, N failed".

Each argument is a meson-logs/testlog.json. A TAP test counts its cases
(ok / not ok lines; "ok ... # SKIP" is counted as skipped, not passed); cases its plan announced but never reported count as
failed (the binary died). A non-TAP test, or a TAP test that failed without
reporting a failing case, counts as one. A test meson expected to fail
(should_fail) that did fail counts as one pass. Exit status 1 if anything
failed or nothing ran.

Every failing case is also named on a line of its own just above the
summary ("failed: <suite log>: <test>: <not ok line and its first
diagnostic>"), so that the last lines of a long CI log say what failed.
"""
import json
import os
import re
import sys

PLAN = re.compile(r"^1\.\.(\d+)")


def count_tap(stdout, failures=None):
    passed = failed = skipped = 0
    plan = None
    lines = stdout.splitlines()
    for i, line in enumerate(lines):
        m = PLAN.match(line)
        if m and plan is None:
            plan = int(m.group(1))
        elif line.startswith("not ok"):
            failed += 1
            if failures is not None:
                why = ""
                for nxt in lines[i + 1:i + 4]:
                    if nxt.lstrip().startswith("#") and nxt.strip("# \t"):
                        why = " | " + nxt.strip("# \t")
                        break
                failures.append((line + why)[:400])
        elif line.startswith("ok"):
            if "# SKIP" in line.upper():
                skipped += 1
            else:
                passed += 1
    if plan is not None and passed + failed + skipped < plan:
        failed += plan - passed - failed - skipped
    return passed, failed, skipped, plan is not None or passed + failed + skipped > 0


def main(paths):
    total_pass = total_fail = total_skip = 0
    failed_lines = []
    for path in paths:
        try:
            lines = open(path, encoding="utf-8").read().splitlines()
        except OSError as e:
            print(f"summary: cannot read {path}: {e}", file=sys.stderr)
            total_fail += 1
            continue
        for line in lines:
            if not line.strip():
                continue
            t = json.loads(line)
            result = t.get("result", "ERROR")
            if result == "SKIP":
                continue
            if result == "EXPECTEDFAIL":
                total_pass += 1
                continue
            cases = []
            p, f, sk, is_tap = count_tap(t.get("stdout") or "", cases)
            total_skip += sk
            ok = result == "OK"
            if not is_tap:
                p, f = (1, 0) if ok else (0, 1)
            elif not ok and f == 0:
                f = 1
                print(f"summary: {t.get('name')}: {result} without a failing case", file=sys.stderr)
            total_pass += p
            total_fail += f
            if f:
                where = f"{os.path.basename(os.path.dirname(os.path.dirname(os.path.abspath(path))))}: {t.get('name')}"
                if not cases:
                    cases = [f"{result}, {f} case(s) never reported (the program died or timed out)"
                             if is_tap else result]
                elif len(cases) < f:
                    cases.append(f"{f - len(cases)} planned case(s) never reported")
                failed_lines += [f"failed: {where}: {c}" for c in cases]
    for fl in failed_lines[:40]:
        print(fl)
    if len(failed_lines) > 40:
        print(f"failed: ... and {len(failed_lines) - 40} more")
    line = f"summary: {total_pass} passed, {total_fail} failed"
    if total_skip:
        line += f", {total_skip} skipped"
    print(line)
    return 1 if total_fail or total_pass == 0 else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
