"""The host side of a tap (topology b): captures what the guest sends.

Runs inside QEMU's network namespace (the runner starts it with nsenter):

    python3 peer.py IFNAME PCAP

waits for QEMU to create the tap, sets it up, prints "ready" and writes
every frame the tap receives to PCAP until SIGTERM.  A line "send RUN CHECK
COUNT" on stdin makes it send COUNT broadcast frames tagged like the guest's
(EtherType 0x88b5, payload "unic-vm RUN CHECK SEQ", see rig/frames.py).
Standard library only.
"""

import fcntl
import os
import select
import signal
import socket
import struct
import sys
import time

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
ETH_P_ALL = 0x0003
ETHERTYPE = 0x88b5
HOST_MAC = bytes.fromhex('020000000001')   # locally administered


def wait_for(ifname, seconds):
    end = time.monotonic() + seconds
    while True:
        try:
            return socket.if_nametoindex(ifname)
        except OSError:
            if time.monotonic() > end:
                raise
            time.sleep(0.05)


def set_up(ifname):
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as s:
        name = ifname.encode()
        ifr = fcntl.ioctl(s, SIOCGIFFLAGS, struct.pack('16sH14x', name, 0))
        flags = struct.unpack_from('16sH', ifr)[1]
        fcntl.ioctl(s, SIOCSIFFLAGS, struct.pack('16sH14x', name, flags | IFF_UP))


def send(sock, run_id, check, count):
    for seq in range(count):
        payload = ('unic-vm %s %s %d' % (run_id, check, seq)).encode()
        frame = b'\xff' * 6 + HOST_MAC + ETHERTYPE.to_bytes(2, 'big') + payload
        sock.send(frame.ljust(128, b'\0'))


def main():
    ifname, pcap = sys.argv[1], sys.argv[2]
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    wait_for(ifname, 20)
    set_up(ifname)
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    sock.bind((ifname, 0))
    sock.setblocking(False)
    with open(pcap, 'wb') as out:
        # pcap: magic, version 2.4, GMT offset, accuracy, snaplen, Ethernet
        out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        print('ready', flush=True)
        inputs, pending = [sock, 0], b''
        while not stop:
            ready, _, _ = select.select(inputs, [], [], 0.2)
            if 0 in ready:
                data = os.read(0, 4096)
                if not data:
                    inputs.remove(0)        # the runner closed our stdin
                pending += data
                while b'\n' in pending:
                    line, pending = pending.split(b'\n', 1)
                    words = line.decode().split()
                    if len(words) == 4 and words[0] == 'send':
                        send(sock, words[1], words[2], int(words[3]))
            if sock not in ready:
                continue
            try:
                frame, addr = sock.recvfrom(65535)
            except OSError:
                break               # QEMU exited and took the tap with it
            if addr[2] == socket.PACKET_OUTGOING:
                continue            # what the host itself sent
            now = time.time()
            out.write(struct.pack('<IIII', int(now), int(now % 1 * 1e6), len(frame), len(frame)))
            out.write(frame)
            out.flush()


if __name__ == '__main__':
    main()
