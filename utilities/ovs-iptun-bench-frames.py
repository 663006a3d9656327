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
#   inner6.pcap        the same with IPv6 inside (fd00:1::X > fd00:2::1)
#   TYPE.pcap          for each TYPE of ipip, fou, fou-csum, gue, gre,
#                      vxlan, geneve: the same traffic as the tunnel
#                      endpoint 192.0.2.2 sends it to 192.0.2.1 (decap
#                      scenarios).  L3 tunnels (ipip, fou, gue with a
#                      variant 0 header, gre with
#                      packet_type=legacy_l3) carry the inner IPv4 packet,
#                      vxlan and geneve the inner Ethernet frame.  UDP
#                      tunnels take their source port from the inner flow,
#                      as a sender does, in 32768-61000.
#   TYPE-XinY.pcap     the dual-stack variants: IPv(X) inside, over IPv(Y)
#                      (2001:db8::2 > 2001:db8::1 over IPv6, with UDP
#                      checksums there, as senders over IPv6 send them):
#                      ipip and gre 6in4, 4in6, 6in6; fou, vxlan and geneve
#                      4in6.
#
# FLOWS may also be REMOTESxFLOWS (for example 2000x50 or 1x100000): as
# many remote tunnel endpoints, 198.18.0.1 and up (RFC 2544's benchmarking
# range, so that no port with a fixed remote takes them), each sending FLOWS
# inner flows of its own, for a flow-based port (remote_ip=flow), in turn
# (flow i from remote i % REMOTES); then only inner.pcap and the TYPE.pcap
# over IPv4 (IPv4 inside) are written.  Inner flow i's source address is
# 10.1.0.0 + i (in blocks of 250), 10.3.0.0 + i from i = 62,500.
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
LOCAL_IP6 = "2001:db8::1"
REMOTE_IP6 = "2001:db8::2"
INNER_SRC_MAC = "02:00:00:00:00:01"
INNER_DST_MAC = "02:00:00:00:00:02"
UDP_PORTS = {"fou": 5555, "fou-csum": 5556, "gue": 6080, "vxlan": 4789,
             "geneve": 6081}
KINDS = ("ipip", "fou", "fou-csum", "gue", "gre", "vxlan", "geneve",
         "ipip-6in4", "gre-6in4", "ipip-4in6", "gre-4in6", "fou-4in6",
         "vxlan-4in6", "geneve-4in6", "ipip-6in6", "gre-6in6")


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


def ipv6(src, dst, nh, payload):
    return (struct.pack("!IHBB", 0x60000000, len(payload), nh, 64)
            + socket.inet_pton(socket.AF_INET6, src)
            + socket.inet_pton(socket.AF_INET6, dst) + payload)


def udp(src_ip, dst_ip, sport, dport, payload, with_csum):
    length = 8 + len(payload)
    hdr = struct.pack("!HHHH", sport, dport, length, 0)
    if not with_csum:
        return hdr + payload
    if ":" in src_ip:
        pseudo = (socket.inet_pton(socket.AF_INET6, src_ip)
                  + socket.inet_pton(socket.AF_INET6, dst_ip)
                  + struct.pack("!IxxxB", length, 17))
    else:
        pseudo = (socket.inet_aton(src_ip) + socket.inet_aton(dst_ip)
                  + struct.pack("!BBH", 0, 17, length))
    c = csum(pseudo + hdr + payload) or 0xffff
    return hdr[:6] + struct.pack("!H", c) + payload


def ether(dst, src, payload, ethertype=0x0800):
    return mac(dst) + mac(src) + struct.pack("!H", ethertype) + payload


