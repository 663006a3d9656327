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

"""Checks the outer UDP checksums in a pcap with scapy, independently of
Open vSwitch's own checksum code.

usage: iptun-udp-csum.py PCAP

Prints one line per IPv4/UDP packet: "none" (checksum 0), "ok" or
"bad 0xGOT expected 0xWANT".
"""

import logging
import sys

# Quiet scapy's start-up warnings (e.g. about interfaces without addresses).
logging.getLogger("scapy.runtime").setLevel(logging.ERROR)

from scapy.all import IP, UDP, Ether, rdpcap  # noqa: E402


def main():
    for pkt in rdpcap(sys.argv[1]):
        if IP not in pkt or UDP not in pkt:
            continue
        got = pkt[UDP].chksum
        if got == 0:
            print("none")
            continue
        clean = pkt.copy()
        del clean[UDP].chksum
        want = Ether(bytes(clean))[UDP].chksum
        print("ok" if got == want else "bad %#06x expected %#06x"
              % (got, want))


if __name__ == "__main__":
    main()
