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

linux_up () {
    ip netns add kl-a; ip netns add kl-b
    ip link add to-b netns kl-a type veth peer name to-a netns kl-b
    for h in a b; do
        n=1; test $h = b && n=2
        r=2; test $h = b && r=1
        ip -n kl-$h link set lo up
        ip -n kl-$h link set to-$( test $h = a && echo b || echo a ) up
        ip -n kl-$h addr add 192.0.2.$n/24 dev to-$( test $h = a && echo b || echo a )
        ip -n kl-$h link add tun0 type ipip local 192.0.2.$n remote 192.0.2.$r ttl 64
        ip -n kl-$h addr add 10.10.0.$n/24 dev tun0
        ip -n kl-$h link set tun0 mtu 1400 up
    done
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
