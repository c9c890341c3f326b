"""The scenarios of the unic QEMU rig, grouped by boot.

A boot is one guest with one topology; its scenarios run in sequence, so add
a scenario to an existing boot when its topology fits (a boot costs about
10 s of TCG time before its first check).  Add a boot to tests/vm/meson.build
too.
See docs/testing.md.
"""

import os

from rig.model import Boot, Check, Nic, Scenario, Topology, criterion

# Topology a, access vfio: two e1000e on hub 0 (one on the root bus, one
# behind its own root port with reset_method=bus) and a virtio-net behind
# a root port on hub 0 too, so unic's two drivers talk to each other (the
# virtio scenario).  The e1000e tests count only their own tagged frames:
# what reaches the virtio-net meanwhile is queued by QEMU for it (a stray
# there) and nothing else.
HUB_VFIO = Topology(access='vfio', nics=(
    Nic('e1000e', 'hub0', 'root-bus'),
    Nic('e1000e', 'hub0', 'root-port'),
    Nic('virtio-net', 'hub0', 'root-port'),
))

# Topology a, access vfio, with a 48-bit IOMMU (QEMU's default is 39 bits,
# which refuses IOVA = VA): one e1000e on the root bus; the virtio-net
# variants, each behind a root port: a packed-ring one and a split-ring one
# on hub 1 (virtio to virtio), a multiqueue one (mq=on, RSS and hash
# report offered, 4 queue pairs, 10 MSI-X vectors) on a 4-queue host tap
# unic2, which also gives it the offload features, and a multiqueue one
# with 3 MSI-X vectors for its 4 rx queues (the driver's plan shares them:
# queues 0 and 2 on vector 1, 1 and 3 on vector 2) on a 4-queue tap unic3.
HUB_VFIO_AW48 = Topology(access='vfio', aw_bits=48, nics=(
    Nic('e1000e', 'hub0', 'root-bus'),
    Nic('virtio-net', 'hub1', 'root-port', props='packed=on'),
    Nic('virtio-net', 'hub1', 'root-port'),
    Nic('virtio-net', 'tap:unic2', 'root-port', props='mq=on,vectors=10,rss=on,hash=on', queues=4),
    Nic('virtio-net', 'tap:unic3', 'root-port', props='mq=on,vectors=3,rss=on,hash=on', queues=4),
))

# Access uio: no IOMMU; an e1000e bound to uio_pci_generic on a hub
# (topology a), and an e1000e on a host tap (topology b) driven by the guest
# kernel's own e1000e driver, which checks the tap path of the rig itself;
# a second e1000e on hub 0 (uio_pci_generic) is the peer of the first in
# the e1000e traffic tests; a third e1000e under uio_pci_generic sits on a
# second tap, unic1 (topology b for unic: TSO and checksum offload toward
# the host, rig/offload.py); a virtio-net behind a root port on hub 0
# (without an IOMMU, so without iommu_platform) is driven by pmd/virtio
# over uio_pci_generic and INTx against the first e1000e (the virtio
# scenario).
UIO = Topology(access='uio', nics=(
    Nic('e1000e', 'hub0', 'root-bus'),
    Nic('e1000e', 'tap:unic0', 'root-bus', driver='e1000e'),
    Nic('e1000e', 'hub0', 'root-bus'),
    Nic('e1000e', 'tap:unic1', 'root-bus'),
    Nic('virtio-net', 'hub0', 'root-port'),
))

# One packet each through unic's e1000e (nic3) toward tap unic1: a
# 60 000-byte TCP payload as one TSO packet over IPv4 and over IPv6, and
# TCP/UDP over IPv4/IPv6 with checksum offload (rig/offload.py, vm_offload.c).
OFFLOAD_CASES = ('tso4:1400:60000', 'tso6:1380:60000', 'tcp4:1000', 'udp4:1000',
                 'tcp6:1000', 'udp6:1000')

