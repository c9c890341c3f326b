"""The guest kernel: Debian's current one, downloaded once and cached by version.

linux-image-amd64 is a metapackage; it depends on the versioned image
(linux-image-6.1.0-NN-amd64).  `apt-get download` fetches that .deb and
`dpkg -x` unpacks it without running any install hook.  The cache directory
is named after package and version, so a new Debian kernel is a new entry.
"""

import gzip
import lzma
import os
import re
import shutil
import struct
import subprocess
import sys
import tempfile

from .host import SetupError, log

META_PACKAGE = 'linux-image-amd64'


def _apt_cache(*args):
    r = subprocess.run(['apt-cache'] + list(args), capture_output=True, text=True)
    return r.stdout if r.returncode == 0 else ''


def _resolve_once():
    m = re.search(r'Depends:\s*(linux-image-\S+)', _apt_cache('depends', META_PACKAGE))
    if not m:
        return None
    pkg = m.group(1)
    v = re.search(r'^Version:\s*(\S+)', _apt_cache('show', '--no-all-versions', pkg), re.M)
    return (pkg, v.group(1)) if v else None


def resolve():
    """Returns (package, version) of the image linux-image-amd64 points to."""
    found = _resolve_once()
    if found is None:
        if os.geteuid() != 0:
            raise SetupError('apt-cache cannot resolve %s; run apt-get update' % META_PACKAGE)
        log('apt lists do not know %s; running apt-get update' % META_PACKAGE)
        subprocess.run(['apt-get', '-q', 'update'], stdout=sys.stderr, check=True)
        found = _resolve_once()
    if found is None:
        raise SetupError('apt-cache depends %s names no linux-image package' % META_PACKAGE)
    return found


class Kernel:
    """An unpacked kernel package: vmlinuz, its modules, what is built in."""

    def __init__(self, root):
        self.root = root
        mods = os.path.join(root, 'lib', 'modules')
        self.release = sorted(os.listdir(mods))[0]
        self.moddir = os.path.join(mods, self.release)
        self.vmlinuz = os.path.join(root, 'boot', 'vmlinuz-' + self.release)
        self._files = {}
        for dirpath, _, names in os.walk(os.path.join(self.moddir, 'kernel')):
            for n in names:
                m = re.match(r'(.+)\.ko(\.xz|\.zst|\.gz)?$', n)
                if m:
                    self._files[_norm(m.group(1))] = os.path.join(dirpath, n)
        self._builtin = set()
        with open(os.path.join(self.moddir, 'modules.builtin')) as f:
            for line in f:
                self._builtin.add(_norm(os.path.basename(line.strip()).split('.ko')[0]))

    def module_data(self, name):
        """The module as insmod takes it (decompressed)."""
        path = self._files[_norm(name)]
        with open(path, 'rb') as f:
            data = f.read()
        if path.endswith('.xz'):
            return lzma.decompress(data)
        if path.endswith('.gz'):
            return gzip.decompress(data)
        if path.endswith('.zst'):
            raise SetupError('%s is zstd-compressed; the rig cannot unpack it yet' % path)
        return data

    def load_order(self, wanted):
        """Modules to insmod, dependencies first; built-in ones are left out.

        Dependencies come from each module's own depends= field, so a module
        that a newer kernel merged or built in (vfio_virqfd) drops out by itself.
        """
        order, done = [], set()

        def visit(name, chain):
            key = _norm(name)
            if key in self._builtin or key in done:
                return
            if key in chain:
                raise SetupError('module dependency loop: ' + ' -> '.join(chain + [key]))
            if key not in self._files:
                raise SetupError('kernel %s has no module %s' % (self.release, name))
            for dep in _modinfo(self.module_data(name)).get('depends', '').split(','):
                if dep:
                    visit(dep, chain + [key])
            order.append(os.path.basename(self._files[key]).split('.ko')[0])
            done.add(key)

        for w in wanted:
            visit(w, [])
        return order


def _norm(name):
    return name.replace('-', '_')


def _modinfo(elf):
    """The key=value strings of an ELF64 module's .modinfo section."""
    shoff, = struct.unpack_from('<Q', elf, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from('<HHH', elf, 0x3a)

    def section(i):
        name, _type, _flags, _addr, off, size = struct.unpack_from(
            '<IIQQQQ', elf, shoff + i * shentsize)
        return name, off, size

    _, stroff, _ = section(shstrndx)
    info = {}
    for i in range(shnum):
        name, off, size = section(i)
        end = elf.index(b'\0', stroff + name)
        if elf[stroff + name:end] == b'.modinfo':
            for item in elf[off:off + size].split(b'\0'):
                key, sep, value = item.decode(errors='replace').partition('=')
                if sep:
                    info.setdefault(key, value)
    return info


def fetch(cache_dir):
    """Returns the cached Kernel, downloading and unpacking it if needed."""
    pkg, version = resolve()
    entry = os.path.join(cache_dir, 'kernel', '%s_%s' % (pkg, version))
    stamp = os.path.join(entry, '.complete')
    if os.path.exists(stamp):
        return Kernel(os.path.join(entry, 'root'))
    log('downloading %s %s into %s' % (pkg, version, entry))
    shutil.rmtree(entry, ignore_errors=True)
    os.makedirs(entry)
    with tempfile.TemporaryDirectory(dir=entry) as tmp:
        # apt-get download writes into the current directory, which its
        # sandbox user _apt cannot write to; download as root instead.
        download = ['apt-get', '-q', '-o', 'APT::Sandbox::User=root', 'download',
                    '%s=%s' % (pkg, version)]
        if subprocess.run(download, cwd=tmp, stdout=sys.stderr).returncode != 0:
            subprocess.run(['apt-get', '-q', 'update'], stdout=sys.stderr, check=True)
            subprocess.run(download, cwd=tmp, stdout=sys.stderr, check=True)
        deb = [f for f in os.listdir(tmp) if f.endswith('.deb')][0]
        subprocess.run(['dpkg', '-x', os.path.join(tmp, deb), os.path.join(entry, 'root')],
                       check=True)
    open(stamp, 'w').close()
    return Kernel(os.path.join(entry, 'root'))
