"""Boots one guest, watches it, stops it, and returns its results."""

import os
import secrets
import subprocess
import sys
import time

from . import frames, initramfs, monitor, offload, qemu, results
from .model import CHECK_SLACK
from .host import log

BOOT_BUDGET = 60        # seconds from start to the guest's hello (TCG)
POLL = 0.25


def _read(path):
    try:
        with open(path, 'rb') as f:
            return f.read().decode(errors='replace')
    except FileNotFoundError:
        return ''


class Workdir:
    """Where a boot's files go: <build>/vm/ (kernel cache, logs, initrds)."""

    def __init__(self, build_root):
        self.root = os.path.join(os.path.abspath(build_root), 'vm')
        self.logs = os.path.join(self.root, 'logs')
        self.cache = os.environ.get('UNIC_VM_CACHE') or os.path.join(self.root, 'cache')
        os.makedirs(self.logs, exist_ok=True)
        os.makedirs(self.cache, exist_ok=True)

    def files(self, boot, run_id):
        base = os.path.join(self.logs, '%s-%s' % (boot.name, run_id))
        return base + '.console.log', base + '.results.log', base + '.initrd.gz'


def _stop(proc):
    if proc.poll() is None:
        proc.terminate()
        try:
            proc.wait(5)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


class Watch:
    """Decides when a guest must be stopped: past the boot's host timeout,
    without a hello a minute after the start, or when no new frame came for
    the open check's timeout plus slack (30 s plus slack between checks).
    verdict() returns a results.Stop, or None while the guest may go on."""

    def __init__(self, boot, plan, slack=CHECK_SLACK):
        self.boot = boot
        self.slack = slack
        self.limits = {c.name: c.timeout for c in plan}
        self.timeout = boot.host_timeout()
        self.started = time.monotonic()
        self.mark = self.started       # last time the guest made progress
        self.last_key = None

    def verdict(self, stream):
        now = time.monotonic()
        if now - self.started > self.timeout:
            return results.Stop('timeout', 'timed out: the whole boot took more than %d s'
                                % self.timeout)
        if stream.hello is None:
            if now - self.started > BOOT_BUDGET:
                return results.Stop('timeout', 'timed out: no hello from the guest within %d s'
                                    % BOOT_BUDGET)
            return None
        # Progress is a new frame; the check that is open (if any) gets its
        # own timeout plus slack for the guest to kill it and report.
        key = (len(stream.checks), sum(c.status is not None for c in stream.checks.values()))
        if key != self.last_key:
            self.last_key, self.mark = key, now
        open_checks = [c for c in stream.checks.values() if c.status is None]
        limit = self.limits.get(open_checks[-1].name, 60) if open_checks else 30
        if now - self.mark > limit + self.slack:
            what = ('check ' + open_checks[-1].name) if open_checks else 'the guest between checks'
            return results.Stop('hang', 'timed out: %s made no progress for %d s'
                                % (what, limit + self.slack))
        return None


def _shell(boot, kernel, initrd, append, res_path):
    cmd = qemu.command(boot.topology, kernel.vmlinuz, initrd, append,
                       'mon:stdio', 'file:' + res_path)
    log('shell in %s (exit powers off, Ctrl-A x quits QEMU); results go to %s'
        % (boot.name, res_path))
    log(' '.join(cmd))
    peers = Peers(boot, res_path[:-len('.results.log')])
    proc = subprocess.Popen(cmd)
    try:
        problem = peers.start(proc)
        if problem:
            log(problem)
        for tap, pcap in peers.pcaps.items():
            log('tap %s: frames the guest sends are captured in %s' % (tap, pcap))
        proc.wait()
    finally:
        _stop(proc)
        peers.stop()


def monitor_path(console):
    """The monitor socket next to the console log (or in /tmp when that
    path is too long for a unix socket)."""
    path = console[:-len('.console.log')] + '.monitor.sock'
    if len(path) > 100:
        path = os.path.join('/tmp', os.path.basename(path))
    return path