# Receive offloads from a vnet_hdr tap (vfio-aw48, nic3 on unic2): the
# host's peer writes each case into the tap behind a virtio-net header
# (rig/peer.py), the guest checks what unic receives (vm_offload.c): a
# 60 000-byte GSO frame as one LRO packet with its MSS (IPv4, IPv6), a
# partial checksum flagged "not computed", and, with the port restarted
# without LRO, a GSO frame the host cuts into MSS-sized packets.
RX_OFFLOAD_CASES = ('lro4:1448:60000', 'lro6:1428:60000', 'csum4:1000', 'csum6:1000',
                    'nolro4:1448:14480')

# unic-devbind checks: shell one-liners (a plan line is one line).  bdf NICn
# is the NIC's PCI address, drv BDF its bound driver ("none"), want BDF DRV
# fails with both when they differ; set -x shows each step in the log.
DEVBIND = ('apps/unic-devbind',)
_SH = ('set -ex; bdf() { unic-vm nics | awk -v n=$1 \'$1 == n { print $2 }\'; }; '
       'drv() { l=$(readlink /sys/bus/pci/devices/$1/driver) && basename $l || echo none; }; '
       'want() { d=$(drv $1); [ "$d" = "$2" ] || { echo "$1: bound to $d, expected $2" >&2; exit 1; }; }; ')


def devbind_check(name, command, timeout=60):
    return Check(name, _SH + command, binaries=DEVBIND, timeout=timeout)


# Topology a, access vfio, for the applications: unic-pktgen drives nic0 and
# nic3, unic-l2fwd forwards between nic1 and nic2 (guest/unic-apps):
#   nic0 --hub0--> nic1 [l2fwd] nic2 --hub1--> nic3
# and, for the soak's second path, a second unic-pktgen on nic5 and l2fwd's
# third port nic4, which forwards to itself:
#   nic5 --hub2--> nic4 [l2fwd] nic4 --hub2--> nic5
# All on the root bus: no bus reset at each open (about 4 s each behind a
# root port); the e1000e driver reprograms everything itself.  Three
# processes at once (l2fwd, two pktgen) need 128 hugepages.
APPS = Topology(access='vfio', hugepages=128, nics=(
    Nic('e1000e', 'hub0', 'root-bus'),
    Nic('e1000e', 'hub0', 'root-bus'),
    Nic('e1000e', 'hub1', 'root-bus'),
    Nic('e1000e', 'hub1', 'root-bus'),
    Nic('e1000e', 'hub2', 'root-bus'),
    Nic('e1000e', 'hub2', 'root-bus'),
))
APPS_BIN = ('apps/unic-l2fwd', 'apps/unic-pktgen', 'tests/vm/guest/unic-apps')


def apps_check(name, args, timeout=180, show=False, binaries=APPS_BIN):
    return Check(name, 'unic-apps ' + args, binaries=binaries, timeout=timeout, show=show)


def soak_seconds():
    """Seconds of traffic in the soak: UNIC_VM_SOAK_SECONDS on the host,
    120 (CI) when unset."""
    v = os.environ.get('UNIC_VM_SOAK_SECONDS', '')
    if v == '':
        return 120
    if not v.isdigit() or not 60 <= int(v) <= 7 * 86400:
        raise SystemExit('UNIC_VM_SOAK_SECONDS=%r: expected whole seconds from 60 to 604800 '
                         '(a week); unset it for the CI soak of 120 s' % v)
    return int(v)


SOAK_SECONDS = soak_seconds()


