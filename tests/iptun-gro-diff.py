#! /usr/bin/python3
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

"""Random tunnelled TCP for the receive aggregation's differential test.

usage: iptun-gro-diff.py frames SEED N_CONNS FILE
       iptun-gro-diff.py segments PCAP
       iptun-gro-diff.py streams PCAP

"frames" writes to FILE, one Ethernet frame in hex per line, the segments
of N_CONNS TCP connections, interleaved, as received on br0's port p0 of
the test in tests/iptun-gro.at (br0 at 1.1.2.88 and 2001:cafe::88, MAC
aa:55:aa:55:00:00; on int-br ipip port t4 (remote 1.1.2.92), fou port t3
(2001:cafe::93, UDP port 5555), gue ports t6 (1.1.2.94, 6080) and t7
(2001:cafe::95, 6080)).  Each connection has its own tunnel, inner IP
version, segment size, DF bit (IPv4) and TCP options (timestamps that
change now and then, or none), and sends a SYN, then data with: segments
lost, reordered, sent again, with a bad TCP or IPv4 checksum, as IP
fragments, with IP options, with another TTL, TOS or window, pure ACKs,
PSH at the end of each write, URG, CWR and ECE now and then, and a FIN.
The first connection (ipip, IPv4 inside) starts FILE with its SYN and four
full segments that the aggregation merges, so that every SEED has
something to merge.  The same SEED gives the same frames.

"segments" prints each TCP segment of PCAP (the packets that came out),
grouped by connection (in the order they came out) as "CONN SEQ FLAGS
TTL TOS CSUM-OK PAYLOAD-HEX", then every other packet: with the
aggregation on and off, and an output that segments again what is
aggregated, these must be the same (only the IP IDs may differ, and are
left out).

"streams" prints, for each connection of PCAP, the bytes that its
receiver would deliver (in order from the SYN, duplicates dropped, held
while a gap lasts; checksums not checked) and whether its FIN came: the
same with the aggregation on and off, with an output that takes the
aggregated packets whole.  It also prints "largest payload: N"."""

import random
import sys

from scapy.compat import raw
from scapy.layers.inet import IP, TCP, UDP, fragment
from scapy.layers.inet6 import IPv6, IPv6ExtHdrFragment
from scapy.layers.l2 import Ether
from scapy.utils import rdpcap

BR0_MAC = "aa:55:aa:55:00:00"
# (kind, outer version, remote, UDP port, source MAC)
TUNNELS = [("ipip", 4, "1.1.2.92", None, "f8:bc:12:44:34:b6"),
           ("fou", 6, "2001:cafe::93", 5555, "f8:bc:12:44:34:b7"),
           ("gue", 4, "1.1.2.94", 6080, "f8:bc:12:44:34:b6"),
           ("gue", 6, "2001:cafe::95", 6080, "f8:bc:12:44:34:b6")]
MSS = [100, 536, 1200, 1400]


