#! /bin/bash
# ovs-iptun-check-deb-guest.sh: the tests of "make check-deb", run by
# ovs-iptun-check-deb.sh as a service of a booted Debian 13 or 12 guest
# whose Debian openvswitch-switch is running, with ovs-iptun's packages in
# /srv/ovs-iptun-debs (apt installs them offline).  Each test prints
# "check-deb: NAME ok" or "check-deb: NAME FAILED" (its commands' output in
# $IPTUN_GUEST_RESULTS/check-deb.log), and the last line is "N passed, N
# failed, N skipped".  IPTUN_CHECK_DEB_STEPS chooses the steps below
# (default "upgrade userspace dkms reload remove"; "upgrade" alone serves
# for Debian's own packages too).  The tests, in order:
#
#  1. upgrade: Debian's Open vSwitch with a bridge, a gre port, other
#     configuration and an OpenFlow flow; then apt installs ours over it:
#     the services restart into 4.0.0, the database is the same one
#     (its _uuid), converted to 4.0's schema, with the bridge, the port
#     and the configuration; the flows before and after are recorded
#     (upgrade-before.txt, upgrade-after.txt): OpenFlow flows live in
#     ovs-vswitchd, not in conf.db.
#  2. userspace: ipip, fou and gue ports of the userspace datapath ping
#     Linux's ipip, fou and gue devices (a network namespace over a veth).
#  3. dkms: ovs-iptun-dkms installed, DKMS has built and installed the
#     module for the running kernel; then the kernel datapath's ipip, fou
#     and gue ports ping the same Linux devices, the module loaded by the
#     kernel when ovs-vswitchd created the first device (never insmod).
#  4. reload, restart: "systemctl reload openvswitch-switch" (ovs-ctl
#     restart, which saves and restores the flows): ports and flows back,
#     pings pass; "systemctl restart": ports back, flows gone, pings pass
#     once the flows are added again.
#  5. remove: apt remove keeps conf.db, apt purge removes it (the link in
#     /etc and the database in /var/lib: Debian's 4.0.0-2 leaves the
#     latter, packaging/openvswitch/debian-purge-database.patch); removing
#     ovs-iptun-dkms removes the module from DKMS; reinstalling both
#     works (services up, no bridges: a new database; the module built
#     again).
#  6. dpdk (with openvswitch-switch-dpdk, Debian forky's DPDK 25.11):
#     installed beside openvswitch-switch, the plain ovs-vswitchd stays
#     the alternative in use (as Debian's README.Debian says);
#     "update-alternatives --set" to ovs-vswitchd-dpdk and a restart with
#     dpdk-init: DPDK 25.11 initialized, the userspace ipip, fou and gue
#     ports ping again; "update-alternatives --auto" and a restart: the
#     plain one back; removing the package removes its alternative.

set -u
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

debs=/srv/ovs-iptun-debs
out=${IPTUN_GUEST_RESULTS:?}
log=$out/check-deb.log
passed=0 failed=0 skipped=0
steps=" ${IPTUN_CHECK_DEB_STEPS:-upgrade userspace dkms reload remove} "
export DEBIAN_FRONTEND=noninteractive

# step NAME: whether step NAME is to run.
step () {
    case $steps in
    *" $1 "*) return 0 ;;
    *) return 1 ;;
    esac
}

# check NAME CMD...: one test; returns 1 if it failed.
check () {
    local name=$1
    shift
    echo "=== $name" >> "$log"
    if "$@" >> "$log" 2>&1; then
        echo "check-deb: $name ok"
        passed=$((passed + 1))
    else
        echo "check-deb: $name FAILED"
        tail -15 "$log" | sed 's/^/  | /'
        failed=$((failed + 1))
        return 1
    fi
}

# apt, offline (the guest has no network): the packages and what they need
# are in apt's cache.  (Not --no-download: apt 3.0 then takes a local
# .deb's path for relative, an internal error.)
apt_offline () {
    apt-get -y -q --no-install-recommends "$@"
}
# ours PACKAGE...: the paths of our .debs (no spaces: word-split them).
ours () {
    local p
    for p; do
        ls "$debs/${p}_"*.deb
    done
}

# --- 1. The upgrade from Debian's own Open vSwitch ---------------------------

