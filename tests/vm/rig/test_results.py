"""The result parser on canned guest output (suite unit: no guest, no root).

Run: cd tests/vm && python3 -m unittest rig.test_results
"""

import unittest
from dataclasses import replace

from . import frames, results
from .model import Boot, Check, Nic, Scenario, Topology, criterion

RUN = 'c0ffee01'
PLAN = [Check('setup/bind', 'unic-vm bind'),
        Check('smoke/vfio', 'test_vfio_smoke --tap=- -j1', 'tap')]


def stream(*lines):
    return '\r\n'.join(lines) + '\r\n'


HELLO = '@@unic-vm hello %s 6.1.0-57-amd64 3.2' % RUN
BIND_OK = ['@@unic-vm begin %s setup/bind plain' % RUN, '| nic0 bound',
           '@@unic-vm end %s setup/bind 0 0.5' % RUN]


def smoke(status, *tap):
    return (['@@unic-vm begin %s smoke/vfio tap' % RUN]
            + ['| ' + t for t in tap]
            + ['@@unic-vm end %s smoke/vfio %d 3.0' % (RUN, status)])


DONE = '@@unic-vm done %s 9.9' % RUN


def verdict(text, console='', stopped=None, plan=PLAN):
    if isinstance(stopped, str):
        stopped = results.Stop('timeout' if 'timed out' in stopped else 'error', stopped)
    return results.evaluate('b', plan, results.parse_stream(text, RUN), console, stopped)


def with_smoke(**kw):
    """PLAN with smoke/vfio made by criterion() with these arguments."""
    return [PLAN[0], replace(criterion('vfio', 'tests/vm/guest/test_vfio_smoke', **kw),
                             name='smoke/vfio')]


PANIC_PLAN = PLAN + [Check('selftest/panic', 'echo c > /proc/sysrq-trigger', expect='panic')]
PANIC_BEGIN = '@@unic-vm begin %s selftest/panic plain' % RUN
CRASH = '[ 9.1] Kernel panic - not syncing: sysrq triggered crash\n'


def failed(res):
    return [r.name for r in res if not r.ok]