# Non-root use (docs/pci.md): user alice runs unic-l2fwd on nic0 and nic1
# over VFIO with --no-huge.  Without the group files the error names the
# file; with them but a 64 KiB memlock limit it names RLIMIT_MEMLOCK; with
# both it runs for 2 s and prints its totals.
_NONROOT = (
    'B0=$(bdf nic0); B1=$(bdf nic1); '
    'G0=$(basename $(readlink /sys/bus/pci/devices/$B0/iommu_group)); '
    'G1=$(basename $(readlink /sys/bus/pci/devices/$B1/iommu_group)); '
    'grep -q "^alice:" /etc/passwd 2>/dev/null || echo "alice:x:1000:1000::/tmp:/bin/sh" >> /etc/passwd; '
    'grep -q "^alice:" /etc/group 2>/dev/null || echo "alice:x:1000:" >> /etc/group; '
    'run() { su -s /bin/sh alice -c "unic-l2fwd -a $B0 -a $B1 --no-huge -t 2 -T 0" >/tmp/o 2>/tmp/e; }; '
    'rc=0; (ulimit -l unlimited; run) || rc=$?; cat /tmp/e; [ $rc -ne 0 ]; '
    'grep "cannot open /dev/vfio/$G0" /tmp/e; grep "chown alice /dev/vfio/$G0" /tmp/e; '
    'chown alice /dev/vfio/$G0 /dev/vfio/$G1; '
    'rc=0; (ulimit -l 64; run) || rc=$?; cat /tmp/e; [ $rc -ne 0 ]; grep "RLIMIT_MEMLOCK" /tmp/e; '
    '(ulimit -l unlimited; run) || { cat /tmp/e; exit 1; }; cat /tmp/o; grep -i "total" /tmp/o; '
    'chown 0 /dev/vfio/$G0 /dev/vfio/$G1'
)


# unic-testpmd on the two e1000e of vfio-hub (nic0, nic1 on hub 0), then on
# nic0 and the virtio-net (nic2, hub 0): one batch a check, its output and
# one line per assertion in the log.
TESTPMD_BIN = ('apps/unic-testpmd', 'tests/vm/guest/unic-testpmd-rig')


def testpmd_check(name, timeout=180):
    return Check(name, 'unic-testpmd-rig ' + name, binaries=TESTPMD_BIN, timeout=timeout)


# tests/compat/scripts (DPDK's testpmd guide, DTS-style test plans) judged by
# tests/compat/judge.awk on the rig's NICs (guest/unic-compat-rig): a pass
# runs every script that names it, one unic-testpmd each.
COMPAT_BIN = ('apps/unic-testpmd', 'tests/vm/guest/unic-compat-rig', 'tests/vm/guest/unic-compat-scripts')


def compat_check(rig_pass, timeout=420):
    return Check('compat-' + rig_pass, 'unic-compat-rig ' + rig_pass, binaries=COMPAT_BIN, timeout=timeout)


# The rig's own self-test boots the smallest guest there is.
SELFTEST = Topology(access='uio', nics=(Nic('e1000e', 'hub0', 'root-bus'),))

# Guest test cases that do not apply to a boot's topology: criterion(...,
# excluded=) leaves them out of that boot (Criterion --filter), so no boot
# reports a skip.  Each runs in a boot where it applies (rig/test_scenarios.py
# checks that every excluded case runs somewhere).
# Run in vfio-hub (the checks of a virtio-net over VFIO).
VIRTIO_VFIO = ('vfio::virtio_net_reports_pci_info_and_four_msix_vectors',
               'vfio::virtio_net_bar4_maps_and_offers_version_1_and_access_platform',
               'vfio::virtio_net_maps_a_2mib_hugepage_for_dma_at_a_low_iova')
VIRTIO_BUS = ('bus::virtio_net_bar4_offers_version_1',)
# Run in uio, the only boot with an e1000e bound to the guest kernel's driver.
BUS_KERNEL_DRIVER = ('bus::a_device_bound_elsewhere_is_refused_with_the_bind_command',)
# VFIO features (device reset, the kernel's device request): vfio-hub and
# vfio-aw48.
BUS_VFIO_ONLY = ('bus::e1000e_reset_by_function_reset_or_bus_reset',
                 'bus::the_kernel_takes_a_held_device_back_within_5_seconds')
E1000E_VFIO_ONLY = ('e1000e_release::unbinding_a_polled_port_stops_it_and_the_process_goes_on',)
# test_virtio in uio (INTx, no IOMMU): frames both ways, 100 000 in order,
# rx interrupt cycles, stop/start, and the two cases that need INTx most
# (link events and rx wakes through one line; napi woken through it).
# Left to vfio-hub: the receive filters, the full ring and the SIGKILL
# (nothing there depends on the access mode), the unbind (VFIO's device
# request) and the set_link case (the cable-pull case covers it here).
VIRTIO_VFIO_HUB_ONLY = (
    'virtio_rig::receive_filters_set_through_the_control_queue_decide_what_the_virtio_port_receives',
    'virtio_rig::frames_queued_while_the_ring_was_full_all_arrive_after_refills',
    'virtio_rig::after_a_sigkill_mid_traffic_a_second_process_drives_the_device',
    'virtio_rig::unbinding_the_virtio_net_under_traffic_stops_its_port_and_the_process_goes_on',
    'virtio_rig::set_link_on_the_qemu_monitor_shows_in_the_link_and_as_link_events')
