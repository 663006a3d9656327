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

"""Random rules and traffic for the termination cache's differential test.

usage: iptun-term-diff.py SEED N_FRAMES DIR

Writes, for the ports of the test in tests/iptun-term.at (br0 at 1.1.2.88
and 2001:cafe::88, MAC aa:55:aa:55:00:00; on int-br ipip ports t1 (remote
2001:cafe::92), t2 (remote_ip=flow), t4 (1.1.2.92), fou ports t3
(2001:cafe::93, UDP port 5555) and t5 (1.1.2.93, 5556, ipproto=41), gue
ports t6 (1.1.2.94, UDP port 6080) and t7 (2001:cafe::95, 6080), p1):

  DIR/br0.txt     OpenFlow rules for the underlay bridge br0: random
                  matches on what the first pass extracts (addresses,
                  protocol, TOS or traffic class, TTL or hop limit, flow
                  label, UDP ports, Ethernet source), actions that
                  terminate the tunnel (NORMAL, LOCAL), drop, or modify
                  the packet first (then the cache must not take it)
  DIR/int-br.txt  OpenFlow rules for the overlay bridge: random matches on
                  the tunnel port, tunnel metadata and inner headers,
                  actions that tag the packet with the rule's number and
                  send it to p1, re-encapsulate it, or drop it
  DIR/frames.txt  N_FRAMES Ethernet frames in hex, one per line, to be
                  received on br0's port p0: ipip (protocols 4 and 41),
                  fou and gue (variants 0 and 1, and a few with a flag
                  that gue drops) over IPv4 and IPv6 from configured,
                  flow-based and unknown remotes, UDP to other ports, each
                  header field drawn from a few values; the frames are
                  drawn from a pool
                  of N_FRAMES / 8, so that flows repeat

The same SEED gives the same files."""

import os
import random
import sys

from scapy.compat import raw
from scapy.layers.inet import ICMP, IP, TCP, UDP
from scapy.layers.inet6 import IPv6
from scapy.layers.l2 import Ether

BR0_MAC = "aa:55:aa:55:00:00"
SRC_MACS = ["f8:bc:12:44:34:b6", "f8:bc:12:44:34:b7"]
REMOTES4 = ["1.1.2.92", "1.1.2.93", "1.1.2.94"]
REMOTES6 = ["2001:cafe::92", "2001:cafe::93", "2001:cafe::95"]
TOS = [0, 0x20, 0xb8]
TTL = [64, 1, 255]
LABELS = [0, 1, 0xabcde]
UDP_SPORTS = [40000, 40001, 50000]
UDP_DPORTS = [5555, 5556, 6080, 9999]
INNER4 = [("10.0.0.2", "10.0.0.1"), ("10.0.0.3", "10.0.0.1")]
INNER6 = [("fd00::2", "fd00::1"), ("fd00::3", "fd00::1")]
INNER_PORTS = [53, 54, 80]


def inner_packet(rng, version):
    if version == 4:
        src, dst = rng.choice(INNER4)
        ip = IP(src=src, dst=dst, ttl=rng.choice([64, 1]), id=1)
    else:
        src, dst = rng.choice(INNER6)
        ip = IPv6(src=src, dst=dst, hlim=rng.choice([64, 1]))
    kind = rng.choice(["udp", "udp", "tcp", "other"])
    if kind == "udp":
        l4 = UDP(sport=rng.choice([1000, 1001]),
                 dport=rng.choice(INNER_PORTS))
    elif kind == "tcp":
        l4 = TCP(sport=3000, dport=rng.choice(INNER_PORTS),
                 flags=rng.choice(["S", "A", "PA"]))
    elif version == 4:
        l4 = ICMP()
    else:
        return ip / (b"x" * 8)
    return ip / l4 / (b"p" * rng.choice([0, 6, 18]))


def frame(rng):
    kind = rng.choice(["ipip", "ipip", "fou", "fou", "gue", "gue"])
    v_outer = rng.choice([4, 6])
    # One source MAC per remote: a terminated packet updates the tunnel
    # neighbour of its source address, and the re-encapsulating
    # flows follow the neighbour only when revalidated, at times that
    # neither run controls.
    remote = rng.randrange(3)
    eth = Ether(dst=BR0_MAC, src=SRC_MACS[remote % 2])
    if v_outer == 4:
        outer = IP(src=REMOTES4[remote], dst="1.1.2.88", flags="DF",
                   id=0, tos=rng.choice(TOS), ttl=rng.choice(TTL))
    else:
        outer = IPv6(src=REMOTES6[remote], dst="2001:cafe::88",
                     tc=rng.choice(TOS), hlim=rng.choice(TTL),
                     fl=rng.choice(LABELS))
    v_inner = rng.choice([4, 4, 6])
    inner = inner_packet(rng, v_inner)
    if kind == "ipip":
        proto = 4 if v_inner == 4 else 41
        if v_outer == 4:
            outer.proto = proto
        else:
            outer.nh = proto
        pkt = eth / outer / inner
    elif kind == "fou":
        pkt = eth / outer / UDP(sport=rng.choice(UDP_SPORTS),
                                dport=rng.choice(UDP_DPORTS)) / inner
    else:
        # GUE variant 0 (protocol 4 or 41), variant 1 (the inner packet
        # right after UDP), or variant 0 with an unknown flag (dropped).
        variant = rng.choice(["v0", "v0", "v1", "bad"])
        proto = 4 if v_inner == 4 else 41
        hdr = {"v0": bytes([0, proto, 0, 0]), "v1": b"",
               "bad": bytes([0, proto, 0x80, 0])}[variant]
        pkt = eth / outer / UDP(sport=rng.choice(UDP_SPORTS),
                                dport=rng.choice([6080, 6080, 5555])) \
            / (hdr + raw(inner))
    return raw(pkt).hex()


