"""Host prerequisites: the Debian packages the rig runs with, installed on demand.

The CI machine starts with nothing but Debian 12 and network access to the
Debian mirrors, so the rig installs what it needs itself (as root).
"""

import os
import shutil
import subprocess
import sys

# The Debian packages the rig needs on the host, one a line; tools/install-deps
# (CI) reads the same file.
PACKAGES_FILE = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))),
                             'packages')

# A package counts as present when this command or file is there, whatever
# package brought it: a dynamic /bin/busybox (Debian's `busybox`) will do,
# since the initramfs gets every library ldd lists for it.  Other packages
# are asked of dpkg.  (unshare, nsenter, ldd, dpkg and apt are essential.)
PROVIDED_BY = {'busybox-static': '/bin/busybox', 'qemu-system-x86': 'qemu-system-x86_64',
               'tshark': 'tshark', 'ethtool': 'ethtool', 'iproute2': 'ip'}


class SetupError(Exception):
    """The host cannot run the rig; the message says what to do."""


def log(msg):
    print('vm: ' + msg, file=sys.stderr, flush=True)


def _present(package):
    what = PROVIDED_BY.get(package)
    if what:
        return os.path.exists(what) if what.startswith('/') else shutil.which(what) is not None
    r = subprocess.run(['dpkg-query', '-W', '-f=${Status}', package],
                       capture_output=True, text=True)
    return r.stdout.endswith(' installed')


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
    with open(PACKAGES_FILE) as f:
        missing = [p for p in f.read().split() if not _present(p)]
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
