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

"""Frames for the path MTU tests, built by scapy (an oracle independent of
the code under test), printed in hex, one per line.

usage: iptun-pmtu.py in KIND SIZE          the inner frame that p1 sends
       iptun-pmtu.py icmp KIND SIZE MTU    the ICMP / ICMPv6 answer to it,
                                           as the tunnel port delivers it
       iptun-pmtu.py frags KIND SIZE MTU   its IPv4 fragments of at most
                                           MTU bytes, each in the ipip
                                           packet the test's port t1 sends
       iptun-pmtu.py infrags KIND SIZE MTU [SRC]
                                           the fragments of at most MTU
                                           bytes that p1 sends instead
                                           (from source address SRC)

KIND is the inner packet, a UDP datagram of SIZE bytes (IP header
included) from 10.0.0.1 to 10.0.0.2 (ipip) or 10.0.0.3 (fou), IPv6
2001:db8::1 to 2001:db8::2 or ::3:
  df4, df4-fou      IPv4 with DF
  nodf4, nodf4-fou  IPv4 without DF
  v6, v6-fou        IPv6
  icmperr4          IPv4 with DF, an ICMP "port unreachable" (an error:
                    never answered)
  bcast4            IPv4 with DF to 255.255.255.255 (never answered)
"""

import sys

from scapy.compat import raw
from scapy.layers.inet import ICMP, IP, UDP, fragment
from scapy.layers.inet6 import ICMPv6PacketTooBig, IPv6, \
    IPv6ExtHdrFragment, fragment6
from scapy.layers.l2 import Ether

SRC_MAC = "00:00:00:00:00:02"
DST_MAC = "00:00:00:00:00:01"


def inner(kind, size, src=None):
    fou = kind.endswith("-fou")
    kind = kind.replace("-fou", "")
    if kind == "v6":
        ip = IPv6(src=src or "2001:db8::1", dst="2001:db8::3" if fou
                  else "2001:db8::2", hlim=63)
        pad = size - 40 - 8
        return ip / UDP(sport=1234, dport=5678) / (b"\x5a" * pad)
    dst = "10.0.0.3" if fou else "10.0.0.2"
    if kind == "bcast4":
        dst = "255.255.255.255"
    flags = 0 if kind == "nodf4" else "DF"
    ip = IP(src=src or "10.0.0.1", dst=dst, flags=flags, id=0x1234, ttl=63)
    if kind == "icmperr4":
        l4 = ICMP(type=3, code=3)
    else:
        l4 = UDP(sport=1234, dport=5678)
    pad = size - 20 - 8
    return IP(raw(ip / l4 / bytes((i & 0xff for i in range(pad)))))


def main():
    cmd, kind, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    pkt = inner(kind, size, sys.argv[5] if len(sys.argv) > 5 else None)
    eth_type = 0x86dd if pkt.version == 6 else 0x0800
    if cmd == "in":
        frames = [Ether(src=SRC_MAC, dst=DST_MAC, type=eth_type) / pkt]
    elif cmd == "icmp":
        mtu = int(sys.argv[4])
        if pkt.version == 6:
            quote = raw(pkt)[:1280 - 48]
            ans = (IPv6(src=pkt.dst, dst=pkt.src, hlim=pkt.hlim)
                   / ICMPv6PacketTooBig(mtu=max(mtu, 1280)) / quote)
            eth_type = 0x86dd
        else:
            quote = raw(pkt)[:576 - 28]
            ans = (IP(src=pkt.dst, dst=pkt.src, flags="DF", id=0,
                      ttl=pkt.ttl)
                   / ICMP(type=3, code=4, nexthopmtu=mtu) / quote)
            eth_type = 0x0800
        # Received on an L3 port: Ethernet addresses all zeros.
        frames = [Ether(src="00:00:00:00:00:00", dst="00:00:00:00:00:00",
                        type=eth_type) / ans]
    elif cmd == "frags":
        mtu = int(sys.argv[4])
        frames = []
        for frag in fragment(pkt, fragsize=(mtu - 20) & ~7):
            frames.append(Ether(src="aa:55:aa:55:00:00",
                                dst="f8:bc:12:44:34:b6")
                          / IP(src="1.1.2.88", dst="1.1.2.92", flags="DF",
                               id=0, ttl=64, proto=4)
                          / IP(raw(frag)))
    elif cmd == "infrags":
        mtu = int(sys.argv[4])
        if pkt.version == 6:
            frags = fragment6(IPv6(src=pkt.src, dst=pkt.dst, hlim=pkt.hlim)
                              / IPv6ExtHdrFragment(id=0x1234)
                              / pkt.payload, mtu)
        else:
            frags = fragment(pkt, fragsize=(mtu - 20) & ~7)
        frames = [Ether(src=SRC_MAC, dst=DST_MAC, type=eth_type) / f
                  for f in frags]
    else:
        sys.exit("unknown command %s" % cmd)
    for f in frames:
        print(raw(f).hex())


if __name__ == "__main__":
    main()
