#! /bin/bash
# ovs-iptun-hosts.sh: the hosts fixture: Open vSwitch hosts joined by a
# tunnel, in network namespaces over veth.  Used by the demo
# (utilities/ovs-iptun-demo.sh), the host and guest system tests
# (tests/system-iptun*.at, IPTUN_HOSTS_UP), the kernel bench
# (utilities/ovs-iptun-kbench.sh) and the TSO bench
# (utilities/ovs-iptun-tsobench.sh).
#
# Each "host" is a network namespace.  Host a runs its own ovsdb-server and
# ovs-vswitchd, or is a Linux tunnel device like its one peer (--host-a
# linux); each peer (b, and c... with --peers) is another such OVS host
# or a Linux tunnel device (--peer linux).  Veth pairs from host a's
# underlay bridge br-ul to each peer are the underlay (192.0.2.1 for a,
# 192.0.2.2 for b, ...); the overlay (10.10.0.1 for a, 10.10.0.2 for b, ...)
# crosses it in an OVS tunnel port, tun0.  With one peer, host a's tun0 has
# a fixed remote_ip; with several, remote_ip=flow and OpenFlow chooses the
# peer with set_field:...->tun_dst.  The default (two OVS hosts, ipip,
# userspace datapath) needs no kernel tunnel module.
#
# usage: ovs-iptun-hosts.sh up [OPTION...]|ping|flows HOST|
#                           vsctl HOST ARGS...|appctl HOST ARGS...|list|down
#   up          builds the hosts (tearing down any left over in the state
#               directory) as the options say, and records them there, so
#               that the other commands need no options
#   ping        pings every peer's overlay address from host a, and back
#   flows HOST  datapath flows of an OVS host (a, b, ...)
#   vsctl HOST ARGS...   ovs-vswitchd's database of an OVS host: ovs-vsctl
#   appctl HOST ARGS...  ovs-appctl against an OVS host's ovs-vswitchd
#   list        one line per host: HOST NAMESPACE KIND (ovs or linux)
#   down        stops the daemons, deletes the namespaces and the state
#
# Options of "up" (each one's default first):
#   --netns PREFIX      namespaces PREFIX-a, PREFIX-b... (iptun)
#   --type TYPE         the OVS hosts' tunnel port type (ipip; fou, gue,
#                       gre, vxlan...)
#   --options SETTINGS  more settings of the tunnel Interface, as ovs-vsctl
#                       takes them ("options:dst_port=5555 options:csum=true")
#   --peers HOSTS       the peers ("b"; "b c" for two)
#   --peer KIND         what the peers are: ovs or linux
#   --host-a KIND       what host a is: ovs or linux (then the one peer is
#                       linux too)
#   --linux-dev "KIND [ARGS]"  a Linux host's tunnel device: ip link's type
#                       (ipip; gre: L3, for an OVS "gre" port with
#                       options:packet_type=legacy_l3; vxlan: VNI 0, UDP
#                       port 4789, with the MAC address the OVS host's
#                       neighbour entry gives it) and more "ip link add"
#                       arguments ("ipip encap fou encap-sport auto
#                       encap-dport 5555 encap-csum")
#   --linux-fou "PORT [ipproto 4|gue]"  a Linux host receives fou (ipproto
#                       4, the default) or GUE on PORT ("ip fou add")
#   --datapath TYPE     the OVS hosts' datapath_type: netdev or system (the
#                       kernel datapath: needs openvswitch.ko and ovs-iptun's
#                       iptun.ko)
#   --underlay ipv4|ipv6  IPv6 underlay: 2001:db8:2::1 for a, ::2 for b...
#                       (OVS hosts only)
#   --mtu default|N     the overlay interfaces' MTU: "default" leaves OVS's
#                       1500 and Linux's own (the underlay's less the
#                       tunnel's headers): both datapaths answer packets too
#                       big for the tunnel with ICMP, so path MTU discovery
#                       finds the rest
#   --underlay-mtu default|N  the veths' and br-ul's MTU (default: 1500)
#   --other-config KEY=VALUE  other_config of each OVS host, set before
#                       ovs-vswitchd starts (e.g. userspace-tso-enable=true,
#                       userspace-gro-enable=false); repeatable
#
# Environment: IPTUN_HOSTS_DIR (the state directory: daemons' files and the
# recorded options; default /tmp/iptun-hosts), OVS_BUILDDIR (use an Open
# vSwitch build tree's programs, otherwise those on PATH) and OVS_SRCDIR
# (its source, for the database schema), both read by "up" only.

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
DIR=${IPTUN_HOSTS_DIR:-/tmp/iptun-hosts}
STATE=$DIR/hosts.conf

