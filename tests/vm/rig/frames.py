"""Frames the host captured on a tap, and which of them belong to this run.

A guest check tags its frames (guest/vm_frames.c) with EtherType 0x88b5 and
the payload "unic-vm RUN CHECK SEQ".  QEMU holds frames for a receiver that is
off and delivers them later, so frames of another run, or untagged ones
(the guest kernel's own IPv6 chatter), are strays: counted, never matched.
"""

import struct
from collections import Counter

ETHERTYPE = 0x88b5


def read_pcap(path):
    """The frames of a pcap file (microsecond, little-endian, as peer.py writes)."""
    frames = []
    try:
        with open(path, 'rb') as f:
            data = f.read()
    except FileNotFoundError:
        return frames
    off = 24
    while off + 16 <= len(data):
        incl = struct.unpack_from('<IIII', data, off)[2]
        frames.append(data[off + 16:off + 16 + incl])
        off += 16 + incl
    return frames


def count_tagged(frames, run_id):
    """Returns (Counter of check name -> distinct sequence numbers, strays)."""
    seen = set()
    strays = 0
    for frame in frames:
        words = []
        if len(frame) > 14 and struct.unpack_from('>H', frame, 12)[0] == ETHERTYPE:
            words = frame[14:].split(b'\0', 1)[0].decode(errors='replace').split()
        if len(words) == 4 and words[0] == 'unic-vm' and words[1] == run_id:
            seen.add((words[2], words[3]))
        else:
            strays += 1
    return Counter(check for check, _ in seen), strays