# What an operator sees: the bridges and ports, the configuration, the
# flows, the database's identity and schema.
snapshot () {
    echo "ovs-vswitchd: $(ovs-vswitchd --version | head -1)"
    echo "ovs_version: $(ovs-vsctl get Open_vSwitch . ovs_version)"
    echo "database _uuid: $(ovs-vsctl get Open_vSwitch . _uuid)"
    echo "database schema: $(ovsdb-tool db-version /etc/openvswitch/conf.db)"
    echo "other_config: $(ovs-vsctl get Open_vSwitch . other_config)"
    echo "external_ids:iptun-test: $(ovs-vsctl get Open_vSwitch . external_ids:iptun-test)"
    echo "--- ovs-vsctl show"
    ovs-vsctl show | grep -v '^[0-9a-f-]*$'
    echo "--- ovs-ofctl dump-flows br0"
    ovs-ofctl --no-stats dump-flows br0
}

# Debian's own (3.5 in Debian 13, 3.1 in 12, 4.0.0-2+b1 in forky), not ours.
debian_ovs_up () {
    local v
    v=$(dpkg-query -W -f '${Version}' openvswitch-switch)
    echo "openvswitch-switch $v"
    systemctl is-active openvswitch-switch ovsdb-server ovs-vswitchd \
        && case $v in *+iptun*) false ;; esac \
        && ovs-vsctl add-br br0 \
        && ovs-vsctl add-port br0 gre0 -- set interface gre0 type=gre \
               options:remote_ip=192.0.2.99 options:key=77 \
        && ovs-vsctl set Open_vSwitch . other_config:n-handler-threads=1 \
               external_ids:iptun-test=kept \
        && ovs-vsctl set bridge br0 other_config:hwaddr=02:00:00:00:00:77 \
        && ovs-ofctl add-flow br0 'priority=100,ip,nw_dst=198.51.100.7,actions=drop' \
        && snapshot > "$out/upgrade-before.txt" \
        && cat "$out/upgrade-before.txt"
}

upgrade () {
    pidof ovs-vswitchd > "$out/vswitchd.pid.before"
    # shellcheck disable=SC2046
    apt_offline install $(ours openvswitch-common openvswitch-switch \
                              python3-openvswitch)
}

upgraded () {
    local v
    snapshot > "$out/upgrade-after.txt"
    cat "$out/upgrade-after.txt"
    systemctl is-active openvswitch-switch ovsdb-server ovs-vswitchd \
        || return 1
    test "$(pidof ovs-vswitchd)" != "$(cat "$out/vswitchd.pid.before")" \
        || { echo "ovs-vswitchd was not restarted"; return 1; }
    test "$(dpkg-query -W -f '${Version}' openvswitch-switch)" \
         = "$(dpkg-deb -f "$(ours openvswitch-switch)" Version)" || return 1
    grep -qx 'ovs-vswitchd: ovs-vswitchd (Open vSwitch) 4.0.0' "$out/upgrade-after.txt" \
        || return 1
    # The same database, converted: not recreated.
    v=$(ovsdb-tool schema-version /usr/share/openvswitch/vswitch.ovsschema)
    grep -qx "database schema: $v" "$out/upgrade-after.txt" || return 1
    diff <(grep '^database _uuid' "$out/upgrade-before.txt") \
         <(grep '^database _uuid' "$out/upgrade-after.txt") || return 1
    diff <(sed -n '/^--- ovs-vsctl show/,/^--- ovs-ofctl/p' "$out/upgrade-before.txt" | grep -v ovs_version) \
         <(sed -n '/^--- ovs-vsctl show/,/^--- ovs-ofctl/p' "$out/upgrade-after.txt" | grep -v ovs_version) \
        || return 1
    grep -q 'n-handler-threads="1"' "$out/upgrade-after.txt" || return 1
    grep -qx 'external_ids:iptun-test: kept' "$out/upgrade-after.txt" || return 1
    test "$(ovs-vsctl get bridge br0 other_config:hwaddr)" = '"02:00:00:00:00:77"'
}

# --- 2. and 3. Tunnels to Linux's own devices ----------------------------------

