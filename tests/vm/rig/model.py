"""What a scenario is made of: the guest's topology and the checks it runs.

A Topology fixes everything QEMU is started with (NICs, how they are wired,
whether there is an IOMMU), so all scenarios that share one share a boot:
the guest boots once and runs them in sequence.
"""

import re
from dataclasses import dataclass, replace
from typing import Optional, Tuple

# PCI IDs as the guest sees them (modern-only virtio-net is 1af4:1041).
PCI_IDS = {'e1000e': '8086:10d3', 'virtio-net': '1af4:1041'}

# Seconds the host waits past a check's own timeout before it calls the guest hung.
CHECK_SLACK = 15

# What a check can be expected to do (Check.expect).  Anything but 'pass' is
# for the rig's self-tests: the host must see exactly that, and then reports
# the check as passing.
OUTCOMES = ('pass', 'fail', 'panic', 'hang')

# A Criterion test case as its TAP line names it.
CASE_NAME = re.compile(r'^\w+::\w+$')


@dataclass(frozen=True)
class Nic:
    """One emulated NIC and what its port is wired to.

    model: 'e1000e' or 'virtio-net' (always modern-only; with access vfio
        also iommu_platform=on, so its DMA goes through the emulated IOMMU).
    link: 'hubN' puts the port on QEMU hub N; NICs on one hub see each other's
        frames, losslessly and synchronously (topology a).  'tap:NAME' wires
        it to a host tap device NAME with vnet_hdr=on, in a network namespace
        of its own that QEMU runs in (topology b); the host captures what the
        tap receives.
    placement: 'root-bus' (on pcie.0) or 'root-port' (alone behind its own
        pcie-root-port).  An e1000e has no FLR: on the root bus nothing resets
        it between processes; behind a root port the guest sets its
        reset_method to 'bus', so vfio-pci resets it at every open.
    driver: the guest driver to bind, if not the topology's (vfio-pci or
        uio_pci_generic): e.g. the guest kernel's own 'e1000e', as a
        reference or to test the rig itself.
    props: more QEMU device properties for a virtio-net, comma-separated
        (e.g. 'packed=on' or 'mq=on,vectors=10,rss=on,hash=on').
    queues: queue pairs of its tap (a multiqueue tap when above 1: QEMU
        offers a virtio-net with mq=on that many pairs).
    """
    model: str
    link: str
    placement: str = 'root-port'
    driver: Optional[str] = None
    props: str = ''
    queues: int = 1

    def __post_init__(self):
        if self.model not in PCI_IDS:
            raise ValueError('unknown NIC model %r (known: %s)' % (self.model, ', '.join(PCI_IDS)))
        if self.placement not in ('root-bus', 'root-port'):
            raise ValueError('placement must be root-bus or root-port, not %r' % self.placement)
        if self.hub is None and not (self.tap and len(self.tap) < 16):
            raise ValueError('link must be hubN or tap:NAME (at most 15 characters), not %r'
                             % self.link)
        if self.props and self.model != 'virtio-net':
            raise ValueError('props are for a virtio-net, not %r' % self.model)
        if not re.fullmatch(r'([a-z_-]+=[a-z0-9]+(,[a-z_-]+=[a-z0-9]+)*)?', self.props):
            raise ValueError('props must be name=value[,name=value...], not %r' % self.props)
        if self.queues < 1 or (self.queues > 1 and not self.tap):
            raise ValueError('queues above 1 need a tap link, not %r with %d' % (self.link, self.queues))

    @property
    def hub(self):
        ok = self.link.startswith('hub') and self.link[3:].isdigit()
        return int(self.link[3:]) if ok else None

    @property
    def tap(self):
        return self.link[4:] if self.link.startswith('tap:') else None


@dataclass(frozen=True)
class Topology:
    """The guest machine.

    access: 'vfio' boots with an emulated intel-iommu (intel_iommu=on) and
        binds every NIC to vfio-pci (VFIO type1); 'uio' boots without an
        IOMMU and binds them to uio_pci_generic.
    aw_bits: the IOMMU's address width.  QEMU 7.2's default, 39, refuses an
        IOVA above 512 GiB (such as a buffer's virtual address); 48 accepts it.
    """
    nics: Tuple[Nic, ...]
    access: str = 'vfio'
    aw_bits: int = 39
    memory_mb: int = 1024
    cpus: int = 2
    hugepages: int = 64

    def __post_init__(self):
        if self.access not in ('vfio', 'uio'):
            raise ValueError('access must be vfio or uio, not %r' % self.access)

    @property
    def driver(self):
        return 'vfio-pci' if self.access == 'vfio' else 'uio_pci_generic'

    def driver_of(self, nic):
        return nic.driver or self.driver

    @property
    def taps(self):
        return [n.tap for n in self.nics if n.tap]

    @property
    def modules(self):
        """Modules the guest loads: the access mode's, then NIC drivers'."""
        if self.access == 'vfio':
            mods = ['irqbypass', 'vfio', 'vfio_iommu_type1', 'vfio-pci']
        else:
            mods = ['uio', 'uio_pci_generic']
        for nic in self.nics:
            if nic.driver and nic.driver not in mods:
                mods.append(nic.driver)
        return mods


