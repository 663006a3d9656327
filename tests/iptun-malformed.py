#! /usr/bin/env python3
# Copyright (c) 2026 The ovs-iptun authors.
#
# Licensed under the Apache License, Version 2.0 (the "License");
# you may not use this file except in compliance with the License.
# You may obtain a copy of the License at:
#
#     http://www.apache.org/licenses/LICENSE-2.0
#
# Unless required by applicable law or agreed to in writing, software
# distributed under the License is distributed on an "AS IS" BASIS,
# WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
# See the License for the specific language governing permissions and
# limitations under the License.

"""Sends malformed ipip and fou frames (scapy), for the receive tests.

usage: iptun-malformed.py IFACE DST_MAC SRC_IP DST_IP FOU_PORT CASE...

Each CASE is one frame, sent from IFACE to DST_MAC, outer SRC_IP > DST_IP,
carrying an inner ICMP echo 10.10.0.2 > 10.10.0.1 unless the case breaks it:

  ipip-inner-truncated   protocol 4, 8 bytes of inner header
  ipip-inner-v6          protocol 4, inner version 6
  ipip-inner-ihl4        protocol 4, inner IHL 4
  ipip-inner-len         protocol 4, inner total length > what is carried
  ipip-outer-truncated   outer total length 40 bytes more than the frame
  ipip-outer-ihl4        outer IHL 4
  ipip-frag-first        protocol 4, first fragment (MF), never completed
  ipip-frag-middle       protocol 4, middle fragment (MF, offset 64)
  ipip-frag-last         protocol 4, last fragment (offset 64)
  fou-udp-len-long       UDP length 40 bytes more than the datagram
  fou-udp-len-short      UDP length 4 (below the UDP header)
  fou-bad-csum           UDP checksum wrong
  fou-inner-v6           good UDP, inner version 6
  fou-inner-truncated    good UDP, 8 bytes of inner header
  good-ipip, good-fou    well-formed echo requests (for comparison)
"""

import sys

from scapy.all import ICMP, IP, UDP, Ether, Raw, conf, sendp  # noqa: F401

conf.verb = 0


def inner():
    return IP(src="10.10.0.2", dst="10.10.0.1") / ICMP() / Raw(b"x" * 56)


def build(case, dmac, src, dst, port):
    eth = Ether(dst=dmac)
    outer = IP(src=src, dst=dst, flags="DF", ttl=64)
    good = bytes(inner())
    if case == "good-ipip":
        return eth / IP(src=src, dst=dst, proto=4) / Raw(good)
    if case == "good-fou":
        return eth / outer / UDP(sport=40000, dport=port) / Raw(good)
    if case == "ipip-inner-truncated":
        return eth / IP(src=src, dst=dst, proto=4) / Raw(good[:8])
    if case == "ipip-inner-v6":
        return eth / IP(src=src, dst=dst, proto=4) / Raw(b"\x60" + good[1:])
    if case == "ipip-inner-ihl4":
        return eth / IP(src=src, dst=dst, proto=4) / Raw(b"\x44" + good[1:])
    if case == "ipip-inner-len":
        bad = good[:2] + (len(good) + 100).to_bytes(2, "big") + good[4:]
        return eth / IP(src=src, dst=dst, proto=4) / Raw(bad)
    if case == "ipip-outer-truncated":
        pkt = IP(src=src, dst=dst, proto=4) / Raw(good)
        pkt = IP(bytes(pkt))
        pkt.len += 40
        del pkt.chksum
        return eth / pkt
    if case == "ipip-outer-ihl4":
        raw = bytearray(bytes(IP(src=src, dst=dst, proto=4) / Raw(good)))
        raw[0] = 0x44
        return eth / Raw(bytes(raw))
    if case == "ipip-frag-first":
        return eth / IP(src=src, dst=dst, proto=4, id=7, flags="MF") \
            / Raw(good[:64])
    if case == "ipip-frag-middle":
        return eth / IP(src=src, dst=dst, proto=4, id=8, flags="MF",
                        frag=8) / Raw(good[:16])
    if case == "ipip-frag-last":
        return eth / IP(src=src, dst=dst, proto=4, id=9, frag=8) \
            / Raw(good[64:])
    if case == "fou-udp-len-long":
        return eth / outer / UDP(sport=40000, dport=port,
                                 len=8 + len(good) + 40) / Raw(good)
    if case == "fou-udp-len-short":
        return eth / outer / UDP(sport=40000, dport=port, len=4) / Raw(good)
    if case == "fou-bad-csum":
        pkt = outer / UDP(sport=40000, dport=port) / Raw(good)
        pkt = IP(bytes(pkt))
        pkt[UDP].chksum ^= 0x5555
        return eth / pkt
    if case == "fou-inner-v6":
        return eth / outer / UDP(sport=40000, dport=port, chksum=0) \
            / Raw(b"\x60" + good[1:])
    if case == "fou-inner-truncated":
        return eth / outer / UDP(sport=40000, dport=port, chksum=0) \
            / Raw(good[:8])
    raise SystemExit("unknown case %s" % case)


def main():
    if len(sys.argv) < 7:
        raise SystemExit(__doc__)
    iface, dmac, src, dst, port = sys.argv[1:6]
    for case in sys.argv[6:]:
        sendp(build(case, dmac, src, dst, int(port)), iface=iface)


if __name__ == "__main__":
    main()
