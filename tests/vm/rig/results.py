"""The guest's results as the host reads them, and the verdict on a boot.

The guest writes to its second serial port (a file on the host).  Every line
that means something is a frame or belongs to one:

    @@unic-vm hello RUN KERNEL UPTIME      the guest's init started
    @@unic-vm begin RUN CHECK FORMAT       a check starts (FORMAT: tap|plain)
    | a line the check printed on stdout
    ! a line the check printed on stderr
    @@unic-vm send RUN CHECK TAP COUNT     (inside a check) the check asks the
                                           host to send COUNT tagged frames on TAP
    @@unic-vm gso RUN CHECK TAP CASE IDX   (inside a check) the check asks the
                                           host to send receive-offload case
                                           CASE (number IDX) into TAP: a TCP
                                           frame behind a virtio-net header
                                           (rig/peer.py)
    @@unic-vm link RUN CHECK NIC on|off    (inside a check) the check asks the
                                           host to set NIC's link (QEMU monitor
                                           set_link)
    @@unic-vm end RUN CHECK STATUS SECONDS the check ended with that exit status
    @@unic-vm done RUN UPTIME              every check ran; the guest powers off

RUN is the run id the host chose for this boot: a frame with another id is a
stray (counted, never believed), and a later traffic scenario tags its frames
with the same id.  Output lines outside a check, or a line no frame explains,
are noise: kept for the report, never taken as a result.
"""

import re
from dataclasses import dataclass, field
from typing import List, Optional

FRAME = '@@unic-vm '
PANIC_MARKERS = ('Kernel panic - not syncing', 'BUG: kernel NULL pointer', 'Oops: ')


@dataclass
class CheckOutput:
    name: str
    format: str
    status: Optional[int] = None      # None: the check never ended
    seconds: Optional[float] = None
    out: List[str] = field(default_factory=list)
    err: List[str] = field(default_factory=list)


@dataclass
class Stream:
    hello: Optional[str] = None       # the guest kernel's release
    boot_seconds: Optional[float] = None
    done: bool = False
    checks: dict = field(default_factory=dict)
    strays: int = 0
    noise: List[str] = field(default_factory=list)
    sends: List[tuple] = field(default_factory=list)   # (check, tap, count)
    links: List[tuple] = field(default_factory=list)   # (check, nic, 'on' or 'off')
    gsos: List[tuple] = field(default_factory=list)    # (check, tap, case, index)


def parse_stream(text, run_id):
    """Reads the results port's text; robust to \\r, junk and truncation."""
    s = Stream()
    current = None
    for line in text.replace('\r', '').split('\n'):
        if line.startswith(FRAME):
            words = line[len(FRAME):].split()
            if len(words) < 2 or words[1] != run_id:
                s.strays += 1
                continue
            kind, args = words[0], words[2:]
            if kind == 'hello' and len(args) == 2:
                s.hello, s.boot_seconds = args[0], _float(args[1])
            elif kind == 'begin' and len(args) == 2:
                current = CheckOutput(args[0], args[1])
                s.checks[current.name] = current
            elif kind == 'end' and len(args) == 3 and current and args[0] == current.name:
                current.status = _int(args[1])
                current.seconds = _float(args[2])
                current = None
            elif kind == 'send' and len(args) == 3 and current and args[0] == current.name:
                count = _int(args[2])
                if count is not None and count > 0:
                    s.sends.append((args[0], args[1], count))
            elif (kind == 'gso' and len(args) == 4 and current and args[0] == current.name
                  and re.fullmatch(r'[a-z0-9]+(:\d+)+', args[2]) and _int(args[3]) is not None):
                s.gsos.append((args[0], args[1], args[2], _int(args[3])))
            elif (kind == 'link' and len(args) == 3 and current and args[0] == current.name
                  and re.fullmatch(r'nic\d+', args[1]) and args[2] in ('on', 'off')):
                s.links.append((args[0], args[1], args[2]))
            elif kind == 'done':
                s.done = True
            else:
                s.noise.append(line)
        elif current is not None and line[:2] == '| ':
            current.out.append(line[2:])
        elif current is not None and line[:2] == '! ':
            current.err.append(line[2:])
        elif line.strip():
            s.noise.append(line)
    return s


def _int(word):
    try:
        return int(word)
    except ValueError:
        return None


