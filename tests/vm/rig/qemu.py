"""A Topology as a QEMU command line (QEMU 7.2, q35, TCG)."""

FIRST_SLOT = 3   # pcie.0 slots 0 (host bridge) and 0x1f (ICH9) are taken


def nic_locators(topology):
    """Where the guest finds each NIC: "00:SS.0" on the root bus, or
    "00:SS.0/" for the device behind the root port at that address."""
    out = []
    for i, nic in enumerate(topology.nics):
        slot = FIRST_SLOT + i
        out.append('00:%02x.0%s' % (slot, '/' if nic.placement == 'root-port' else ''))
    return out


def _nic_args(i, nic, iommu):
    slot = FIRST_SLOT + i
    netdev = 'net%d' % i
    if nic.tap:
        # Only tap passes a virtio-net header: real TSO and checksum offload.
        args = ['-netdev', 'tap,id=%s,ifname=%s,script=no,downscript=no,vnet_hdr=on%s'
                % (netdev, nic.tap, ',queues=%d' % nic.queues if nic.queues > 1 else '')]
    else:
        args = ['-netdev', 'hubport,id=%s,hubid=%d' % (netdev, nic.hub)]
    if nic.placement == 'root-port':
        port = 'rp%d' % i
        args += ['-device', 'pcie-root-port,id=%s,bus=pcie.0,addr=0x%x,chassis=%d'
                 % (port, slot, slot)]
        where = 'bus=%s,addr=0x0' % port
    else:
        where = 'bus=pcie.0,addr=0x%x' % slot
    # romfile= leaves out the iPXE option ROM: nothing here boots from the network.
    # id=nicN names the NIC for the monitor's set_link (rig/monitor.py).
    if nic.model == 'e1000e':
        dev = 'e1000e,id=nic%d,netdev=%s,%s,romfile=' % (i, netdev, where)
    else:
        # Behind the IOMMU the device must translate its DMA (ACCESS_PLATFORM);
        # without one (uio) it is the plain device a guest without an IOMMU has.
        dev = ('virtio-net-pci,id=nic%d,netdev=%s,%s,romfile=,disable-legacy=on%s%s'
               % (i, netdev, where, ',iommu_platform=on' if iommu else '',
                  ',' + nic.props if nic.props else ''))
    return args + ['-device', dev]


def command(topology, kernel, initrd, append, console, results, monitor=None,
            emulator=('qemu-system-x86_64',)):
    """The qemu-system-x86_64 argument list.

    console and results are -serial arguments for ttyS0 (the kernel console)
    and ttyS1 (the framed results), e.g. 'file:/path' or 'mon:stdio';
    monitor, if given, is the path of a unix socket for the human monitor.
    emulator: the program (and its first arguments) that gets QEMU's
    arguments; the rig's own tests put a stand-in there (rig/fake_qemu.py).
    """
    vfio = topology.access == 'vfio'
    # A tap lives in a network namespace of its own, created for QEMU.
    netns = ['unshare', '--net', '--'] if topology.taps else []
    machine = 'q35,kernel-irqchip=split' if vfio else 'q35'
    args = netns + list(emulator) + [
        '-M', machine, '-accel', 'tcg', '-cpu', 'max',
        '-smp', str(topology.cpus), '-m', str(topology.memory_mb),
        '-nodefaults', '-no-user-config', '-display', 'none', '-no-reboot',
        '-kernel', kernel, '-initrd', initrd, '-append', append,
        '-serial', console, '-serial', results]
    if monitor:
        args += ['-monitor', 'unix:%s,server=on,wait=off' % monitor]
    if vfio:
        # The IOMMU must come before the devices whose DMA it translates.
        args += ['-device', 'intel-iommu,intremap=on,caching-mode=on,aw-bits=%d'
                 % topology.aw_bits]
    for i, nic in enumerate(topology.nics):
        args += _nic_args(i, nic, vfio)
    return args


def kernel_cmdline(topology, run_id, shell=False):
    # no_timer_check: the kernel's early test that the timer interrupt
    # arrives through the IO-APIC counts ticks over a short busy wait; a
    # TCG guest on a busy host misses it and panics ("timer doesn't work
    # through Interrupt-remapped IO-APIC", seen in the vfio boots).
    words = ['console=ttyS0', 'panic=-1', 'no_timer_check', 'unic.run=' + run_id]
    if topology.access == 'vfio':
        words.append('intel_iommu=on')
    if shell:
        words.append('unic.shell=1')
    return ' '.join(words)
