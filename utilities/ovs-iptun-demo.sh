#! /bin/bash
# ovs-iptun-demo.sh: two Open vSwitch hosts joined by an ipip or fou tunnel.
#
# Each "host" is a network namespace running its own ovsdb-server and
# ovs-vswitchd with the userspace (netdev) datapath.  A veth pair is the
# underlay (192.0.2.1/24 <-> 192.0.2.2/24 on each host's br-ul); the
# overlay (10.10.0.1/24 <-> 10.10.0.2/24 on br-ov) crosses it in an OVS
# "ipip" (or "fou") port.  No kernel ipip or fou module is needed.
#
# usage: ovs-iptun-demo.sh [demo|up|ping|flows HOST|down]
#   demo        up, ping across the overlay, show the datapath flows, down
#   up          build the two hosts
#   ping        ping host b's overlay address from host a (and back)
#   flows HOST  datapath flows of host a or b
#   down        stop the daemons and delete the namespaces
#
# Environment: OVS_BUILDDIR (use the binaries of an Open vSwitch build tree,
# otherwise those on PATH), OVS_SRCDIR (for the database schema),
# IPTUN_DEMO_PREFIX (names of namespaces and state, default "iptun"),
# IPTUN_DEMO_DIR (state directory, default /tmp/$IPTUN_DEMO_PREFIX-demo),
# IPTUN_TYPE (tunnel type, default "ipip"), IPTUN_OPTIONS (extra tunnel
# options for ovs-vsctl, e.g. "options:dst_port=5555" for fou).

set -e
P=${IPTUN_DEMO_PREFIX:-iptun}
DIR=${IPTUN_DEMO_DIR:-/tmp/$P-demo}
TYPE=${IPTUN_TYPE:-ipip}
OPTIONS=${IPTUN_OPTIONS:-}

if test -n "${OVS_BUILDDIR:-}"; then
    PATH=$OVS_BUILDDIR/vswitchd:$OVS_BUILDDIR/ovsdb:$OVS_BUILDDIR/utilities:$PATH
    SCHEMA=${OVS_SRCDIR:?OVS_SRCDIR is needed with OVS_BUILDDIR}/vswitchd/vswitch.ovsschema
else
    SCHEMA=${OVS_SCHEMA:-/usr/local/share/openvswitch/vswitch.ovsschema}
fi

underlay_ip () { case $1 in a) echo 192.0.2.1 ;; b) echo 192.0.2.2 ;; esac; }
overlay_ip () { case $1 in a) echo 10.10.0.1 ;; b) echo 10.10.0.2 ;; esac; }
peer () { case $1 in a) echo b ;; b) echo a ;; esac; }

# on HOST CMD...: runs an OVS utility against HOST's daemons.
on () {
    local h=$1
    shift
    OVS_RUNDIR=$DIR/$h OVS_LOGDIR=$DIR/$h OVS_DBDIR=$DIR/$h \
        OVS_SYSCONFDIR=$DIR/$h "$@"
}
vsctl () { local h=$1; shift; on "$h" ovs-vsctl --db="unix:$DIR/$h/db.sock" "$@"; }
nsexec () { local h=$1; shift; ip netns exec "$P-$h" "$@"; }

start_host () {
    local h=$1 d=$DIR/$1
    mkdir -p "$d"
    ovsdb-tool create "$d/conf.db" "$SCHEMA"
    on "$h" ovsdb-server "$d/conf.db" -vconsole:off \
        --remote="punix:$d/db.sock" --pidfile="$d/ovsdb-server.pid" \
        --log-file="$d/ovsdb-server.log" --detach --no-chdir
    vsctl "$h" --no-wait init
    nsexec "$h" env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" \
        OVS_SYSCONFDIR="$d" ovs-vswitchd "unix:$d/db.sock" -vconsole:off \
        --pidfile="$d/ovs-vswitchd.pid" --log-file="$d/ovs-vswitchd.log" \
        --detach --no-chdir
}

