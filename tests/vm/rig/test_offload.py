"""The offload judge (rig/offload.py) on made-up captures: a right answer
passes, and each way a NIC can get it wrong fails.  No guest, no tshark
(its rows are made up too)."""

import struct
import unittest

from rig import offload

RUN, CHECK = 'abcd1234', 'tap-offload/tso-csum'


def tcp4_frame(case, payload):
    eth = bytes.fromhex('020000005502020000000001') + b'\x08\x00'
    ip = struct.pack('>BBHHHBBH4s4s', 0x45, 0, 40 + len(payload), 0, 0, 64, 6, 0,
                     bytes([10, 55, 0, 1]), bytes([10, 55, 0, 2]))
    tcp = struct.pack('>HHIIBBHHH', case.sport, 5001, 1000000, 0, 5 << 4, 0x18, 0xffff, 0, 0)
    return eth + ip + tcp + payload


def vnet(flags, gso_type, gso_size, start, offset, frame):
    return struct.pack('<BBHHHH', flags, gso_type, 54, gso_size, start, offset) + frame


def rows_for(case, payload, mss, bad_frame=None, drop=None):
    rows, seq = [], 1000000
    for i, k in enumerate(range(0, len(payload), mss)):
        chunk = payload[k:k + mss]
        if i != drop:
            rows.append({'frame.number': str(i + 1), 'ip.version': '4', 'tcp.srcport': str(case.sport),
                         'udp.srcport': '', 'ip.checksum.status': '1',
                         'tcp.checksum.status': '0' if i == bad_frame else '1',
                         'udp.checksum.status': '', 'tcp.seq_raw': str(seq), 'tcp.len': str(len(chunk)),
                         'tcp.payload': chunk.hex(), 'udp.payload': '', 'frame.len': ''})
        seq += len(chunk)
    return rows


class GsoView(unittest.TestCase):
    case = offload.parse_cases(['tso4:1400:6000'])[0]

    def judge(self, rec):
        want = offload.expected_payload(RUN, CHECK, self.case)
        tag = want[:want.index(b'\n') + 1]
        return offload._gso_result('x', self.case, tag, [rec])

    def frame(self):
        return tcp4_frame(self.case, offload.expected_payload(RUN, CHECK, self.case))

    def test_one_gso_frame_with_the_mss_passes(self):
        self.assertTrue(self.judge(vnet(1, 1, 1400, 34, 16, self.frame())).ok)

    def test_another_mss_fails(self):
        self.assertFalse(self.judge(vnet(1, 1, 1000, 34, 16, self.frame())).ok)

    def test_no_gso_type_fails(self):
        self.assertFalse(self.judge(vnet(1, 0, 0, 34, 16, self.frame())).ok)

    def test_no_checksum_request_fails(self):
        self.assertFalse(self.judge(vnet(0, 1, 1400, 34, 16, self.frame())).ok)

    def test_a_frame_of_another_run_is_not_ours(self):
        other = offload.expected_payload('00000000', CHECK, self.case)
        frame = tcp4_frame(self.case, other)
        self.assertFalse(self.judge(vnet(1, 1, 1400, 34, 16, frame)).ok)


class SegmentView(unittest.TestCase):
    case = offload.parse_cases(['tso4:1400:6000'])[0]
    want = offload.expected_payload(RUN, CHECK, case)

    def judge(self, rows):
        return offload._segments_result('x', self.case, self.want, rows).ok

    def test_mss_segments_with_good_checksums_pass(self):
        self.assertTrue(self.judge(rows_for(self.case, self.want, 1400)))

    def test_a_bad_checksum_fails(self):
        self.assertFalse(self.judge(rows_for(self.case, self.want, 1400, bad_frame=2)))

    def test_a_missing_segment_fails(self):
        self.assertFalse(self.judge(rows_for(self.case, self.want, 1400, drop=1)))

    def test_segments_of_another_size_fail(self):
        self.assertFalse(self.judge(rows_for(self.case, self.want, 1000)))

    def test_other_bytes_fail(self):
        bad = bytearray(self.want)
        bad[3000] ^= 1
        self.assertFalse(self.judge(rows_for(self.case, bytes(bad), 1400)))

    def test_case_words_parse_and_bad_ones_are_refused(self):
        c = offload.parse_cases(['tcp4:1000', 'tso6:1380:60000'])
        self.assertEqual((c[1].kind, c[1].mss, c[1].length, c[1].sport), ('tso6', 1380, 60000, 41001))
        with self.assertRaises(ValueError):
            offload.parse_cases(['tso4:1000'])


if __name__ == '__main__':
    unittest.main()
