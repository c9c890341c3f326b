"""Host prerequisites: the Debian packages the rig runs with, installed on demand.

The CI machine starts with nothing but Debian 12 and network access to the
Debian mirrors, so the rig installs what it needs itself (as root).
"""

import os
import shutil
import subprocess
import sys

# What the rig needs on the host: a command (or file) and the package with it.
# A dynamic /bin/busybox (Debian's `busybox`) will do as well: the initramfs
# gets every library ldd lists for it.
NEEDS = [
    ('qemu-system-x86_64', 'qemu-system-x86'),
    ('/bin/busybox', 'busybox-static'),
]


class SetupError(Exception):
    """The host cannot run the rig; the message says what to do."""


def log(msg):
    print('vm: ' + msg, file=sys.stderr, flush=True)


def _present(what):
    if what.startswith('/'):
        return os.path.exists(what)
    return shutil.which(what) is not None


def apt_get(*args):
    """Runs apt-get non-interactively; on failure, updates the lists and retries.

    Its output goes to stderr: stdout is the TAP stream meson reads.
    """
    env = dict(os.environ, DEBIAN_FRONTEND='noninteractive')
    cmd = ['apt-get', '-q', '-y'] + list(args)
    if subprocess.run(cmd, env=env, stdout=sys.stderr).returncode == 0:
        return
    subprocess.run(['apt-get', '-q', 'update'], env=env, stdout=sys.stderr, check=True)
    subprocess.run(cmd, env=env, stdout=sys.stderr, check=True)


def ensure_packages():
    missing = sorted({pkg for what, pkg in NEEDS if not _present(what)})
    if not missing:
        return
    if os.geteuid() != 0:
        raise SetupError('missing packages %s; install them with: '
                         'apt-get install %s' % (' '.join(missing), ' '.join(missing)))
    log('installing ' + ' '.join(missing))
    try:
        apt_get('install', '--no-install-recommends', *missing)
    except subprocess.CalledProcessError as e:
        raise SetupError('apt-get install %s failed: %s' % (' '.join(missing), e))
