#!/usr/bin/env python3
"""A stand-in for qemu-system-x86_64 in the rig's own tests (rig/test_runner.py).

It takes the command line rig/qemu.py makes, as QEMU would, and plays a
guest: the run id comes from -append (unic.run=), the kernel console
(ttyS0) and the results port (ttyS1) are the two '-serial file:PATH'
arguments, and -initrd names the plan itself as text (what the real
initramfs holds in /etc/unic-vm/plan, rig/initramfs.plan_text), not an
initramfs.  It frames each check as guest/init does; the check's command
says what the fake guest does:

  unic-vm ...  the setup checks: pass
  true         exit status 0
  false        exit status 1
  tap-fail     TAP with a passing case rig::a and a failing case rig::b;
               exit status 1
  hang         nothing more: no output, no end frame, nothing on the console
  panic        a kernel panic on the console, then nothing more (a kernel
               with panic=0 halts so)
  exit-panic   a kernel panic on the console, then QEMU exits (what
               -no-reboot does with panic=-1)
  anything else: exit status 127, as sh says for an unknown command.

After the plan it writes the done frame and exits 0, as QEMU does when the
guest powers off.  SIGTERM (the host's stop) ends it at any time; stalled,
it exits with status 3 after a minute if nothing stopped it.
"""

import os
import sys
import time

STEP = 0.05     # seconds between lines, so the host's watch sees progress
LIFETIME = 60   # seconds a stalled stand-in waits to be stopped


def arg_values(argv, flag):
    return [argv[i + 1] for i, a in enumerate(argv[:-1]) if a == flag]


def main(argv):
    serial = [s[len('file:'):] for s in arg_values(argv, '-serial') if s.startswith('file:')]
    if len(serial) != 2:
        sys.exit('fake qemu: wants two -serial file:PATH arguments, got %r' % serial)
    append = (arg_values(argv, '-append') or [''])[0].split()
    run = [w[len('unic.run='):] for w in append if w.startswith('unic.run=')][0]
    with open(arg_values(argv, '-initrd')[0]) as f:
        plan = [line.rstrip('\n').split('\t', 3) for line in f if line.strip()]
    console = open(serial[0], 'w', buffering=1)
    results = open(serial[1], 'w', buffering=1)
    clock = time.monotonic()

    def uptime():
        return '%.2f' % (time.monotonic() - clock + 1.5)

    def say(f, line):
        f.write(line + '\n')
        time.sleep(STEP)

    def frame(text):
        say(results, '@@unic-vm %s' % text)

    def stall():
        # Until the host stops it; a minute at most, so a broken stop in a
        # test leaves nothing behind for long.
        time.sleep(LIFETIME)
        sys.exit(3)

    say(console, '[    0.000000] Linux version 6.1.0-fake-amd64 (fake qemu pid %d)' % os.getpid())
    say(console, '[    1.400000] Run /init as init process')
    frame('hello %s 6.1.0-fake-amd64 %s' % (run, uptime()))
    for name, fmt, _limit, command in plan:
        frame('begin %s %s %s' % (run, name, fmt))
        say(console, '--- %s: %s' % (name, command))
        if command == 'hang':
            stall()
        if command in ('panic', 'exit-panic'):
            say(console, '[   %s] sysrq: Trigger a crash' % uptime())
            say(console, '[   %s] Kernel panic - not syncing: sysrq triggered crash' % uptime())
            if command == 'exit-panic':
                return 0
            stall()
        status = 127
        if command.startswith('unic-vm ') or command == 'true':
            status = 0
        elif command == 'false':
            status = 1
        elif command == 'tap-fail':
            for line in ('TAP version 13', '1..2', 'ok - rig::a  (0.00s)',
                         'not ok - rig::b  (0.00s)', '  fake.c:1: Assertion failed'):
                say(results, '| ' + line)
            status = 1
        else:
            say(results, '! sh: %s: not found' % command)
        frame('end %s %s %d 0.1' % (run, name, status))
    frame('done %s %s' % (run, uptime()))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))
