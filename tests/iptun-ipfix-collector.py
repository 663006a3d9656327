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

"""A minimal IPFIX collector (RFC 7011) for the sampling tests: receives
IPFIX messages on UDP, learns their templates and prints each data record
that it can decode (Open vSwitch's tunnel elements are enterprise 6876,
VMware's), one line per record, as it arrives:

  tunnel type T key K src A dst B proto P sport S dport D | inner A > B proto P

where T is tunnelType (1 VXLAN, 2 GRE, 7 Geneve...), K tunnelKey in hex
("-" if empty), and "inner" the record's IPv4 or IPv6 addresses and
protocol.  Records without tunnel elements print as "no tunnel | inner
...", records without addresses (such as the exporter's statistics, sent
with an options template) as "other record".

usage: iptun-ipfix-collector.py PORT_FILE
    binds 127.0.0.1 on a free UDP port, writes its number to PORT_FILE and
    runs until killed.
"""

import ipaddress
import socket
import struct
import sys

VMWARE = 6876
# (enterprise, element id) -> name
NAMES = {
    (0, 4): "protocol",
    (0, 8): "src4",
    (0, 12): "dst4",
    (0, 27): "src6",
    (0, 28): "dst6",
    (VMWARE, 891): "tunnel_type",
    (VMWARE, 892): "tunnel_key",
    (VMWARE, 893): "tunnel_src",
    (VMWARE, 894): "tunnel_dst",
    (VMWARE, 895): "tunnel_proto",
    (VMWARE, 896): "tunnel_sport",
    (VMWARE, 897): "tunnel_dport",
}


def parse_template_set(data, templates, options):
    """A template set or, if 'options', an options template set."""
    off = 0
    while off + 4 <= len(data):
        tid, count = struct.unpack_from("!HH", data, off)
        off += 6 if options else 4
        fields = []
        for _ in range(count):
            eid, length = struct.unpack_from("!HH", data, off)
            off += 4
            enterprise = 0
            if eid & 0x8000:
                eid &= 0x7fff
                enterprise, = struct.unpack_from("!I", data, off)
                off += 4
            fields.append((enterprise, eid, length))
        templates[tid] = fields


def parse_record(data, off, fields):
    values = {}
    for enterprise, eid, length in fields:
        if length == 0xffff:
            length = data[off]
            off += 1
            if length == 255:
                length, = struct.unpack_from("!H", data, off)
                off += 2
        values[NAMES.get((enterprise, eid), (enterprise, eid))] = \
            data[off:off + length]
        off += length
    return values, off


def record_size(fields):
    if any(length == 0xffff for _, _, length in fields):
        return None
    return sum(length for _, _, length in fields)


def addr(value):
    return str(ipaddress.ip_address(value))


def describe(v):
    if "src4" in v:
        inner = "%s > %s" % (addr(v["src4"]), addr(v["dst4"]))
    elif "src6" in v:
        inner = "%s > %s" % (addr(v["src6"]), addr(v["dst6"]))
    else:
        inner = "?"
    if "protocol" in v:
        inner += " proto %d" % v["protocol"][0]
    if "tunnel_type" not in v:
        if inner == "?":
            return "other record"
        return "no tunnel | inner " + inner
    num = lambda name: int.from_bytes(v[name], "big")  # noqa: E731
    return ("tunnel type %d key %s src %s dst %s proto %d sport %d dport %d"
            " | inner %s" % (num("tunnel_type"), v["tunnel_key"].hex() or "-",
                             addr(v["tunnel_src"]), addr(v["tunnel_dst"]),
                             num("tunnel_proto"), num("tunnel_sport"),
                             num("tunnel_dport"), inner))


def parse_message(msg, templates):
    version, length = struct.unpack_from("!HH", msg, 0)
    if version != 10:
        print("not IPFIX: version %d" % version, flush=True)
        return
    off = 16
    while off + 4 <= length:
        set_id, set_len = struct.unpack_from("!HH", msg, off)
        data = msg[off + 4:off + set_len]
        off += set_len
        if set_len < 4:
            print("bad set length %d" % set_len, flush=True)
            return
        if set_id in (2, 3):
            parse_template_set(data, templates, set_id == 3)
        elif set_id >= 256:
            fields = templates.get(set_id)
            if fields is None:
                print("data set %d without a template" % set_id, flush=True)
                continue
            size = record_size(fields)
            pos = 0
            # Padding may follow the last record.
            while pos < len(data) and (size is None or
                                       pos + size <= len(data)):
                values, pos = parse_record(data, pos, fields)
                print(describe(values), flush=True)


def main():
    sock = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
    sock.bind(("127.0.0.1", 0))
    with open(sys.argv[1], "w") as f:
        f.write("%d\n" % sock.getsockname()[1])
    templates = {}
    while True:
        msg = sock.recv(65535)
        parse_message(msg, templates)


if __name__ == "__main__":
    main()
