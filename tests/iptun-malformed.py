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

"""Builds malformed ipip, fou and gue frames (scapy), for the receive tests.

usage: iptun-malformed.py [--ip6=SRC6,DST6] IFACE DST_MAC SRC_IP DST_IP
                          FOU_PORT CASE...

Each CASE is one frame, sent from IFACE to DST_MAC, outer SRC_IP > DST_IP
(for the cases with an outer IPv6 header, ipip6-*, ip6ip6-*, fou6-*, gue6-*: SRC6 >
DST6, default 2001:cafe::92 > 2001:cafe::88), carrying an inner ICMP echo
10.10.0.2 > 10.10.0.1 unless the case breaks it.  With IFACE "-" the frames
are printed in hex, one per line, instead (for "ovs-appctl
netdev-dummy/receive").

  ipip-outer-short       frame ends inside the outer IPv4 header
  ipip-outer-truncated   outer total length 40 bytes more than the frame
  ipip-outer-len-short   outer total length cuts the inner packet (30 bytes)
  ipip-outer-ihl4        outer IHL 4
  ipip-outer-options     outer IHL 6 (4 bytes of options), checksum right
                         (well-formed: receivers skip the options)
  ipip-outer-options-bad-csum  outer IHL 6, header checksum wrong
  ipip-outer-bad-csum    outer header checksum wrong
  ipip-outer-ttl0        outer TTL 0 (well-formed: receivers accept it)
  ipip-frag-first        protocol 4, first fragment (MF), never completed
  ipip-frag-middle       protocol 4, middle fragment (MF, offset 64)
  ipip-frag-last         protocol 4, last fragment (offset 64)
  ipip-frag-head, ipip-frag-tail  good-ipip's datagram in two fragments
                         (bytes 0-47 with MF, 48-83), ID 12: together they
                         are one packet, in either order
  ipip-frag-overlap      bytes 24-55 of that datagram (MF, ID 12): overlaps
                         ipip-frag-head in part, so both are dropped
  ipip-frag-too-long     protocol 4, last fragment at offset 65528 with 16
                         bytes: the datagram would exceed 65,535 bytes
  ipip-frag-head80, ipip-frag-tail-padded  good-ipip's datagram in two
                         fragments, ID 17: bytes 0-79 with MF, then 80-83,
                         whose frame a NIC pads to Ethernet's 60 bytes (the
                         padding is not part of the datagram)
  ipip-inner-truncated   protocol 4, 8 bytes of inner header
  ipip-inner-empty       protocol 4, nothing after the outer header
  ipip-inner-v6          protocol 4, inner version 6
  ipip-inner-v0          protocol 4, inner version 0
  ipip-inner-ihl4        protocol 4, inner IHL 4
  ipip-inner-len         protocol 4, inner total length > what is carried
  ipip-not-local         well-formed, to DST_IP's .99 neighbour
  ipip-unknown-remote    well-formed, from SRC_IP's .99 neighbour
  fou-udp-len-long       UDP length 40 bytes more than the datagram
  fou-udp-len-short      UDP length 4 (below the UDP header)
  fou-bad-csum           UDP checksum wrong
  fou-zero-csum          UDP checksum 0, that is none (well-formed)
  fou-wrong-port         well-formed, to UDP port FOU_PORT + 1
  fou-frag-first         first fragment (MF) of a fou datagram, never
                         completed
  fou-frag-head, fou-frag-tail  good-fou's datagram in two fragments (bytes
                         0-47 of the UDP datagram with MF, 48-99), ID 15:
                         together they are one packet
  fou-frag-wrong-head, fou-frag-wrong-tail  the same to UDP port
                         FOU_PORT + 1, ID 16: not a fou port's
  fou-outer-options      outer IHL 6 (4 bytes of options) (well-formed)
  fou-inner-v0           good UDP, inner version 0
  fou-inner-truncated    good UDP, 8 bytes of inner header
  sit-inner-v4           protocol 41, inner version 4
  sit-inner-truncated    protocol 41, 20 bytes of inner IPv6 header
  sit-inner-plen         protocol 41, inner payload length > what is carried
  sit-frag-head, sit-frag-tail  good-sit's datagram in two fragments
                         (bytes 0-55 with MF, 56-103), ID 14
  good-ipip, good-fou    well-formed echo requests (for comparison)
  good-sit               an ICMPv6 echo request fd00::2 > fd00::1 in protocol
                         41 (IPv6 in IPv4, Linux's sit)
  good-vxlan             the echo request in VXLAN (VNI 0) to UDP port FOU_PORT

GUE (to UDP port FOU_PORT; variant 0 header "Ver|C|Hlen, Proto, Flags"):

  good-gue               variant 0, protocol 4, the echo request
  good-gue41             variant 0, protocol 41, an ICMPv6 echo request
  good-gue-v1, good-gue-v1-ipv6  variant 1: the IPv4 (IPv6) packet right
                         after the UDP header (well-formed)
  gue-short              2 bytes after the UDP header
  gue-version2           GUE version 2
  gue-v1-bad-nibble      variant 1 whose IP version nibble is 5
  gue-hlen-long          Hlen 31 words, more than the datagram holds
  gue-unknown-flag       standard flag 0x8000
  gue-priv-no-room       flag P (private flags) with Hlen 0
  gue-unknown-pflag      flag P, private flags 0x40000000
  gue-remcsum-no-room    flag P, private flag remote checksum offload,
                         Hlen 1 (no room for its field)
  gue-control            a control message (C bit), type 0
  gue-proto-17, gue-proto-0  data messages of protocol 17 and 0
  gue-proto-mismatch     protocol 4, inner IPv6
  gue-inner-truncated    protocol 4, 8 bytes of inner header
  gue-udp-len-long       UDP length 40 bytes more than the datagram
  gue-bad-csum           UDP checksum wrong
  gue-remcsum            remote checksum offload (Hlen 2: private flags,
                         start 20, offset 26) of an inner UDP packet whose
                         checksum field holds the pseudo-header's sum, as
                         Linux's "encap-remcsum" sends it (well-formed)
  gue-remcsum-inner      the frame p1 delivers for gue-remcsum: its inner
                         UDP packet, checksum complete, from
                         00:00:00:00:00:03 to 00:00:00:00:00:01
  gue-remcsum-beyond     remote checksum offset 200, beyond the packet
  gue-remcsum-before     remote checksum offset 20, before its start 28
  gue-frag-head, gue-frag-tail  good-gue's datagram in two fragments
                         (bytes 0-47 of the UDP datagram with MF, 48-103),
                         ID 18
  good-gue6              variant 0, protocol 4, over IPv6
  gue6-dstopts           variant 0, protocol 41 over IPv6 behind a
                         destination options header (encapsulation
                         limit), as kube-router's ip6tnl "encap gue"
                         sends it (well-formed)
  gue6-bad-csum          good-gue6 with a wrong UDP checksum

Over IPv6 (ip6tnl's ipip6 and ip6ip6, fou over IPv6):

  ipip6-outer-short      frame ends inside the outer IPv6 header
  ipip6-outer-plen-long  outer payload length 40 bytes more than the frame
  ipip6-outer-plen-short outer payload length cuts the inner packet (30 bytes)
  ipip6-hlim0            outer hop limit 0 (well-formed: receivers accept it)
  ipip6-hopopts          a hop-by-hop options header (PadN) before next
                         header 4 (well-formed)
  ipip6-dstopts          a destination options header with the tunnel
                         encapsulation limit before next header 4, as
                         Linux's ip6tnl sends (well-formed)
  ipip6-routing-done     a routing header with segments left 0 before next
                         header 4 (well-formed: RFC 8200 says skip it)
  ipip6-routing-left     a routing header with segments left 1
  ipip6-frag-first       next header 4 in a first fragment, never completed
  ipip6-frag-head, ipip6-frag-tail  good-ipip6's datagram as Linux's
                         ip6tnl fragments it: a fragment header (ID 21),
                         then the encapsulation limit option and the inner
                         packet, bytes 0-47 with M, 48-91
  ipip6-frag-atomic      next header 4 in an atomic fragment (offset 0, no
                         M, ID 22): well-formed (RFC 6946)
  ipip6-frag-odd         a first fragment (M, ID 23) of 44 bytes, not a
                         multiple of 8
  ipip6-inner-v6         next header 4, inner version 6
  ipip6-inner-truncated  next header 4, 8 bytes of inner header
  ip6ip6-inner-v4        next header 41, inner version 4
  ip6ip6-inner-truncated next header 41, 20 bytes of inner IPv6 header
  fou6-udp-len-long      UDP length 40 bytes more than the datagram
  fou6-bad-csum          UDP checksum wrong
  fou6-zero-csum         UDP checksum 0 (well-formed: fou accepts it)
  fou6-dstopts           a destination options header (encapsulation
                         limit) before UDP, as ip6tnl "encap fou" sends
                         (well-formed)
  fou6-inner-truncated   good UDP, 20 bytes of inner IPv6 header
  fou6-frag-head, fou6-frag-tail  good-fou6's datagram in two fragments (a
                         fragment header with ID 24, bytes 0-47 of the UDP
                         datagram with M, 48-99)
  fou6-frag-head80, fou6-frag-tail-padded  the same, ID 25, bytes 0-79
                         with M, then 80-91 with 22 bytes of padding after
                         the IPv6 packet
  good-ipip6, good-ip6ip6, good-fou6  well-formed echo requests: IPv4 in
                         IPv6, IPv6 in IPv6, IPv4 in UDP/IPv6
"""