# Run in uio only (the CI budget): over MSI-X link events and rx wakes
# have vectors of their own, checked in vfio-hub by the set_link and
# arm/wake cases.
VIRTIO_UIO_ONLY = (
    'virtio_rig::cable_pulls_reach_the_link_callback_while_rx_interrupts_still_wake',
    'virtio_rig::a_hybrid_napi_context_sleeps_between_bursts_and_rx_interrupts_wake_it')

BOOTS = [
    Boot('vfio-hub', HUB_VFIO, description='intel-iommu + VFIO type1, NICs on QEMU hubs',
         scenarios=(
             Scenario('smoke', (
                 criterion('vfio', 'tests/vm/guest/test_vfio_smoke'),
             )),
             # After the smoke test, so it leaves the NICs as setup/bind did.
             Scenario('devbind', (
                 devbind_check('status', 'unic-devbind --status | tee /tmp/status; '
                               'grep -q "^Network devices bound to vfio-pci" /tmp/status; '
                               'for n in nic0 nic1 nic2; do grep "^$(bdf $n) .* iommu_group=[0-9]* .*drv=vfio-pci" /tmp/status; done'),
                 devbind_check('unbind', 'B="$(bdf nic0) $(bdf nic1) $(bdf nic2)"; unic-devbind --unbind $B; '
                               'for b in $B; do want $b none; done'),
                 devbind_check('bind-vfio', 'B="$(bdf nic0) $(bdf nic1) $(bdf nic2)"; '
                               'unic-devbind --bind vfio-pci $B; for b in $B; do want $b vfio-pci; done; '
                               'unic-devbind --status'),
             )),
             Scenario('bus', (
                 criterion('bus', 'tests/vm/guest/test_bus', timeout=180,
                           excluded=BUS_KERNEL_DRIVER),
             )),
             Scenario('nonroot', (
                 Check('l2fwd-as-alice', _SH + _NONROOT, binaries=('apps/unic-l2fwd',), timeout=120),
             )),
             # unic-testpmd batch scripts on nic0 and nic1 (guest/unic-testpmd-rig);
             # before e1000e, whose exact counts would see frames left queued.
             Scenario('testpmd', tuple(
                 testpmd_check(n) for n in ('link', 'stats', 'regs', 'coalesce', 'rss', 'vlan', 'offload', 'csum', 'detach',
                                           'desc', 'flow')
             )),
             # The DPDK scripts on nic0 + nic1 (e1000e), then nic0 + nic2
             # (e1000e + virtio-net); like testpmd, before e1000e.
             Scenario('compat', (compat_check('e1000e'), compat_check('virtio'))),
             Scenario('e1000e', (
                 criterion('e1000e', 'tests/vm/guest/test_e1000e', timeout=600),
                 Check('bench-report', 'cat /tmp/e1000e-bench.txt'),
                 Check('notes', 'cat /tmp/e1000e-notes.txt'),
             )),
             # lib/napi over MSI-X: one source per rx queue (docs/napi.md).
             Scenario('napi', (
                 criterion('napi', 'tests/vm/guest/test_napi', timeout=600),
                 Check('napi-report', 'cat /tmp/napi-report.txt'),
             )),
             # The same over the virtio-net's MSI-X: nic0 sends, nic2
             # receives on its one rx queue (vector 1).
             Scenario('napi-virtio', (
                 Check('napi-virtio', 'UNIC_VM_NAPI_RX=virtio test_napi --tap=- -j1', 'tap',
                       ('tests/vm/guest/test_napi',), 600),
                 Check('napi-virtio-report', 'cat /tmp/napi-virtio-report.txt'),
             )),
             # The testpmd batches on nic0 and the virtio-net (nic2): after
             # the e1000e and napi scenarios, whose exact counts on nic1
             # would see the frames QEMU queues for it meanwhile.
             Scenario('testpmd-virtio', tuple(
                 testpmd_check(n) for n in ('virtio-link', 'virtio-stats', 'virtio-csum', 'virtio-detach',
                                           'virtio-desc')
             )),
             # pmd/virtio against QEMU's virtio-net-pci and unic's e1000e
             # across hub 0.  Last: its frames are queued by QEMU for the
             # e1000e that no process has open.
             Scenario('virtio', (
                 criterion('virtio', 'tests/vm/guest/test_virtio', timeout=900,
                           excluded=VIRTIO_UIO_ONLY),
             )),
         )),
    Boot('vfio-aw48', HUB_VFIO_AW48, description='intel-iommu with aw-bits=48 + VFIO type1; '
         'virtio-net variants (packed, multiqueue on a tap)',
         scenarios=(
             Scenario('nics', (
                 Check('virtio-variants', 'set -e; unic-vm nics; '
                       '[ $(unic-vm nics | grep -c " virtio-net ") -eq 4 ]'),
             )),
             Scenario('smoke', (
                 criterion('vfio', 'tests/vm/guest/test_vfio_smoke', excluded=VIRTIO_VFIO),
             )),
             Scenario('bus', (
                 criterion('bus', 'tests/vm/guest/test_bus',
                           excluded=VIRTIO_BUS + BUS_KERNEL_DRIVER),
             )),
             # pmd/virtio toward the vnet_hdr tap unic2 (nic3, one queue
             # pair): the uio boot's TSO and checksum cases judged on the
             # host (rig/offload.py), then receive GSO and checksum state
             # from the host, judged in the guest.
             Scenario('virtio-offload', (
                 Check('tso-csum-lro', 'vm-offload -t unic2 $(unic-vm nics | awk \'$1 == "nic3" { print $2 }\') '
                       + ' '.join(OFFLOAD_CASES + RX_OFFLOAD_CASES), binaries=('tests/vm/guest/vm-offload',),
                       offload=('unic2', OFFLOAD_CASES), timeout=180),
             )),
             # tools/demo --nic virtio: the apps over pmd/virtio, one link
             # (hub 1): unic-pktgen on nic1, unic-l2fwd on nic2 sending
             # back; both apps' reports on the host.
             Scenario('demo', (
                 apps_check('virtio', 'demo -r 500pps -1 nic1 nic2', timeout=120, show=True),
             )),
             # nic3 (mq=on, 4 pairs, RSS, hash reports, 10 vectors): the
             # host's flows on the queue the test's Toeplitz picks, with
             # that hash; each queue wakes a sleeper on its own vector.
             # nic4 (the same with 3 vectors): each shared vector wakes for
             # both its queues, every queue receives, link events on
             # vector 0.
             Scenario('virtio-mq', (
                 criterion('virtio-mq', 'tests/vm/guest/test_virtio_mq', timeout=420),
                 Check('virtio-mq-report', 'cat /tmp/virtio-mq-report.txt'),
             )),
             # The DPDK RSS script on nic3 (RSS offered, 4 queue pairs, 2
             # used): the host's flows spread over both rx queues with the
             # default table, all on queue 1 with every entry on queue 1.
             Scenario('compat-rss', (compat_check('virtio-rss', timeout=240),)),
             # pmd/virtio over a packed ring (nic1) against a split one
             # (nic2) across hub 1: sizes, jumbo, 100 000 frames, interrupts,
             # stop/start; the negotiated features checked first.
             Scenario('virtio-packed', (
                 criterion('virtio_packed', 'tests/vm/guest/test_virtio_packed', timeout=900),
                 Check('packed-report', 'cat /tmp/virtio-packed-report.txt'),
             )),
             # unic-testpmd's descriptor commands on nic1's packed ring,
             # nic2 (split, same hub) sending: testpmd-virtio/virtio-desc's
             # packed twin.
             Scenario('testpmd-packed', (testpmd_check('virtio-desc-packed'),)),
         )),
    Boot('uio', UIO, description='no IOMMU, uio_pci_generic on a hub; a host tap',
         scenarios=(
             Scenario('smoke', (
                 criterion('uio', 'tests/vm/guest/test_uio_smoke'),
             )),
             Scenario('bus', (
                 criterion('bus', 'tests/vm/guest/test_bus', excluded=VIRTIO_BUS + BUS_VFIO_ONLY),
             )),
             Scenario('e1000e', (
                 criterion('e1000e', 'tests/vm/guest/test_e1000e', timeout=600,
                           excluded=E1000E_VFIO_ONLY),
                 Check('bench-report', 'cat /tmp/e1000e-bench.txt'),
                 Check('notes', 'cat /tmp/e1000e-notes.txt'),
             )),
             # lib/napi over INTx: one source shared by both rx queues.
             Scenario('napi', (
                 criterion('napi', 'tests/vm/guest/test_napi', timeout=600),
                 Check('napi-report', 'cat /tmp/napi-report.txt'),
             )),
             Scenario('tap', (
                 Check('guest-kernel-sends', 'IF=$(unic-vm ifname nic1) && ip link set $IF up'
                       ' && vm-frames send $IF 20', binaries=('tests/vm/guest/vm-frames',),
                       frames=('unic0', 20)),
                 Check('host-sends', 'vm-frames recv $(unic-vm ifname nic1) 20'
                       ' "unic-vm host-send unic0 20"', binaries=('tests/vm/guest/vm-frames',)),
             )),
             Scenario('tap-offload', (
                 Check('tso-csum', 'vm-offload $(unic-vm nics | awk \'$1 == "nic3" { print $2 }\') '
                       + ' '.join(OFFLOAD_CASES), binaries=('tests/vm/guest/vm-offload',),
                       offload=('unic1', OFFLOAD_CASES), timeout=120),
             )),
             # After the tap scenario, which needs nic1 on the kernel's e1000e.
             Scenario('devbind', (
                 devbind_check('bind-uio', 'B=$(bdf nic0); unic-devbind --unbind $B; want $B none; '
                               'unic-devbind --bind uio_pci_generic $B; want $B uio_pci_generic; '
                               'unic-devbind --status'),
                 devbind_check('refuse-routed', 'B=$(bdf nic1); IF=$(unic-vm ifname nic1); '
                               'ip link set $IF up; ip addr add 10.99.0.1/24 dev $IF; '
                               'rc=0; unic-devbind --bind uio_pci_generic $B || rc=$?; '
                               '[ $rc -eq 3 ]; want $B e1000e'),
                 devbind_check('force-and-back', 'B=$(bdf nic1); '
                               'unic-devbind --force --bind uio_pci_generic $B; want $B uio_pci_generic; '
                               'unic-devbind --bind e1000e $B; want $B e1000e; '
                               'grep -qx "(null)" /sys/bus/pci/devices/$B/driver_override'),
                 # pcieport (built in) refuses an endpoint: the NIC goes back to e1000e.
                 devbind_check('refused-goes-back', 'B=$(bdf nic1); '
                               'rc=0; unic-devbind --bind pcieport $B || rc=$?; [ $rc -eq 4 ]; '
                               'want $B e1000e; '
                               'grep -qx "(null)" /sys/bus/pci/devices/$B/driver_override'),
                 devbind_check('driver-path-refused', 'B=$(bdf nic1); mkdir -p /tmp/x; : > /tmp/x/bind; '
                               'rc=0; unic-devbind --bind ../../../../tmp/x $B || rc=$?; [ $rc -eq 1 ]; '
                               '[ ! -s /tmp/x/bind ]; want $B e1000e'),
                 # setup/hugepages reserved 64 pages; asking for 64 on node 0 keeps them.
                 devbind_check('hugepages', 'unic-devbind --hugepages; unic-devbind --reserve 64 --node 0; '
                               '[ $(cat /sys/devices/system/node/node0/hugepages/hugepages-2048kB/nr_hugepages) -eq 64 ]'),
             )),
             # pmd/virtio over uio_pci_generic and INTx (nic4) against
             # unic's e1000e (nic0) across hub 0.  Last: its frames are
             # queued by QEMU for the e1000e (nic2) that no process has open.
             Scenario('virtio', (
                 criterion('virtio', 'tests/vm/guest/test_virtio', timeout=600,
                           excluded=VIRTIO_VFIO_HUB_ONLY),
             )),
         )),
    Boot('apps', APPS, description='unic-pktgen -> unic-l2fwd -> unic-pktgen over VFIO, three hubs',
         scenarios=(
             # Each run: every frame back once and in order; pktgen's,
             # l2fwd's, the ports' and the hardware's counters all equal.
             Scenario('fwd', (
                 apps_check('hybrid-100k', 'fwd -m hybrid -n 100000 -r 2kpps', timeout=600),
                 apps_check('poll', 'fwd -m poll -n 10000 -r 2kpps'),
                 apps_check('interrupt', 'fwd -m interrupt -n 10000 -r 2kpps'),
                 apps_check('sizes', 'fwd -n 10000 -r 2kpps -g "-P --sizes 60,61,128,511,1024,1514"'),
                 apps_check('vlan', 'fwd -n 10000 -r 2kpps -g "-P --vlan 100 --sizes 64,600,1518"'),
                 # Without MAC rewriting, frames reach nic3 addressed to it.
                 apps_check('no-mac-updating', 'fwd -n 10000 -r 2kpps -g "" -f "-P --no-mac-updating"'),
                 # Two queues a port, RSS: rx queue N -> tx queue N.
                 apps_check('two-queues', 'mq'),
             )),
             # unic-pktgen's sweep (3 steps) and NDR search (2 sizes) through
             # l2fwd: rows in order, every frame back, a rate found > 0 whose
             # latency trial lost nothing.
             Scenario('bench', (
                 apps_check('sweep-ndr', 'bench', timeout=300, show=True),
             )),
             # l2fwd's telemetry socket, asked by vm-telemetry (the guest has
             # no Python) while pktgen sends through it in hybrid mode: port
             # stats, /l2fwd/threads and napi context 0 move between queries
             # a second apart, napi shows interrupts and sleeps, bad requests
             # get errors and forwarding goes on, its totals at exit are at
             # least telemetry's last figures.
             Scenario('telemetry', (
                 apps_check('l2fwd', 'telemetry', binaries=APPS_BIN + ('tests/vm/guest/vm-telemetry',)),
             )),
             # README command 1 (tools/demo): both apps' reports on the host.
             Scenario('demo', (
                 apps_check('demo', 'demo', timeout=120, show=True),
             )),
             # Traffic from idle to the maximum on two paths through one
             # l2fwd, a link flap and an unbind/rebind in the middle; nothing
             # lost but across the unbind, counters agree, VmRSS and pool
             # flat.  Before disrupt: it counts every frame nic1 receives.
             Scenario('soak', (
                 apps_check('soak', 'soak -d %d' % SOAK_SECONDS,
                            timeout=SOAK_SECONDS * 2 + 300),
             )),
             # Last: they leave frames queued in QEMU for stopped NICs, and
             # the unbind takes a NIC away.
             Scenario('disrupt', (
                 apps_check('sigint', 'sigint'),
                 apps_check('unbind', 'unbind'),
             )),
         )),
    # The rig's self-test: the host must see a failing test case as failed
    # (and its neighbour as passed), then a kernel panic as a panic, not as
    # a timeout.  Seen so, each is reported as passing; anything else (the
    # case passes, the guest hangs) fails the boot.  The host's hang
    # detection is tested without a boot (rig/test_runner.py, suite unit).
    Boot('selftest', SELFTEST, description='rig self-test: a failing guest check, then a kernel panic',
         scenarios=(
             Scenario('selftest', (
                 criterion('criterion', 'tests/vm/guest/test_rig_selftest', expect='fail',
                           failing=('rig::a_failing_guest_check_is_reported_as_failing',)),
                 # QEMU runs with -no-reboot and the kernel with panic=-1.
                 Check('panic', 'echo 1 > /proc/sys/kernel/sysrq; echo c > /proc/sysrq-trigger',
                       expect='panic'),
             )),
         )),
]
