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

"""Describes the TCP segments inside the tunnel packets of a pcap, with
scapy (independently of Open vSwitch's code), one line per packet:

  OUTER id N len N csum ok|bad [udp dport N csum ok|none|bad] [gue] |
  INNER len N csum ok|bad tcp seq N payload N sum N csum ok|bad

(an inner UDP datagram: "udp payload N sum N csum ok|bad").

An inner IPv4 fragment is described by its header and "frag OFFSET [MF]";
the fragment that completes a datagram is followed by a line
"  reassembled | INNER ..." describing the datagram its fragments make.

OUTER and INNER are "ipv4" or "ipv6" (IPv6 has no header checksum and no
id); "len" is the IP header's total (IPv4) or payload (IPv6) length, checked
against the bytes captured (a mismatch prints "len N!=M"); "sum" is the sum
of the payload's bytes, to tell a payload intact.  Outer UDP is fou's, or
gue's with its 4-byte header when the UDP destination port is GUE_PORT
(second argument, default none).

With --nic-tso SEGSZ, a packet carrying more than SEGSZ bytes of TCP
payload (a TSO packet a port took whole) is first cut into segments as a NIC
with tunnel TSO cuts it (DPDK's RTE_MBUF_F_TX_TCP_SEG with a tunnel flag,
without outer UDP checksum offload): per segment the outer and inner IP
lengths, IPv4 IDs (plus the segment's number) and header checksums, the
outer UDP length, the TCP sequence number, PSH and FIN (last segment only)
and the TCP checksum; the outer UDP checksum is copied as the packet has it
(it must already be right for each segment, as Linux's GSO partial leaves
it).  Each segment is then described as above.

A VXLAN packet (UDP port 4789) inside, from nested tunnels, is described
by its UDP header, "vxlan |", and the IP packet in its Ethernet frame.

usage: iptun-segments.py [--nic-tso SEGSZ] PCAP [GUE_PORT]
"""

import logging
import sys

logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.compat import raw  # noqa: E402
from scapy.layers.inet import IP, TCP, UDP  # noqa: E402
from scapy.layers.inet6 import IPv6  # noqa: E402
from scapy.layers.l2 import Ether  # noqa: E402
from scapy.utils import rdpcap  # noqa: E402


VXLAN_PORT = 4789


def csum_ok(pkt, layer):
    """Whether the checksum of 'layer' in IP or IPv6 packet 'pkt' is the one
    scapy computes for it."""
    cls = type(pkt)
    copy = cls(raw(pkt))
    del copy[layer].chksum
    return cls(raw(copy))[layer].chksum == pkt[layer].chksum


def ip_header(ip, fields):
    if ip.version == 4:
        want = len(raw(ip))
        fields.append("ipv4 id %d" % ip.id)
        fields.append("len %d" % ip.len if ip.len == want
                      else "len %d!=%d" % (ip.len, want))
        fields.append("csum %s" % ("ok" if csum_ok(ip, IP) else "bad"))
    else:
        want = len(raw(ip)) - 40
        fields.append("ipv6")
        fields.append("len %d" % ip.plen if ip.plen == want
                      else "len %d!=%d" % (ip.plen, want))


def inner_ip(data):
    return IP(data) if data[0] >> 4 == 4 else IPv6(data)


def describe(frame, gue_port):
    fields = []
    outer = frame.payload
    ip_header(outer, fields)
    nh = outer.proto if outer.version == 4 else outer.nh
    if nh == 17:
        udp = outer[UDP]
        if udp.chksum == 0:
            state = "none"
        else:
            state = "ok" if csum_ok(outer, UDP) else "bad"
        fields.append("udp dport %d csum %s" % (udp.dport, state))
        data = raw(udp.payload)
        if udp.dport == gue_port:
            fields.append("gue")
            data = data[4:]
    else:
        data = raw(outer.payload)
    fields.append("|")
    inner = inner_ip(data)
    ip_header(inner, fields)
    if inner.version == 4 and (inner.flags.MF or inner.frag):
        fields.append("frag %d%s" % (inner.frag * 8,
                                     " MF" if inner.flags.MF else ""))
        whole = reassemble(inner)
        if whole is not None:
            fields.append("\n  reassembled |")
            ip_header(whole, fields)
            describe_tcp(whole, fields)
        return " ".join(fields).replace(" \n", "\n")
    if UDP in inner and inner[UDP].dport == VXLAN_PORT:
        # A VXLAN packet inside (nested tunnels): its UDP header, then the
        # IP packet in its Ethernet frame.
        udp = inner[UDP]
        fields.append("udp dport %d csum %s vxlan |"
                      % (udp.dport, "none" if udp.chksum == 0
                         else "ok" if csum_ok(inner, UDP) else "bad"))
        inner = Ether(raw(udp.payload)[8:]).payload
        ip_header(inner, fields)
    describe_tcp(inner, fields)
    return " ".join(fields)