# The options of "up", with their defaults; "up" records them in $STATE.
P=iptun
TYPE=ipip
OPTIONS=
PEERS=b
PEER_KIND=ovs
A_KIND=ovs
LINUX_DEV=ipip
LINUX_FOU=
DP_TYPE=netdev
UNDERLAY=ipv4
OVERLAY_MTU=default
UNDERLAY_MTU=default
OTHER_CONFIG=
HOSTS_PATH=$PATH
SCHEMA=

die () { echo "$0: $*" >&2; exit 1; }

# parse_up OPTION...: the options of "up" into the variables above.
parse_up () {
    local kind
    while test $# -gt 0; do
        test $# -ge 2 || die "$1 needs a value"
        case $1 in
        --netns) P=$2 ;;
        --type) TYPE=$2 ;;
        --options) OPTIONS=$2 ;;
        --peers) PEERS=$2 ;;
        --peer) PEER_KIND=$2 ;;
        --host-a) A_KIND=$2 ;;
        --linux-dev) LINUX_DEV=$2 ;;
        --linux-fou) LINUX_FOU=$2 ;;
        --datapath) DP_TYPE=$2 ;;
        --underlay) UNDERLAY=$2 ;;
        --mtu) OVERLAY_MTU=$2 ;;
        --underlay-mtu) UNDERLAY_MTU=$2 ;;
        --other-config) OTHER_CONFIG="$OTHER_CONFIG other_config:$2" ;;
        *) die "up: unknown option $1 (see $0's header)" ;;
        esac
        shift 2
    done
    for kind in "$PEER_KIND" "$A_KIND"; do
        case $kind in
        ovs|linux) ;;
        *) die "--peer and --host-a: ovs or linux, not $kind" ;;
        esac
    done
    case ${LINUX_DEV%% *} in
    ipip|gre|vxlan) ;;
    *) die "--linux-dev: ipip, gre or vxlan, not ${LINUX_DEV%% *}" ;;
    esac
    case $UNDERLAY in
    ipv4|ipv6) ;;
    *) die "--underlay: ipv4 or ipv6, not $UNDERLAY" ;;
    esac
    if test "$A_KIND" = linux \
       && { test "$PEER_KIND" != linux || test "$(echo "$PEERS" | wc -w)" != 1; }; then
        die "--host-a linux needs --peer linux and one peer"
    fi
    if test "$UNDERLAY" = ipv6 \
       && { test "$A_KIND" != ovs || test "$PEER_KIND" != ovs; }; then
        die "--underlay ipv6 is for OVS hosts only"
    fi
    if test -n "${OVS_BUILDDIR:-}"; then
        HOSTS_PATH=$(iptun_ovs_path "$OVS_BUILDDIR")
        SCHEMA=${OVS_SRCDIR:?OVS_SRCDIR is needed with OVS_BUILDDIR}/vswitchd/vswitch.ovsschema
    else
        SCHEMA=${OVS_SCHEMA:-/usr/local/share/openvswitch/vswitch.ovsschema}
    fi
    PATH=$HOSTS_PATH
}

