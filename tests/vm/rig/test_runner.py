"""The runner's watch, stop and report against a stand-in for QEMU
(rig/fake_qemu.py): a guest check that goes silent, a kernel panic, a guest
that finishes.  Suite unit: no guest, no root, a few seconds per test.

Run: cd tests/vm && python3 -m unittest rig.test_runner
"""

import os
import shutil
import sys
import tempfile
import time
import unittest

from . import initramfs, qemu, results, runner
from .model import Boot, Check, Nic, Scenario, Topology

FAKE = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'fake_qemu.py')
RUN = 'feedf00d'
SLACK = 2       # seconds past a check's timeout before the host calls it hung


def failed(res):
    return [r.name for r in res if not r.ok]


def result(res, name):
    hits = [r for r in res if r.name == name]
    if len(hits) != 1:
        raise AssertionError('%d results named %r in %s' % (len(hits), name, [r.name for r in res]))
    return hits[0]


class Watch(unittest.TestCase):

    def setUp(self):
        self.dir = tempfile.mkdtemp(prefix='unic-rig-test-')
        self.addCleanup(shutil.rmtree, self.dir)

    def boot(self, *checks, timeout=15):
        """Runs a guest of the stand-in with these checks after the setup;
        returns (results, Stop or None, seconds, console log path)."""
        topo = Topology(access='uio', nics=(Nic('e1000e', 'hub0', 'root-bus'),))
        boot = Boot('fake', topo, (Scenario('s', checks),), timeout=timeout)
        base = os.path.join(self.dir, 'fake-' + RUN)
        console, res_path, plan = base + '.console.log', base + '.results.log', base + '.plan'
        with open(plan, 'w') as f:
            f.write(initramfs.plan_text(boot))
        cmd = qemu.command(topo, 'vmlinuz', plan, qemu.kernel_cmdline(topo, RUN),
                           'file:' + console, 'file:' + res_path, emulator=(sys.executable, FAKE))
        started = time.monotonic()
        out, stream, stopped = runner.run_guest(boot, RUN, cmd, console, res_path, slack=SLACK)
        if stream.hello is None:
            with open(console + '.qemu-stderr') as f:
                self.fail('the stand-in did not start: ' + f.read())
        return out, stopped, time.monotonic() - started, console

    def assert_fake_gone(self, console):
        with open(console) as f:
            pid = int(f.readline().split('pid ')[1].rstrip(')\n'))
        with self.assertRaises(ProcessLookupError, msg='the stand-in still runs'):
            os.kill(pid, 0)

    def test_a_guest_that_finishes_passes(self):
        out, stopped, _, _ = self.boot(Check('ok', 'true'))
        self.assertIsNone(stopped)
        self.assertEqual(failed(out), [])
        self.assertIn('fake: s/ok', [r.name for r in out])

    def test_a_silent_check_is_stopped_and_reported_as_a_hang_with_the_console_log(self):
        out, stopped, took, console = self.boot(
            Check('ok', 'true'), Check('stuck', 'hang', timeout=0), Check('after', 'true'))
        self.assertEqual(stopped.kind, 'hang', stopped)
        self.assertIn('check s/stuck made no progress for %d s' % SLACK, stopped.why)
        self.assertGreaterEqual(took, SLACK)
        self.assertLess(took, SLACK + 8)
        self.assert_fake_gone(console)
        self.assertEqual(failed(out), ['fake: s/stuck', 'fake: s/after'])
        stuck = result(out, 'fake: s/stuck')
        self.assertEqual(stuck.seen, 'hang')
        self.assertIn('started but did not end: ' + stopped.why, stuck.diag)
        self.assertIn('console log: ' + console, stuck.diag)
        self.assertEqual(result(out, 'fake: s/after').seen, 'not run')
        # The TAP report: the check failed, the reason and the log beneath it.
        tap = results.tap_lines(out)
        at = tap.index('not ok %d - fake: s/stuck' % (out.index(stuck) + 1))
        self.assertIn('# console log: ' + console, tap[at:at + 4])
        self.assertIn('# started but did not end: ' + stopped.why, tap[at:at + 4])

    def test_the_check_timeout_counts_before_the_slack(self):
        _, stopped, took, _ = self.boot(Check('stuck', 'hang', timeout=1))
        self.assertEqual(stopped.kind, 'hang', stopped)
        self.assertIn('made no progress for %d s' % (1 + SLACK), stopped.why)
        self.assertGreaterEqual(took, 1 + SLACK)

    def test_a_hang_that_was_expected_passes_and_says_so(self):
        out, stopped, _, _ = self.boot(Check('stuck', 'hang', timeout=0, expect='hang'))
        self.assertEqual(stopped.kind, 'hang', stopped)
        self.assertEqual(failed(out), [])
        self.assertEqual(result(out, 'fake: s/stuck').diag[0], 'expected hang, seen hang')

    def test_a_boot_past_its_host_timeout_is_a_timeout_not_a_hang(self):
        out, stopped, took, _ = self.boot(Check('stuck', 'hang', timeout=60, expect='hang'),
                                          timeout=3)
        self.assertEqual(stopped.kind, 'timeout', stopped)
        self.assertLess(took, 10)
        self.assertEqual(failed(out), ['fake: s/stuck'])
        self.assertEqual(result(out, 'fake: s/stuck').diag[0], 'expected hang, seen timeout')

    def test_a_panic_stops_the_guest_at_once_as_a_panic(self):
        # A check timeout of a minute: only the console can end this early.
        out, stopped, took, console = self.boot(Check('crash', 'panic', timeout=60))
        self.assertEqual(stopped.kind, 'panic', stopped)
        self.assertIn('Kernel panic - not syncing', stopped.why)
        self.assertLess(took, SLACK + 8)
        self.assert_fake_gone(console)
        crash = result(out, 'fake: s/crash')
        self.assertFalse(crash.ok)
        self.assertEqual(crash.seen, 'panic')

    def test_an_expected_panic_passes_when_qemu_exits_by_itself(self):
        out, stopped, _, _ = self.boot(Check('crash', 'exit-panic', expect='panic'))
        # The watch may read the panic line before the stand-in has exited.
        self.assertIn(stopped.kind if stopped else None, (None, 'panic'))
        self.assertEqual(failed(out), [])
        self.assertEqual(result(out, 'fake: s/crash').diag[0], 'expected panic, seen panic')

    def test_an_expected_panic_that_hangs_instead_fails(self):
        out, stopped, _, _ = self.boot(Check('crash', 'hang', timeout=0, expect='panic'))
        self.assertEqual(stopped.kind, 'hang', stopped)
        self.assertEqual(failed(out), ['fake: s/crash'])
        self.assertEqual(result(out, 'fake: s/crash').diag[0], 'expected panic, seen hang')

    def test_an_expected_panic_that_passes_instead_fails(self):
        out, _, _, _ = self.boot(Check('crash', 'true', expect='panic'))
        self.assertEqual(failed(out), ['fake: s/crash'])
        self.assertEqual(result(out, 'fake: s/crash').diag[0], 'expected panic, seen pass')

    def test_an_expected_failing_case_passes_and_its_neighbour_is_judged_as_usual(self):
        out, _, _, _ = self.boot(Check('c', 'tap-fail', 'tap', expect='fail', failing=('rig::b',)))
        self.assertEqual(failed(out), [])
        self.assertEqual(result(out, 'fake: s/c: rig::b').diag[0], 'expected fail, seen fail')
        self.assertIsNone(result(out, 'fake: s/c: rig::a').expected)
        out, _, _, _ = self.boot(Check('c', 'tap-fail', 'tap', expect='fail', failing=('rig::a',)))
        self.assertEqual(failed(out), ['fake: s/c: rig::a', 'fake: s/c: rig::b'])
        self.assertEqual(result(out, 'fake: s/c: rig::a').diag[0], 'expected fail, seen pass')


