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

"""Summarizes the outer headers of the tunnel packets in a pcap, with
scapy (independently of Open vSwitch's code).

usage: iptun-pcap-summary.py PCAP [SPORT_MIN SPORT_MAX]

Prints one line per distinct outer header seen, for IPv4 packets that carry
protocol 4 (ipip), 41 (IPv6 in IPv4, sit) or UDP (fou):

  SRC > DST: proto 4, tos 0x0, ttl 64, DF
  SRC > DST: proto 17, tos 0x0, ttl 64, DF, udp dport 5555, sport in range,
             udp csum ok|none|bad

and for IPv6 packets whose next header, after any hop-by-hop and
destination options headers, is one of those:

  SRC > DST: ipv6 next 4, encap limit 4, tclass 0x0, hlim 64, label

(An IPv4 fragment, first or later, ends its line with "fragment"; "encap
limit N" for a destination option of type 4, the tunnel
encapsulation limit of RFC 2473 that Linux's ip6tnl adds by default;
"label" or "no label" for the flow label.)

"sport in range" means within SPORT_MIN..SPORT_MAX (default 32768..61000),
otherwise the port is printed.
"""

import logging
import sys

# Quiet scapy's start-up warnings (e.g. about interfaces without addresses).
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

# The layers it needs, not scapy.all: a third of the start-up time (under
# the guest tier's emulation, 7 s instead of 15 for every capture).
from scapy.layers.inet import IP, UDP  # noqa: E402
from scapy.layers.inet6 import (  # noqa: E402
    IPv6, IPv6ExtHdrDestOpt, IPv6ExtHdrHopByHop)
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.utils import rdpcap  # noqa: E402


def describe_udp(pkt, fields, lo, hi):
    udp = pkt[UDP]
    fields.append("udp dport %d" % udp.dport)
    if lo <= udp.sport <= hi:
        fields.append("sport in range")
    else:
        fields.append("sport %d" % udp.sport)
    if udp.chksum == 0:
        fields.append("udp csum none")
    else:
        clean = pkt.copy()
        del clean[UDP].chksum
        good = Ether(bytes(clean))[UDP].chksum == udp.chksum
        fields.append("udp csum %s" % ("ok" if good else "bad"))


def describe6(pkt, lo, hi):
    """The line for an IPv6 tunnel packet, or None for other packets."""
    ip6 = pkt[IPv6]
    layer, nh, limit = ip6.payload, ip6.nh, None
    while isinstance(layer, (IPv6ExtHdrHopByHop, IPv6ExtHdrDestOpt)):
        for opt in layer.options:
            if opt.otype == 4 and isinstance(layer, IPv6ExtHdrDestOpt):
                limit = bytes(opt)[2]
        nh, layer = layer.nh, layer.payload
    if nh not in (4, 17, 41):
        return None
    fields = ["ipv6 next %d" % nh]
    if limit is not None:
        fields.append("encap limit %d" % limit)
    fields += ["tclass %#x" % ip6.tc, "hlim %d" % ip6.hlim,
               "label" if ip6.fl else "no label"]
    if nh == 17:
        describe_udp(pkt, fields, lo, hi)
    return "%s > %s: %s" % (ip6.src, ip6.dst, ", ".join(fields))


def describe(pkt, lo, hi):
    ip = pkt[IP]
    fields = ["proto %d" % ip.proto, "tos %#x" % ip.tos, "ttl %d" % ip.ttl]
    if ip.flags.DF:
        fields.append("DF")
    if ip.flags.MF or ip.frag:
        fields.append("fragment")
        return "%s > %s: %s" % (ip.src, ip.dst, ", ".join(fields))
    if ip.proto == 17:
        describe_udp(pkt, fields, lo, hi)
    return "%s > %s: %s" % (ip.src, ip.dst, ", ".join(fields))


def main():
    lo, hi = 32768, 61000
    if len(sys.argv) > 3:
        lo, hi = int(sys.argv[2]), int(sys.argv[3])
    seen = set()
    for pkt in rdpcap(sys.argv[1]):
        outer = pkt.payload if isinstance(pkt, Ether) else pkt
        if isinstance(outer, IPv6):
            line = describe6(pkt, lo, hi)
            if line:
                seen.add(line)
        elif isinstance(outer, IP) and outer.proto in (4, 17, 41):
            seen.add(describe(pkt, lo, hi))
    for line in sorted(seen):
        print(line)


if __name__ == "__main__":
    main()
