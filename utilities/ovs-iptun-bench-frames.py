#! /usr/bin/python3
# ovs-iptun-bench-frames.py: writes the pcap files that "make bench"
# replays (net_pcap, infinite_rx=1).
#
#   ovs-iptun-bench-frames.py DIR FLOWS SIZE
#
# writes into DIR, for FLOWS distinct inner UDP flows of SIZE-byte inner
# Ethernet frames (without FCS):
#
#   inner.pcap         the inner frames, as the overlay bridge receives
#                      them (plain forward and encap scenarios)
#   TYPE.pcap          for each TYPE of ipip, fou, fou-csum, gre, vxlan,
#                      geneve: the same traffic as the tunnel endpoint
#                      192.0.2.2 sends it to 192.0.2.1 (decap scenarios).
#                      L3 tunnels (ipip, fou, gre with
#                      packet_type=legacy_l3) carry the inner IPv4 packet,
#                      vxlan and geneve the inner Ethernet frame.  UDP
#                      tunnels take their source port from the inner flow,
#                      as a sender does, in 32768-61000.
#
# Plain Python (struct), so that 10,000-flow files take seconds; the
# addresses and ports are those of utilities/ovs-iptun-bench.sh.

import socket
import struct
import sys
import zlib

PHY_MAC = "aa:55:aa:55:00:01"      # br-phy, the local tunnel endpoint
PEER_MAC = "aa:55:aa:55:00:02"     # the remote tunnel endpoint
LOCAL_IP = "192.0.2.1"
REMOTE_IP = "192.0.2.2"
INNER_SRC_MAC = "02:00:00:00:00:01"
INNER_DST_MAC = "02:00:00:00:00:02"
UDP_PORTS = {"fou": 5555, "fou-csum": 5556, "vxlan": 4789, "geneve": 6081}
KINDS = ("ipip", "fou", "fou-csum", "gre", "vxlan", "geneve")


def mac(s):
    return bytes(int(x, 16) for x in s.split(":"))


def csum(data):
    if len(data) % 2:
        data += b"\0"
    s = sum(struct.unpack("!%dH" % (len(data) // 2), data))
    while s >> 16:
        s = (s & 0xffff) + (s >> 16)
    return ~s & 0xffff


def ipv4(src, dst, proto, payload, df=False):
    hdr = struct.pack("!BBHHHBBH4s4s", 0x45, 0, 20 + len(payload), 0,
                      0x4000 if df else 0, 64, proto, 0,
                      socket.inet_aton(src), socket.inet_aton(dst))
    return hdr[:10] + struct.pack("!H", csum(hdr)) + hdr[12:] + payload


def udp(src_ip, dst_ip, sport, dport, payload, with_csum):
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    if not with_csum:
        return hdr + payload
    pseudo = (socket.inet_aton(src_ip) + socket.inet_aton(dst_ip)
              + struct.pack("!BBH", 0, 17, length))
    c = csum(pseudo + hdr + payload) or 0xffff
    return hdr[:6] + struct.pack("!H", c) + payload


def ether(dst, src, payload, ethertype=0x0800):
    return mac(dst) + mac(src) + struct.pack("!H", ethertype) + payload


def inner_frames(flows, size):
    frames = []
    for i in range(flows):
        src = "10.1.%d.%d" % (i // 250, i % 250 + 1)
        pad = size - 14 - 20 - 8
        if pad < 0:
            sys.exit("frame size %d is below 42" % size)
        seg = udp(src, "10.2.0.1", 1024 + i % 50000, 9, b"\0" * pad, True)
        frames.append(ether(INNER_DST_MAC, INNER_SRC_MAC,
                            ipv4(src, "10.2.0.1", 17, seg)))
    return frames


def source_port(frame):
    return 32768 + zlib.crc32(frame[26:38]) % (61000 - 32768 + 1)


def outer(frame, kind):
    l3 = frame[14:]
    if kind == "ipip":
        proto, payload = 4, l3
    elif kind == "gre":
        proto, payload = 47, struct.pack("!HH", 0, 0x0800) + l3
    else:
        proto = 17
        if kind == "vxlan":
            inner = struct.pack("!II", 0x08000000, 0) + frame
        elif kind == "geneve":
            inner = struct.pack("!HHI", 0, 0x6558, 0) + frame
        else:
            inner = l3
        payload = udp(REMOTE_IP, LOCAL_IP, source_port(frame),
                      UDP_PORTS[kind], inner, kind == "fou-csum")
    return ether(PHY_MAC, PEER_MAC,
                 ipv4(REMOTE_IP, LOCAL_IP, proto, payload, df=True))


def write_pcap(name, frames):
    with open(name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)) + fr)


def main():
    out, flows, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
    frames = inner_frames(flows, size)
    write_pcap("%s/inner.pcap" % out, frames)
    for kind in KINDS:
        write_pcap("%s/%s.pcap" % (out, kind),
                   [outer(f, kind) for f in frames])


if __name__ == "__main__":
    main()