setup_host () {
    local h=$1 remote mac
    remote=$(underlay_ip "$(peer "$h")")

    # Underlay bridge: the veth end and the host's underlay address.
    vsctl "$h" add-br br-ul -- set bridge br-ul datapath_type=netdev \
        -- add-port br-ul "ul-$h"
    nsexec "$h" ip addr add "$(underlay_ip "$h")/24" dev br-ul
    nsexec "$h" ip link set br-ul up

    # Overlay bridge: the tunnel port and the host's overlay address.
    # shellcheck disable=SC2086
    vsctl "$h" add-br br-ov -- set bridge br-ov datapath_type=netdev \
        -- add-port br-ov tun0 -- set Interface tun0 type="$TYPE" \
           options:remote_ip="$remote" ofport_request=1 $OPTIONS
    nsexec "$h" ip addr add "$(overlay_ip "$h")/24" dev br-ov
    nsexec "$h" ip link set br-ov mtu 1400 up
    # An L3 tunnel carries no Ethernet header and no ARP: the peer's
    # overlay address gets a static neighbour entry, and decapsulated
    # packets get br-ov's MAC as destination.
    nsexec "$h" ip neigh replace "$(overlay_ip "$(peer "$h")")" \
        lladdr 02:00:00:00:00:01 dev br-ov
    mac=$(nsexec "$h" cat /sys/class/net/br-ov/address)
    on "$h" ovs-ofctl del-flows br-ov
    on "$h" ovs-ofctl add-flow br-ov "in_port=LOCAL,ip,actions=output:tun0"
    on "$h" ovs-ofctl add-flow br-ov \
        "in_port=tun0,ip,actions=mod_dl_dst:$mac,LOCAL"
}

cmd_up () {
    cmd_down >/dev/null 2>&1 || true
    mkdir -p "$DIR"
    for h in a b; do
        ip netns add "$P-$h"
        # IPv4 only: keeps IPv6 autoconfiguration noise out of the flows.
        nsexec "$h" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
            net.ipv6.conf.default.disable_ipv6=1
    done
    ip link add "ul-a" netns "$P-a" type veth peer name "ul-b" netns "$P-b"
    for h in a b; do
        nsexec "$h" ip link set lo up
        nsexec "$h" ip link set "ul-$h" up
        start_host "$h"
        setup_host "$h"
    done
    echo "hosts $P-a and $P-b are up:"
    for h in a b; do
        echo "  $P-$h: underlay $(underlay_ip $h) on br-ul," \
             "overlay $(overlay_ip $h) on br-ov, $TYPE port tun0" \
             "to $(underlay_ip "$(peer $h)")"
    done
}

cmd_ping () {
    local ok=1 h
    for h in a b; do
        # The first packets wait for the underlay neighbour to resolve.
        if nsexec "$h" ping -c 3 -i 0.3 -W 2 "$(overlay_ip "$(peer "$h")")" \
               >/dev/null 2>&1 \
           || nsexec "$h" ping -c 3 -i 0.3 -W 2 \
                  "$(overlay_ip "$(peer "$h")")"; then
            echo "ping $P-$h -> $(overlay_ip "$(peer "$h")") over $TYPE: ok"
        else
            echo "ping $P-$h -> $(overlay_ip "$(peer "$h")") over $TYPE: FAILED"
            ok=0
        fi
    done
    test $ok = 1
}

cmd_flows () {
    on "${1:?flows needs a host, a or b}" ovs-appctl dpctl/dump-flows
}

cmd_down () {
    local h pid
    for h in a b; do
        for d in ovs-vswitchd ovsdb-server; do
            if test -f "$DIR/$h/$d.pid"; then
                pid=$(cat "$DIR/$h/$d.pid")
                kill "$pid" 2>/dev/null || true
                for _ in 1 2 3 4 5 6 7 8 9 10; do
                    kill -0 "$pid" 2>/dev/null || break
                    sleep 0.2
                done
                kill -9 "$pid" 2>/dev/null || true
            fi
        done
        ip netns del "$P-$h" 2>/dev/null || true
    done
    rm -rf "$DIR"
}

case ${1:-demo} in
demo)
    trap cmd_down EXIT
    cmd_up
    echo
    status=0
    cmd_ping || status=1
    for h in a b; do
        echo
        echo "datapath flows of $P-$h:"
        cmd_flows "$h"
    done
    exit $status
    ;;
up|ping|down) "cmd_$1" ;;
flows) cmd_flows "$2" ;;
*) sed -n '2,/^$/p' "$0" >&2; exit 1 ;;
esac
