"""The host side of a tap (topology b): captures what the guest sends.

Runs inside QEMU's network namespace (the runner starts it with nsenter):

    python3 peer.py IFNAME PCAP

waits for QEMU to create the tap, sets it up, prints "ready" and writes
every frame the tap receives to PCAP until SIGTERM.  A line "send RUN CHECK
COUNT" on stdin makes it send COUNT broadcast frames tagged like the guest's
(EtherType 0x88b5, payload "unic-vm RUN CHECK SEQ", see rig/frames.py);
"flows RUN CHECK COUNT" sends COUNT broadcast IPv4/UDP frames, each a flow
of its own (source address and both ports vary with SEQ), with the same
payload, for a guest that checks RSS steering (flow_frame).

A line "gso RUN CHECK CASE IDX" makes it send one TCP frame into the tap
through a packet socket with PACKET_VNET_HDR, behind the virtio-net header
the case asks for (rx_frame below): the kernel hands a GSO frame to the tap
as one frame when the tap's offloads (TUNSETOFFLOAD, set by QEMU from what
the guest negotiated) include TSO, and cuts it into MSS-sized segments when
they do not.

It also plays the host that forwards the guest's traffic: the tap and one
end (IFNAME-fa) of a veth pair are ports of a bridge (IFNAME-br), the veth
end has every transmit offload off (`ethtool -K IFNAME-fa tso off gso off
tx off`), so the kernel segments GSO frames and fills in checksums in
software before they leave, and what arrives at the other end (IFNAME-fb,
GRO off) is written to PCAP with ".pcap" replaced by ".segments.pcap".
What the tap receives is also read through a packet socket with
PACKET_VNET_HDR, which puts the kernel's GSO and checksum state of each
frame in front of it as a virtio-net header (struct virtio_net_hdr, 10
bytes): those records go to ".vnet.pcap" (link type USER0, 147).
Standard library and iproute2/ethtool only.
"""

import fcntl
import os
import select
import signal
import socket
import struct
import subprocess
import sys
import time

SIOCGIFFLAGS = 0x8913
SIOCSIFFLAGS = 0x8914
IFF_UP = 0x1
ETH_P_ALL = 0x0003
ETHERTYPE = 0x88b5
HOST_MAC = bytes.fromhex('020000000001')   # locally administered
SOL_PACKET = 263                            # linux/socket.h
PACKET_VNET_HDR = 15                        # linux/if_packet.h
LINKTYPE_USER0 = 147
RCVBUF = 8 << 20
SO_RCVBUFFORCE = 33                         # asm-generic/socket.h


def run(*cmd):
    subprocess.run(cmd, check=True, stdout=subprocess.DEVNULL)


def forward(ifname):
    """tap + veth end on a bridge; the veth's transmit offloads off.
    Returns the name of the far end, where the segments arrive."""
    stem = ifname[:11]
    br, fa, fb = stem + '-br', stem + '-fa', stem + '-fb'
    # No IPv6 chatter from the interfaces made here into the captures.
    with open('/proc/sys/net/ipv6/conf/default/disable_ipv6', 'w') as f:
        f.write('1')
    run('ip', 'link', 'add', br, 'type', 'bridge')
    run('ip', 'link', 'add', fa, 'type', 'veth', 'peer', 'name', fb)
    run('ethtool', '-K', fa, 'tso', 'off', 'gso', 'off', 'tx', 'off')
    run('ethtool', '-K', fb, 'gro', 'off')
    run('ip', 'link', 'set', ifname, 'master', br)
    run('ip', 'link', 'set', fa, 'master', br)
    for dev in (fa, fb, br):
        run('ip', 'link', 'set', dev, 'up')
    return fb