@dataclass(frozen=True)
class Check:
    """One command the guest runs, with its own result.

    format: 'tap' when the command prints TAP (Criterion with --tap=-): each
        test case becomes a result of its own; 'plain': the exit status is
        the result.
    binaries: build-tree paths of programs the command needs; they and every
        shared library ldd lists for them are put into the initramfs.
    frames: (tap, count): the check sends count frames tagged with the run id
        and its name (guest/vm_frames.c) that the host must capture on tap.
    offload: (tap, cases): the check sends one packet per case through a
        NIC on tap with TSO or checksum offload (guest/vm_offload.c); the
        host checks each on the tap (virtio-net header) and after it
        forwarded them with offloads off (rig/offload.py).
    timeout: seconds; past it the guest kills the command and goes on (0:
        no guest-side timeout).  The host stops the guest if a check makes
        no progress for its timeout plus CHECK_SLACK.
    show: the host prints the check's stdout after the boot, pass or fail
        (tests/vm/run without --tap; the demo's reports).
    excluded: (TAP checks) test cases, 'suite::test', that do not apply to
        this boot's topology.  criterion() leaves them out with Criterion's
        --filter, which still lists them as skipped ("test was skipped"); the
        host drops exactly those lines, and fails the check if an excluded
        case ran or the binary has no such case.  Every excluded case must
        run in some other boot (rig/test_scenarios.py checks that).
    expect: what the check must do, one of OUTCOMES: 'pass'; 'fail' (a plain
        check exits non-zero; a TAP check fails exactly its cases named in
        failing, and passes the others); 'panic' (the guest kernel crashes
        while it runs); 'hang' (the host's watch stops the guest for making
        no progress while it runs).  The host reports a check that did what
        was expected as passing, and one that did anything else as failing,
        with both in its diagnostics.  A check expected to panic or hang
        must be the last of its boot.
    failing: (TAP checks with expect='fail') the test cases that must fail.
    """
    name: str
    command: str
    format: str = 'plain'
    binaries: Tuple[str, ...] = ()
    timeout: int = 60
    frames: Optional[Tuple[str, int]] = None
    show: bool = False
    offload: Optional[Tuple[str, Tuple[str, ...]]] = None
    excluded: Tuple[str, ...] = ()
    expect: str = 'pass'
    failing: Tuple[str, ...] = ()

    def __post_init__(self):
        if self.expect not in OUTCOMES:
            raise ValueError('%s: expect must be one of %s, not %r'
                             % (self.name, ', '.join(OUTCOMES), self.expect))
        for case in self.excluded + self.failing:
            if not CASE_NAME.match(case):
                raise ValueError('%s: %r is not a test case name (suite::test)' % (self.name, case))
        if (self.excluded or self.failing) and self.format != 'tap':
            raise ValueError('%s: excluded and failing name test cases of a TAP check' % self.name)
        if bool(self.failing) != (self.format == 'tap' and self.expect == 'fail'):
            raise ValueError('%s: a TAP check expected to fail names its failing cases '
                             '(failing=), and only then' % self.name)


def criterion(name, binary, timeout=120, excluded=(), expect='pass', failing=()):
    """A check that runs a Criterion binary built in the project, without
    the test cases in excluded (see Check)."""
    command = '%s --tap=- -j1' % binary.rsplit('/', 1)[-1]
    if excluded:
        # Criterion matches "suite/test" against the pattern; !(a|b) is
        # everything but a and b.  Quoted: the plan line goes to sh -c.
        command += " --filter='!(%s)'" % '|'.join(c.replace('::', '/') for c in excluded)
    return Check(name, command, 'tap', (binary,), timeout, excluded=tuple(excluded),
                 expect=expect, failing=tuple(failing))


@dataclass(frozen=True)
class Scenario:
    name: str
    checks: Tuple[Check, ...]


@dataclass(frozen=True)
class Boot:
    """One guest boot: a topology and the scenarios run in it, in order.

    timeout: seconds for the whole boot on the host side (boot, setup and
    every check); a guest that is still running then is killed and fails.
    None: a minute to boot plus every check's timeout and slack.
    """
    name: str
    topology: Topology
    scenarios: Tuple[Scenario, ...]
    timeout: Optional[int] = None
    description: str = ''

    def __post_init__(self):
        plan = self.plan()
        for c in plan[:-1]:
            if c.expect in ('panic', 'hang'):
                raise ValueError('%s: %s expects a %s, so nothing can run after it: make it '
                                 'the last check of the boot' % (self.name, c.name, c.expect))

    def host_timeout(self):
        if self.timeout is not None:
            return self.timeout
        return 60 + sum(c.timeout + CHECK_SLACK for c in self.plan())

    def plan(self):
        """Every check of the boot in order: the setup, then the scenarios'."""
        setup = [
            Check('setup/modules', 'unic-vm modules'),
            Check('setup/hugepages', 'unic-vm hugepages %d' % self.topology.hugepages),
            Check('setup/bind', 'unic-vm bind'),
        ]
        return setup + [replace(c, name='%s/%s' % (s.name, c.name))
                        for s in self.scenarios for c in s.checks]