# The underlay: veth ul0 (an OVS port) to ul1 in namespace "peer", whose
# 10.0.0.2, .3 and .4 are the ipip, fou and gue devices' addresses (Linux
# keeps one ipip tunnel per local and remote); br-ul's 10.0.0.1 is ours.
# The overlay: br-ov's 192.168.1.1 (ipip), 192.168.2.1 (fou) and
# 192.168.3.1 (gue) to the peer's .2 on each.
peer_up () {
    iptun_netns_del peer
    ip link del ul0 2>/dev/null
    iptun_netns_add peer
    ip link add ul0 type veth peer name ul1 netns peer
    ip link set ul0 up
    ip -n peer link set ul1 up
    local n
    for n in 2 3 4; do
        ip -n peer addr add 10.0.0.$n/24 dev ul1
    done
    # Both datapaths read the veth as it is: the peer completes checksums.
    ip netns exec peer ethtool -K ul1 tx off >/dev/null
    ethtool -K ul0 tx off >/dev/null
    sysctl -qw net.ipv4.conf.all.arp_ignore=1
    modprobe fou
    ip netns exec peer ip fou add port 5555 ipproto 4
    ip netns exec peer ip fou add port 6666 gue
    ip -n peer link add ipip1 type ipip local 10.0.0.2 remote 10.0.0.1 ttl 64
    ip -n peer link add fou1 type ipip local 10.0.0.3 remote 10.0.0.1 ttl 64 \
        encap fou encap-sport auto encap-dport 5555
    ip -n peer link add gue1 type ipip local 10.0.0.4 remote 10.0.0.1 ttl 64 \
        encap gue encap-sport auto encap-dport 6666
    for n in 1 2 3; do
        set -- ipip1 fou1 gue1
        shift $((n - 1))
        ip -n peer addr add 192.168.$n.2/24 dev "$1"
        ip -n peer link set "$1" up
    done
}

# ovs_up DATAPATH-TYPE: the two bridges and the three tunnel ports.
ovs_up () {
    local dp=$1
    ovs-vsctl --if-exists del-br br-ul -- --if-exists del-br br-ov
    ovs-vsctl add-br br-ul -- set bridge br-ul datapath_type="$dp" \
        -- add-port br-ul ul0 \
        -- add-br br-ov -- set bridge br-ov datapath_type="$dp" \
        -- add-port br-ov t-ipip -- set interface t-ipip type=ipip \
               options:remote_ip=10.0.0.2 ofport_request=1 \
        -- add-port br-ov t-fou -- set interface t-fou type=fou \
               options:remote_ip=10.0.0.3 options:dst_port=5555 ofport_request=2 \
        -- add-port br-ov t-gue -- set interface t-gue type=gue \
               options:remote_ip=10.0.0.4 options:dst_port=6666 ofport_request=3 \
        || return 1
    ip addr add 10.0.0.1/24 dev br-ul
    ip link set br-ul up
    local n
    for n in 1 2 3; do
        ip addr add 192.168.$n.1/24 dev br-ov
        # An L3 tunnel has no ARP: a static neighbour for the peer.
        ip neigh replace 192.168.$n.2 lladdr 02:00:00:00:00:01 dev br-ov
    done
    ip link set br-ov up
    ovs_flows
    ovs-vsctl show
}

# The overlay's flows: into the tunnel by destination, out of it to the
# host with br-ov's MAC.
ovs_flows () {
    local mac n
    mac=$(cat /sys/class/net/br-ov/address)
    ovs-ofctl del-flows br-ov
    for n in 1 2 3; do
        ovs-ofctl add-flow br-ov "in_port=LOCAL,ip,nw_dst=192.168.$n.2,actions=output:$n"
        ovs-ofctl add-flow br-ov "in_port=$n,ip,actions=mod_dl_dst:$mac,LOCAL"
    done
}

# ping_peer N: three pings across tunnel N (1 ipip, 2 fou, 3 gue); the
# first may wait for ARP and route lookups on the underlay.
ping_peer () {
    ping -q -c 1 -W 5 "192.168.$1.2" >/dev/null
    ping -c 3 -i 0.3 -W 3 "192.168.$1.2"
}
no_ping () {
    ! ping -c 2 -i 0.3 -W 1 "192.168.$1.2"
}

userspace_up () { peer_up && ovs_up netdev; }

# --- 3. DKMS and the kernel datapath --------------------------------------------

dkms_installed () {
    local v
    v=$(dpkg-deb -f "$(ours ovs-iptun-dkms)" Version)
    # shellcheck disable=SC2046
    apt_offline install $(ours ovs-iptun-dkms) || return 1
    dkms status
    dkms status | grep -q "^ovs-iptun/$v, $(uname -r), x86_64: installed" \
        || return 1
    modinfo -n iptun
    modinfo -n iptun | grep -q '/updates/dkms/iptun\.ko' || return 1
    # Not loaded until Open vSwitch needs it.
    if grep '^iptun ' /proc/modules; then
        echo "iptun.ko is loaded already"
        return 1
    fi
}

kernel_up () {
    ovs-vsctl --if-exists del-br br-ul -- --if-exists del-br br-ov
    peer_up && ovs_up system || return 1
    grep '^iptun ' /proc/modules || { echo "iptun.ko not loaded"; return 1; }
    ip -d link show ipip_sys
}

# --- 4. Reload and restart ---------------------------------------------------------