def capture_socket(ifname, vnet=False):
    sock = socket.socket(socket.AF_PACKET, socket.SOCK_RAW, socket.htons(ETH_P_ALL))
    try:
        # Past net.core.rmem_max (root): two 60 KB GSO frames and their
        # segments must fit while this process waits for the CPU.
        sock.setsockopt(socket.SOL_SOCKET, SO_RCVBUFFORCE, RCVBUF)
    except OSError:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, RCVBUF)
    if vnet:
        sock.setsockopt(SOL_PACKET, PACKET_VNET_HDR, 1)
    sock.bind((ifname, 0))
    sock.setblocking(False)
    return sock


def pcap_open(path, linktype=1):
    out = open(path, 'wb')
    # pcap: magic, version 2.4, GMT offset, accuracy, snaplen, link type
    out.write(struct.pack('<IHHiIII', 0xa1b2c3d4, 2, 4, 0, 0, 262144, linktype))
    return out


def pcap_write(out, frame):
    now = time.time()
    out.write(struct.pack('<IIII', int(now), int(now % 1 * 1e6), len(frame), len(frame)))
    out.write(frame)
    out.flush()


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


# Receive-offload cases (guest/vm_offload.c, which checks what arrives):
#   lro4:MSS:LEN lro6:MSS:LEN     LEN TCP payload bytes in one GSO frame
#   nolro4:MSS:LEN nolro6:MSS:LEN (TCPV4/TCPV6, gso_size MSS), NEEDS_CSUM
#   csum4:LEN csum6:LEN           one frame, NEEDS_CSUM, no GSO
# Case IDX: 10.55.0.2 -> 10.55.0.1 (fd00:55::2 -> fd00:55::1), TCP port 5001
# -> 42000 + IDX, sequence number 1000000, broadcast destination; payload
# "unic-vm RUN CHECK IDX\n" then payload_byte(k) for payload offset k. The
# checksum field holds the pseudo-header sum, as a host's partial checksum does.
RX_SPORT, RX_DPORT_BASE, RX_SEQ = 5001, 42000, 1000000
VNET_F_NEEDS_CSUM, GSO_NONE, GSO_TCPV4, GSO_TCPV6 = 1, 0, 1, 4


def payload_byte(k):
    return (k * 7 + (k >> 8) * 13 + 0x21) & 0xff


def _sum16(data, s=0):
    if len(data) % 2:
        data += b'\0'
    for i in range(0, len(data), 2):
        s += data[i] << 8 | data[i + 1]
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return s


def rx_frame(run_id, check, word, idx):
    """The virtio-net header (10 bytes, little-endian) and the frame."""
    parts = word.split(':')
    kind = parts[0]
    if kind not in ('lro4', 'lro6', 'nolro4', 'nolro6', 'csum4', 'csum6'):
        raise ValueError('bad receive-offload case %r' % word)
    v6, gso = kind.endswith('6'), not kind.startswith('csum')
    mss, length = (int(parts[1]), int(parts[2])) if gso else (0, int(parts[1]))
    tag = ('unic-vm %s %s %d\n' % (run_id, check, idx)).encode()
    payload = bytearray(tag[:length])
    payload += bytes(payload_byte(k) for k in range(len(payload), length))
    tcp_len = 20 + length
    if v6:
        src, dst = bytes.fromhex('fd000055' + '00' * 11 + '02'), bytes.fromhex('fd000055' + '00' * 11 + '01')
        l3 = struct.pack('!IHBB', 0x60000000, tcp_len, 6, 64) + src + dst
        pseudo = src + dst + struct.pack('!IxxxB', tcp_len, 6)
        ethertype = 0x86dd
    else:
        src, dst = bytes([10, 55, 0, 2]), bytes([10, 55, 0, 1])
        l3 = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + tcp_len, idx & 0xffff, 0x4000, 64, 6, 0, src, dst)
        l3 = l3[:10] + struct.pack('!H', 0xffff - _sum16(l3)) + l3[12:]
        pseudo = src + dst + struct.pack('!xBH', 6, tcp_len)
        ethertype = 0x0800
    tcp = struct.pack('!HHIIBBHHH', RX_SPORT, RX_DPORT_BASE + idx, RX_SEQ, 0, 5 << 4, 0x18, 65535,
                      _sum16(pseudo), 0)
    frame = b'\xff' * 6 + HOST_MAC + struct.pack('!H', ethertype) + l3 + tcp + bytes(payload)
    l4 = 14 + len(l3)
    hdr = struct.pack('<BBHHHH', VNET_F_NEEDS_CSUM, (GSO_TCPV6 if v6 else GSO_TCPV4) if gso else GSO_NONE,
                      l4 + 20 if gso else 0, mss, l4, 16)
    return hdr + frame


