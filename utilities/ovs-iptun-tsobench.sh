#! /bin/bash
# ovs-iptun-tsobench.sh: TCP throughput between two userspace-datapath OVS
# hosts (utilities/ovs-iptun-hosts.sh: network namespaces over a veth), with
# userspace TSO off and on, through ipip, fou and gue and, in the same run,
# the stock tunnels they compare with: gre with packet_type=legacy_l3 (an L3
# tunnel, as ipip), vxlan (a UDP tunnel, as fou and gue).  Needs root and
# iperf3; "make bench-tso" runs it against the build tree.
#
# For each type, TSO off, on without receive aggregation and on with it
# ("gro": other_config:userspace-tso-enable and userspace-gro-enable, set
# before ovs-vswitchd starts), 1 and IPTUN_TSOBENCH_STREAMS (default 8)
# iperf3 streams from a to b for IPTUN_TSOBENCH_TIME seconds (default 5),
# IPTUN_TSOBENCH_ROUNDS times (default 1; the types take turns, and each
# number printed is the median of its rounds).  Prints Mbit/s, the gains
# (on / off, gro / on) and each of ours / its stock peer, and the CPU time
# that each host's ovs-vswitchd spent per MB carried (a sends, b receives;
# from /proc/PID/stat).  Then ipip and fou with TSO on (no aggregation) over a
# jumbo underlay (MTU 9000, overlay 8900): the same bytes in packets 6.4
# times larger, as if the receiver had merged every 6.4 segments before the
# datapath, beside the aggregation's own figures.  And plain TCP, TSO off
# and on: the same two hosts and veth, no tunnel (iperf3 between the
# underlay addresses, through br-ul alone, its MTU 1400 as the overlay's):
# what the tunnels' rates are set against.  The numbers swing with the
# machine's load; compare within a run.

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
T=${IPTUN_TSOBENCH_TIME:-5}
N=${IPTUN_TSOBENCH_STREAMS:-8}
R=${IPTUN_TSOBENCH_ROUNDS:-1}
# An overlay MTU of 1400 for every type: the stock tunnels do not answer
# packets too big for them (ours do), so TCP would not find their path MTU.
export IPTUN_HOSTS_DIR=/tmp/tb-hosts

hosts () { bash "$iptun_dir/ovs-iptun-hosts.sh" "$@"; }
trap 'hosts down >/dev/null 2>&1 || true' EXIT

# ticks HOST: the CPU time (user and system, clock ticks) that HOST's
# ovs-vswitchd has used.
ticks () {
    awk '{print $14 + $15}' "/proc/$(cat "$IPTUN_HOSTS_DIR/$1/ovs-vswitchd.pid")/stat"
}

# run STREAMS: "RATE A-TICKS B-TICKS" for one iperf3 run to b's overlay
# address, or to TO if set (plain TCP: b's underlay address).
run () {
    local a0 b0 rate
    a0=$(ticks a) b0=$(ticks b)
    rate=$(iptun_iperf_rate tb-b "${TO:-10.10.0.2}" tb-a "$T" "$1")
    echo "$rate $(($(ticks a) - a0)) $(($(ticks b) - b0))"
}

# measure NAME TSOS UP-OPTION...: one line per TSO setting in TSOS ("off on
# gro": TSO off, TSO on without aggregation, and with it) and number of
# streams: "NAME TSO STREAMS RATE A-TICKS B-TICKS", on the hosts that the
# fixture's "up" options say (after the MTU of 1400, which they may change).
measure () {
    local name=$1 tsos=$2 tso n
    local -a other
    shift 2
    for tso in $tsos; do
        case $tso in
        off) other=() ;;
        on) other=(--other-config userspace-tso-enable=true
                   --other-config userspace-gro-enable=false) ;;
        gro) other=(--other-config userspace-tso-enable=true
                    --other-config userspace-gro-enable=true) ;;
        esac
        hosts up --netns tb --mtu 1400 "$@" "${other[@]}" >/dev/null
        hosts ping >/dev/null
        for n in 1 "$N"; do
            echo "$name $tso $n $(run "$n")"
        done
    done
}