class Conn:
    def __init__(self, rng, n):
        self.rng = rng
        self.tunnel = rng.choice(TUNNELS)
        self.version = rng.choice([4, 4, 6])
        if self.version == 4:
            self.src, self.dst = "10.0.%d.2" % n, "10.0.0.1"
        else:
            self.src, self.dst = "fd00::%x:2" % n, "fd00::1"
        self.sport, self.dport = 40000 + n, rng.choice([80, 5001])
        self.mss = rng.choice(MSS)
        self.df = rng.random() < 0.7
        self.ts = rng.random() < 0.5
        self.ts_val = rng.randrange(1 << 31)
        self.ip_id = rng.randrange(1 << 16)
        self.isn = rng.randrange(1 << 32)
        self.udp_sport = rng.choice([40000, 40001, 50000])

    def ip(self, **kw):
        if self.version == 4:
            self.ip_id = (self.ip_id + 1) & 0xffff
            return IP(src=self.src, dst=self.dst, ttl=kw.get("ttl", 64),
                      tos=kw.get("tos", 0), id=self.ip_id,
                      flags="DF" if self.df else 0,
                      options=kw.get("options", []))
        return IPv6(src=self.src, dst=self.dst, hlim=kw.get("ttl", 64),
                    tc=kw.get("tos", 0))

    def tcp(self, seq, flags, window=8192, clean=False):
        opts = []
        if self.ts:
            if self.rng.random() < 0.1 and not clean:
                self.ts_val += 1
            opts = [("NOP", None), ("NOP", None),
                    ("Timestamp", (self.ts_val, 77))]
        return TCP(sport=self.sport, dport=self.dport,
                   seq=(self.isn + seq) & 0xffffffff, ack=12345,
                   flags=flags, window=window, options=opts)

    def encap(self, inner):
        kind, v, remote, port, mac = self.tunnel
        eth = Ether(dst=BR0_MAC, src=mac)
        if v == 4:
            outer = IP(src=remote, dst="1.1.2.88", flags="DF", id=0)
        else:
            outer = IPv6(src=remote, dst="2001:cafe::88")
        proto = 4 if self.version == 4 else 41
        if kind == "ipip":
            outer.proto = proto
            return eth / outer / inner
        udp = UDP(sport=self.udp_sport, dport=port)
        if kind == "fou":
            return eth / outer / udp / inner
        return eth / outer / udp / (bytes([0, proto, 0, 0]) + raw(inner))

    def segments(self, n_bytes, n_clean=0):
        """This connection's frames, in the order it sends them: the first
        n_clean segments of data full, in order, and as the aggregation
        merges them (then n_bytes must be more than n_clean of them)."""
        rng = self.rng
        out = [self.encap(self.ip() / self.tcp(0, "S"))]
        seq, sent = 1, []
        # Segments that did not get through whole (lost, a bad checksum, IP
        # fragments), each sent again a few segments later.
        retx = []
        while seq < n_bytes:
            write = rng.randint(1, 6 * self.mss)
            if seq == 1:
                write = max(write, n_clean * self.mss)
            end = min(seq + write, n_bytes)
            while seq < end:
                size = min(self.mss, end - seq)
                flags = "PA" if seq + size == end else "A"
                if len(sent) < n_clean:
                    pkt = self.ip() / self.tcp(seq, flags, clean=True) \
                        / bytes(rng.randrange(256) for _ in range(size))
                    sent.append(pkt)
                    out.append(self.encap(pkt))
                    seq += size
                    continue
                kw = {}
                r = rng.random()
                if r < 0.03:
                    kw["ttl"] = 63
                elif r < 0.06:
                    kw["tos"] = 0x20
                elif r < 0.08 and self.version == 4:
                    kw["options"] = [b"\x01\x01\x01\x00"]
                window = 8192 if rng.random() < 0.95 else 4096
                r = rng.random()
                if r < 0.02:
                    flags += "U"
                elif r < 0.04:
                    flags += "C"
                elif r < 0.06:
                    flags += "E"
                payload = bytes(rng.randrange(256) for _ in range(size))
                pkt = self.ip(**kw) / self.tcp(seq, flags, window) / payload
                sent.append(pkt)
                r = rng.random()
                again = True
                if r < 0.04:
                    pass                                    # lost
                elif r < 0.07:
                    bad = pkt.copy()
                    good = pkt.__class__(raw(pkt))[TCP].chksum
                    bad[TCP].chksum = good ^ 0x5555
                    out.append(self.encap(bad))
                elif r < 0.09 and self.version == 4 and not self.df:
                    for f in fragment(pkt, fragsize=max(64, size // 2)):
                        out.append(self.encap(f))
                elif r < 0.10 and self.version == 4:
                    bad = pkt.copy()
                    bad[IP].chksum = IP(raw(pkt)).chksum ^ 0x5555
                    out.append(self.encap(bad))
                elif r < 0.12 and self.version == 6:
                    frag = pkt[IPv6].copy()
                    frag.remove_payload()
                    frag.nh = 44
                    out.append(self.encap(
                        frag / IPv6ExtHdrFragment(nh=6, id=seq)
                        / pkt[TCP]))
                else:
                    out.append(self.encap(pkt))
                    again = False
                if again:
                    retx.append([rng.randint(1, 5), pkt])
                for r in retx:
                    r[0] -= 1
                    if r[0] < 0:
                        out.append(self.encap(r[1]))
                retx = [r for r in retx if r[0] >= 0]
                if rng.random() < 0.05:
                    out.append(self.encap(self.ip() / self.tcp(seq, "A")))
                if rng.random() < 0.03 and sent:
                    out.append(self.encap(rng.choice(sent)))  # again
                if rng.random() < 0.04 and len(out) > 2:
                    out[-1], out[-2] = out[-2], out[-1]       # reordered
                seq += size
        out += [self.encap(r[1]) for r in retx]
        out.append(self.encap(self.ip() / self.tcp(seq, "FA")))
        return out


def frames(seed, n_conns, path):
    rng = random.Random(seed)
    conns = [Conn(rng, n + 1) for n in range(n_conns)]
    # One IPv4-in-IPv4 ipip connection at least: the termination cache's
    # one lookup takes only those.  Its first frames, the SYN and four full
    # segments, come first: whatever the other connections' luck, and
    # wherever a batch begins, two of them at least are merged into more
    # than any connection's segment size, on every pass after the first
    # (which upcalls).
    conns[0].tunnel, conns[0].version = TUNNELS[0], 4
    conns[0].src, conns[0].dst = "10.0.1.2", "10.0.0.1"
    n_clean = 4
    conns[0].mss = max(MSS)
    lists = [c.segments(rng.randint(2000, 40000)) for c in conns[1:]]
    lists.insert(0, conns[0].segments(
        rng.randint((n_clean + 1) * max(MSS), 40000), n_clean))
    with open(path, "w") as f:
        for _ in range(1 + n_clean):                # the SYN, then those
            f.write(raw(lists[0].pop(0)).hex() + "\n")
        while any(lists):
            # A burst of one connection at a time, as senders send.
            lst = rng.choice([x for x in lists if x])
            for _ in range(rng.randint(1, 12)):
                if lst:
                    f.write(raw(lst.pop(0)).hex() + "\n")


def tcp_of(pkt):
    """(IP layer, TCP layer) of a packet that came out, or None."""
    if IP in pkt and TCP in pkt and not (pkt[IP].flags.MF or pkt[IP].frag):
        return pkt[IP], pkt[TCP]
    if IPv6 in pkt and TCP in pkt and IPv6ExtHdrFragment not in pkt:
        return pkt[IPv6], pkt[TCP]
    return None


def conn_key(ip, tcp):
    return "%s.%d>%s.%d" % (ip.src, tcp.sport, ip.dst, tcp.dport)


def csum_ok(ip, tcp):
    """Both checksums right, as the packet came out."""
    if isinstance(ip, IP):
        hdr = raw(ip)[:ip.ihl * 4]
        again = IP(hdr)
        again.chksum = None
        if raw(again)[:ip.ihl * 4] != hdr:
            return False
    check = tcp.copy()
    check.chksum = None
    pseudo = ip.copy()
    pseudo.remove_payload()
    return raw(pseudo / check)[-len(raw(tcp)):] == raw(tcp)


def segments(path):
    conns, others = {}, []
    for pkt in rdpcap(path):
        found = tcp_of(pkt)
        if not found:
            others.append(raw(pkt).hex())
            continue
        ip, tcp = found
        ttl = ip.ttl if isinstance(ip, IP) else ip.hlim
        tos = ip.tos if isinstance(ip, IP) else ip.tc
        conns.setdefault(conn_key(ip, tcp), []).append(
            "%d %s %d %d %s %s" % (tcp.seq, tcp.flags, ttl, tos,
                                   csum_ok(ip, tcp), raw(tcp.payload).hex()))
    for key in sorted(conns):
        for line in conns[key]:
            print(key, line)
    for line in others:
        print("other", line)


def streams(path):
    conns, largest = {}, 0
    for pkt in rdpcap(path):
        found = tcp_of(pkt)
        if found:
            ip, tcp = found
            conns.setdefault(conn_key(ip, tcp), []).append(tcp)
            largest = max(largest, len(raw(tcp.payload)))
    for key in sorted(conns):
        isn, nxt, data, ooo, fin = None, 0, bytearray(), {}, False
        for tcp in conns[key]:
            if "S" in tcp.flags:
                isn, nxt = tcp.seq, 1
                continue
            if isn is None:
                continue
            seq = (tcp.seq - isn) & 0xffffffff
            payload = raw(tcp.payload)
            if len(payload) >= len(ooo.get(seq, (b"",))[0]):
                ooo[seq] = (payload, "F" in tcp.flags)
            while True:
                ready = [s for s in ooo if s <= nxt]
                if not ready:
                    break
                for s in sorted(ready):
                    payload, f = ooo.pop(s)
                    if s + len(payload) > nxt:
                        data += payload[nxt - s:]
                        nxt = s + len(payload)
                    if f and s + len(payload) == nxt:
                        fin = True
        print(key, len(data), "fin" if fin else "no-fin", bytes(data).hex())
    print("largest payload: %d" % largest)


def main():
    if sys.argv[1] == "frames":
        frames(int(sys.argv[2]), int(sys.argv[3]), sys.argv[4])
    elif sys.argv[1] == "segments":
        segments(sys.argv[2])
    elif sys.argv[1] == "streams":
        streams(sys.argv[2])
    else:
        sys.exit(__doc__)


if __name__ == "__main__":
    main()
