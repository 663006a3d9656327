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

"""Many ipip ports with distinct fixed remotes, for the scale test.

usage: iptun-scale.py COMMAND N [PCAP]

Tunnel i (1..N) is port t<i> (OpenFlow port 100 + i) to remote 10.1.a.b;
its overlay peer is 10.200.a.b (a = (i - 1) // 250, b = (i - 1) % 250 + 1).
The host is 1.1.2.88 (MAC aa:55:aa:55:00:00) with p1 (MAC 00:00:00:00:00:01)
on the overlay bridge.

  vsctl         ovs-vsctl arguments adding the N ports to int-br
  flows         int-br flows: 10.200.a.b to t<i>, and t<i> to p1 with
                Ethernet source 02:00:00:00:hi:lo (i) and destination p1
  encap-frames  hex frames from p1, one to each overlay peer
  decap-frames  hex ipip frames from each remote, inner 10.200.a.b > 10.10.0.1
  check-encap   checks PCAP (of the underlay port): one ipip packet to each
                remote, carrying the inner packet for that remote's peer
  check-decap   checks PCAP (of p1): one packet from each port, carrying
                the inner packet that port's remote sent
"""

import sys

from scapy.layers.inet import ICMP, IP
from scapy.layers.l2 import Ether
from scapy.packet import Raw
from scapy.utils import rdpcap

HOST_MAC = "aa:55:aa:55:00:00"
P1_MAC = "00:00:00:00:00:01"
REMOTE_MAC = "f8:bc:12:44:34:b6"


def addr(prefix, i):
    return "%s.%d.%d" % (prefix, (i - 1) // 250, (i - 1) % 250 + 1)


def port_mac(i):
    return "02:00:00:00:%02x:%02x" % (i >> 8, i & 0xff)


def inner(src, dst):
    return IP(src=src, dst=dst) / ICMP() / Raw(b"x" * 16)


def check(pcap, n, outer_key, inner_key, what):
    seen = {}
    for pkt in rdpcap(pcap):
        i = outer_key(pkt)
        if i in seen:
            raise SystemExit("%s: two packets for tunnel %d" % (what, i))
        seen[i] = inner_key(pkt)
    missing = [i for i in range(1, n + 1) if i not in seen]
    wrong = [i for i, j in seen.items() if i != j]
    if missing or wrong or len(seen) != n:
        raise SystemExit("%s: %d packets, missing %s, misdelivered %s"
                         % (what, len(seen), missing[:10], wrong[:10]))
    print("%s: %d tunnels, each packet delivered to the right one"
          % (what, n))


def index(prefix, address):
    a, b = address.split(".")[2:]
    assert address.startswith(prefix + ".")
    return int(a) * 250 + int(b)


def main():
    if len(sys.argv) < 3:
        raise SystemExit(__doc__)
    cmd, n = sys.argv[1], int(sys.argv[2])
    if cmd == "vsctl":
        for i in range(1, n + 1):
            print("-- add-port int-br t%d -- set Interface t%d type=ipip "
                  "options:remote_ip=%s ofport_request=%d"
                  % (i, i, addr("10.1", i), 100 + i))
    elif cmd == "flows":
        for i in range(1, n + 1):
            print("ip,in_port=p1,nw_dst=%s,actions=output:%d"
                  % (addr("10.200", i), 100 + i))
            print("in_port=%d,actions=mod_dl_src:%s,mod_dl_dst:%s,output:p1"
                  % (100 + i, port_mac(i), P1_MAC))
    elif cmd == "encap-frames":
        for i in range(1, n + 1):
            pkt = Ether(src=P1_MAC, dst="02:00:00:00:00:02") \
                / inner("10.10.0.1", addr("10.200", i))
            print(bytes(pkt).hex())
    elif cmd == "decap-frames":
        for i in range(1, n + 1):
            pkt = Ether(src=REMOTE_MAC, dst=HOST_MAC) \
                / IP(src=addr("10.1", i), dst="1.1.2.88", proto=4) \
                / inner(addr("10.200", i), "10.10.0.1")
            print(bytes(pkt).hex())
    elif cmd == "check-encap":
        check(sys.argv[3], n,
              lambda p: index("10.1", p[IP].dst),
              lambda p: index("10.200", p[IP].payload.dst), "encap")
    elif cmd == "check-decap":
        check(sys.argv[3], n,
              lambda p: int(p[Ether].src.replace(":", "")[-4:], 16),
              lambda p: index("10.200", p[IP].src), "decap")
    else:
        raise SystemExit(__doc__)


if __name__ == "__main__":
    main()