flows_there () {
    ovs-ofctl --no-stats dump-flows br-ov
    test "$(ovs-ofctl --no-stats dump-flows br-ov | grep -c 'ip,')" = 6
}
ports_there () {
    test "$(ovs-vsctl list-ports br-ov | tr '\n' ' ')" = "t-fou t-gue t-ipip "
}

reload () {
    systemctl reload openvswitch-switch \
        && systemctl is-active ovsdb-server ovs-vswitchd && ports_there \
        && flows_there
}
restart () {
    systemctl restart openvswitch-switch \
        && systemctl is-active ovsdb-server ovs-vswitchd && ports_there \
        && ! flows_there
}

# --- 5. Remove, purge, reinstall ---------------------------------------------------

removed () {
    apt-get -y -q remove openvswitch-switch || return 1
    ls -l /etc/openvswitch/ /var/lib/openvswitch/
    test -e /etc/openvswitch/conf.db
}
purged () {
    apt-get -y -q purge openvswitch-switch || return 1
    ls -l /etc/openvswitch/ /var/lib/openvswitch/ 2>&1
    test ! -e /etc/openvswitch/conf.db && test ! -h /etc/openvswitch/conf.db \
        && test ! -e /var/lib/openvswitch/conf.db
}
dkms_removed () {
    apt-get -y -q remove ovs-iptun-dkms || return 1
    dkms status
    test -z "$(dkms status ovs-iptun)" \
        && ! ls /lib/modules/"$(uname -r)"/updates/dkms/iptun.ko* 2>/dev/null
}
reinstalled () {
    if step dkms; then
        # shellcheck disable=SC2046
        apt_offline install $(ours openvswitch-switch ovs-iptun-dkms) \
            || return 1
        dkms status | grep -q "^ovs-iptun/.*$(uname -r), x86_64: installed" \
            || return 1
    else
        # shellcheck disable=SC2046
        apt_offline install $(ours openvswitch-switch) || return 1
    fi
    systemctl is-active openvswitch-switch ovsdb-server ovs-vswitchd \
        && ovs-vsctl show && test -z "$(ovs-vsctl list-br)"
}

# --- 6. DPDK ----------------------------------------------------------------------------

VSWITCHD=/usr/lib/openvswitch-switch/ovs-vswitchd
VSWITCHD_DPDK=/usr/lib/openvswitch-switch-dpdk/ovs-vswitchd-dpdk

# The running ovs-vswitchd's program, printed for the log.
vswitchd_exe () {
    local exe
    exe=$(readlink -f /proc/"$(pidof ovs-vswitchd)"/exe)
    echo "running: $exe" >&2
    echo "$exe"
}
# update-alternatives' view of ovs-vswitchd, printed for the log.
vswitchd_alternatives () {
    update-alternatives --query ovs-vswitchd | tee /dev/stderr
}

dpdk_installed () {
    local alt
    # shellcheck disable=SC2046
    apt_offline install $(ours openvswitch-switch-dpdk) || return 1
    alt=$(vswitchd_alternatives)
    echo "$alt" | grep -qx "Alternative: $VSWITCHD_DPDK" \
        && echo "$alt" | grep -qx "Value: $VSWITCHD" \
        && ! ovs-vswitchd --version | grep DPDK
}

# DPDK without hugepages or PCI devices (a guest has neither): the EAL
# initializes, the userspace datapath runs in the DPDK build.
dpdk_on () {
    ovs-vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
        other_config:dpdk-extra="--no-huge -m 512 --no-pci" || return 1
    # (In a TCG guest this restart has hung: 5 minutes at most, then the
    # unit's log.)
    update-alternatives --set ovs-vswitchd "$VSWITCHD_DPDK" || return 1
    if ! timeout 300 systemctl restart openvswitch-switch \
       || ! systemctl is-active ovsdb-server ovs-vswitchd; then
        systemctl status --no-pager ovs-vswitchd
        journalctl --no-pager -b -u ovs-vswitchd | tail -40
        tail -40 /var/log/openvswitch/ovs-vswitchd.log
        return 1
    fi
    ovs-vswitchd --version
    ovs-vsctl get Open_vSwitch . dpdk_initialized dpdk_version
    test "$(vswitchd_exe)" = "$VSWITCHD_DPDK" \
        && test "$(ovs-vsctl get Open_vSwitch . dpdk_initialized)" = true \
        && ovs-vsctl get Open_vSwitch . dpdk_version | grep -q '"DPDK 25\.11'
}