class _Stdin:
    def __init__(self):
        self.lines = []

    def write(self, text):
        self.lines.append(text)

    def flush(self):
        pass


class _Proc:
    def __init__(self):
        self.stdin = _Stdin()


class PeerRequestTest(unittest.TestCase):
    """What a guest's host-send asks of a tap's peer (no peer process)."""

    def peers(self):
        boot = Boot('fake', Topology(access='vfio', nics=(Nic('virtio-net', 'tap:unic2', 'root-port'),)),
                    scenarios=(Scenario('s', (Check('c', 'true'),)),))
        p = runner.Peers(boot, '/nonexistent/base')
        p.procs['unic2'] = _Proc()
        return p

    def test_tap_slash_flows_asks_the_peer_for_flows_and_a_bare_tap_for_tagged_frames(self):
        p = self.peers()
        self.assertIsNone(p.send('unic2/flows', RUN, 's/c', 40))
        self.assertIsNone(p.send('unic2', RUN, 's/c', 5))
        self.assertEqual(p.procs['unic2'].stdin.lines,
                         ['flows %s s/c 40\n' % RUN, 'send %s s/c 5\n' % RUN])

    def test_an_unknown_kind_or_tap_is_refused_with_a_reason(self):
        p = self.peers()
        self.assertIn('kind bogus', p.send('unic2/bogus', RUN, 's/c', 1))
        self.assertIn('no tap', p.send('unic9/flows', RUN, 's/c', 1))
        self.assertEqual(p.procs['unic2'].stdin.lines, [])

    def test_each_flow_frame_is_ipv4_udp_with_a_valid_header_checksum_and_its_own_ports(self):
        sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
        import peer
        seen = set()
        for seq in range(300):
            f = peer.flow_frame(RUN, 's/c', seq)
            self.assertEqual(f[12:14], b'\x08\x00')
            self.assertEqual(peer.ipv4_cksum(f[14:34]), 0, 'seq %d: IPv4 header checksum' % seq)
            self.assertEqual(f[23], 17)
            self.assertTrue(f[42:].startswith(('unic-vm %s s/c %d' % (RUN, seq)).encode()))
            seen.add(f[26:38])
        self.assertEqual(len(seen), 300, 'every frame a flow of its own')


if __name__ == '__main__':
    unittest.main()