def send(sock, run_id, check, count):
    for seq in range(count):
        payload = ('unic-vm %s %s %d' % (run_id, check, seq)).encode()
        frame = b'\xff' * 6 + HOST_MAC + ETHERTYPE.to_bytes(2, 'big') + payload
        sock.send(frame.ljust(128, b'\0'))


def ipv4_cksum(header):
    s = sum(struct.unpack('!10H', header))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def flow_frame(run_id, check, seq):
    """Broadcast IPv4/UDP from 10.77.(seq/256).(seq%256) port 1024+seq to
    10.77.255.1 port 4000 + (seq * 7) % 997: a flow per seq."""
    payload = ('unic-vm %s %s %d' % (run_id, check, seq)).encode().ljust(32, b'\0')
    udp = struct.pack('!HHHH', 1024 + seq, 4000 + (seq * 7) % 997, 8 + len(payload), 0) + payload
    ip = struct.pack('!BBHHHBBH4s4s', 0x45, 0, 20 + len(udp), seq & 0xffff, 0, 64, 17, 0,
                     bytes((10, 77, (seq >> 8) & 0xff, seq & 0xff)), bytes((10, 77, 255, 1)))
    ip = ip[:10] + struct.pack('!H', ipv4_cksum(ip)) + ip[12:]
    return b'\xff' * 6 + HOST_MAC + b'\x08\x00' + ip + udp


def send_flows(sock, run_id, check, count):
    # Paced: the tap drops what its queues (500 frames each) cannot hold
    # while QEMU (TCG, a loaded host) is slow to read them.
    for seq in range(count):
        sock.send(flow_frame(run_id, check, seq))
        if seq % 8 == 7:
            time.sleep(0.002)


def main():
    ifname, pcap = sys.argv[1], sys.argv[2]
    base = pcap[:-len('.pcap')] if pcap.endswith('.pcap') else pcap
    stop = []
    signal.signal(signal.SIGTERM, lambda *_: stop.append(1))
    wait_for(ifname, 20)
    set_up(ifname)
    far = forward(ifname)
    sock = capture_socket(ifname)
    vnet = capture_socket(ifname, vnet=True)
    segs = capture_socket(far)
    outs = {sock: pcap_open(pcap), vnet: pcap_open(base + '.vnet.pcap', LINKTYPE_USER0),
            segs: pcap_open(base + '.segments.pcap')}
    print('ready', flush=True)
    inputs, pending = [sock, vnet, segs, 0], b''
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
                elif len(words) == 5 and words[0] == 'gso':
                    try:
                        vnet.send(rx_frame(words[1], words[2], words[3], int(words[4])))
                    except (ValueError, OSError) as e:
                        # The guest waits for it and fails, saying so.
                        print('peer %s: %s: %s' % (ifname, line.decode(), e), file=sys.stderr, flush=True)
                elif len(words) == 4 and words[0] == 'flows':
                    send_flows(sock, words[1], words[2], int(words[3]))
        for s in (sock, vnet, segs):
            while s in ready:       # everything it holds
                try:
                    frame, addr = s.recvfrom(262144)
                except BlockingIOError:
                    break
                except OSError:
                    return          # QEMU exited and took the tap with it
                if addr[2] != socket.PACKET_OUTGOING:   # not what the host sent
                    pcap_write(outs[s], frame)
    for out in outs.values():
        out.close()


if __name__ == '__main__':
    main()
