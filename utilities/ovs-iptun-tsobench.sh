#! /bin/bash
# ovs-iptun-tsobench.sh: TCP throughput between two userspace-datapath OVS
# hosts (utilities/ovs-iptun-hosts.sh: network namespaces over a veth), with
# userspace TSO off and on, through ipip, fou and gue and, in the same run,
# the stock tunnels they compare with: gre with packet_type=legacy_l3 (an L3
# tunnel, as ipip), vxlan (a UDP tunnel, as fou and gue).  Needs root and
# iperf3; "make bench-tso" runs it against the build tree.
#
# For each type, TSO off and on (other_config:userspace-tso-enable, set
# before ovs-vswitchd starts), 1 and IPTUN_TSOBENCH_STREAMS (default 8)
# iperf3 streams from a to b for IPTUN_TSOBENCH_TIME seconds (default 5).
# Prints Mbit/s, the TSO gain (on / off) and each of ours / its stock peer.
# One run: the numbers swing with the machine's load; compare within a run.

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
T=${IPTUN_TSOBENCH_TIME:-5}
N=${IPTUN_TSOBENCH_STREAMS:-8}
# An overlay MTU of 1400 for every type: the stock tunnels do not answer
# packets too big for them (ours do), so TCP would not find their path MTU.
export IPTUN_DEMO_PREFIX=tb IPTUN_DEMO_DIR=/tmp/tb-hosts IPTUN_OVERLAY_MTU=1400

hosts () { bash "$iptun_dir/ovs-iptun-hosts.sh" "$@"; }
trap 'hosts down >/dev/null 2>&1 || true' EXIT

# measure NAME TYPE OPTIONS: one line, NAME and the four rates.
measure () {
    local name=$1 tso line
    line=$name
    for tso in off on; do
        IPTUN_TYPE=$2 IPTUN_OPTIONS=$3 IPTUN_TSO=$tso hosts up >/dev/null
        hosts ping >/dev/null
        line="$line $(iptun_iperf_rate tb-b 10.10.0.2 tb-a "$T" 1)"
        line="$line $(iptun_iperf_rate tb-b 10.10.0.2 tb-a "$T" "$N")"
    done
    echo "$line"
}

{
    measure ipip ipip ""
    measure gre-l3 gre "options:packet_type=legacy_l3"
    measure fou fou "options:dst_port=5555"
    measure gue gue "options:dst_port=6666"
    measure vxlan vxlan ""
} > "$IPTUN_DEMO_DIR.txt"

echo "TCP a->b, iperf3 ${T} s, Mbit/s, userspace datapath (kernel $(uname -r), $(nproc) CPUs)"
$iptun_py - "$IPTUN_DEMO_DIR.txt" "$N" <<'PY'
import sys
rows = {}
for line in open(sys.argv[1]):
    f = line.split()
    rows[f[0]] = [float(x) for x in f[1:]]
n = sys.argv[2]
print("%-7s %9s %9s %9s %9s %8s %8s" % ("", "off 1", "off " + n, "on 1",
                                         "on " + n, "gain 1", "gain " + n))
for name, r in rows.items():
    print("%-7s %9.0f %9.0f %9.0f %9.0f %8.2f %8.2f"
          % (name, r[0], r[1], r[2], r[3], r[2] / r[0], r[3] / r[1]))
print()
print("ours / stock peer, TSO on (1, %s streams) and gain / peer's gain:" % n)
for ours, peer in (("ipip", "gre-l3"), ("fou", "vxlan"), ("gue", "vxlan")):
    o, p = rows[ours], rows[peer]
    print("%-4s / %-6s  %.2f %.2f   gain %.2f %.2f"
          % (ours, peer, o[2] / p[2], o[3] / p[3],
             (o[2] / o[0]) / (p[2] / p[0]), (o[3] / o[1]) / (p[3] / p[1])))
PY