def br0_rule(rng, priority):
    v = rng.choice([4, 6])
    match = ["priority=%d" % priority]
    match.append("ip" if v == 4 else "ipv6")
    if rng.random() < 0.4:
        match.append(("nw_src=%s" % rng.choice(REMOTES4)) if v == 4
                     else ("ipv6_src=%s" % rng.choice(REMOTES6)))
    proto = None
    if rng.random() < 0.5:
        proto = rng.choice([4, 41, 17])
        match.append("nw_proto=%d" % proto)
    if rng.random() < 0.3:
        match.append("nw_tos=%d" % rng.choice(TOS))
    if rng.random() < 0.3:
        match.append("nw_ttl=%d" % rng.choice(TTL))
    if v == 6 and rng.random() < 0.3:
        match.append("ipv6_label=%#x" % rng.choice(LABELS))
    if proto == 17 and rng.random() < 0.6:
        match.append(rng.choice(["tp_src=%d" % rng.choice(UDP_SPORTS),
                                 "tp_dst=%d" % rng.choice(UDP_DPORTS)]))
    if rng.random() < 0.2:
        match.append("dl_src=%s" % rng.choice(SRC_MACS))
    action = rng.choice(["normal", "normal", "LOCAL", "drop",
                         "mod_nw_ttl:9,LOCAL"])
    return ",".join(match) + ",actions=" + action


def int_rule(rng, n, priority):
    match = ["priority=%d" % priority]
    match.append("in_port=t%d" % rng.randint(1, 7))
    if rng.random() < 0.3:
        match.append(rng.choice(["tun_ipv6_src=%s" % rng.choice(REMOTES6),
                                 "tun_src=%s" % rng.choice(REMOTES4)]))
    v = rng.choice([4, 6, None])
    if v:
        l4 = rng.choice(["udp", "tcp", None])
        suffix = "" if v == 4 else "6"
        if l4:
            match.append(l4 + suffix)
            if rng.random() < 0.7:
                match.append("tp_dst=%d" % rng.choice(INNER_PORTS))
            if l4 == "tcp" and rng.random() < 0.4:
                match.append("tcp_flags=+syn")
        else:
            match.append("ip" if v == 4 else "ipv6")
        if rng.random() < 0.2:
            match.append("nw_ttl=1")
    action = rng.choice(["tag", "tag", "tag", "drop", "encap"])
    if action == "tag":
        action = ("mod_dl_src:00:00:00:00:%02x:%02x,"
                  "mod_dl_dst:00:00:00:00:00:01,output:p1" % (n // 256,
                                                              n % 256))
    elif action == "encap":
        action = "output:%s" % rng.choice(["t4", "t3", "t5", "t6", "t7"])
    return ",".join(match) + ",actions=" + action


def main():
    seed, n_frames, out = int(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
    rng = random.Random(seed)
    with open(os.path.join(out, "br0.txt"), "w") as f:
        for priority in rng.sample(range(100, 1000), rng.randint(4, 10)):
            f.write(br0_rule(rng, priority) + "\n")
    with open(os.path.join(out, "int-br.txt"), "w") as f:
        priorities = rng.sample(range(100, 1000), rng.randint(6, 14))
        for n, priority in enumerate(priorities):
            f.write(int_rule(rng, n + 1, priority) + "\n")
        # What no random rule takes leaves again through a fou port, whose
        # UDP source port is the inner packet's hash: a cached second pass
        # must leave the same hash as miniflow_extract().
        f.write("priority=50,ipv6,actions=output:t5\n")
        f.write("priority=40,ip,actions=output:t3\n")
        f.write("priority=1,actions=mod_dl_src:00:00:00:00:ff:ff,"
                "mod_dl_dst:00:00:00:00:00:01,output:p1\n")
    # Frames drawn from a pool, so that flows repeat and the cache's hits,
    # not only its misses, are compared.
    pool = [frame(rng) for _ in range(max(1, n_frames // 8))]
    with open(os.path.join(out, "frames.txt"), "w") as f:
        for _ in range(n_frames):
            f.write(rng.choice(pool) + "\n")


if __name__ == "__main__":
    main()