def _watch(proc, boot, run_id, console, res_path, peers, mon, slack):
    """Waits until the guest is done or must be stopped, and serves its
    requests for frames on a tap and for link changes (monitor); returns
    why it was stopped, a results.Stop (None: it finished by itself)."""
    watch = Watch(boot, boot.plan(), slack)
    served = links = gsos = 0
    while proc.poll() is None:
        stream = results.parse_stream(_read(res_path), run_id)
        for check, tap, count in stream.sends[served:]:
            problem = peers.send(tap, run_id, check, count)
            if problem:
                return results.Stop('error', problem)
        served = len(stream.sends)
        for check, tap, case, index in stream.gsos[gsos:]:
            problem = peers.gso(tap, run_id, check, case, index)
            if problem:
                return results.Stop('error', problem)
        gsos = len(stream.gsos)
        for check, nic, state in stream.links[links:]:
            problem = monitor.set_link(mon, nic, state)
            log('%s: set_link %s %s%s' % (check, nic, state, (': ' + problem) if problem else ''))
            if problem:
                return results.Stop('error', problem)
        links = len(stream.links)
        if stream.done:
            try:
                proc.wait(10)           # it powers off by itself
            except subprocess.TimeoutExpired:
                pass
            return None
        crash = results.console_crash(_read(console))
        if crash:
            return results.Stop('panic', 'guest kernel crashed: ' + crash)
        stopped = watch.verdict(stream)
        if stopped:
            return stopped
        time.sleep(POLL)
    return None


