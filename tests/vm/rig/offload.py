"""Transmit offloads toward a host tap (topology b), judged on the host.

A guest check (guest/vm_offload.c) sends one packet per *case* through a
NIC on a tap and asks the NIC for TSO or checksum offload.  Two captures of
the host's peer (rig/peer.py) say what became of it:

- <tap>.vnet.pcap: what the tap received, each frame behind the virtio-net
  header the host kernel holds for it (packet socket, PACKET_VNET_HDR): one
  GSO frame with the requested MSS and GSO type for a TSO case; one frame
  marked "needs checksum" at the L4 header for a checksum case.
- <tap>.segments.pcap: the same traffic after the host forwarded it out a
  veth with every transmit offload off: MSS-sized TCP segments with valid
  checksums.  tshark dissects and verifies these (it shares nothing with
  the project's C code); this module only reads tshark's fields.

Cases are words NAME:ARGS, the same list on the guest's command line and
in the check's declaration (scenarios.py):

    tso4:MSS:LEN  tso6:MSS:LEN   TCP over IPv4/IPv6, LEN payload bytes, TSO
    tcp4:LEN udp4:LEN tcp6:LEN udp6:LEN   one frame, checksums offloaded
                                 (IPv4: the header checksum too)

Case i uses source port 41000 + i; its payload starts with the tag
"unic-vm RUN CHECK i\\n" and goes on with payload_byte(k) (also in
vm_offload.c, written separately there).
"""

import shutil
import struct
import subprocess
from dataclasses import dataclass

from .frames import read_pcap
from .results import Result

SPORT_BASE = 41000
VIRTIO_NET_HDR_F_NEEDS_CSUM = 1
GSO_NONE, GSO_TCPV4, GSO_TCPV6 = 0, 1, 4
GSO_ECN = 0x80


@dataclass(frozen=True)
class Case:
    index: int
    word: str
    kind: str       # tso4 tso6 tcp4 udp4 tcp6 udp6
    mss: int        # 0 unless TSO
    length: int     # L4 payload bytes

    @property
    def v6(self):
        return self.kind.endswith('6')

    @property
    def udp(self):
        return self.kind.startswith('udp')

    @property
    def tso(self):
        return self.kind.startswith('tso')

    @property
    def sport(self):
        return SPORT_BASE + self.index


def parse_cases(words):
    cases = []
    for i, word in enumerate(words):
        parts = word.split(':')
        kind = parts[0]
        if kind in ('tso4', 'tso6') and len(parts) == 3:
            cases.append(Case(i, word, kind, int(parts[1]), int(parts[2])))
        elif kind in ('tcp4', 'udp4', 'tcp6', 'udp6') and len(parts) == 2:
            cases.append(Case(i, word, kind, 0, int(parts[1])))
        else:
            raise ValueError('bad offload case %r' % word)
    return cases


def payload_byte(k):
    return (k * 7 + (k >> 8) * 13 + 0x21) & 0xff


def expected_payload(run_id, check, case):
    tag = ('unic-vm %s %s %d\n' % (run_id, check, case.index)).encode()
    return tag + bytes(payload_byte(k) for k in range(len(tag), case.length))


def _l4(frame):
    """(ip version, l3 header length, proto, sport, payload offset) of an
    Ethernet frame, or None: a plain reading of the headers, to find the
    frames of a case in the vnet capture."""
    if len(frame) < 14:
        return None
    et = struct.unpack_from('>H', frame, 12)[0]
    if et == 0x0800 and len(frame) >= 34:
        l3 = (frame[14] & 0xf) * 4
        proto = frame[23]
    elif et == 0x86dd and len(frame) >= 54:
        l3, proto = 40, frame[20]
    else:
        return None
    l4 = 14 + l3
    if proto not in (6, 17) or len(frame) < l4 + 8:
        return None
    hl = (frame[l4 + 12] >> 4) * 4 if proto == 6 else 8
    return (4 if et == 0x0800 else 6), l3, proto, struct.unpack_from('>H', frame, l4)[0], l4 + hl


def _gso_result(name, case, tag, records):
    """The tap's view: one frame of the case, with the virtio-net header
    the case calls for."""
    mine = []
    for rec in records:
        if len(rec) < 10:
            continue
        hdr, frame = struct.unpack_from('<BBHHHH', rec, 0), rec[10:]
        info = _l4(frame)
        if info and info[3] == case.sport and frame[info[4]:info[4] + len(tag)] == tag:
            mine.append((hdr, frame, info))
    diag = []
    if len(mine) != 1:
        return Result(False, name, ['%d frames of this case on the tap, expected one' % len(mine)])
    (flags, gso_type, _hdr_len, gso_size, csum_start, csum_offset), frame, info = mine[0]
    l3 = 40 if case.v6 else 20
    want_len = 14 + l3 + (8 if case.udp else 20) + case.length
    want_type = (GSO_TCPV6 if case.v6 else GSO_TCPV4) if case.tso else GSO_NONE
    diag.append('frame of %d bytes; virtio-net header: flags %d gso_type %d gso_size %d '
                'csum_start %d csum_offset %d' % (len(frame), flags, gso_type, gso_size,
                                                  csum_start, csum_offset))
    ok = len(frame) == want_len
    if not ok:
        diag.append('length %d, expected %d (one unsegmented frame)' % (len(frame), want_len))
    if gso_type & ~GSO_ECN != want_type:
        ok = False
        diag.append('gso_type %d, expected %d' % (gso_type, want_type))
    if case.tso and gso_size != case.mss:
        ok = False
        diag.append('gso_size %d, expected the requested MSS %d' % (gso_size, case.mss))
    if not flags & VIRTIO_NET_HDR_F_NEEDS_CSUM or csum_start != 14 + l3 or \
            csum_offset != (6 if case.udp else 16):
        ok = False
        diag.append('checksum request: flags %d start %d offset %d, expected NEEDS_CSUM at %d+%d'
                    % (flags, csum_start, csum_offset, 14 + l3, 6 if case.udp else 16))
    return Result(ok, name, diag)


