#! /bin/bash
# ovs-iptun-kbench.sh: TCP throughput of OVS's kernel datapath with an ipip
# port against a Linux ipip device, in the same run.  Needs root, iperf3,
# openvswitch.ko and an installed iptun.ko; "make bench-kernel" runs it
# in the qemu guest (utilities/ovs-iptun-guest.sh).
#
# Two hosts of utilities/ovs-iptun-hosts.sh (network namespaces over a veth),
# host b a Linux ipip device:
#   linux: host a a Linux ipip device too (IPTUN_HOST_A=linux)
#   ovs:   host a runs OVS (kernel datapath) with an ipip port
#          (IPTUN_DATAPATH=system)
#
# Both use an overlay MTU of 1400 and run iperf3 for IPTUN_KBENCH_TIME
# seconds (default 10) in each direction: "a<-b" is received (decapsulated)
# by a, "a->b" sent (encapsulated) by a.  Prints Mbit/s and ovs/linux.

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
T=${IPTUN_KBENCH_TIME:-10}
export IPTUN_DEMO_PREFIX=kb IPTUN_DEMO_DIR=/tmp/kb-hosts IPTUN_TYPE=ipip
export IPTUN_DATAPATH=system IPTUN_PEER=linux

hosts () { bash "$iptun_dir/ovs-iptun-hosts.sh" "$@"; }

rate () { iptun_iperf_rate "$1" "$2" "$3" "$T"; }

# hosts_up KIND-OF-A: the hosts, with checksums left to offload on the
# underlay veths.  (The fixture computes them in software, for the
# userspace datapath and for its captures; Linux ipip devices and the
# kernel datapath leave them to offload.)
hosts_up () {
    IPTUN_HOST_A=$1 hosts up >/dev/null
    ip netns exec kb-a ethtool -K to-b tx on >/dev/null
    ip netns exec kb-b ethtool -K to-a tx on >/dev/null
    hosts ping >/dev/null
}

trap 'hosts down >/dev/null 2>&1 || true' EXIT
hosts_up linux
lin_rx=$(rate kb-a 10.10.0.1 kb-b)
lin_tx=$(rate kb-b 10.10.0.2 kb-a)

hosts_up ovs
ovs_rx=$(rate kb-a 10.10.0.1 kb-b)
ovs_tx=$(rate kb-b 10.10.0.2 kb-a)

echo "TCP over ipip, iperf3 ${T} s, Mbit/s (kernel $(uname -r), $(nproc) CPUs)"
printf '%-6s %12s %12s\n' "" "a<-b (rx)" "a->b (tx)"
printf '%-6s %12s %12s\n' linux "$lin_rx" "$lin_tx"
printf '%-6s %12s %12s\n' ovs "$ovs_rx" "$ovs_tx"
printf '%-6s %12s %12s\n' ratio \
    "$($iptun_py -c "print('%.2f' % ($ovs_rx / $lin_rx))")" \
    "$($iptun_py -c "print('%.2f' % ($ovs_tx / $lin_tx))")"
