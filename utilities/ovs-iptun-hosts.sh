#! /bin/bash
# ovs-iptun-hosts.sh: the hosts fixture: Open vSwitch hosts joined by ipip or
# fou tunnels, in network namespaces over veth.  Used by the demo
# (utilities/ovs-iptun-demo.sh), the host and guest system tests
# (tests/system-iptun*.at, IPTUN_HOSTS_UP), the kernel bench
# (utilities/ovs-iptun-kbench.sh) and the TSO bench
# (utilities/ovs-iptun-tsobench.sh).
#
# Each "host" is a network namespace.  Host a runs its own ovsdb-server and
# ovs-vswitchd with the userspace (netdev) datapath, or the kernel datapath
# with IPTUN_DATAPATH=system (needs openvswitch.ko and ovs-iptun's
# iptun.ko for the tunnel port), or with IPTUN_HOST_A=linux is a Linux
# kernel ipip device like its one peer; each peer (b, and c...
# with IPTUN_PEERS) is another such OVS host or, with IPTUN_PEER=linux, a
# Linux kernel ipip (or ipip-over-fou) device.  Veth pairs from host a's
# underlay bridge br-ul to each peer are the underlay (192.0.2.1 for a,
# 192.0.2.2 for b, ...); the overlay (10.10.0.1 for a, 10.10.0.2 for b, ...)
# crosses it in an OVS "ipip" (or "fou") port, tun0.  With one peer, host
# a's tun0 has a fixed remote_ip; with several, remote_ip=flow and OpenFlow
# chooses the peer with set_field:...->tun_dst.  The default (two OVS hosts)
# needs no kernel ipip or fou module.
#
# usage: ovs-iptun-hosts.sh up|ping|flows HOST|vsctl HOST ARGS...|
#                           appctl HOST ARGS...|list|down
#   up          build the hosts (tearing down any left over)
#   ping        ping every peer's overlay address from host a, and back
#   flows HOST  datapath flows of an OVS host (a, b, ...)
#   vsctl HOST ARGS...   ovs-vsctl against an OVS host's database
#   appctl HOST ARGS...  ovs-appctl against an OVS host's ovs-vswitchd
#   list        one line per host: HOST NAMESPACE KIND (ovs or linux)
#   down        stop the daemons and delete the namespaces
#
# Environment: OVS_BUILDDIR (use the binaries of an Open vSwitch build tree,
# otherwise those on PATH), OVS_SRCDIR (for the database schema),
# IPTUN_DEMO_PREFIX (names of namespaces and state, default "iptun"),
# IPTUN_DEMO_DIR (state directory, default /tmp/$IPTUN_DEMO_PREFIX-demo),
# IPTUN_TYPE (tunnel type, default "ipip"), IPTUN_OPTIONS (extra OVS tunnel
# options, e.g. "options:dst_port=5555" for fou), IPTUN_PEERS (peer hosts,
# default "b"), IPTUN_PEER ("ovs", the default, or "linux"), IPTUN_HOST_A
# ("ovs", the default, or "linux": then IPTUN_PEER must be "linux" and there
# is one peer), IPTUN_LINUX_OPTIONS (extra "ip link add ... type ipip"
# options of a Linux host, e.g. "encap fou encap-sport auto encap-dport 5555
# encap-csum"), IPTUN_LINUX_FOU_PORT (a Linux host's "ip fou add port"
# receive port), IPTUN_LINUX_FOU_TYPE (what it receives there: "ipproto 4",
# the default, or "gue"), IPTUN_LINUX_KIND (the Linux host's device:
# "ipip", the default, "gre" (L3, for an OVS "gre" port with
# options:packet_type=legacy_l3) or "vxlan" (VNI 0, UDP port 4789, an
# Ethernet device: it takes the MAC address that the OVS host's overlay
# neighbour entry gives it, and a static one for the OVS host's address)),
# IPTUN_DATAPATH (the OVS hosts' datapath_type: "netdev", the
# default, or "system"), IPTUN_OVERLAY_MTU (the overlay interfaces' MTU;
# "default", the default, leaves OVS's 1500 and Linux's own, the underlay's
# less the tunnel's headers: both datapaths answer packets too big for the
# tunnel with ICMP, so path MTU discovery finds the rest),
# IPTUN_UNDERLAY_MTU (the veths' and br-ul's MTU; "default": 1500),
# IPTUN_UNDERLAY ("ipv4", the default, or "ipv6": the underlay addresses
# are 2001:db8:2::1 for a, 2001:db8:2::2 for b, ...; OVS hosts only),
# IPTUN_TSO ("on":
# the OVS hosts start with other_config:userspace-tso-enable=true, so that
# the overlay's TCP reaches the tunnel port in TSO packets of up to 64 KB
# through br-ov's tap), IPTUN_GRO ("true" or "false": the OVS hosts'
# other_config:userspace-gro-enable; default unset: on with TSO).
# (IPTUN_DEMO_PREFIX and IPTUN_DEMO_DIR keep the names they had when the
# demo held this fixture.)

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
P=${IPTUN_DEMO_PREFIX:-iptun}
DIR=${IPTUN_DEMO_DIR:-/tmp/$P-demo}
TYPE=${IPTUN_TYPE:-ipip}
OPTIONS=${IPTUN_OPTIONS:-}
PEERS=${IPTUN_PEERS:-b}
PEER_KIND=${IPTUN_PEER:-ovs}
A_KIND=${IPTUN_HOST_A:-ovs}
DP_TYPE=${IPTUN_DATAPATH:-netdev}
OVERLAY_MTU=${IPTUN_OVERLAY_MTU:-default}
UNDERLAY_MTU=${IPTUN_UNDERLAY_MTU:-default}
TSO=${IPTUN_TSO:-off}
GRO=${IPTUN_GRO:-}
UNDERLAY=${IPTUN_UNDERLAY:-ipv4}