def inner_src(i):
    """Inner flow i's source address (10.2.0.1 is the destination)."""
    net = 1 if i < 62500 else 2 + i // 62500
    if net > 255:
        sys.exit("too many flows")
    return "10.%d.%d.%d" % (net, i // 250 % 250, i % 250 + 1)


def remote_ip(r):
    """Remote tunnel endpoint r (from 0) of REMOTESxFLOWS frames."""
    if r >= 1 << 17:
        sys.exit("too many remotes")
    return socket.inet_ntoa(struct.pack("!I", 0xc6120000 + r + 1))


def inner_frames(flows, size):
    frames = []
    for i in range(flows):
        src = inner_src(i)
        pad = size - 14 - 20 - 8
        if pad < 0:
            sys.exit("frame size %d is below 42" % size)
        seg = udp(src, "10.2.0.1", 1024 + i % 50000, 9, b"\0" * pad, True)
        frames.append(ether(INNER_DST_MAC, INNER_SRC_MAC,
                            ipv4(src, "10.2.0.1", 17, seg)))
    return frames


def inner6_frames(flows, size):
    frames = []
    for i in range(flows):
        src = "fd00:1::%x" % (i + 1)
        if i + 1 > 0xffff:
            src = "fd00:1::%x:%x" % ((i + 1) >> 16, (i + 1) & 0xffff)
        pad = size - 14 - 40 - 8
        if pad < 0:
            sys.exit("frame size %d is below 62" % size)
        seg = udp(src, "fd00:2::1", 1024 + i % 50000, 9, b"\0" * pad, True)
        frames.append(ether(INNER_DST_MAC, INNER_SRC_MAC,
                            ipv6(src, "fd00:2::1", 17, seg), 0x86dd))
    return frames


def source_port(frame):
    return 32768 + zlib.crc32(frame[26:38]) % (61000 - 32768 + 1)


def outer(frame, kind, remote=REMOTE_IP):
    """'frame' (IPv4 or IPv6 inside) in tunnel 'kind' (a KINDS entry), from
    'remote' if over IPv4."""
    l3 = frame[14:]
    ethertype = struct.unpack("!H", frame[12:14])[0]
    kind, _, variant = kind.partition("-")
    if variant == "csum":
        kind, variant = "fou-csum", ""
    outer6 = variant.endswith("in6")
    src, dst = (REMOTE_IP6, LOCAL_IP6) if outer6 else (remote, LOCAL_IP)
    if kind == "ipip":
        proto, payload = (41 if ethertype == 0x86dd else 4), l3
    elif kind == "gre":
        proto, payload = 47, struct.pack("!HH", 0, ethertype) + l3
    else:
        proto = 17
        if kind == "vxlan":
            inner = struct.pack("!II", 0x08000000, 0) + frame
        elif kind == "geneve":
            inner = struct.pack("!HHI", 0, 0x6558, 0) + frame
        elif kind == "gue":
            inner = struct.pack("!BBH", 0, 41 if ethertype == 0x86dd else 4,
                                0) + l3
        else:
            inner = l3
        payload = udp(src, dst, source_port(frame), UDP_PORTS[kind], inner,
                      kind == "fou-csum" or outer6)
    if outer6:
        return ether(PHY_MAC, PEER_MAC, ipv6(src, dst, proto, payload),
                     0x86dd)
    return ether(PHY_MAC, PEER_MAC, ipv4(src, dst, proto, payload, df=True))


def write_pcap(name, frames):
    with open(name, "wb") as f:
        f.write(struct.pack("<IHHiIII", 0xa1b2c3d4, 2, 4, 0, 0, 65535, 1))
        for fr in frames:
            f.write(struct.pack("<IIII", 0, 0, len(fr), len(fr)) + fr)


def main():
    out, flows, size = sys.argv[1], sys.argv[2], int(sys.argv[3])
    remotes, many, flows = flows.rpartition("x")
    remotes, flows = int(remotes or 1), int(flows)
    frames = inner_frames(remotes * flows, size)
    write_pcap("%s/inner.pcap" % out, frames)
    if many:
        # Flow i comes from remote i % remotes: one after another, as
        # packets from many peers arrive.  Over IPv4, IPv4 inside only.
        kinds = [k for k in KINDS if "in4" not in k and "in6" not in k]
        sources = [remote_ip(i % remotes) for i in range(len(frames))]
    else:
        frames6 = inner6_frames(flows, size)
        write_pcap("%s/inner6.pcap" % out, frames6)
        kinds = KINDS
        sources = [REMOTE_IP] * len(frames)
    for kind in kinds:
        write_pcap("%s/%s.pcap" % (out, kind),
                   [outer(f, kind, src) for f, src in
                    zip(frames6 if "-6in" in kind else frames, sources)])


if __name__ == "__main__":
    main()
