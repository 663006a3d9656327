#! /bin/bash
# ovs-iptun-kbench.sh: TCP throughput of OVS's kernel datapath with ipip,
# fou and gue ports against Linux's own ipip, fou and gue devices, and
# against OVS's gre (packet_type=legacy_l3) and vxlan ports, in one run.
# Needs root, iperf3, openvswitch.ko and an installed iptun.ko; "make
# bench-kernel" runs it in the qemu guest (utilities/ovs-iptun-guest.sh).
#
# Two hosts of utilities/ovs-iptun-hosts.sh (network namespaces over a veth),
# host b always Linux (an ipip device, with "encap fou" or "encap gue" for
# fou and gue; a gre or vxlan device for those); host a either the same
# Linux device ("linux" rows) or OVS on the kernel datapath with a port of
# that type ("ovs" rows).  The veth is made a wire: each end cuts its GSO
# packets into segments (TSO and GSO off, checksums left to offload, as a
# NIC without tunnel segmentation), so that the receiver gets one packet per
# segment; with GRO on, both ends poll them with NAPI and GRO merges them
# (for fou and gue on the tunnel's UDP socket), with GRO off they do not.
#
# Overlay MTU 1400 everywhere; iperf3 for IPTUN_KBENCH_TIME seconds (default
# 5) with 1 and 4 streams in each direction: "rx" is received (decapsulated)
# by host a, "tx" sent (encapsulated) by host a.  Prints Mbit/s, the ratios
# ovs/linux (and ipip/gre, fou/vxlan, gue/vxlan for OVS), and for the rx
# runs with 1 stream how many packets host a's tunnel device decapsulated
# per segment on the wire (GRO's aggregation).  IPTUN_KBENCH_ROWS chooses
# rows ("linux-ipip ovs-ipip ..."; default all).

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
T=${IPTUN_KBENCH_TIME:-5}
ROWS=${IPTUN_KBENCH_ROWS:-linux-ipip ovs-ipip linux-fou ovs-fou linux-gue
                          ovs-gue ovs-gre ovs-vxlan}
export IPTUN_HOSTS_DIR=/tmp/kb-hosts
out=${IPTUN_KBENCH_OUT:-/tmp/kbench}
rm -rf "$out"
mkdir -p "$out"

hosts () { bash "$iptun_dir/ovs-iptun-hosts.sh" "$@"; }

# configure TYPE: the hosts fixture's options for a tunnel TYPE into UP; DEV:
# host a's device that decapsulates (for an OVS host).
configure () {
    UP=(--netns kb --datapath system --peer linux --mtu 1400 --type "$1")
    case $1 in
    ipip) DEV=ipip_sys ;;
    fou|gue)
        UP+=(--options options:dst_port=5555
             --linux-dev "ipip encap $1 encap-sport auto encap-dport 5555"
             --linux-fou "5555 $(test "$1" = fou && echo ipproto 4 || echo gue)")
        DEV=${1}_sys_5555
        ;;
    gre)
        UP+=(--options options:packet_type=legacy_l3 --linux-dev gre)
        DEV=gre_sys
        ;;
    vxlan) UP+=(--linux-dev vxlan) DEV=vxlan_sys_4789 ;;
    esac
}

# wire GRO: both veth ends segment, with GRO on or off.
wire () {
    ip netns exec kb-a ethtool -K to-b tx on tso off gso off gro "$1" \
        >/dev/null
    ip netns exec kb-b ethtool -K to-a tx on tso off gso off gro "$1" \
        >/dev/null
}

# dev_stat NAMESPACE DEVICE COUNTER: a device counter.
dev_stat () { ip netns exec "$1" cat "/sys/class/net/$2/statistics/$3"; }

# run ROW GRO: the row's eight numbers for GRO on or off.
run () {
    local row=$1 gro=$2 kind=${1%%-*} dev n seg0 dec0 p
    wire "$gro"
    dev=$DEV
    test "$kind" = ovs || dev=tun0
    for n in 1 4; do
        seg0=$(dev_stat kb-b to-a tx_packets)
        dec0=$(dev_stat kb-a "$dev" rx_packets)
        iptun_iperf_rate kb-a 10.10.0.1 kb-b "$T" "$n" \
            > "$out/$row.$gro.rx$n"
        if test "$n" = 1; then
            $iptun_py -c "print('%.3f' % (($(dev_stat kb-a "$dev" rx_packets) - \
                $dec0) / ($(dev_stat kb-b to-a tx_packets) - $seg0)))" \
                > "$out/$row.$gro.agg"
        fi
        iptun_iperf_rate kb-b 10.10.0.2 kb-a "$T" "$n" \
            > "$out/$row.$gro.tx$n"
    done
    p=$(cat "$out/$row.$gro".{rx1,rx4,tx1,tx4} | tr '\n' ' ')
    echo "$row GRO $gro: rx1 rx4 tx1 tx4 $p, decapsulated per segment" \
         "$(cat "$out/$row.$gro.agg")" >&2
}

trap 'hosts down >/dev/null 2>&1 || true' EXIT
for row in $ROWS; do
    configure "${row#*-}"
    hosts up "${UP[@]}" --host-a "${row%%-*}" >/dev/null
    hosts ping >/dev/null
    run "$row" off
    run "$row" on
    hosts down >/dev/null
done

virt=$(systemd-detect-virt --vm 2>/dev/null || true)
echo "TCP, iperf3 ${T} s, Mbit/s (kernel $(uname -r), $(nproc) CPUs," \
     "virtual machine: ${virt:-unknown} (qemu: TCG, kvm: KVM)), host b Linux;" \
     "rx: host a receives"
printf '%-14s %31s   %31s\n' "" "GRO off" "GRO on"
printf '%-14s %7s %7s %7s %7s   %7s %7s %7s %7s\n' "" \
    "rx 1" "rx 4" "tx 1" "tx 4" "rx 1" "rx 4" "tx 1" "tx 4"
val () { cat "$out/$1.$2.$3" 2>/dev/null || echo -; }
for row in $ROWS; do
    printf '%-14s' "$row"
    for gro in off on; do
        for c in rx1 rx4 tx1 tx4; do
            printf ' %7s' "$(val "$row" "$gro" "$c")"
        done
        printf '  '
    done
    echo
done
ratio () {
    local a=$1 b=$2 gro c x y
    printf '%-14s' "$a/${b#*-}"
    for gro in off on; do
        for c in rx1 rx4 tx1 tx4; do
            x=$(val "$a" "$gro" "$c") y=$(val "$b" "$gro" "$c")
            if test "$x" = - || test "$y" = - || test "$y" = 0; then
                printf ' %7s' -
            else
                printf ' %7s' "$($iptun_py -c "print('%.2f' % ($x / $y))")"
            fi
        done
        printf '  '
    done
    echo
}
echo "ratios:"
ratio ovs-ipip linux-ipip
ratio ovs-fou linux-fou
ratio ovs-gue linux-gue
ratio ovs-ipip ovs-gre
ratio ovs-fou ovs-vxlan
ratio ovs-gue ovs-vxlan
echo "host a's tunnel device: packets decapsulated per segment on the wire" \
     "(rx, 1 stream; GRO off, on):"
for row in $ROWS; do
    printf '%-14s %7s %7s\n' "$row" "$(val "$row" off agg)" \
        "$(val "$row" on agg)"
done
