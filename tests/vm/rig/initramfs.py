"""The guest's initramfs: busybox, the kernel modules, the init script, the
project's binaries and every shared library they load."""

import gzip
import os
import re
import subprocess

from . import cpio, qemu
from .host import SetupError

GUEST_DIR = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), 'guest')


def shared_libraries(binary):
    """The files `ldd` lists for a binary, the dynamic loader included."""
    r = subprocess.run(['ldd', binary], capture_output=True, text=True)
    if r.returncode != 0:
        if 'not a dynamic executable' in r.stdout + r.stderr:
            return []
        raise SetupError('ldd %s failed: %s' % (binary, r.stderr.strip()))
    libs = []
    for line in r.stdout.splitlines():
        if 'not found' in line:
            raise SetupError('%s: a shared library is missing: %s' % (binary, line.strip()))
        # "libc.so.6 => /lib/x86_64-linux-gnu/libc.so.6 (0x...)" or
        # "/lib64/ld-linux-x86-64.so.2 (0x...)"; linux-vdso has no file.
        m = re.search(r'(/\S+) \(0x[0-9a-f]+\)', line)
        if m:
            libs.append(m.group(1))
    return libs


def _read(path):
    with open(path, 'rb') as f:
        return f.read()


def _describe(kernel, boot, run_id, shell):
    """The three files that tell the guest what this boot is and does."""
    topo = boot.topology
    config = {
        'UNIC_VM_RUN': run_id,
        'UNIC_VM_BOOT': boot.name,
        'UNIC_VM_SHELL': '1' if shell else '0',
        'UNIC_VM_MODULES': ' '.join(kernel.load_order(topo.modules)),
        'UNIC_VM_DRIVERS': ' '.join(sorted({topo.driver_of(n) for n in topo.nics})),
        'UNIC_VM_ACCESS': topo.access,
        'UNIC_VM_AW_BITS': str(topo.aw_bits if topo.access == 'vfio' else 0),
    }
    # nics: name model locator driver reset_method ("-": leave it)
    nics = []
    for i, (nic, loc) in enumerate(zip(topo.nics, qemu.nic_locators(topo))):
        driver = topo.driver_of(nic)
        reset = '-'
        if nic.placement == 'root-port' and nic.model == 'e1000e' and driver == topo.driver:
            reset = 'bus'
        nics.append('nic%d %s %s %s %s' % (i, nic.model, loc, driver, reset))
    return {
        'etc/unic-vm/config': ''.join("%s='%s'\n" % kv for kv in config.items()),
        'etc/unic-vm/nics': '\n'.join(nics) + '\n',
        'etc/unic-vm/plan': plan_text(boot),
    }


def plan_text(boot):
    """/etc/unic-vm/plan: a line per check, tab-separated: check, format,
    guest timeout, command (guest/init runs them)."""
    plan = []
    for c in boot.plan():
        if '\t' in c.command or '\n' in c.command:
            raise ValueError('%s: a command is one line without tabs' % c.name)
        plan.append('%s\t%s\t%d\t%s' % (c.name, c.format, c.timeout, c.command))
    return '\n'.join(plan) + '\n'


# The names database libpci reads (Debian package pci.ids).
PCI_IDS = '/usr/share/misc/pci.ids'


def _binaries(boot, build_root):
    """The build-tree programs the boot's checks name, as host paths."""
    out = []
    for c in boot.plan():
        for b in c.binaries:
            path = os.path.join(build_root, b)
            if not os.path.exists(path):
                raise SetupError('%s is not built; run: meson compile -C %s' % (path, build_root))
            if path not in out:
                out.append(path)
    return out


def build(out_path, kernel, boot, run_id, build_root, shell=False):
    """Writes the boot's initramfs (gzip'ed cpio) to out_path."""
    modules = kernel.load_order(boot.topology.modules)
    binaries = _binaries(boot, build_root)
    libraries = []
    for b in ['/bin/busybox'] + binaries:
        for lib in shared_libraries(b):
            if lib not in libraries:
                libraries.append(lib)

    with open(out_path + '.tmp', 'wb') as raw:
        with gzip.GzipFile(fileobj=raw, mode='wb', compresslevel=6, mtime=0) as gz:
            w = cpio.Writer(gz)
            for d in ('dev', 'proc', 'sys', 'tmp', 'run', 'root', 'etc'):
                w.directory(d)
            w.char_device('dev/console', 5, 1)
            # /init is "#!/bin/busybox sh"; it installs the applet links.
            w.file('bin/busybox', _read('/bin/busybox'), 0o755)
            w.symlink('bin/sh', 'busybox')
            w.file('init', _read(os.path.join(GUEST_DIR, 'init')), 0o755)
            w.file('opt/unic/bin/unic-vm', _read(os.path.join(GUEST_DIR, 'unic-vm')), 0o755)
            for m in modules:
                w.file('lib/modules/%s.ko' % m, kernel.module_data(m))
            for b in binaries:
                w.file('opt/unic/bin/' + os.path.basename(b), _read(b), 0o755)
            for lib in libraries:
                # Under the path ldd printed; a symlink there becomes a copy.
                w.file(lib, _read(os.path.realpath(lib)), 0o755)
            # libpci names devices from pci.ids (unic-devbind --status).
            if any('/libpci.so' in lib for lib in libraries) and os.path.exists(PCI_IDS):
                w.file(PCI_IDS.lstrip('/'), _read(PCI_IDS))
            for path, text in _describe(kernel, boot, run_id, shell).items():
                w.file(path, text.encode())
            w.close()
    os.replace(out_path + '.tmp', out_path)