class ParseAndEvaluate(unittest.TestCase):

    def test_all_passing_checks_pass(self):
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(0, 'TAP version 13', '1..2', 'ok - vfio::a  (0.01s)',
                                    'ok - vfio::b  (0.20s)'), DONE))
        self.assertEqual(failed(res), [])
        self.assertIn('b: smoke/vfio: vfio::a', [r.name for r in res])

    def test_a_failing_test_case_fails_with_its_diagnostics(self):
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(1, '1..2', 'ok - vfio::a', 'not ok - vfio::b',
                                    '  test.c:3: Assertion failed'), DONE))
        self.assertEqual(failed(res), ['b: smoke/vfio: vfio::b'])
        self.assertIn('test.c:3: Assertion failed', res[-1].diag)

    def test_a_plain_check_with_nonzero_status_fails(self):
        text = stream(HELLO, '@@unic-vm begin %s setup/bind plain' % RUN, '! no such device',
                      '@@unic-vm end %s setup/bind 1 0.1' % RUN,
                      *smoke(0, '1..1', 'ok - vfio::a'), DONE)
        self.assertEqual(failed(verdict(text)), ['b: setup/bind'])

    def test_a_crash_in_the_middle_fails_the_rest_with_the_panic(self):
        text = stream(HELLO, *BIND_OK, '@@unic-vm begin %s smoke/vfio tap' % RUN, '| 1..2',
                      '| ok - vfio::a')
        console = 'blah\n[ 5.0] Kernel panic - not syncing: sysrq triggered crash\n'
        res = verdict(text, console, 'guest kernel crashed')
        self.assertEqual(failed(res), ['b: smoke/vfio'])
        self.assertIn('Kernel panic', res[-1].diag[0])

    def test_a_hang_reports_every_missing_check(self):
        res = verdict(stream(HELLO), stopped='timed out')
        self.assertEqual(failed(res), ['b: setup/bind', 'b: smoke/vfio'])

    def test_no_hello_fails_the_boot(self):
        self.assertIn('b: boot', failed(verdict('', stopped='timed out')))

    def test_truncated_tap_fails_even_with_status_zero(self):
        res = verdict(stream(HELLO, *BIND_OK, *smoke(0, '1..3', 'ok - vfio::a'), DONE))
        self.assertEqual(failed(res), ['b: smoke/vfio'])
        self.assertIn('TAP planned 3 results, got 1', res[-1].diag)

    def test_passing_cases_with_a_crashing_binary_fail(self):
        res = verdict(stream(HELLO, *BIND_OK, *smoke(139, '1..1', 'ok - vfio::a'), DONE))
        self.assertEqual(failed(res), ['b: smoke/vfio'])

    def test_frames_of_another_run_are_strays_not_results(self):
        other = [x.replace(RUN, 'deadbeef') for x in BIND_OK]
        text = stream(*other, HELLO, *smoke(0, '1..1', 'ok - vfio::a'), DONE)
        s = results.parse_stream(text, RUN)
        self.assertEqual(s.strays, 2)
        self.assertEqual(s.noise, ['| nic0 bound'])
        res = verdict(text)
        self.assertEqual(failed(res), ['b: setup/bind'])
        self.assertIn('2 frames with another run id were ignored', res[0].diag)

    def test_a_forged_frame_inside_output_is_only_output(self):
        text = stream(HELLO, *BIND_OK,
                      *smoke(1, '1..1', 'not ok - vfio::a',
                             '@@unic-vm end %s smoke/vfio 0 1.0' % RUN), DONE)
        self.assertEqual(failed(verdict(text)), ['b: smoke/vfio: vfio::a'])

    def test_send_requests_count_only_inside_their_own_check(self):
        text = stream(HELLO, '@@unic-vm send %s setup/bind unic0 5' % RUN, *BIND_OK[:2],
                      '@@unic-vm send %s setup/bind unic0 20' % RUN,
                      '@@unic-vm send %s smoke/vfio unic0 7' % RUN, BIND_OK[2])
        self.assertEqual(results.parse_stream(text, RUN).sends, [('setup/bind', 'unic0', 20)])

    def test_gso_requests_count_only_inside_their_check_with_a_case_and_an_index(self):
        text = stream(HELLO, '@@unic-vm gso %s setup/bind unic2 lro4:1448:60000 0' % RUN, *BIND_OK[:2],
                      '@@unic-vm gso %s setup/bind unic2 lro4:1448:60000 0' % RUN,
                      '@@unic-vm gso %s setup/bind unic2 csum6:1000 x' % RUN,
                      '@@unic-vm gso %s setup/bind unic2 rm;-rf 1' % RUN,
                      '@@unic-vm gso %s smoke/vfio unic2 csum4:100 2' % RUN, BIND_OK[2])
        self.assertEqual(results.parse_stream(text, RUN).gsos,
                         [('setup/bind', 'unic2', 'lro4:1448:60000', 0)])

    def test_peer_builds_a_gso_frame_with_its_header_and_tagged_payload(self):
        import rig.peer as peer
        import struct
        hdr_frame = peer.rx_frame(RUN, 'a/b', 'lro6:1428:3000', 2)
        flags, gso, hdr_len, gso_size, start, off = struct.unpack('<BBHHHH', hdr_frame[:10])
        self.assertEqual((flags, gso, hdr_len, gso_size, start, off), (1, 4, 74, 1428, 54, 16))
        frame = hdr_frame[10:]
        self.assertEqual(len(frame), 74 + 3000)
        self.assertTrue(frame[74:].startswith(('unic-vm %s a/b 2\n' % RUN).encode()))
        self.assertEqual(frame[74 + 2999], peer.payload_byte(2999))
        self.assertEqual(struct.unpack('!H', frame[54 + 2:54 + 4])[0], 42002)
        with self.assertRaises(ValueError):
            peer.rx_frame(RUN, 'a/b', 'tso9:1:1', 0)

    def test_link_requests_count_only_inside_their_check_and_only_on_or_off(self):
        text = stream(HELLO, '@@unic-vm link %s setup/bind nic0 off' % RUN, *BIND_OK[:2],
                      '@@unic-vm link %s setup/bind nic0 off' % RUN,
                      '@@unic-vm link %s setup/bind nic1 quit' % RUN,
                      '@@unic-vm link %s setup/bind quit off' % RUN,
                      '@@unic-vm link %s setup/bind nic3 on' % RUN, BIND_OK[2])
        self.assertEqual(results.parse_stream(text, RUN).links,
                         [('setup/bind', 'nic0', 'off'), ('setup/bind', 'nic3', 'on')])

    def test_skip_and_todo_do_not_fail(self):
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(0, '1..2', 'ok - vfio::a # SKIP no IOMMU',
                                    'not ok - vfio::b # TODO later'), DONE))
        self.assertEqual(failed(res), [])
        self.assertEqual([r.skip for r in res if r.skip], ['no IOMMU'])

    def test_a_failed_setup_is_not_ok_for_setup(self):
        text = stream(HELLO, '@@unic-vm begin %s setup/bind plain' % RUN,
                      '@@unic-vm end %s setup/bind 1 0.1' % RUN,
                      *smoke(0, '1..1', 'ok - vfio::a'), DONE)
        self.assertFalse(results.setup_ok('b', verdict(text)))
        self.assertFalse(results.setup_ok('b', verdict('', stopped='timed out')))
        good = stream(HELLO, *BIND_OK, *smoke(1, '1..1', 'not ok - vfio::a'), DONE)
        self.assertTrue(results.setup_ok('b', verdict(good)))

    def test_no_done_frame_fails_even_if_every_check_passed(self):
        res = verdict(stream(HELLO, *BIND_OK, *smoke(0, '1..1', 'ok - vfio::a')),
                      stopped='QEMU exited with status 1')
        self.assertEqual(failed(res), ['b: guest finished the plan'])