if test -n "${OVS_BUILDDIR:-}"; then
    PATH=$(iptun_ovs_path "$OVS_BUILDDIR")
    SCHEMA=${OVS_SRCDIR:?OVS_SRCDIR is needed with OVS_BUILDDIR}/vswitchd/vswitch.ovsschema
else
    SCHEMA=${OVS_SCHEMA:-/usr/local/share/openvswitch/vswitch.ovsschema}
fi

# Host a is number 1, b 2, c 3...
host_num () { printf '%d' "'$1"; }
underlay_ip () {
    if test "$UNDERLAY" = ipv6; then
        echo "2001:db8:2::$(( $(host_num "$1") - 96 ))"
    else
        echo "192.0.2.$(( $(host_num "$1") - 96 ))"
    fi
}
# underlay_addr HOST DEVICE: HOST's underlay address on DEVICE (IPv6 at
# once: no duplicate address detection on a test network).
underlay_addr () {
    if test "$UNDERLAY" = ipv6; then
        # iptun_netns_add turned IPv6 off in the namespace.
        nsexec "$1" sysctl -qw "net.ipv6.conf.$2.disable_ipv6=0"
        nsexec "$1" ip addr add "$(underlay_ip "$1")/64" dev "$2" nodad
    else
        nsexec "$1" ip addr add "$(underlay_ip "$1")/24" dev "$2"
    fi
}
overlay_ip () { echo "10.10.0.$(( $(host_num "$1") - 96 ))"; }
host_kind () {
    if test "$1" = a; then echo "$A_KIND"; else echo "$PEER_KIND"; fi
}
is_ovs () { test "$(host_kind "$1")" = ovs; }

# on HOST CMD...: runs an OVS utility against HOST's daemons.
on () { local h=$1; shift; iptun_on "$DIR/$h" "$@"; }
vsctl () { local h=$1; shift; on "$h" ovs-vsctl --db="unix:$DIR/$h/db.sock" "$@"; }
nsexec () { local h=$1; shift; ip netns exec "$P-$h" "$@"; }

start_ovs () {
    iptun_ovsdb_start "$DIR/$1" "$SCHEMA"
    if test "$TSO" = on; then
        vsctl "$1" --no-wait set Open_vSwitch . \
            other_config:userspace-tso-enable=true
    fi
    if test -n "$GRO"; then
        vsctl "$1" --no-wait set Open_vSwitch . \
            other_config:userspace-gro-enable="$GRO"
    fi
    iptun_vswitchd_start "$DIR/$1" "$P-$1"
}

# overlay_mtu HOST DEVICE: DEVICE gets IPTUN_OVERLAY_MTU.
overlay_mtu () {
    if test "$OVERLAY_MTU" != default; then
        nsexec "$1" ip link set "$2" mtu "$OVERLAY_MTU"
    fi
}

