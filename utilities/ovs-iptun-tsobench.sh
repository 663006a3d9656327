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
# iperf3 streams from a to b for IPTUN_TSOBENCH_TIME seconds (default 5),
# IPTUN_TSOBENCH_ROUNDS times (default 1; the types take turns, and each
# number printed is the median of its rounds).  Prints Mbit/s, the TSO gain
# (on / off) and each of ours / its stock peer, and the CPU time that each
# host's ovs-vswitchd spent per MB carried (a sends, b receives; from
# /proc/PID/stat).  Then, to see what a receive-side aggregation would gain,
# ipip and fou with TSO on again over a jumbo underlay (MTU 9000, overlay
# 8900): the same bytes in packets 6.4 times larger, as if the receiver had
# merged every 6.4 segments before the datapath; b's CPU per MB there,
# against the 1400-byte overlay's, bounds what such an aggregation could
# save.  The numbers swing with the machine's load; compare within a run.

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
T=${IPTUN_TSOBENCH_TIME:-5}
N=${IPTUN_TSOBENCH_STREAMS:-8}
R=${IPTUN_TSOBENCH_ROUNDS:-1}
# An overlay MTU of 1400 for every type: the stock tunnels do not answer
# packets too big for them (ours do), so TCP would not find their path MTU.
export IPTUN_DEMO_PREFIX=tb IPTUN_DEMO_DIR=/tmp/tb-hosts IPTUN_OVERLAY_MTU=1400

hosts () { bash "$iptun_dir/ovs-iptun-hosts.sh" "$@"; }
trap 'hosts down >/dev/null 2>&1 || true' EXIT

# ticks HOST: the CPU time (user and system, clock ticks) that HOST's
# ovs-vswitchd has used.
ticks () {
    awk '{print $14 + $15}' "/proc/$(cat "$IPTUN_DEMO_DIR/$1/ovs-vswitchd.pid")/stat"
}

# run STREAMS: "RATE A-TICKS B-TICKS" for one iperf3 run.
run () {
    local a0 b0 rate
    a0=$(ticks a) b0=$(ticks b)
    rate=$(iptun_iperf_rate tb-b 10.10.0.2 tb-a "$T" "$1")
    echo "$rate $(($(ticks a) - a0)) $(($(ticks b) - b0))"
}

# measure NAME TYPE OPTIONS [TSO...]: one line per TSO setting and number
# of streams: "NAME TSO STREAMS RATE A-TICKS B-TICKS".
measure () {
    local name=$1 type=$2 options=$3 tsos tso n
    shift 3
    tsos=${*:-off on}
    for tso in $tsos; do
        IPTUN_TYPE=$type IPTUN_OPTIONS=$options IPTUN_TSO=$tso \
            hosts up >/dev/null
        hosts ping >/dev/null
        for n in 1 "$N"; do
            echo "$name $tso $n $(run "$n")"
        done
    done
}

out=$IPTUN_DEMO_DIR.txt
: > "$out"
for r in $(seq "$R"); do
    {
        measure ipip ipip ""
        measure gre-l3 gre "options:packet_type=legacy_l3"
        measure fou fou "options:dst_port=5555"
        measure gue gue "options:dst_port=6666"
        measure vxlan vxlan ""
        IPTUN_UNDERLAY_MTU=9000 IPTUN_OVERLAY_MTU=8900 \
            measure ipip-9k ipip "" on
        IPTUN_UNDERLAY_MTU=9000 IPTUN_OVERLAY_MTU=8900 \
            measure fou-9k fou "options:dst_port=5555" on
    } >> "$out"
done

echo "TCP a->b, iperf3 ${T} s, median of $R round(s), userspace datapath (kernel $(uname -r), $(nproc) CPUs)"
$iptun_py - "$out" "$N" "$T" "$(getconf CLK_TCK)" <<'PY'
import statistics
import sys

n, secs, hz = sys.argv[2], float(sys.argv[3]), float(sys.argv[4])
runs = {}
for line in open(sys.argv[1]):
    name, tso, streams, rate, a, b = line.split()
    runs.setdefault((name, tso, streams), []).append(
        (float(rate), float(a), float(b)))


def rate(name, tso, streams):
    return statistics.median(r[0] for r in runs[(name, tso, streams)])


def cpu(name, tso, streams, host):
    """Median ms of HOST's ovs-vswitchd CPU per MB carried."""
    return statistics.median(
        r[host] / hz * 1000 / (r[0] * secs / 8)
        for r in runs[(name, tso, streams)])


names = [k[0] for k in runs if not k[0].endswith("-9k")]
names = list(dict.fromkeys(names))
print("Mbit/s")
print("%-7s %9s %9s %9s %9s %8s %8s" % ("", "off 1", "off " + n, "on 1",
                                         "on " + n, "gain 1", "gain " + n))
r = {}
for name in names:
    r[name] = [rate(name, t, s) for t in ("off", "on") for s in ("1", n)]
    x = r[name]
    print("%-7s %9.0f %9.0f %9.0f %9.0f %8.2f %8.2f"
          % (name, x[0], x[1], x[2], x[3], x[2] / x[0], x[3] / x[1]))
print()
print("ours / stock peer, TSO on (1, %s streams) and gain / peer's gain:" % n)
for ours, peer in (("ipip", "gre-l3"), ("fou", "vxlan"), ("gue", "vxlan")):
    o, p = r[ours], r[peer]
    print("%-4s / %-6s  %.2f %.2f   gain %.2f %.2f"
          % (ours, peer, o[2] / p[2], o[3] / p[3],
             (o[2] / o[0]) / (p[2] / p[0]), (o[3] / o[1]) / (p[3] / p[1])))
print()
print("ovs-vswitchd CPU ms per MB, 1 stream: a sends, b receives")
print("%-7s %8s %8s %8s %8s" % ("", "a off", "b off", "a on", "b on"))
for name in names:
    print("%-7s %8.2f %8.2f %8.2f %8.2f"
          % (name, cpu(name, "off", "1", 1), cpu(name, "off", "1", 2),
             cpu(name, "on", "1", 1), cpu(name, "on", "1", 2)))
print()
print("receive-side aggregation, TSO on, 1 stream: overlay MTU 8900 (jumbo")
print("underlay) against 1400: b's CPU per MB and the rate")
for name in ("ipip", "fou"):
    big = name + "-9k"
    if (big, "on", "1") not in runs:
        continue
    print("%-5s b %.2f -> %.2f ms/MB (x%.2f), %.0f -> %.0f Mbit/s"
          % (name, cpu(name, "on", "1", 2), cpu(big, "on", "1", 2),
             cpu(big, "on", "1", 2) / cpu(name, "on", "1", 2),
             rate(name, "on", "1"), rate(big, "on", "1")))
PY