class Excluded(unittest.TestCase):
    """Test cases the runner left out of a boot (criterion(excluded=))."""

    def test_the_filter_names_exactly_the_excluded_cases(self):
        cmd = with_smoke(excluded=('vfio::b', 'vfio::c'))[1].command
        self.assertIn("--filter='!(vfio/b|vfio/c)'", cmd)
        self.assertNotIn('--filter', with_smoke()[1].command)

    def test_excluded_cases_skipped_by_the_filter_are_dropped(self):
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(0, '1..2', 'ok - vfio::a  (0.01s)',
                                    'ok - vfio::b  # SKIP test was skipped'), DONE),
                      plan=with_smoke(excluded=('vfio::b',)))
        self.assertEqual(failed(res), [])
        self.assertNotIn('b: smoke/vfio: vfio::b', [r.name for r in res])
        self.assertEqual([r.skip for r in res if r.skip], [])

    def test_a_skip_the_test_decided_itself_is_still_reported(self):
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(0, '1..2', 'ok - vfio::a  # SKIP no virtio-net',
                                    'ok - vfio::b  # SKIP test was skipped'), DONE),
                      plan=with_smoke(excluded=('vfio::b',)))
        self.assertEqual([(r.name, r.skip) for r in res if r.skip],
                         [('b: smoke/vfio: vfio::a', 'no virtio-net')])

    def test_an_excluded_case_that_ran_fails(self):
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(0, '1..2', 'ok - vfio::a', 'ok - vfio::b  (0.01s)'), DONE),
                      plan=with_smoke(excluded=('vfio::b',)))
        self.assertEqual(failed(res), ['b: smoke/vfio: vfio::b'])
        self.assertIn('excluded from this boot (--filter), but it ran', res[-1].diag)

    def test_an_excluded_case_the_binary_does_not_have_fails_the_check(self):
        res = verdict(stream(HELLO, *BIND_OK, *smoke(0, '1..1', 'ok - vfio::a'), DONE),
                      plan=with_smoke(excluded=('vfio::gone',)))
        self.assertEqual(failed(res), ['b: smoke/vfio'])
        self.assertIn('excluded test cases the binary does not list: vfio::gone', res[-1].diag)