# setup_ovs HOST REMOTE UNDERLAY-PORT...: OVS host HOST, tunnel to REMOTE
# (an underlay address or "flow").
setup_ovs () {
    local h=$1 remote=$2 mac p
    shift 2

    # Underlay bridge: the veth ends and the host's underlay address.
    vsctl "$h" add-br br-ul -- set bridge br-ul datapath_type="$DP_TYPE"
    for p; do
        vsctl "$h" add-port br-ul "$p"
        # The kernel leaves outer UDP checksums to offload and veths pass
        # them on unfinished: compute them here, as a NIC would, so that
        # the peer's captures show them.
        if test "$DP_TYPE" = system; then
            nsexec "$h" ethtool -K "$p" tx off >/dev/null
        fi
    done
    # In the userspace datapath the kernel sees the veth ends too and would
    # answer ARP for br-ul's address there, with the veth's MAC (arp_ignore
    # 0): a peer that caches that MAC sends its tunnel packets past br-ul's
    # tunnel termination, to the host.  Answer on br-ul only, as a NIC
    # given to DPDK would.
    nsexec "$h" sysctl -qw net.ipv4.conf.all.arp_ignore=1
    underlay_addr "$h" br-ul
    if test "$UNDERLAY_MTU" != default; then
        vsctl "$h" set Interface br-ul mtu_request="$UNDERLAY_MTU"
    fi
    nsexec "$h" ip link set br-ul up

    # Overlay bridge: the tunnel port and the host's overlay address.
    # shellcheck disable=SC2086
    vsctl "$h" add-br br-ov -- set bridge br-ov datapath_type="$DP_TYPE" \
        -- add-port br-ov tun0 -- set Interface tun0 type="$TYPE" \
           options:remote_ip="$remote" ofport_request=1 $OPTIONS
    nsexec "$h" ip addr add "$(overlay_ip "$h")/24" dev br-ov
    overlay_mtu "$h" br-ov
    nsexec "$h" ip link set br-ov up
    mac=$(nsexec "$h" cat /sys/class/net/br-ov/address)
    on "$h" ovs-ofctl del-flows br-ov
    on "$h" ovs-ofctl add-flow br-ov \
        "in_port=tun0,ip,actions=mod_dl_dst:$mac,LOCAL"
}

# route_ovs HOST PEER [flow]: HOST's overlay traffic for PEER goes into
# tun0 (to PEER's underlay address if tun0's remote_ip is "flow").  An L3
# tunnel carries no Ethernet header and no ARP: the peer's overlay address
# gets a static neighbour entry, and decapsulated packets get br-ov's MAC.
route_ovs () {
    local h=$1 peer=$2 actions=output:tun0 field=tun_dst
    if test "${3:-}" = flow; then
        test "$UNDERLAY" = ipv6 && field=tun_ipv6_dst
        actions="set_field:$(underlay_ip "$peer")->$field,output:tun0"
    fi
    nsexec "$h" ip neigh replace "$(overlay_ip "$peer")" \
        lladdr 02:00:00:00:00:01 dev br-ov
    on "$h" ovs-ofctl add-flow br-ov \
        "in_port=LOCAL,ip,nw_dst=$(overlay_ip "$peer"),actions=$actions"
}

# setup_linux HOST PEER: a Linux ipip (or IPTUN_LINUX_KIND) device on HOST
# to PEER, over fou if IPTUN_LINUX_FOU_PORT is set.
setup_linux () {
    local h=$1 peer=$2 kind=${IPTUN_LINUX_KIND:-ipip}
    # The userspace datapath reads the veth with AF_PACKET, which does not
    # complete checksums left to offload: the Linux side must compute them.
    nsexec "$h" ethtool -K "to-$peer" tx off >/dev/null
    underlay_addr "$h" "to-$peer"
    if test -n "${IPTUN_LINUX_FOU_PORT:-}"; then
        # fou has no module alias for its generic netlink family.
        modprobe fou
        # shellcheck disable=SC2086  # "ipproto 4" is two arguments
        nsexec "$h" ip fou add port "$IPTUN_LINUX_FOU_PORT" \
            ${IPTUN_LINUX_FOU_TYPE:-ipproto 4}
    fi
    case $kind in
    ipip|gre)
        # shellcheck disable=SC2086
        nsexec "$h" ip link add tun0 type "$kind" \
            local "$(underlay_ip "$h")" remote "$(underlay_ip "$peer")" \
            ttl 64 ${IPTUN_LINUX_OPTIONS:-}
        ;;
    vxlan)
        # shellcheck disable=SC2086
        nsexec "$h" ip link add tun0 address 02:00:00:00:00:01 type vxlan \
            id 0 local "$(underlay_ip "$h")" remote "$(underlay_ip "$peer")" \
            dstport 4789 ttl 64 ${IPTUN_LINUX_OPTIONS:-}
        ;;
    *)
        echo "$0: IPTUN_LINUX_KIND: ipip, gre or vxlan, not $kind" >&2
        return 1
        ;;
    esac
    nsexec "$h" ip addr add "$(overlay_ip "$h")/24" dev tun0
    overlay_mtu "$h" tun0
    nsexec "$h" ip link set tun0 up
}