def _float(word):
    try:
        return float(word)
    except ValueError:
        return None


TAP_RESULT = re.compile(r'^(not )?ok\b(?:\s+\d+)?\s*(?:-\s*)?(.*?)\s*(?:#\s*(SKIP|TODO)\b(.*))?$',
                        re.IGNORECASE)
TAP_PLAN = re.compile(r'^1\.\.(\d+)')


@dataclass
class TapCase:
    ok: bool
    name: str
    directive: Optional[str] = None   # 'SKIP' or 'TODO'
    reason: str = ''                  # what follows the directive
    diag: List[str] = field(default_factory=list)


def parse_tap(lines):
    """Returns (planned count or None, [TapCase], bail-out reason or None).

    Indented lines after a result (Criterion's assertion messages) become its
    diagnostics.  Criterion appends "(0.00s)" to a name; it is left out so
    names stay the same from run to run.
    """
    planned, cases, bail = None, [], None
    for line in lines:
        m = TAP_PLAN.match(line)
        if m:
            planned = int(m.group(1))
            continue
        if line.startswith('Bail out!'):
            bail = line[len('Bail out!'):].strip() or 'bailed out'
            continue
        m = TAP_RESULT.match(line)
        if m:
            name = re.sub(r'\s*\(\d+(\.\d+)?s\)$', '', m.group(2))
            directive = m.group(3).upper() if m.group(3) else None
            cases.append(TapCase(m.group(1) is None, name, directive, (m.group(4) or '').strip()))
        elif cases and line.startswith((' ', '\t')):
            cases[-1].diag.append(line.strip())
    return planned, cases, bail


@dataclass
class Result:
    """One line of the host's TAP report.

    seen: what happened, for a check expected to do something else than
    pass: 'pass', 'fail', 'skip', or, for a check that started and did not
    end, why the guest stopped (Stop.kind); 'not run'.
    expected: set when the check's expect (or failing) applied to this
    result: then ok means that what was seen is what was expected.
    """
    ok: bool
    name: str
    diag: List[str] = field(default_factory=list)
    skip: Optional[str] = None
    seen: str = ''
    expected: Optional[str] = None


@dataclass
class Stop:
    """Why the host stopped a guest before it powered off by itself.

    kind: 'panic' (a kernel crash on the console), 'hang' (a check, or the
    guest between checks, made no progress for its limit), 'timeout' (no
    hello in time, or the whole boot past its host timeout), 'error' (QEMU
    exited, a tap's peer failed).
    """
    kind: str
    why: str

    def __str__(self):
        return self.why


def console_crash(console_text):
    """The first kernel crash message on the console, or None."""
    for line in console_text.replace('\r', '').split('\n'):
        if any(m in line for m in PANIC_MARKERS):
            return line.strip()
    return None


def _tail(lines, n=20):
    return lines[-n:] if len(lines) > n else lines


def evaluate(boot_name, plan, stream, console_text, stopped=None, console_path=None):
    """The verdict on one boot: a Result per guest check (per test case for a
    TAP check), plus a failure for every planned check without a result.

    plan: the Checks the guest was told to run, in order.
    stopped: a Stop if the host stopped the guest early, or None if it
        powered off by itself.  A crash on the console is a 'panic' whatever
        stopped the guest.
    console_path: the console log, named in the diagnostics of a check that
        did not end.
    """
    results = []
    prefix = boot_name + ': '
    crash = console_crash(console_text)
    if crash:
        cause = Stop('panic', crash)
    else:
        cause = stopped or Stop('stopped', 'the guest stopped before it')
    results.append(Result(stream.hello is not None, prefix + 'boot',
                          [] if stream.hello else ['no hello from the guest: ' + cause.why]))
    for check in plan:
        out = stream.checks.get(check.name)
        name = prefix + check.name
        if out is None or out.status is None:
            state = 'started but did not end' if out else 'did not run'
            diag = ['%s: %s' % (state, cause.why)]
            if out:
                diag += ['stdout: ' + x for x in _tail(out.out)]
                diag += ['stderr: ' + x for x in _tail(out.err)]
                if console_path:
                    diag.append('console log: ' + console_path)
            res = [Result(False, name, diag, seen=cause.kind if out else 'not run')]
        else:
            res = _check_results(name, out, check)
        results.extend(_expected(check, name, res))
    if stream.strays:
        results[0].diag.append('%d frames with another run id were ignored' % stream.strays)
    # A crash, or a plan that did not finish, is a failure unless a check
    # expected exactly that and saw it.
    met = {r.expected for r in results if r.expected and r.ok}
    if crash and 'panic' not in met and all(r.ok for r in results):
        results.append(Result(False, prefix + 'kernel did not crash', [crash]))
    if (stream.hello and not stream.done and not met & {'panic', 'hang'}
            and all(r.ok for r in results)):
        results.append(Result(False, prefix + 'guest finished the plan',
                              [cause.why if stopped else 'no done frame']))
    return results