dpdk_off () {
    update-alternatives --auto ovs-vswitchd \
        && ovs-vsctl --no-wait remove Open_vSwitch . other_config dpdk-init \
        && systemctl restart openvswitch-switch \
        && systemctl is-active ovsdb-server ovs-vswitchd || return 1
    test "$(vswitchd_exe)" = "$VSWITCHD" \
        && test "$(ovs-vsctl get Open_vSwitch . dpdk_initialized)" = false
}

dpdk_removed () {
    apt-get -y -q remove openvswitch-switch-dpdk || return 1
    ! vswitchd_alternatives | grep -q "$VSWITCHD_DPDK" \
        && systemctl is-active ovs-vswitchd
}

# --- The run ------------------------------------------------------------------------

: > "$log"
echo "check-deb: waiting for the boot to finish"
# The system is up when systemd says so; package scripts may start daemons.
timeout 600 systemctl is-system-running --wait > "$out/boot.txt" 2>&1
systemctl --failed --no-legend >> "$out/boot.txt" 2>&1
systemctl list-jobs --no-legend >> "$out/boot.txt" 2>&1
rm -f /usr/sbin/policy-rc.d
echo "check-deb: booted Debian $(cat /etc/debian_version), Linux $(uname -r)," \
     "$(head -1 "$out/boot.txt")"

check "debian openvswitch-switch up, configured" debian_ovs_up
check "upgrade: apt install ours" upgrade
check "upgrade: services restarted, conf.db kept and converted" upgraded
if test "$(dpkg-query -W -f '${Version}' openvswitch-switch)" \
   != "$(dpkg-deb -f "$(ours openvswitch-switch)" Version)"; then
    :
elif cmp -s <(sed -n '/^--- ovs-ofctl/,$p' "$out/upgrade-before.txt") \
          <(sed -n '/^--- ovs-ofctl/,$p' "$out/upgrade-after.txt"); then
    echo "check-deb: upgrade: OpenFlow flows kept (ovs-ctl's restart saves them)"
else
    echo "check-deb: upgrade: OpenFlow flows not kept (they live in ovs-vswitchd)"
fi
ovs-vsctl --if-exists del-br br0

if step userspace; then
    check "userspace: tunnels up" userspace_up
    check "userspace: ipip ping" ping_peer 1
    check "userspace: fou ping" ping_peer 2
    check "userspace: gue ping" ping_peer 3
fi

if step dpdk; then
    check "dpdk: installed, the plain ovs-vswitchd still in use" dpdk_installed
    if check "dpdk: update-alternatives --set ovs-vswitchd-dpdk, DPDK 25.11 up" dpdk_on; then
        check "dpdk: userspace tunnels up" userspace_up
        check "dpdk: ipip ping" ping_peer 1
        check "dpdk: fou ping" ping_peer 2
        check "dpdk: gue ping" ping_peer 3
    else
        # No ovs-vswitchd: ovs-vsctl would wait for it for ever.
        echo "check-deb: dpdk: tunnels and pings skipped (no ovs-vswitchd-dpdk)"
        skipped=$((skipped + 4))
    fi
    check "dpdk: update-alternatives --auto, the plain ovs-vswitchd back" dpdk_off
    check "dpdk: removing openvswitch-switch-dpdk removes its alternative" dpdk_removed
fi

if step dkms; then
    check "dkms: module built and installed for $(uname -r)" dkms_installed
    check "kernel: tunnels up, iptun.ko autoloaded" kernel_up
    check "kernel: ipip ping" ping_peer 1
    check "kernel: fou ping" ping_peer 2
    check "kernel: gue ping" ping_peer 3
elif step reload; then
    # The next steps' bridges: those of the userspace datapath.
    check "userspace: tunnels up again" userspace_up
fi

if step reload; then
    check "systemctl reload: ports and flows back" reload
    check "systemctl reload: ipip ping" ping_peer 1
    check "systemctl reload: fou ping" ping_peer 2
    check "systemctl restart: ports back, flows gone" restart
    check "systemctl restart: no traffic without flows" no_ping 1
    ovs_flows >> "$log" 2>&1
    check "systemctl restart: ipip ping once flows are added" ping_peer 1
    check "systemctl restart: gue ping once flows are added" ping_peer 3
fi

if step remove; then
    check "apt remove keeps conf.db" removed
    check "apt purge removes conf.db" purged
    if step dkms; then
        check "removing ovs-iptun-dkms removes the module from DKMS" dkms_removed
        check "reinstall: services up, module built again" reinstalled
    else
        check "reinstall: services up" reinstalled
    fi
fi

echo "$passed passed, $failed failed, $skipped skipped"
test "$failed" = 0
