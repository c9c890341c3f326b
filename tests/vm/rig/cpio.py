"""A writer for the cpio "newc" format, the one the kernel unpacks as initramfs.

There is no cpio on a fresh machine, and the archive needs device nodes
(/dev/console) that only root could create on disk, so the rig writes the
format itself.  The layout (Documentation/driver-api/early-userspace/
buffer-format.rst in the kernel tree): a 110-byte ASCII header, the name with
its NUL, padding to 4 bytes, the data, padding to 4 bytes; a last entry named
TRAILER!!! ends the archive.
"""

import stat

MAGIC = b'070701'


def _pad4(n):
    return (4 - n % 4) % 4


class Writer:
    """Appends entries to a binary file object; parents must come first."""

    def __init__(self, out):
        self._out = out
        self._ino = 1
        self._seen = set()

    def _entry(self, name, mode, data=b'', rdev=(0, 0), nlink=1):
        name_b = name.encode() + b'\0'
        fields = (self._ino, mode, 0, 0, nlink, 0, len(data), 0, 0,
                  rdev[0], rdev[1], len(name_b), 0)
        self._ino += 1
        head = MAGIC + b''.join(b'%08x' % f for f in fields)
        self._out.write(head + name_b + b'\0' * _pad4(len(head) + len(name_b)))
        self._out.write(data + b'\0' * _pad4(len(data)))

    def _parents(self, path):
        parts = path.split('/')[:-1]
        for i in range(1, len(parts) + 1):
            self.directory('/'.join(parts[:i]))

    def directory(self, path, mode=0o755):
        path = path.strip('/')
        if not path or path in self._seen:
            return
        self._parents(path)
        self._seen.add(path)
        self._entry(path, stat.S_IFDIR | mode, nlink=2)

    def file(self, path, data, mode=0o644):
        path = path.strip('/')
        self._parents(path)
        self._seen.add(path)
        self._entry(path, stat.S_IFREG | mode, data)

    def symlink(self, path, target):
        path = path.strip('/')
        self._parents(path)
        self._seen.add(path)
        self._entry(path, stat.S_IFLNK | 0o777, target.encode())

    def char_device(self, path, major, minor, mode=0o600):
        path = path.strip('/')
        self._parents(path)
        self._seen.add(path)
        self._entry(path, stat.S_IFCHR | mode, rdev=(major, minor))

    def close(self):
        self._entry('TRAILER!!!', 0, nlink=1)