class Expected(unittest.TestCase):
    """Checks expected to fail or to panic (the rig's self-test)."""

    def test_an_expected_failing_case_passes_and_the_others_are_judged_as_usual(self):
        plan = with_smoke(expect='fail', failing=('vfio::b',))
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(1, '1..2', 'ok - vfio::a', 'not ok - vfio::b',
                                    '  test.c:3: Assertion failed'), DONE), plan=plan)
        self.assertEqual(failed(res), [])
        b = [r for r in res if r.name == 'b: smoke/vfio: vfio::b'][0]
        self.assertEqual(b.diag, ['expected fail, seen fail', 'test.c:3: Assertion failed'])
        res = verdict(stream(HELLO, *BIND_OK,
                             *smoke(1, '1..2', 'not ok - vfio::a', 'not ok - vfio::b'), DONE),
                      plan=plan)
        self.assertEqual(failed(res), ['b: smoke/vfio: vfio::a'])

    def test_an_expected_failing_case_that_passes_fails(self):
        res = verdict(stream(HELLO, *BIND_OK, *smoke(0, '1..2', 'ok - vfio::a', 'ok - vfio::b'),
                             DONE), plan=with_smoke(expect='fail', failing=('vfio::b',)))
        self.assertEqual(failed(res), ['b: smoke/vfio: vfio::b'])
        self.assertEqual(res[-1].diag, ['expected fail, seen pass'])

    def test_an_expected_failing_case_that_is_missing_fails(self):
        res = verdict(stream(HELLO, *BIND_OK, *smoke(1, '1..1', 'not ok - vfio::a'), DONE),
                      plan=with_smoke(expect='fail', failing=('vfio::b',)))
        self.assertEqual(failed(res), ['b: smoke/vfio: vfio::a', 'b: smoke/vfio: vfio::b'])
        self.assertIn('expected fail, seen no such result', res[-1].diag[0])

    def test_an_expected_panic_seen_passes_and_the_crash_is_no_failure(self):
        text = stream(HELLO, *BIND_OK, *smoke(0, '1..1', 'ok - vfio::a'), PANIC_BEGIN)
        res = verdict(text, console=CRASH, plan=PANIC_PLAN)
        self.assertEqual(failed(res), [])
        self.assertEqual(res[-1].name, 'b: selftest/panic')
        self.assertEqual(res[-1].diag[0], 'expected panic, seen panic')

    def test_an_expected_panic_that_times_out_instead_fails(self):
        text = stream(HELLO, *BIND_OK, *smoke(0, '1..1', 'ok - vfio::a'), PANIC_BEGIN)
        res = verdict(text, stopped=results.Stop('hang', 'timed out: no progress'),
                      plan=PANIC_PLAN)
        self.assertEqual(failed(res), ['b: selftest/panic'])
        self.assertEqual(res[-1].diag[0], 'expected panic, seen hang')

    def test_an_expected_panic_that_ends_fails(self):
        text = stream(HELLO, *BIND_OK, *smoke(0, '1..1', 'ok - vfio::a'), PANIC_BEGIN,
                      '@@unic-vm end %s selftest/panic 0 0.1' % RUN, DONE)
        res = verdict(text, plan=PANIC_PLAN)
        self.assertEqual(failed(res), ['b: selftest/panic'])
        self.assertEqual(res[-1].diag[0], 'expected panic, seen pass')

    def test_a_panic_in_another_check_still_fails(self):
        text = stream(HELLO, *BIND_OK, '@@unic-vm begin %s smoke/vfio tap' % RUN)
        res = verdict(text, console=CRASH, plan=PANIC_PLAN)
        self.assertEqual(failed(res), ['b: smoke/vfio', 'b: selftest/panic'])
        self.assertEqual(res[-1].diag[0], 'expected panic, seen not run')

    def test_a_check_expected_to_panic_must_be_the_last(self):
        topo = Topology(access='uio', nics=(Nic('e1000e', 'hub0'),))
        with self.assertRaises(ValueError):
            Boot('b', topo, (Scenario('s', (PANIC_PLAN[-1], Check('after', 'true'))),))
        with self.assertRaises(ValueError):
            Check('x', 'true', expect='crash')
        with self.assertRaises(ValueError):
            criterion('x', 'bin', expect='fail')     # which cases?


class Tap(unittest.TestCase):

    def test_report_lines_are_numbered_and_diagnostics_commented(self):
        lines = results.tap_lines([results.Result(True, 'x'),
                                   results.Result(False, 'y # z', ['why'])], 4)
        self.assertEqual(lines, ['ok 4 - x', 'not ok 5 - y  z', '# why'])


if __name__ == '__main__':
    unittest.main()


class Frames(unittest.TestCase):

    @staticmethod
    def frame(payload, ethertype=0x88b5):
        return b'\xff' * 6 + b'\x52\x54\x00\x12\x34\x56' + ethertype.to_bytes(2, 'big') + \
            payload.encode() + b'\0' * 40

    def test_frames_count_per_check_and_strays_apart(self):
        got, strays = frames.count_tagged([
            self.frame('unic-vm %s tap/send 0' % RUN),
            self.frame('unic-vm %s tap/send 1' % RUN),
            self.frame('unic-vm %s tap/send 1' % RUN),        # a duplicate
            self.frame('unic-vm deadbeef tap/send 2'),         # an older run's leftover
            self.frame('unic-vm %s tap/send 3' % RUN, 0x86dd),  # not our EtherType
        ], RUN)
        self.assertEqual(got, {'tap/send': 2})
        self.assertEqual(strays, 2)