# The variables "up" records, and reads back for the other commands.
STATE_VARS="P TYPE OPTIONS PEERS PEER_KIND A_KIND LINUX_DEV LINUX_FOU DP_TYPE
            UNDERLAY OVERLAY_MTU UNDERLAY_MTU OTHER_CONFIG HOSTS_PATH SCHEMA"
save_state () {
    local v
    mkdir -p "$DIR"
    for v in $STATE_VARS; do
        printf '%s=%q\n' "$v" "${!v}"
    done > "$STATE"
}
load_state () {
    test -f "$STATE" || return 1
    # shellcheck disable=SC1090
    . "$STATE"
    PATH=$HOSTS_PATH
}

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
    if test -n "$OTHER_CONFIG"; then
        # shellcheck disable=SC2086
        vsctl "$1" --no-wait set Open_vSwitch . $OTHER_CONFIG
    fi
    iptun_vswitchd_start "$DIR/$1" "$P-$1"
}

# overlay_mtu HOST DEVICE: DEVICE gets the overlay's MTU (--mtu).
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

# setup_linux HOST PEER: a Linux tunnel device (--linux-dev) on HOST to PEER,
# over fou if --linux-fou.
setup_linux () {
    local h=$1 peer=$2 kind=${LINUX_DEV%% *} args= fou_type="ipproto 4"
    test "$kind" = "$LINUX_DEV" || args=${LINUX_DEV#* }
    # The userspace datapath reads the veth with AF_PACKET, which does not
    # complete checksums left to offload: the Linux side must compute them.
    nsexec "$h" ethtool -K "to-$peer" tx off >/dev/null
    underlay_addr "$h" "to-$peer"
    if test -n "$LINUX_FOU"; then
        test "${LINUX_FOU%% *}" = "$LINUX_FOU" || fou_type=${LINUX_FOU#* }
        # fou has no module alias for its generic netlink family.
        modprobe fou
        # shellcheck disable=SC2086  # "ipproto 4" is two arguments
        nsexec "$h" ip fou add port "${LINUX_FOU%% *}" $fou_type
    fi
    case $kind in
    ipip|gre)
        # shellcheck disable=SC2086
        nsexec "$h" ip link add tun0 type "$kind" \
            local "$(underlay_ip "$h")" remote "$(underlay_ip "$peer")" \
            ttl 64 $args
        ;;
    vxlan)
        # shellcheck disable=SC2086
        nsexec "$h" ip link add tun0 address 02:00:00:00:00:01 type vxlan \
            id 0 local "$(underlay_ip "$h")" remote "$(underlay_ip "$peer")" \
            dstport 4789 ttl 64 $args
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
    if test "${LINUX_DEV%% *}" = vxlan && is_ovs "$2"; then
        nsexec "$1" ip neigh replace "$(overlay_ip "$2")" \
            lladdr "$(nsexec "$2" cat /sys/class/net/br-ov/address)" dev tun0
    fi
}

cmd_up () {
    local h n_peers remote peer
    n_peers=$(echo "$PEERS" | wc -w)
    # Hosts left over in the state directory, then any by the new names.
    (load_state && cmd_down) >/dev/null 2>&1 || true
    cmd_down >/dev/null 2>&1 || true
    save_state
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
                 "to-$peer, overlay $(overlay_ip "$h") on ${LINUX_DEV%% *}" \
                 "device tun0" \
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

need_state () {
    load_state || die "no hosts in $DIR (IPTUN_HOSTS_DIR): run \"$0 up\" first"
}

cmd=${1:-}
test $# = 0 || shift
case $cmd in
up) parse_up "$@"; cmd_up ;;
down) load_state || true; cmd_down ;;
ping|list) need_state; "cmd_$cmd" ;;
flows) need_state; cmd_flows "${1:-}" ;;
vsctl) need_state; vsctl "$@" ;;
appctl) need_state; h=${1:?appctl needs an OVS host: a, b, ...}; shift
        on "$h" ovs-appctl "$@" ;;
*) iptun_usage; exit 1 ;;
esac