out=$IPTUN_HOSTS_DIR.txt
: > "$out"
for _ in $(seq "$R"); do
    {
        all="off on gro"
        measure ipip "$all" --type ipip
        measure gre-l3 "$all" --type gre \
            --options options:packet_type=legacy_l3
        measure fou "$all" --type fou --options options:dst_port=5555
        measure gue "$all" --type gue --options options:dst_port=6666
        measure vxlan "$all" --type vxlan
        TO=192.0.2.2 measure plain "off on" --underlay-mtu 1400
        measure ipip-9k on --underlay-mtu 9000 --mtu 8900
        measure fou-9k on --type fou --options options:dst_port=5555 \
            --underlay-mtu 9000 --mtu 8900
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


names = [k[0] for k in runs
         if not k[0].endswith("-9k") and k[0] != "plain"]
names = list(dict.fromkeys(names))
modes = ("off", "on", "gro")
print("Mbit/s (off: no TSO; on: TSO; gro: TSO and receive aggregation)")
print("%-7s" % "" + "".join("%9s" % ("%s %s" % (m, s))
                            for m in modes for s in ("1", n))
      + "%9s %9s" % ("gro/on 1", "gro/on " + n))
r = {}
for name in names:
    r[name] = {(m, s): rate(name, m, s) for m in modes for s in ("1", n)}
    x = r[name]
    print("%-7s" % name
          + "".join("%9.0f" % x[(m, s)] for m in modes for s in ("1", n))
          + "%9.2f %9.2f" % (x[("gro", "1")] / x[("on", "1")],
                             x[("gro", n)] / x[("on", n)]))
print()
print("ours / stock peer (1, %s streams): TSO on, and ours with aggregation"
      % n)
print("against the peer without it and with it:")
for ours, peer in (("ipip", "gre-l3"), ("fou", "vxlan"), ("gue", "vxlan")):
    o, p = r[ours], r[peer]
    print("%-4s / %-6s  on %.2f %.2f   gro/peer-on %.2f %.2f   "
          "gro/peer-gro %.2f %.2f"
          % (ours, peer, o[("on", "1")] / p[("on", "1")],
             o[("on", n)] / p[("on", n)],
             o[("gro", "1")] / p[("on", "1")], o[("gro", n)] / p[("on", n)],
             o[("gro", "1")] / p[("gro", "1")],
             o[("gro", n)] / p[("gro", n)]))
print()
print("ovs-vswitchd CPU ms per MB, 1 stream: a sends, b receives")
print("%-7s" % "" + "".join("%8s" % ("%s %s" % (h, m))
                            for m in modes for h in ("a", "b"))
      + "%9s" % "b gro/on")
for name in names:
    print("%-7s" % name
          + "".join("%8.2f" % cpu(name, m, "1", h)
                    for m in modes for h in (1, 2))
          + "%9.2f" % (cpu(name, "gro", "1", 2) / cpu(name, "on", "1", 2)))
print()
if ("plain", "on", "1") in runs:
    p = {(m, s): rate("plain", m, s) for m in ("off", "on") for s in ("1", n)}
    print("plain TCP, no tunnel (MTU 1400), Mbit/s: off %.0f %.0f, on %.0f %.0f;"
          " b's CPU ms/MB, 1 stream, on: %.2f"
          % (p[("off", "1")], p[("off", n)], p[("on", "1")], p[("on", n)],
             cpu("plain", "on", "1", 2)))
    print("tunnels / plain TCP, TSO on (1, %s streams): on, gro" % n)
    for name in names:
        x = r[name]
        print("%-7s on %.2f %.2f   gro %.2f %.2f"
              % (name, x[("on", "1")] / p[("on", "1")],
                 x[("on", n)] / p[("on", n)],
                 x[("gro", "1")] / p[("on", "1")],
                 x[("gro", n)] / p[("on", n)]))
    print()
print("TSO on, 1 stream: overlay MTU 8900 (jumbo underlay) against 1400,")
print("no aggregation: b's CPU per MB and the rate")
for name in ("ipip", "fou"):
    big = name + "-9k"
    if (big, "on", "1") not in runs:
        continue
    print("%-5s b %.2f -> %.2f ms/MB (x%.2f), %.0f -> %.0f Mbit/s"
          % (name, cpu(name, "on", "1", 2), cpu(big, "on", "1", 2),
             cpu(big, "on", "1", 2) / cpu(name, "on", "1", 2),
             rate(name, "on", "1"), rate(big, "on", "1")))
PY
