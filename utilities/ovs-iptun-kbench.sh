#! /bin/bash
# ovs-iptun-kbench.sh: TCP throughput of OVS's kernel datapath with an ipip
# port against a Linux ipip device, in the same run.  Needs root, iperf3,
# openvswitch.ko and an installed vport-iptun.ko; "make bench-kernel" runs it
# in the qemu guest (utilities/ovs-iptun-guest.sh).
#
#   linux: two namespaces, a Linux ipip device in each, over a veth
#   ovs:   host a runs OVS (kernel datapath) with an ipip port, peer b a Linux
#          ipip device (utilities/ovs-iptun-demo.sh, IPTUN_DATAPATH=system)
#
# Both use an overlay MTU of 1400 and run iperf3 for IPTUN_BENCH_TIME
# seconds (default 10) in each direction: "a<-b" is received (decapsulated)
# by a, "a->b" sent (encapsulated) by a.  Prints Mbit/s and ovs/linux.

set -e
T=${IPTUN_BENCH_TIME:-10}
here=$(cd "$(dirname "$0")" && pwd)
export IPTUN_DEMO_PREFIX=kb IPTUN_DEMO_DIR=/tmp/kb-demo IPTUN_TYPE=ipip
export IPTUN_DATAPATH=system IPTUN_PEER=linux

# rate NS-SERVER ADDR NS-CLIENT: iperf3 receiver-side Mbit/s.
rate () {
    ip netns exec "$1" iperf3 -s -1 -D -B "$2" >/dev/null
    sleep 1
    ip netns exec "$3" iperf3 -c "$2" -t "$T" -J \
        | python3 -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
}

# linux_host NS UNDERLAY-DEV LOCAL REMOTE OVERLAY-ADDRESS
linux_host () {
    ip -n "$1" link set lo up
    ip -n "$1" link set "$2" up
    ip -n "$1" addr add "$3/24" dev "$2"
    ip -n "$1" link add tun0 type ipip local "$3" remote "$4" ttl 64
    ip -n "$1" addr add "$5/24" dev tun0
    ip -n "$1" link set tun0 mtu 1400 up
}
linux_up () {
    ip netns add kl-a
    ip netns add kl-b
    ip link add to-b netns kl-a type veth peer name to-a netns kl-b
    linux_host kl-a to-b 192.0.2.1 192.0.2.2 10.10.0.1
    linux_host kl-b to-a 192.0.2.2 192.0.2.1 10.10.0.2
}
linux_down () { ip netns del kl-a 2>/dev/null || true; ip netns del kl-b 2>/dev/null || true; }

trap 'linux_down; bash "$here/ovs-iptun-demo.sh" down >/dev/null 2>&1 || true' EXIT
linux_down
linux_up
ip netns exec kl-a ping -c 2 -W 2 10.10.0.2 >/dev/null
lin_rx=$(rate kl-a 10.10.0.1 kl-b)
lin_tx=$(rate kl-b 10.10.0.2 kl-a)
linux_down

bash "$here/ovs-iptun-demo.sh" up >/dev/null
# The demo computes checksums in software on the underlay veths (for its
# captures); the Linux pair above leaves them to offload, so do the same.
ip netns exec kb-a ethtool -K to-b tx on >/dev/null
ip netns exec kb-b ethtool -K to-a tx on >/dev/null
bash "$here/ovs-iptun-demo.sh" ping >/dev/null
ovs_rx=$(rate kb-a 10.10.0.1 kb-b)
ovs_tx=$(rate kb-b 10.10.0.2 kb-a)

echo "TCP over ipip, iperf3 ${T} s, Mbit/s (kernel $(uname -r), $(nproc) CPUs)"
printf '%-6s %12s %12s\n' "" "a<-b (rx)" "a->b (tx)"
printf '%-6s %12s %12s\n' linux "$lin_rx" "$lin_tx"
printf '%-6s %12s %12s\n' ovs "$ovs_rx" "$ovs_tx"
printf '%-6s %12s %12s\n' ratio \
    "$(python3 -c "print('%.2f' % ($ovs_rx / $lin_rx))")" \
    "$(python3 -c "print('%.2f' % ($ovs_tx / $lin_tx))")"
