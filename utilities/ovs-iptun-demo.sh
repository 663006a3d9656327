#! /bin/bash
# ovs-iptun-demo.sh: Open vSwitch hosts joined by ipip, fou or gue tunnels.
#
# Builds the hosts of utilities/ovs-iptun-hosts.sh (by default two OVS hosts,
# network namespaces with the userspace datapath, joined by an ipip tunnel
# over a veth underlay), pings across the overlay, shows each OVS host's
# datapath flows and tears the hosts down.  The options are those of
# ovs-iptun-hosts.sh's "up", listed in its header (--type, --options,
# --peers, --peer...).
#
# usage: ovs-iptun-demo.sh [demo [UP-OPTION...]|up [UP-OPTION...]|ping|
#                           flows HOST|vsctl HOST ARGS...|
#                           appctl HOST ARGS...|list|down]
#   demo        (the default) the above
#   up, ping, flows, vsctl, appctl, list, down: ovs-iptun-hosts.sh's commands

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

hosts () { bash "$iptun_dir/ovs-iptun-hosts.sh" "$@"; }

case ${1:-demo} in
demo)
    test $# = 0 || shift
    trap 'hosts down' EXIT
    hosts up "$@"
    echo
    status=0
    hosts ping || status=1
    while read -r h ns kind; do
        test "$kind" = ovs || continue
        echo
        echo "datapath flows of $ns:"
        hosts flows "$h"
    done < <(hosts list)
    exit $status
    ;;
up|ping|flows|vsctl|appctl|list|down) hosts "$@" ;;
*) iptun_usage; exit 1 ;;
esac