def describe_tcp(inner, fields):
    if UDP in inner:
        payload = raw(inner[UDP].payload)
        fields.append("udp payload %d sum %d csum %s"
                      % (len(payload), sum(payload),
                         "ok" if csum_ok(inner, UDP) else "bad"))
        return
    tcp = inner[TCP]
    payload = raw(tcp.payload)
    fields.append("tcp seq %d payload %d sum %d csum %s"
                  % (tcp.seq, len(payload), sum(payload),
                     "ok" if csum_ok(inner, TCP) else "bad"))


# Fragments seen so far, by (source, destination, protocol, id): a list of
# (offset, more fragments, payload bytes, header).
pieces = {}


def reassemble(frag):
    """Records IPv4 fragment 'frag'; returns the datagram it completes, or
    None."""
    key = (frag.src, frag.dst, frag.proto, frag.id)
    got = pieces.setdefault(key, [])
    got.append((frag.frag * 8, bool(frag.flags.MF), raw(frag.payload), frag))
    got.sort(key=lambda p: p[0])
    data = b""
    for offset, more, payload, _ in got:
        if offset != len(data):
            return None
        data += payload
        if not more:
            break
    else:
        return None
    first = got[0][3].copy()
    first.remove_payload()
    first.flags = int(first.flags) & ~1
    first.frag = 0
    first.len = None
    first.chksum = None
    del pieces[key]
    return IP(raw(first / data))


def segment_ip(ip, i):
    """IP header 'ip' (without its payload) as a NIC writes it in segment
    number 'i': lengths and IPv4 header checksum left for scapy to
    compute, the IPv4 ID plus 'i'."""
    copy = ip.copy()
    copy.remove_payload()
    if copy.version == 4:
        copy.len, copy.chksum, copy.id = None, None, (ip.id + i) & 0xffff
    else:
        copy.plen = None
    return copy


def nic_tso(frame, gue_port, segsz):
    """The segments a NIC with tunnel TSO cuts Ethernet frame 'frame' into
    (see above), or [frame] if it needs no cutting."""
    outer = frame.payload
    nh = outer.proto if outer.version == 4 else outer.nh
    tnl = b""
    if nh == 17:
        udp = outer[UDP]
        data = raw(udp.payload)
        if udp.dport == gue_port:
            tnl, data = data[:4], data[4:]
    else:
        udp = None
        data = raw(outer.payload)
    inner = inner_ip(data)
    if TCP not in inner or len(raw(inner[TCP].payload)) <= segsz:
        return [frame]
    tcp = inner[TCP]
    payload = raw(tcp.payload)
    n_segs = (len(payload) + segsz - 1) // segsz
    segs = []
    for i in range(n_segs):
        t = tcp.copy()
        t.remove_payload()
        t.seq = (tcp.seq + i * segsz) & 0xffffffff
        if i < n_segs - 1:
            t.flags = int(t.flags) & ~0x09
        t.chksum = None
        seg = raw(segment_ip(inner, i) / t
                  / payload[i * segsz:(i + 1) * segsz])
        if udp is not None:
            u = UDP(sport=udp.sport, dport=udp.dport,
                    len=8 + len(tnl) + len(seg), chksum=udp.chksum)
            seg = raw(u) + tnl + seg
        eth = frame.copy()
        eth.remove_payload()
        segs.append(Ether(raw(eth / segment_ip(outer, i) / seg)))
    return segs


def main():
    args = sys.argv[1:]
    segsz = 0
    if args[:1] == ["--nic-tso"]:
        segsz = int(args[1])
        args = args[2:]
    gue_port = int(args[1]) if len(args) > 1 else -1
    for frame in rdpcap(args[0]):
        frame = Ether(raw(frame))
        for seg in nic_tso(frame, gue_port, segsz) if segsz else [frame]:
            print(describe(seg, gue_port))


if __name__ == "__main__":
    main()