# neigh_linux HOST PEER: an Ethernet tunnel (vxlan) on Linux host HOST
# reaches OVS host PEER's overlay address at PEER's br-ov, without ARP
# (OVS's flows take IP alone).
neigh_linux () {
    if test "${IPTUN_LINUX_KIND:-ipip}" = vxlan && is_ovs "$2"; then
        nsexec "$1" ip neigh replace "$(overlay_ip "$2")" \
            lladdr "$(nsexec "$2" cat /sys/class/net/br-ov/address)" dev tun0
    fi
}

cmd_up () {
    local h n_peers remote peer
    n_peers=$(echo "$PEERS" | wc -w)
    if test "$A_KIND" = linux \
       && { test "$PEER_KIND" != linux || test "$n_peers" != 1; }; then
        echo "$0: IPTUN_HOST_A=linux needs IPTUN_PEER=linux and one peer" >&2
        return 1
    fi
    if test "$UNDERLAY" = ipv6 \
       && { test "$A_KIND" != ovs || test "$PEER_KIND" != ovs; }; then
        echo "$0: IPTUN_UNDERLAY=ipv6 is for OVS hosts only" >&2
        return 1
    fi
    cmd_down >/dev/null 2>&1 || true
    mkdir -p "$DIR"
    for h in a $PEERS; do
        iptun_netns_add "$P-$h"
    done
    for h in $PEERS; do
        ip link add "to-$h" netns "$P-a" type veth peer name to-a \
            netns "$P-$h"
        if test "$UNDERLAY_MTU" != default; then
            nsexec a ip link set "to-$h" mtu "$UNDERLAY_MTU"
            nsexec "$h" ip link set to-a mtu "$UNDERLAY_MTU"
        fi
        nsexec a ip link set "to-$h" up
        nsexec "$h" ip link set to-a up
    done

    remote=flow
    test "$n_peers" = 1 && remote=$(underlay_ip "$PEERS")
    if is_ovs a; then
        start_ovs a
        # shellcheck disable=SC2046
        setup_ovs a "$remote" $(for h in $PEERS; do echo "to-$h"; done)
    else
        setup_linux a "$PEERS"
    fi
    for h in $PEERS; do
        is_ovs a && route_ovs a "$h" "$remote"
        if is_ovs "$h"; then
            start_ovs "$h"
            setup_ovs "$h" "$(underlay_ip a)" to-a
            route_ovs "$h" a
        else
            setup_linux "$h" a
            neigh_linux "$h" a
        fi
    done

    echo "hosts are up:"
    for h in a $PEERS; do
        if is_ovs "$h"; then
            peer=$(underlay_ip a)
            test "$h" != a || peer=$remote
            echo "  $P-$h: OVS, underlay $(underlay_ip "$h") on br-ul," \
                 "overlay $(overlay_ip "$h") on br-ov, $TYPE port tun0 to" \
                 "$peer"
        else
            peer=a
            test "$h" != a || peer=$PEERS
            echo "  $P-$h: Linux, underlay $(underlay_ip "$h") on" \
                 "to-$peer, overlay $(overlay_ip "$h") on ipip device tun0" \
                 "to $(underlay_ip "$peer")"
        fi
    done
}

# ping_one FROM TO: pings TO's overlay address from FROM.
ping_one () {
    local from=$1 to=$2
    # The first packets wait for the underlay neighbour to resolve.
    if nsexec "$from" ping -c 3 -i 0.3 -W 2 "$(overlay_ip "$to")" \
           >/dev/null 2>&1 \
       || nsexec "$from" ping -c 3 -i 0.3 -W 2 "$(overlay_ip "$to")"; then
        echo "ping $P-$from -> $(overlay_ip "$to") over $TYPE: ok"
    else
        echo "ping $P-$from -> $(overlay_ip "$to") over $TYPE: FAILED"
        return 1
    fi
}

cmd_ping () {
    local ok=0 h
    for h in $PEERS; do
        ping_one a "$h" || ok=1
        ping_one "$h" a || ok=1
    done
    return $ok
}

cmd_flows () {
    on "${1:?flows needs an OVS host: a, b, ...}" ovs-appctl dpctl/dump-flows
}

cmd_list () {
    local h
    for h in a $PEERS; do
        echo "$h $P-$h $(host_kind "$h")"
    done
}

cmd_down () {
    local h
    for h in a b c d e f; do
        iptun_ovs_stop "$DIR/$h"
        iptun_netns_del "$P-$h"
    done
    rm -rf "$DIR"
}

case ${1:-} in
up|ping|list|down) "cmd_$1" ;;
flows) cmd_flows "${2:-}" ;;
vsctl) shift; vsctl "$@" ;;
appctl) shift; h=$1; shift; on "$h" ovs-appctl "$@" ;;
*) iptun_usage; exit 1 ;;
esac