import sys

from scapy.config import conf
from scapy.layers.inet import ICMP, IP, UDP, IPOption
from scapy.layers.inet6 import (HBHOptUnknown, ICMPv6EchoRequest, IPv6,
                                IPv6ExtHdrDestOpt, IPv6ExtHdrFragment,
                                IPv6ExtHdrHopByHop, IPv6ExtHdrRouting, PadN)
from scapy.layers.l2 import Ether
from scapy.layers.vxlan import VXLAN
from scapy.packet import Raw
from scapy.sendrecv import sendp

conf.verb = 0


def inner():
    return IP(src="10.10.0.2", dst="10.10.0.1") / ICMP() / Raw(b"x" * 56)


def inner6():
    return IPv6(src="fd00::2", dst="fd00::1") / ICMPv6EchoRequest() \
        / Raw(b"x" * 56)


def neighbour99(addr):
    return addr.rsplit(".", 1)[0] + ".99"


def build6(case, eth, src6, dst6, port):
    """The frames with an outer IPv6 header."""
    good, good6 = bytes(inner()), bytes(inner6())

    def ip6(nh, **kw):
        return IPv6(src=src6, dst=dst6, nh=nh, hlim=64, **kw)

    def encap_limit():
        return IPv6ExtHdrDestOpt(options=[
            HBHOptUnknown(otype=4, optdata=b"\x04"), PadN(optdata=b"")])

    if case == "good-ipip6":
        return eth / ip6(4) / Raw(good)
    if case == "good-ip6ip6":
        return eth / ip6(41) / Raw(good6)
    if case == "good-fou6":
        return eth / ip6(17) / UDP(sport=40000, dport=port) / Raw(good)
    if case == "ipip6-outer-short":
        return eth / Raw(bytes(ip6(4) / Raw(good))[:20])
    if case == "ipip6-outer-plen-long":
        return eth / ip6(4, plen=len(good) + 40) / Raw(good)
    if case == "ipip6-outer-plen-short":
        return eth / Raw(bytes(ip6(4, plen=30) / Raw(good)))
    if case == "ipip6-hlim0":
        return eth / IPv6(src=src6, dst=dst6, nh=4, hlim=0) / Raw(good)
    if case == "ipip6-hopopts":
        return eth / ip6(0) / IPv6ExtHdrHopByHop(nh=4, options=[PadN(
            optdata=b"\x00" * 4)]) / Raw(good)
    if case == "ipip6-dstopts":
        hdr = encap_limit()
        hdr.nh = 4
        return eth / ip6(60) / hdr / Raw(good)
    if case in ("ipip6-routing-done", "ipip6-routing-left"):
        left = 0 if case == "ipip6-routing-done" else 1
        return eth / ip6(43) / IPv6ExtHdrRouting(
            nh=4, type=0, segleft=left, addresses=["2001:db8::1"]) \
            / Raw(good)
    if case == "ipip6-frag-first":
        return eth / ip6(44) / IPv6ExtHdrFragment(nh=4, m=1, id=11) \
            / Raw(good[:64])
    if case in ("ipip6-frag-head", "ipip6-frag-tail"):
        hdr = encap_limit()
        hdr.nh = 4
        part = bytes(hdr / Raw(good))
        if case == "ipip6-frag-head":
            return eth / ip6(44) / IPv6ExtHdrFragment(nh=60, m=1, id=21) \
                / Raw(part[:48])
        return eth / ip6(44) / IPv6ExtHdrFragment(nh=60, offset=6, id=21) \
            / Raw(part[48:])
    if case == "ipip6-frag-atomic":
        return eth / ip6(44) / IPv6ExtHdrFragment(nh=4, id=22) / Raw(good)
    if case == "ipip6-frag-odd":
        return eth / ip6(44) / IPv6ExtHdrFragment(nh=4, m=1, id=23) \
            / Raw(good[:44])
    if case == "ipip6-inner-v6":
        return eth / ip6(4) / Raw(b"\x60" + good[1:])
    if case == "ipip6-inner-truncated":
        return eth / ip6(4) / Raw(good[:8])
    if case == "ip6ip6-inner-v4":
        return eth / ip6(41) / Raw(good)
    if case == "ip6ip6-inner-truncated":
        return eth / ip6(41) / Raw(good6[:20])
    if case == "fou6-udp-len-long":
        return eth / ip6(17) / UDP(sport=40000, dport=port,
                                   len=8 + len(good) + 40) / Raw(good)
    if case == "fou6-bad-csum":
        pkt = IPv6(bytes(ip6(17) / UDP(sport=40000, dport=port) / Raw(good)))
        pkt[UDP].chksum ^= 0x5555
        return eth / pkt
    if case == "fou6-zero-csum":
        return eth / ip6(17) / UDP(sport=40000, dport=port, chksum=0) \
            / Raw(good)
    if case == "fou6-dstopts":
        hdr = encap_limit()
        hdr.nh = 17
        return eth / ip6(60) / hdr / UDP(sport=40000, dport=port) / Raw(good)
    if case == "fou6-inner-truncated":
        return eth / ip6(17) / UDP(sport=40000, dport=port) / Raw(good6[:20])
    if case.startswith("fou6-frag-"):
        # good-fou6's UDP datagram in two fragments: split at 48 (ID 24)
        # or at 80 (ID 25, the tail padded).
        dgram = bytes(ip6(17) / UDP(sport=40000, dport=port)
                      / Raw(good))[40:]
        split, ident = (80, 25) if case.endswith(("80", "padded")) \
            else (48, 24)
        if case.startswith("fou6-frag-head"):
            return eth / ip6(44) \
                / IPv6ExtHdrFragment(nh=17, m=1, id=ident) \
                / Raw(dgram[:split])
        tail = eth / ip6(44) \
            / IPv6ExtHdrFragment(nh=17, offset=split // 8, id=ident) \
            / Raw(dgram[split:])
        return Ether(bytes(tail) + bytes(22)) if split == 80 else tail
    if case == "good-gue6":
        return eth / ip6(17) / UDP(sport=40000, dport=port) \
            / Raw(gue_hdr(4) + good)
    if case == "gue6-dstopts":
        hdr = encap_limit()
        hdr.nh = 17
        return eth / ip6(60) / hdr / UDP(sport=40000, dport=port) \
            / Raw(gue_hdr(41) + good6)
    if case == "gue6-bad-csum":
        pkt = IPv6(bytes(ip6(17) / UDP(sport=40000, dport=port)
                         / Raw(gue_hdr(4) + good)))
        pkt[UDP].chksum ^= 0x5555
        return eth / pkt
    raise SystemExit("unknown case %s" % case)


def is_ipv6(case):
    return case.split("-")[0] in ("ipip6", "ip6ip6", "fou6", "gue6") \
        or case in ("good-ipip6", "good-ip6ip6", "good-fou6", "good-gue6")


def gue_hdr(proto, hlen=0, ctrl=0, flags=0, ver=0, opts=b""):
    """A GUE header: version, C bit, Hlen (words), protocol, flags."""
    return bytes([ver << 6 | ctrl << 5 | hlen, proto]) \
        + flags.to_bytes(2, "big") + opts


def remcsum_inner():
    """An inner UDP packet with its checksum complete, and the same packet
    as a remote checksum offload sends it: the checksum field holds the
    (folded, not complemented) sum of the pseudo-header."""
    pkt = IP(bytes(IP(src="10.10.0.2", dst="10.10.0.1")
                   / UDP(sport=1000, dport=53) / Raw(b"remcsum" * 9)))
    ip = bytes(pkt)
    udp_len = len(ip) - 20
    pseudo = ip[12:20] + bytes([0, 17]) + udp_len.to_bytes(2, "big")
    total = sum(int.from_bytes(pseudo[i:i + 2], "big")
                for i in range(0, len(pseudo), 2))
    while total >> 16:
        total = (total & 0xffff) + (total >> 16)
    partial = ip[:26] + total.to_bytes(2, "big") + ip[28:]
    return ip, partial


def build_gue(case, eth, outer, port):
    """The GUE frames over IPv4."""
    good, good6 = bytes(inner()), bytes(inner6())
    udp = UDP(sport=40000, dport=port)
    table = {
        "good-gue": gue_hdr(4) + good,
        "good-gue41": gue_hdr(41) + good6,
        "good-gue-v1": good,
        "good-gue-v1-ipv6": good6,
        "gue-short": gue_hdr(4)[:2],
        "gue-version2": gue_hdr(4, ver=2) + good,
        "gue-v1-bad-nibble": b"\x55" + good[1:],
        "gue-hlen-long": gue_hdr(4, hlen=31) + good,
        "gue-unknown-flag": gue_hdr(4, flags=0x8000) + good,
        "gue-priv-no-room": gue_hdr(4, flags=1) + good,
        "gue-unknown-pflag": gue_hdr(4, hlen=1, flags=1,
                                     opts=bytes([0x40, 0, 0, 0])) + good,
        "gue-remcsum-no-room": gue_hdr(4, hlen=1, flags=1,
                                       opts=bytes([0x80, 0, 0, 0])) + good,
        "gue-control": gue_hdr(0, ctrl=1) + good,
        "gue-proto-17": gue_hdr(17) + good,
        "gue-proto-0": gue_hdr(0) + good,
        "gue-proto-mismatch": gue_hdr(4) + good6,
        "gue-inner-truncated": gue_hdr(4) + good[:8],
    }
    if case in table:
        return eth / outer / udp / Raw(table[case])
    if case in ("gue-remcsum", "gue-remcsum-beyond", "gue-remcsum-before"):
        start, offset = {"gue-remcsum": (20, 26),
                         "gue-remcsum-beyond": (20, 200),
                         "gue-remcsum-before": (28, 20)}[case]
        opts = bytes([0x80, 0, 0, 0]) + start.to_bytes(2, "big") \
            + offset.to_bytes(2, "big")
        return eth / outer / udp \
            / Raw(gue_hdr(4, hlen=2, flags=1, opts=opts) + remcsum_inner()[1])
    if case == "gue-remcsum-inner":
        return Ether(src="00:00:00:00:00:03", dst="00:00:00:00:00:01",
                     type=0x0800) \
            / Raw(remcsum_inner()[0])
    if case in ("gue-frag-head", "gue-frag-tail"):
        dgram = bytes(IP(src=outer.src, dst=outer.dst) / udp
                      / Raw(gue_hdr(4) + good))[20:]
        if case == "gue-frag-head":
            return eth / IP(src=outer.src, dst=outer.dst, proto=17, id=18,
                            flags="MF") / Raw(dgram[:48])
        return eth / IP(src=outer.src, dst=outer.dst, proto=17, id=18,
                        frag=6) / Raw(dgram[48:])
    if case == "gue-udp-len-long":
        return eth / outer / UDP(sport=40000, dport=port,
                                 len=8 + 4 + len(good) + 40) \
            / Raw(gue_hdr(4) + good)
    if case == "gue-bad-csum":
        pkt = IP(bytes(outer / udp / Raw(gue_hdr(4) + good)))
        pkt[UDP].chksum ^= 0x5555
        return eth / pkt
    raise SystemExit("unknown case %s" % case)


def build(case, eth, src, dst, port):
    outer = IP(src=src, dst=dst, flags="DF", ttl=64)
    good = bytes(inner())

    def ipip(**kw):
        return IP(src=src, dst=dst, proto=4, **kw)

    if case.startswith(("gue-", "good-gue")):
        return build_gue(case, eth, outer, port)
    if case == "good-ipip":
        return eth / ipip() / Raw(good)
    if case == "good-sit":
        return eth / IP(src=src, dst=dst, proto=41) / Raw(bytes(inner6()))
    if case == "sit-inner-v4":
        return eth / IP(src=src, dst=dst, proto=41) / Raw(good)
    if case == "sit-inner-truncated":
        return eth / IP(src=src, dst=dst, proto=41) \
            / Raw(bytes(inner6())[:20])
    if case == "sit-inner-plen":
        bad = bytearray(bytes(inner6()))
        bad[4:6] = (len(bad) - 40 + 100).to_bytes(2, "big")
        return eth / IP(src=src, dst=dst, proto=41) / Raw(bytes(bad))
    if case in ("sit-frag-head", "sit-frag-tail"):
        good6 = bytes(inner6())
        if case == "sit-frag-head":
            return eth / IP(src=src, dst=dst, proto=41, id=14, flags="MF") \
                / Raw(good6[:56])
        return eth / IP(src=src, dst=dst, proto=41, id=14, frag=7) \
            / Raw(good6[56:])
    if case == "good-fou":
        return eth / outer / UDP(sport=40000, dport=port) / Raw(good)
    if case == "good-vxlan":
        return eth / outer / UDP(sport=40000, dport=port) \
            / VXLAN(flags=0x08, vni=0) \
            / Ether(src="00:00:00:00:00:02", dst="00:00:00:00:00:01",
                    type=0x0800) / Raw(good)
    if case == "ipip-outer-short":
        return eth / Raw(bytes(ipip() / Raw(good))[:12])
    if case == "ipip-outer-truncated":
        pkt = IP(bytes(ipip() / Raw(good)))
        pkt.len += 40
        del pkt.chksum
        return eth / pkt
    if case == "ipip-outer-len-short":
        pkt = IP(bytes(ipip() / Raw(good)))
        pkt.len = 20 + 30
        del pkt.chksum
        return eth / Raw(bytes(pkt))
    if case == "ipip-outer-ihl4":
        raw = bytearray(bytes(ipip() / Raw(good)))
        raw[0] = 0x44
        return eth / Raw(bytes(raw))
    if case == "ipip-outer-options":
        return eth / ipip(options=IPOption(b"\x01\x01\x01\x00")) / Raw(good)
    if case == "ipip-outer-options-bad-csum":
        pkt = IP(bytes(ipip(options=IPOption(b"\x01\x01\x01\x00"))
                       / Raw(good)))
        pkt.chksum ^= 0x5555
        return eth / pkt
    if case == "ipip-outer-bad-csum":
        pkt = IP(bytes(ipip() / Raw(good)))
        pkt.chksum ^= 0x5555
        return eth / pkt
    if case == "ipip-outer-ttl0":
        return eth / ipip(ttl=0) / Raw(good)
    if case == "ipip-frag-first":
        return eth / ipip(id=7, flags="MF") / Raw(good[:64])
    if case == "ipip-frag-middle":
        return eth / ipip(id=8, flags="MF", frag=8) / Raw(good[:16])
    if case == "ipip-frag-last":
        return eth / ipip(id=9, frag=8) / Raw(good[64:])
    if case == "ipip-frag-head":
        return eth / ipip(id=12, flags="MF") / Raw(good[:48])
    if case == "ipip-frag-tail":
        return eth / ipip(id=12, frag=6) / Raw(good[48:])
    if case == "ipip-frag-overlap":
        return eth / ipip(id=12, flags="MF", frag=3) / Raw(good[24:56])
    if case == "ipip-frag-head80":
        return eth / ipip(id=17, flags="MF") / Raw(good[:80])
    if case == "ipip-frag-tail-padded":
        return Ether(bytes(eth / ipip(id=17, frag=10) / Raw(good[80:]))
                     + bytes(22))
    if case == "ipip-frag-too-long":
        return eth / ipip(id=13, frag=8191) / Raw(good[:16])
    if case == "ipip-inner-truncated":
        return eth / ipip() / Raw(good[:8])
    if case == "ipip-inner-empty":
        return eth / ipip()
    if case == "ipip-inner-v6":
        return eth / ipip() / Raw(b"\x60" + good[1:])
    if case == "ipip-inner-v0":
        return eth / ipip() / Raw(b"\x05" + good[1:])
    if case == "ipip-inner-ihl4":
        return eth / ipip() / Raw(b"\x44" + good[1:])
    if case == "ipip-inner-len":
        bad = good[:2] + (len(good) + 100).to_bytes(2, "big") + good[4:]
        return eth / ipip() / Raw(bad)
    if case == "ipip-not-local":
        return eth / IP(src=src, dst=neighbour99(dst), proto=4) / Raw(good)
    if case == "ipip-unknown-remote":
        return eth / IP(src=neighbour99(src), dst=dst, proto=4) / Raw(good)
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
    if case == "fou-zero-csum":
        return eth / outer / UDP(sport=40000, dport=port, chksum=0) \
            / Raw(good)
    if case == "fou-wrong-port":
        return eth / outer / UDP(sport=40000, dport=port + 1) / Raw(good)
    if case == "fou-frag-first":
        dgram = bytes(UDP(sport=40000, dport=port) / Raw(good))
        return eth / IP(src=src, dst=dst, proto=17, id=10, flags="MF") \
            / Raw(dgram[:64])
    if case.startswith("fou-frag-"):
        wrong = case.startswith("fou-frag-wrong-")
        dgram = bytes(IP(src=src, dst=dst)
                      / UDP(sport=40000, dport=port + wrong)
                      / Raw(good))[20:]
        ident = 16 if wrong else 15
        if case.endswith("-head"):
            return eth / IP(src=src, dst=dst, proto=17, id=ident,
                            flags="MF") / Raw(dgram[:48])
        if case.endswith("-tail"):
            return eth / IP(src=src, dst=dst, proto=17, id=ident, frag=6) \
                / Raw(dgram[48:])
    if case == "fou-outer-options":
        return eth / IP(src=src, dst=dst,
                        options=IPOption(b"\x01\x01\x01\x00")) \
            / UDP(sport=40000, dport=port) / Raw(good)
    if case == "fou-inner-v0":
        return eth / outer / UDP(sport=40000, dport=port, chksum=0) \
            / Raw(b"\x05" + good[1:])
    if case == "fou-inner-truncated":
        return eth / outer / UDP(sport=40000, dport=port, chksum=0) \
            / Raw(good[:8])
    raise SystemExit("unknown case %s" % case)


def main():
    args = sys.argv[1:]
    src6, dst6 = "2001:cafe::92", "2001:cafe::88"
    if args and args[0].startswith("--ip6="):
        src6, dst6 = args.pop(0)[len("--ip6="):].split(",")
    if len(args) < 6:
        raise SystemExit(__doc__)
    iface, dmac, src, dst, port = args[:5]
    for case in args[5:]:
        if is_ipv6(case):
            ethertype, frame = 0x86dd, build6
            addrs = (src6, dst6)
        else:
            ethertype, frame = 0x0800, build
            addrs = (src, dst)
        if iface == "-":
            eth = Ether(src="f8:bc:12:44:34:b6", dst=dmac, type=ethertype)
            print(bytes(frame(case, eth, *addrs, int(port))).hex())
        else:
            eth = Ether(dst=dmac, type=ethertype)
            sendp(frame(case, eth, *addrs, int(port)), iface=iface)


if __name__ == "__main__":
    main()