def _check_results(name, out, check):
    status_diag = 'exit status %d after %.1f s' % (out.status, out.seconds or 0)
    if out.status == 137:
        status_diag += ' (killed: the guest-side timeout of the check)'
    if out.format != 'tap':
        diag = [] if out.status == 0 else [status_diag] + _tail(out.out) + _tail(out.err)
        return [Result(out.status == 0, name, diag, seen='pass' if out.status == 0 else 'fail')]
    planned, cases, bail = parse_tap(out.out)
    results = []
    excluded = set(check.excluded)
    left_out = set()
    for c in cases:
        if c.name in excluded:
            left_out.add(c.name)
            if c.ok and c.directive == 'SKIP':
                continue        # the runner's --filter: not for this boot
            results.append(Result(False, '%s: %s' % (name, c.name),
                                  ['excluded from this boot (--filter), but it ran'] + c.diag,
                                  seen='fail'))
            continue
        skip = (c.reason or 'skipped in the guest') if c.directive == 'SKIP' else None
        ok = c.ok or c.directive == 'TODO'
        results.append(Result(ok, '%s: %s' % (name, c.name), c.diag, skip,
                              seen='skip' if skip else 'pass' if ok else 'fail'))
    problems = []
    if bail:
        problems.append('bail out: ' + bail)
    if planned is None:
        problems.append('no TAP plan line')
    elif planned != len(cases):
        problems.append('TAP planned %d results, got %d' % (planned, len(cases)))
    if out.status != 0 and all(r.ok for r in results):
        problems.append(status_diag)
    if not cases:
        problems.append('no test case reported')
    if excluded - left_out and not bail and planned == len(cases):
        problems.append('excluded test cases the binary does not list: '
                        + ', '.join(sorted(excluded - left_out)))
    if problems:
        results.append(Result(False, name, problems + ['stderr: ' + x for x in _tail(out.err)],
                              seen='fail'))
    return results


def _expected(check, name, results):
    """The results of one check, judged against what it was expected to do
    (Check.expect, Check.failing); unchanged for a check expected to pass."""
    if check.expect == 'pass':
        return results
    if check.failing:
        want = {'%s: %s' % (name, case): 'fail' for case in check.failing}
    else:
        want = {name: check.expect}
    out = []
    for r in results:
        expected = want.pop(r.name, None)
        if expected is None:
            out.append(r)
            continue
        verdict = 'expected %s, seen %s' % (expected, r.seen)
        out.append(Result(r.seen == expected, r.name, [verdict] + r.diag, r.skip, r.seen,
                          expected))
    seen = ', '.join('%s %s' % (r.name[len(name):].lstrip(': ') or 'the check', r.seen)
                     for r in results) or 'no result'
    for missing in want:
        out.append(Result(False, missing, ['expected %s, seen no such result (%s)'
                                           % (want[missing], seen)], expected=want[missing]))
    return out


def setup_ok(boot_name, results):
    """Whether the guest booted and every setup/ check passed."""
    prefix = boot_name + ': '
    return all(r.ok for r in results
               if r.name in (prefix + 'boot',) or r.name.startswith(prefix + 'setup/'))


def tap_lines(results, start=1):
    """TAP 13 result lines (no header, no plan), numbered from start."""
    lines = []
    for i, r in enumerate(results, start):
        line = '%s %d - %s' % ('ok' if r.ok else 'not ok', i, r.name.replace('#', ''))
        if r.skip:
            line += ' # SKIP ' + r.skip
        lines.append(line)
        lines += ['# ' + d for d in r.diag]
    return lines