class Peers:
    """The host side of every tap of a boot: one peer process per tap,
    started in QEMU's network namespace (topology b), that captures what
    the tap receives and sends frames when a guest check asks."""

    def __init__(self, boot, base):
        self.taps = boot.topology.taps
        self.pcaps = {tap: '%s.%s.pcap' % (base, tap) for tap in self.taps}
        self.procs = {}

    def start(self, qemu_proc):
        if not self.taps:
            return None
        ns = '/proc/%d/ns/net' % qemu_proc.pid
        # unshare(1) execs QEMU after it made the namespace: wait for that.
        end = time.monotonic() + 10
        while os.readlink(ns) == os.readlink('/proc/self/ns/net'):
            if qemu_proc.poll() is not None or time.monotonic() > end:
                return 'QEMU did not start in a network namespace of its own'
            time.sleep(0.02)
        peer = os.path.join(os.path.dirname(os.path.abspath(__file__)), 'peer.py')
        for tap, pcap in self.pcaps.items():
            p = subprocess.Popen(['nsenter', '--net=' + ns, sys.executable, peer, tap, pcap],
                                 stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
            self.procs[tap] = p
            if p.stdout.readline().strip() != 'ready':
                return 'the capture on tap %s did not start' % tap
        return None

    def send(self, tap, run_id, check, count):
        """Has the peer of tap send count frames tagged for run and check;
        TAP/flows: IPv4/UDP frames, a flow each (peer.py flow_frame)."""
        tap, _, kind = tap.partition('/')
        p = self.procs.get(tap)
        if p is None:
            return 'check %s asked for frames on %s, which is no tap of this boot' % (check, tap)
        if kind not in ('', 'flows'):
            return 'check %s asked for frames of kind %s; the peer sends plain or flows' % (check, kind)
        p.stdin.write('%s %s %s %d\n' % (kind or 'send', run_id, check, count))
        p.stdin.flush()
        return None

    def gso(self, tap, run_id, check, case, index):
        """Has the peer of tap send receive-offload case number index."""
        p = self.procs.get(tap)
        if p is None:
            return 'check %s asked for a frame on %s, which is no tap of this boot' % (check, tap)
        p.stdin.write('gso %s %s %s %d\n' % (run_id, check, case, index))
        p.stdin.flush()
        return None

    def stop(self):
        for p in self.procs.values():
            _stop(p)

    def results(self, boot, run_id):
        """A result per check that expects frames on a tap."""
        out = []
        seen = {tap: frames.count_tagged(frames.read_pcap(pcap), run_id)
                for tap, pcap in self.pcaps.items()}
        for check in boot.plan():
            if check.offload:
                out += offload.evaluate(boot.name, check, run_id, self.pcaps)
            if not check.frames:
                continue
            tap, want = check.frames
            got, strays = seen.get(tap, ({}, 0))
            n = got.get(check.name, 0)
            out.append(results.Result(
                n == want, '%s: %s: host captured its frames on %s' % (boot.name, check.name, tap),
                ['%d of %d frames with run id and check name; %d other frames on %s (%s)'
                 % (n, want, strays, tap, self.pcaps.get(tap))]))
        return out


def shown_output(boot, stream):
    """The stdout of the boot's checks marked show=True, as text blocks."""
    blocks = []
    for check in boot.plan():
        out = stream.checks.get(check.name)
        if check.show and out is not None:
            blocks.append('--- %s: %s\n%s' % (boot.name, check.name, '\n'.join(out.out)))
    return blocks


def run_boot(boot, kernel, work, build_root, shell=False):
    """Runs one boot; returns (results, notes for the report, shown output)."""
    run_id = secrets.token_hex(4)
    console, res_path, initrd = work.files(boot, run_id)
    started = time.monotonic()
    initramfs.build(initrd, kernel, boot, run_id, build_root, shell)
    t_initrd = time.monotonic() - started
    append = qemu.kernel_cmdline(boot.topology, run_id)
    if shell:
        _shell(boot, kernel, initrd, append, res_path)
        os.remove(initrd)
        return [], [], []

    mon = monitor_path(console)
    cmd = qemu.command(boot.topology, kernel.vmlinuz, initrd, append,
                       'file:' + console, 'file:' + res_path, mon)
    log('boot %s (run %s, initrd built in %.1f s); console log: %s'
        % (boot.name, run_id, t_initrd, console))
    out, stream, _ = run_guest(boot, run_id, cmd, console, res_path, mon)
    elapsed = time.monotonic() - started
    timing = 'boot %s: %.1f s in all (hello at %s s of guest uptime); console log: %s' % (
        boot.name, elapsed, stream.boot_seconds, console)
    log(timing)
    for r in out:
        if r.expected:
            log('%s: expected %s, seen %s: %s' % (r.name, r.expected, r.seen or 'nothing',
                                                  'as expected' if r.ok else 'FAILED'))
    if all(r.ok for r in out):
        os.remove(initrd)      # kept only to reproduce a failure
    return out, [timing], shown_output(boot, stream)


def run_guest(boot, run_id, cmd, console, res_path, mon=None, slack=CHECK_SLACK):
    """Starts the guest with cmd (qemu.command(); the rig's own tests give
    a stand-in for QEMU, rig/fake_qemu.py), serves and watches it until it
    powers off or must be stopped (slack: seconds past a check's timeout),
    stops it, and judges it.  Returns (results, the parsed results stream,
    the results.Stop that stopped it or None)."""
    with open(console + '.cmd', 'w') as f:
        f.write(' '.join("'%s'" % a if ' ' in a or a == '' else a for a in cmd) + '\n')
    peers = Peers(boot, console[:-len('.console.log')])
    with open(console + '.qemu-stderr', 'w') as err:
        proc = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                stderr=err)
        try:
            problem = peers.start(proc)
            if problem:
                stopped = results.Stop('error', problem)
            else:
                stopped = _watch(proc, boot, run_id, console, res_path, peers, mon, slack)
        finally:
            _stop(proc)
            peers.stop()
            if mon and os.path.exists(mon):
                os.remove(mon)

    stream = results.parse_stream(_read(res_path), run_id)
    if stopped is None and proc.returncode != 0 and not stream.done:
        stopped = results.Stop('error', 'QEMU exited with status %d: %s' % (
            proc.returncode, _read(console + '.qemu-stderr').strip()[-500:]))
    out = results.evaluate(boot.name, plan=boot.plan(), stream=stream,
                           console_text=_read(console), stopped=stopped, console_path=console)
    out += peers.results(boot, run_id)
    return out, stream, stopped