TSHARK_FIELDS = ('frame.number', 'ip.version', 'tcp.srcport', 'udp.srcport', 'ip.checksum.status',
                 'tcp.checksum.status', 'udp.checksum.status', 'tcp.seq_raw', 'tcp.len',
                 'tcp.payload', 'udp.payload', 'frame.len')


def tshark_rows(pcap):
    """One dict per frame of pcap, as tshark dissects and verifies it, or
    a string saying why not."""
    exe = shutil.which('tshark')
    if exe is None:
        return 'tshark is not installed (tests/vm/packages lists it)'
    cmd = [exe, '-n', '-r', pcap, '-o', 'ip.check_checksum:TRUE', '-o', 'tcp.check_checksum:TRUE',
           '-o', 'udp.check_checksum:TRUE', '-o', 'tcp.analyze_sequence_numbers:FALSE',
           '-T', 'fields', '-E', 'separator=/t', '-E', 'occurrence=f']
    for f in TSHARK_FIELDS:
        cmd += ['-e', f]
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode != 0:
        return 'tshark -r %s failed: %s' % (pcap, r.stderr.strip()[-300:])
    rows = []
    for line in r.stdout.splitlines():
        vals = line.split('\t')
        rows.append(dict(zip(TSHARK_FIELDS, vals + [''] * (len(TSHARK_FIELDS) - len(vals)))))
    return rows


def _segments_result(name, case, want, rows):
    """The forwarded view: MSS-sized segments (or one frame) with checksums
    tshark calls good, whose payloads put together are the case's bytes."""
    port = 'udp.srcport' if case.udp else 'tcp.srcport'
    mine = [r for r in rows if r[port] == str(case.sport)]
    diag = []
    if not mine:
        return Result(False, name, ['no frame of this case arrived through the veth'])
    ok = True
    bad = [r['frame.number'] for r in mine
           if (not case.v6 and r['ip.checksum.status'] != '1')
           or r['udp.checksum.status' if case.udp else 'tcp.checksum.status'] != '1']
    if bad:
        ok = False
        diag.append('tshark: checksum not good in frames %s' % ', '.join(bad[:10]))
    if case.udp:
        data = b''.join(bytes.fromhex(r['udp.payload'].replace(':', '')) for r in mine)
        sizes = [len(data)]
    else:
        mine.sort(key=lambda r: int(r['tcp.seq_raw']))
        sizes = [int(r['tcp.len']) for r in mine]
        seqs = [int(r['tcp.seq_raw']) for r in mine]
        gaps = [i for i in range(1, len(mine)) if seqs[i] != seqs[i - 1] + sizes[i - 1]]
        if gaps:
            ok = False
            diag.append('sequence numbers not contiguous at segments %s' % gaps[:10])
        data = b''.join(bytes.fromhex(r['tcp.payload'].replace(':', '')) for r in mine)
    if case.tso:
        n = -(-case.length // case.mss)
        want_sizes = [case.mss] * (n - 1) + [case.length - case.mss * (n - 1)]
    else:
        want_sizes = [case.length]
    diag.append('%d frames, payload sizes %s%s' % (len(mine), sizes[:3], '...' if len(sizes) > 3 else ''))
    if sizes != want_sizes:
        ok = False
        diag.append('payload sizes differ from %d x %d + %d' % (len(want_sizes) - 1, want_sizes[0],
                                                              want_sizes[-1]))
    if data != want:
        ok = False
        first = next((i for i in range(min(len(data), len(want))) if data[i] != want[i]),
                     min(len(data), len(want)))
        diag.append('payload differs from the sent bytes at offset %d (%d bytes, expected %d)'
                    % (first, len(data), len(want)))
    return Result(ok, name, diag)


def evaluate(boot_name, check, run_id, pcaps):
    """Results for one check with offload=(tap, cases): per case, the tap's
    GSO view and the forwarded segments."""
    tap, words = check.offload
    pcap = pcaps.get(tap)
    prefix = '%s: %s: ' % (boot_name, check.name)
    if pcap is None:
        return [Result(False, prefix + 'offload cases', ['%s is no tap of this boot' % tap])]
    base = pcap[:-len('.pcap')]
    records = read_pcap(base + '.vnet.pcap')
    rows = tshark_rows(base + '.segments.pcap')
    out = []
    for case in parse_cases(words):
        want = expected_payload(run_id, check.name, case)
        tag = want[:len(('unic-vm %s %s %d\n' % (run_id, check.name, case.index)))]
        what = case.word
        out.append(_gso_result(prefix + '%s: the tap gets one frame with its virtio-net header'
                               % what, case, tag, records))
        seg_name = prefix + '%s: forwarded with offloads off, %s with valid checksums' % (
            what, 'MSS-sized TCP segments' if case.tso else 'the frame')
        if isinstance(rows, str):
            out.append(Result(False, seg_name, [rows]))
        else:
            out.append(_segments_result(seg_name, case, want, rows))
    return out
