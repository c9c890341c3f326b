"""The QEMU human monitor (HMP) on a unix socket: the rig's hand on the
emulated cables.  A guest check asks for a link change with a `link` frame
(`unic-vm link nic0 off`, see results.py); the runner passes it on as
`set_link nic0 off`, which drives the NIC's STATUS.LU and raises its
link-change interrupt.  Standard library only.
"""

import re
import socket
import time

PROMPT = b'(qemu) '


def _read_prompt(sock, deadline):
    data = b''
    while not data.endswith(PROMPT):
        sock.settimeout(max(0.05, deadline - time.monotonic()))
        chunk = sock.recv(4096)
        if not chunk:
            raise OSError('the monitor closed the connection')
        data += chunk
    return data[:-len(PROMPT)].decode(errors='replace')


def set_link(path, nic, state, timeout=10.0):
    """Runs `set_link NIC on|off`; returns None, or what went wrong."""
    if not re.fullmatch(r'nic\d+', nic) or state not in ('on', 'off'):
        return 'refused monitor request set_link %r %r' % (nic, state)
    deadline = time.monotonic() + timeout
    try:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.connect(path)
            _read_prompt(s, deadline)               # the greeting
            s.sendall(('set_link %s %s\n' % (nic, state)).encode())
            reply = _read_prompt(s, deadline)
    except OSError as e:
        return 'monitor %s: set_link %s %s: %s' % (path, nic, state, e)
    # HMP echoes the command; anything else it prints is an error.
    reply = re.sub(r'\x1b\[[0-9;]*[A-Za-z]', '', reply).replace('\r', '')
    lines = [x.strip() for x in reply.split('\n') if x.strip()]
    errors = [x for x in lines if 'set_link' not in x]
    if errors:
        return 'monitor: set_link %s %s: %s' % (nic, state, ' / '.join(errors))
    return None
