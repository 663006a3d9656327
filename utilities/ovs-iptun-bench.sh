#! /bin/bash
# ovs-iptun-bench.sh: the userspace datapath benchmark ("make bench").
#
# Builds Open vSwitch with DPDK (25.11: ovs-iptun-dpdk.sh, --with-dpdk=shared)
# twice, from the staged tree ($OVS_DIR/dpdk-build) and from the stock,
# unpatched source ($OVS_DIR/stock-src, $OVS_DIR/stock-build), then runs
# ovs-vswitchd on DPDK virtual devices, no NIC and no hugepages: a net_pcap
# port replaying a pcap file forever (infinite_rx=1) and net_null sinks
# (no-rx=1), one PMD thread pinned to CPU 1, in a network namespace of its
# own (br-phy's tap carries the underlay address 192.0.2.1/24).
#
# Scenarios, each with the inner UDP flows of IPTUN_BENCH_FLOWS (1, 10,000,
# and 200 remotes x 50 flows) of 64- and 512-byte inner frames
# (utilities/ovs-iptun-bench-frames.py):
#   plain         br-int: in_port=rx,ip actions=dec_ttl,output:sink
#   plain6        the same for IPv6 (ipv6, dec_ttl: the hop limit)
#   encap-TYPE    br-int: in_port=rx,ip actions=dec_ttl,output:TYPE tunnel
#                 br-phy: in_port=LOCAL actions=output:sink
#   decap-TYPE    br-phy: in_port=rx actions=LOCAL (terminates the tunnel)
#                 br-int: in_port=TYPE tunnel,ip actions=dec_ttl,output:sink
#   decap2p-TYPE  decap-TYPE with other_config:iptun-term-one-pass=false
#                 (the cache's two passes instead of one)
#   decap2l-TYPE  decap-TYPE with other_config:iptun-term-one-lookup=false
#                 (one pass, but a lookup for each: no one lookup)
#   decapnc-TYPE  decap-TYPE with other_config:iptun-term-cache=false (ipip,
#                 fou and gue only; IPTUN_BENCH_NOCACHE=no leaves them,
#                 decap2p-TYPE and decap2l-TYPE out)
#   encapnp-TYPE  encap-TYPE without the path MTU length check in the
#                 datapath flow ("dpif/set-dp-features br-int check_pkt_len
#                 false"; ipip, fou and gue only; IPTUN_BENCH_NOPMTU=no leaves
#                 them out): what the check costs
# for TYPE in ipip, fou, fou-csum (options:csum=true), gue (UDP port 6080), gre
# (packet_type=legacy_l3), vxlan, geneve, and the dual-stack variants
# TYPE-XinY, IPv(X) inside, over IPv(Y) (br-phy also has 2001:db8::1/64,
# the remote is 2001:db8::2): ipip-6in4, gre-6in4, ipip-4in6, gre-4in6
# (ip6gre), fou-4in6, vxlan-4in6, geneve-4in6, ipip-6in6, gre-6in6; and
# ipip-flow, fou-flow, gue-flow: a flow-based port (options:remote_ip=flow)
# of the type, decapsulation only unless IPTUN_BENCH_SCENARIOS names encap
# (set_field:192.0.2.2->tun_dst), with REMOTESxFLOWS frames only (below).
# The baseline (IPTUN_BENCH_BASELINE=yes): the stock build and ours,
# alternating, with no port of ours, run the plain scenarios and those of
# Open vSwitch's own tunnels (gre, vxlan, geneve and their variants among
# the types).
#
# IPTUN_BENCH_REPEAT rounds run every scenario once each, in an order that
# puts the scenarios compared with each other next to each other.  A
# measurement warms up, then reads, over IPTUN_BENCH_TIME seconds: cycles
# per packet and packets/s of the PMD ("dpif-netdev/pmd-perf-show",
# pmd-perf-metrics=true; busy cycles over received packets), datapath
# passes per packet, upcalls, and transmitted packets (a scenario whose
# packets do not all come out fails the bench).  The baseline rounds
# alternate between our build and the stock build.
# Writes $OVS_DIR/bench/results.csv (one line per measurement) and
# $OVS_DIR/bench/megaflows.txt, then prints the report
# (utilities/ovs-iptun-bench-report.py: medians, ratios, targets) and draws
# $OVS_DIR/bench/cycles.png.
#
# Scale: an IPTUN_BENCH_FLOWS entry REMOTESxFLOWS (for example 2000x50 or
# 1x100000) is as many remote tunnel endpoints (198.18.0.1 and up, in turn),
# each with FLOWS inner flows; such entries run the plain and -flow
# scenarios only, the others the rest.  Every measurement also appends to
# $OVS_DIR/bench/scale.csv
#   build,scenario,flows,size,round,megaflows,upcalls,reval_cpu,rss_kb,
#   dump_ms,rss_growth_kb
# the datapath flows at the end (upcall/show), the upcalls from the port's
# first packet to the end, the revalidator threads' CPU over the window
# (% of one CPU, /proc), ovs-vswitchd's resident memory at the end, the
# revalidators' last dump duration and the resident memory's growth from
# before the port was added (its pcap file, the flows, the caches); the
# report prints them for 50,000 flows and more.
#
# Environment: IPTUN_BENCH_TIME (s, default 2), IPTUN_BENCH_REPEAT
# (rounds, default 3), IPTUN_BENCH_WARMUP (s, default 1, plus 1 per 50,000
# flows), IPTUN_BENCH_FLOWS (default "1 10000 200x50"), IPTUN_BENCH_SIZES
# (default "64 512"), IPTUN_BENCH_TYPES (default all of the above but
# fou-flow and gue-flow), IPTUN_BENCH_SCENARIOS (a list of the scenarios
# above to run instead of all of those of the types, for example "plain
# decap-ipip"), IPTUN_BENCH_BASELINE (yes/no),
# IPTUN_BENCH_PERF=yes (also records a "perf" profile of the PMD thread per
# scenario into $OVS_DIR/bench/perf-*.txt), IPTUN_BENCH_INSN=yes (see
# below).
#
# IPTUN_BENCH_INSN=yes counts instructions instead of reading cycles alone:
# ovs-vswitchd runs under valgrind's callgrind, which counts the
# instructions that the PMD executes in dp_netdev_process_rxq_port() but
# not in netdev_rxq_recv() (the receive, net_pcap's): the datapath's
# processing of a received batch (miniflow extraction, the caches and
# lookups, the actions, recirculation, upcalls if any) and the transmission
# to the output ports (net_null's transmit included), not the PMD's loop.
# (Open vSwitch 4.0 inlines dp_netdev_input(), which 3.1 called through a
# pointer and the bench counted from.)  A measurement starts a new PMD thread (pmd-cpu-mask to
# CPU 0 and back: empty caches, whatever earlier scenarios left in them),
# warms up, stops the input (the rx port's admin state:
# netdev-dpdk/set-admin-state), clears the PMD statistics and zeroes
# callgrind's counters (callgrind_control -z), lets the traffic in for
# IPTUN_BENCH_INSN_TIME seconds (default 5), stops it again, dumps the
# counters (callgrind_control -d): instructions per packet are the dump's
# total over the PMD's received packets, both of exactly the same packets.
# results.csv gets them as a 12th column; its cycles and packet rates are
# then valgrind's (about 20 times slower), not the machine's.
# IPTUN_BENCH_WARMUP defaults to 3 s in this mode, plus 3 s per 1,000
# flows up to 45 s (the exact-match cache, which takes one miss in 100,
# needs some 700 packets per flow to settle; with more flows than its 8,192
# entries it never does).  Round 1 keeps each scenario's dump as
# $OVS_DIR/bench/callgrind-*.out (callgrind_annotate --inclusive=yes shows
# where the instructions go).
# Needs root (network namespace, tap device).
#
# The builds are utilities/ovs-iptun-build.sh's "dpdk" and "stock".

set -eu
: "${OVS_SRCDIR:?}" "${OVS_DIR:?}"
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
here=$iptun_dir
W=$OVS_DIR/bench
T=${IPTUN_BENCH_TIME:-2}
REPEAT=${IPTUN_BENCH_REPEAT:-3}
WARM=${IPTUN_BENCH_WARMUP:-1}
FLOWS=${IPTUN_BENCH_FLOWS:-1 10000 200x50}
SIZES=${IPTUN_BENCH_SIZES:-64 512}
TYPES=${IPTUN_BENCH_TYPES:-ipip fou fou-csum gue gre vxlan geneve ipip-6in4
gre-6in4 ipip-4in6 gre-4in6 fou-4in6 vxlan-4in6 geneve-4in6 ipip-6in6
gre-6in6 ipip-flow}
BASELINE=${IPTUN_BENCH_BASELINE:-yes}
NOCACHE=${IPTUN_BENCH_NOCACHE:-yes}
NOPMTU=${IPTUN_BENCH_NOPMTU:-yes}
INSN=${IPTUN_BENCH_INSN:-no}
# How much longer than native daemon start-up and reconfiguration take.
SLOW=1
if test "$INSN" = yes; then
    T=${IPTUN_BENCH_INSN_TIME:-5}
    WARM=${IPTUN_BENCH_WARMUP:-3}
    SLOW=5
fi

# nflows FLOWS: the number of inner flows of an IPTUN_BENCH_FLOWS entry
# (REMOTESxFLOWS or FLOWS).
nflows () {
    case $1 in
    *x*) echo $((${1%x*} * ${1#*x})) ;;
    *) echo "$1" ;;
    esac
}

# warmup FLOWS: the warm-up time (s) for IPTUN_BENCH_FLOWS entry FLOWS.
warmup () {
    local n
    n=$(nflows "$1")
    if test -n "${IPTUN_BENCH_WARMUP:-}"; then
        echo "$WARM"
    elif test "$INSN" = yes; then
        n=$((3 * n / 1000))
        echo $((WARM + (n > 42 ? 42 : n)))
    else
        echo $((WARM + n / 50000))
    fi
}
NS=ovs-iptun-bench

if test "${IPTUN_BENCH_IN_NS:-}" != yes; then
    # 1. The builds.
    bash "$here/ovs-iptun-build.sh" dpdk
    iptun_need_root "network namespace, tap device"
    if test "$BASELINE" = yes; then
        bash "$here/ovs-iptun-build.sh" stock
    fi

    # 2. The frames.
    mkdir -p "$W"
    for f in $FLOWS; do
        for s in $SIZES; do
            d=$W/frames/$f-$s
            # Again when the generator changed (new tunnel types).
            if test ! -f "$d/done" \
               || test "$here/ovs-iptun-bench-frames.py" -nt "$d/done"; then
                mkdir -p "$d"
                $iptun_py "$here/ovs-iptun-bench-frames.py" "$d" "$f" "$s"
                touch "$d/done"
            fi
        done
    done

    # 3. The runs, in a network namespace (this script again, below).
    # No IPv6 chatter (router solicitations) from br-phy's tap.
    iptun_netns_del $NS
    iptun_netns_add $NS
    trap 'iptun_netns_del $NS' EXIT
    rm -f "$W/results.csv" "$W/scale.csv" "$W/megaflows.txt" \
        "$W"/callgrind-*.out
    # Everything but the PMD thread (pinned to CPU 1 by pmd-cpu-mask) stays
    # on CPU 0, so that no other thread steals cycles that the PMD counts.
    IPTUN_BENCH_IN_NS=yes ip netns exec $NS taskset -c 0 bash "$0" "$@"
    $iptun_py "$here/ovs-iptun-bench-report.py" "$W/results.csv" \
        "$W/megaflows.txt" "$W/cycles.png"
    exit 0
fi

RUN=
ovs_stop () {
    test -z "$RUN" || iptun_ovs_stop "$RUN"
}

# ovs_start BUILD NAME: ovsdb-server and ovs-vswitchd of build directory
# BUILD, with DPDK and one PMD thread on CPU 1; bridge br-int with the
# sink port (OpenFlow port 2).
ovs_start () {
    local b=$1
    RUN=$W/run-$2
    rm -rf "$RUN"
    mkdir -p "$RUN"
    # For the ovs-* commands below.
    export OVS_RUNDIR=$RUN OVS_LOGDIR=$RUN OVS_DBDIR=$RUN OVS_SYSCONFDIR=$RUN
    PATH=$(iptun_ovs_path "$b" "$PATH_ORIG")
    iptun_ovsdb_start "$RUN" "$(iptun_ovs_schema "$b")"
    ovs-vsctl --no-wait set Open_vSwitch . other_config:dpdk-init=true \
        other_config:dpdk-lcore-mask=0x1 other_config:pmd-cpu-mask=0x2 \
        other_config:pmd-perf-metrics=true \
        other_config:dpdk-extra="--no-huge --legacy-mem -m 1024 --no-pci --file-prefix=$NS"
    if test "$INSN" = yes; then
        # No DPDK or OVS code is counted but the datapath's packet path
        # (see the header comment); --fair-sched: the busy PMD thread and
        # the main thread take turns.
        iptun_vswitchd_start "$RUN" "" valgrind --tool=callgrind \
            --collect-atstart=no --fair-sched=yes \
            --toggle-collect=dp_netdev_process_rxq_port \
            --callgrind-out-file="$RUN/callgrind.out" \
            --log-file="$RUN/valgrind.log"
    else
        iptun_vswitchd_start "$RUN"
    fi
    ovs-vsctl --timeout=$((60 * SLOW)) wait-until Open_vSwitch . \
        dpdk_initialized=true
    ovs-vsctl add-br br-int -- set bridge br-int datapath_type=netdev \
        fail_mode=secure
    add_dpdk_port br-int sink-int net_null0,no-rx=1 2
}

# add_dpdk_port BRIDGE NAME DEVARGS OFPORT
add_dpdk_port () {
    ovs-vsctl add-port "$1" "$2" -- set interface "$2" type=dpdk \
        options:dpdk-devargs="$3" ofport_request="$4"
    if ! ovs-vsctl --timeout=$((30 * SLOW)) wait-until interface "$2" \
            ofport="$4"; then
        echo "bench: port $2 ($3) failed: $(ovs-vsctl get interface "$2" error)" >&2
        exit 1
    fi
}

# Tunnel ports (br-int OpenFlow port numbers) and the underlay bridge.
declare -A TUN_PORT=([ipip]=10 [fou]=11 [fou-csum]=12 [gre]=13 [vxlan]=14
                     [geneve]=15 [gue]=16)
# Flow-based ports (the -flow types): OpenFlow port numbers 20 higher.
declare -A TUN_OPTS=(
    [ipip]="type=ipip"
    [fou]="type=fou options:dst_port=5555"
    [fou-csum]="type=fou options:dst_port=5556 options:csum=true"
    [gue]="type=gue options:dst_port=6080"
    [gre]="type=gre options:packet_type=legacy_l3"
    [vxlan]="type=vxlan"
    [geneve]="type=geneve")

# tun_port TYPE: the tunnel port (a TUN_PORT key) of scenario type TYPE:
# ipip for ipip and ipip-6in4, ipip6 (over IPv6: the same options, OpenFlow
# port number 10 higher) for ipip-4in6 and ipip-6in6, ipipflow for
# ipip-flow, and so on.
tun_port () {
    case $1 in
    *-4in6|*-6in6) echo "${1%-*}6" ;;
    *-flow) echo "${1%-*}flow" ;;
    *-6in4) echo "${1%-*}" ;;
    *) echo "$1" ;;
    esac
}

tunnels_up () {
    local t
    ovs-vsctl add-br br-phy -- set bridge br-phy datapath_type=netdev \
        fail_mode=secure other-config:hwaddr=aa:55:aa:55:00:01
    add_dpdk_port br-phy sink-phy net_null1,no-rx=1 2
    ip addr replace 192.0.2.1/24 dev br-phy
    sysctl -q -w net.ipv6.conf.br-phy.disable_ipv6=0
    ip addr replace 2001:db8::1/64 dev br-phy nodad
    ip link set br-phy up
    ovs-appctl tnl/neigh/set br-phy 192.0.2.2 aa:55:aa:55:00:02 >/dev/null
    ovs-appctl tnl/neigh/set br-phy 2001:db8::2 aa:55:aa:55:00:02 >/dev/null
    local ports
    ports=$(for t in $TYPES; do tun_port "$t"; done | sort -u)
    for t in $ports; do
        local base=${t%6} remote=192.0.2.2 port
        base=${base%flow}
        port=${TUN_PORT[$base]}
        case $t in
        *flow) remote=flow port=$((port + 20)) ;;
        *6) remote=2001:db8::2 port=$((port + 10)) ;;
        esac
        TUN_PORT[$t]=$port
        # shellcheck disable=SC2086
        ovs-vsctl add-port br-int "tun-$t" -- set interface "tun-$t" \
            ${TUN_OPTS[$base]} options:remote_ip=$remote \
            ofport_request="$port"
    done
    # ovs-router learns 192.0.2.0/24 and 2001:db8::/64 from the kernel.
    for _ in $(seq $((50 * SLOW))); do
        ovs-appctl ovs/route/show > "$W/routes.txt"
        grep -q '192.0.2.0/24 dev br-phy' "$W/routes.txt" \
            && grep -q '2001:db8::/64 dev br-phy' "$W/routes.txt" && break
        sleep 0.1
    done
}

# callgrind CMD: callgrind_control CMD for our ovs-vswitchd; quiet unless it
# fails.
callgrind () {
    local out
    if ! out=$(callgrind_control "$1" "$(cat "$RUN/ovs-vswitchd.pid")" 2>&1)
    then
        echo "bench: callgrind_control $1 failed: $out" >&2
        exit 1
    fi
}

# fresh_pmd: replaces the PMD thread by a new one, with empty caches (the
# exact-match cache keeps the dead entries of earlier scenarios, and they
# decide where a new flow's entry goes, a few instructions per packet), by
# moving it to CPU 0 and back.
fresh_pmd () {
    local core n
    for core in 0 1; do
        ovs-vsctl set Open_vSwitch . other_config:pmd-cpu-mask=0x$((1 << core))
        n=0
        until ovs-appctl dpif-netdev/pmd-rxq-show | grep -q "core_id $core:"
        do
            n=$((n + 1))
            if test $n -gt 300; then
                echo "bench: no PMD thread on CPU $core" >&2
                exit 1
            fi
            sleep 0.2
        done
    done
}

# insn_window: the IPTUN_BENCH_INSN=yes measurement window (the header
# comment), with the rx port receiving; leaves the dump of callgrind's
# counters in $RUN/callgrind.out.N (the only such file) and the rx port
# down.  No packet is in flight when the counters are zeroed or dumped, so
# that the instructions and the PMD's statistics count the same packets.
insn_window () {
    ovs-appctl netdev-dpdk/set-admin-state rx down >/dev/null
    sleep 0.5
    ovs-appctl dpif-netdev/pmd-stats-clear >/dev/null
    # (The PMD thread clears its statistics in its next iteration.)
    sleep 0.5
    rm -f "$RUN"/callgrind.out.*
    callgrind -z
    ovs-appctl netdev-dpdk/set-admin-state rx up >/dev/null
    sleep "$T"
    ovs-appctl netdev-dpdk/set-admin-state rx down >/dev/null
    sleep 0.5
    callgrind -d
}

# reval_ticks: the CPU time (clock ticks) that ovs-vswitchd's revalidator
# threads have used.
reval_ticks () {
    local pid
    pid=$(cat "$RUN/ovs-vswitchd.pid")
    cat /proc/"$pid"/task/*/stat 2>/dev/null \
        | awk '$2 ~ /^\(revalidator/ { t += $14 + $15 } END { print t + 0 }'
}

# vswitchd_rss: ovs-vswitchd's resident memory (kB).
vswitchd_rss () {
    awk '$1 == "VmRSS:" { print $2 }' \
        "/proc/$(cat "$RUN/ovs-vswitchd.pid")/status"
}

# perf_upcalls: the upcalls in the "dpif-netdev/pmd-perf-show" output on
# standard input (since the PMD's statistics were last cleared), 0 if none.
perf_upcalls () {
    # Summed over the threads (Open vSwitch 4.0 lists the main thread too).
    awk '/^ *- Upcalls:/ { n += $3 } END { print n + 0 }'
}

N_RX=0
# measure BUILD-NAME SCENARIO FLOWS SIZE BRIDGE PCAP ROUND: replays PCAP into
# BRIDGE's port 1 (with the scenario's flows already in place), warms up,
# and appends one measurement to results.csv.
measure () {
    local build=$1 scen=$2 flows=$3 size=$4 br=$5 pcap=$6 round=$7
    local out rx kpps cyc passes tx upcalls insn="" ir dumps
    N_RX=$((N_RX + 1))
    if test "$INSN" = yes; then
        fresh_pmd
    fi
    local warm_upcalls reval0 reval1 t0 t1 upcall rss rss0 dp_flows reval_cpu
    local dump_ms
    ovs-appctl dpif-netdev/pmd-stats-clear >/dev/null
    rss0=$(vswitchd_rss)
    add_dpdk_port "$br" rx "net_pcap$N_RX,rx_pcap=$pcap,infinite_rx=1" 1
    sleep "$(warmup "$flows")"
    warm_upcalls=$(ovs-appctl dpif-netdev/pmd-perf-show | perf_upcalls)
    reval0=$(reval_ticks) t0=$(date +%s%N)
    if test "$INSN" = yes; then
        insn_window
    else
        ovs-appctl dpif-netdev/pmd-stats-clear >/dev/null
        sleep "$T"
    fi
    reval1=$(reval_ticks) t1=$(date +%s%N)
    out=$(ovs-appctl dpif-netdev/pmd-perf-show)
    read -r rx kpps cyc < <(echo "$out" | sed -n 's/^ *Rx packets: *\([0-9]*\) *(\([0-9.]*\) Kpps, *\([0-9.]*\) cycles\/pkt)/\1 \2 \3/p') || true
    passes=$(echo "$out" \
        | sed -n 's/^ *Datapath passes: .*(\([0-9.]*\) passes\/pkt)/\1/p' | head -1)
    upcalls=$(echo "$out" | perf_upcalls)
    # Summed over the threads (Open vSwitch 4.0 lists the main thread too).
    tx=$(echo "$out" | awk '/^ *Tx packets:/ { n += $3 } END { print n + 0 }')
    if test -z "$cyc" || test "${rx:-0}" = 0; then
        echo "bench: $build $scen $flows $size: no packets received" >&2
        echo "$out" >&2
        exit 1
    fi
    # Every received packet must leave (a few in flight at the ends).
    if test $((tx * 100)) -lt $((rx * 99)); then
        echo "bench: $build $scen $flows $size: $rx packets in, $tx out" >&2
        ovs-appctl dpctl/dump-flows >&2
        exit 1
    fi
    if test "$INSN" = yes; then
        dumps=("$RUN"/callgrind.out.*)
        ir=$(sed -n 's/^summary: *\([0-9]*\)$/\1/p' "${dumps[0]}")
        if test ${#dumps[@]} != 1 || test -z "$ir"; then
            echo "bench: $build $scen $flows $size: no callgrind dump" >&2
            exit 1
        fi
        # Without the receive (net_pcap's).
        rx_ir=$(callgrind_annotate --inclusive=yes "${dumps[0]}" \
                    2>/dev/null \
                | awk '$0 ~ /:netdev_rxq_recv( |$)/ {
                           gsub(/,/, "", $1); print $1; exit }')
        if test -z "$rx_ir"; then
            echo "bench: $build $scen $flows $size: no netdev_rxq_recv" \
                 "in the callgrind dump" >&2
            exit 1
        fi
        ir=$((ir - rx_ir))
        insn=$(awk -v ir="$ir" -v rx="$rx" 'BEGIN { printf "%.2f", ir / rx }')
        if test "${upcalls:-0}" != 0; then
            echo "bench: $build $scen $flows $size: $upcalls upcalls in" \
                 "the window (counted in the instructions)" >&2
        fi
        if test "$round" = 1; then
            mv "${dumps[0]}" "$W/callgrind-$build-$scen-$flows-$size.out"
        fi
    fi
    echo "$build,$scen,$flows,$size,$round,$cyc,$kpps,$passes,${upcalls:-0},$rx,$tx${insn:+,$insn}" \
        >> "$W/results.csv"
    upcall=$(ovs-appctl upcall/show)
    rss=$(vswitchd_rss)
    dp_flows=$(echo "$upcall" \
        | sed -n 's/^ *flows *: (current \([0-9]*\)).*/\1/p' | head -1)
    dump_ms=$(echo "$upcall" \
        | sed -n 's/^ *dump duration : \([0-9]*\)ms.*/\1/p' | head -1)
    reval_cpu=$(awk -v d=$((reval1 - reval0)) -v hz="$(getconf CLK_TCK)" \
        -v ns=$((t1 - t0)) 'BEGIN { printf "%.1f", 100 * d / hz / (ns / 1e9) }')
    echo "$build,$scen,$flows,$size,$round,$dp_flows,$((warm_upcalls + upcalls)),$reval_cpu,$rss,$dump_ms,$((rss - rss0))" \
        >> "$W/scale.csv"
    printf 'bench: %-5s round %s %-16s %5s flows %3s B: %s cycles/pkt, %s Kpps%s\n' \
        "$build" "$round" "$scen" "$flows" "$size" "$cyc" "$kpps" \
        "${insn:+, $insn insn/pkt}"
    if test "$round" = 1; then
        if test "${IPTUN_BENCH_PERF:-no}" = yes; then
            # Where the PMD's cycles go: a 2-second profile of CPU 1.
            # shellcheck disable=SC2086  # the *_ARGS are argument lists
            perf record -q -e cpu-clock ${IPTUN_BENCH_PERF_ARGS:-} -C 1 \
                -o "$W/perf.data" -- sleep 2 2>/dev/null
            # shellcheck disable=SC2086
            perf report -q -i "$W/perf.data" --stdio --sort symbol \
                ${IPTUN_BENCH_PERF_REPORT_ARGS:-} --percent-limit 0.5 \
                2>/dev/null > "$W/perf-$build-$scen-$flows-$size.txt"
            rm -f "$W/perf.data"
        fi
        {
            echo "== $build $scen $flows flows, $size B"
            ovs-appctl dpctl/dump-flows
        } >> "$W/megaflows.txt"
    fi
    ovs-vsctl del-port "$br" rx
}

# set_flows BR-INT-FLOW [BR-PHY-FLOW]
set_flows () {
    ovs-ofctl del-flows br-int
    ovs-ofctl add-flow br-int "$1"
    if test -n "${2:-}"; then
        ovs-ofctl del-flows br-phy
        ovs-ofctl add-flow br-phy "$2"
    fi
    ovs-appctl revalidator/purge >/dev/null
}

# scenario BUILD-NAME SCENARIO FLOWS SIZE ROUND
scenario () {
    local t=${2#*-} p frames=$W/frames/$3-$4 ip=ip inner=inner
    # Frames from remotes 198.18.0.1 and up (REMOTESxFLOWS): plain and the
    # -flow types only; from 192.0.2.2: all but the -flow types (the port
    # with the fixed remote would take them).
    case $3 in
    *x*)
        case $2 in
        plain|*-flow) ;;
        *) return 0 ;;
        esac
        ;;
    *)
        case $2 in
        *-flow) return 0 ;;
        esac
        ;;
    esac
    case $2 in
    *-6in4|*-6in6|plain6) ip=ipv6 inner=inner6 ;;
    esac
    case $2 in
    plain|plain6)
        set_flows "in_port=1,$ip,actions=dec_ttl,output:2"
        measure "$1" "$2" "$3" "$4" br-int "$frames/$inner.pcap" "$5"
        ;;
    encap-*|encapnp-*)
        p=${TUN_PORT[$(tun_port "$t")]}
        if test "${2%%-*}" = encapnp; then
            # The same encapsulation without the path MTU length check
            # (check_pkt_len); the translation leaves it out when the
            # datapath lacks the action.
            ovs-appctl dpif/set-dp-features br-int check_pkt_len false \
                >/dev/null
        fi
        p="output:$p"
        case $t in
        *-flow) p="set_field:192.0.2.2->tun_dst,$p" ;;
        esac
        set_flows "in_port=1,$ip,actions=dec_ttl,$p" \
                  "in_port=LOCAL,actions=output:2"
        measure "$1" "$2" "$3" "$4" br-int "$frames/$inner.pcap" "$5"
        if test "${2%%-*}" = encapnp; then
            ovs-appctl dpif/set-dp-features br-int check_pkt_len true \
                >/dev/null
        fi
        ;;
    decap-*|decapnc-*|decap2p-*|decap2l-*)
        p=${TUN_PORT[$(tun_port "$t")]}
        set_flows "in_port=$p,$ip,actions=dec_ttl,output:2" \
                  "in_port=1,actions=LOCAL"
        case ${2%%-*} in
        decapnc)
            # The same decapsulation without the tunnel termination cache.
            ovs-vsctl set Open_vSwitch . other_config:iptun-term-cache=false
            ;;
        decap2p)
            # With the cache, in two passes.
            ovs-vsctl set Open_vSwitch . \
                other_config:iptun-term-one-pass=false
            ;;
        decap2l)
            # With the cache, in one pass, a lookup for each pass.
            ovs-vsctl set Open_vSwitch . \
                other_config:iptun-term-one-lookup=false
            ;;
        esac
        measure "$1" "$2" "$3" "$4" br-phy "$frames/${t%-flow}.pcap" "$5"
        ovs-vsctl remove Open_vSwitch . other_config iptun-term-cache \
            -- remove Open_vSwitch . other_config iptun-term-one-pass \
            -- remove Open_vSwitch . other_config iptun-term-one-lookup
        ;;
    esac
}

PATH_ORIG=$PATH
trap 'ovs_stop' EXIT

# Every scenario once per round, IPTUN_BENCH_REPEAT rounds, the scenarios
# that are compared with each other next to each other, so that slow drift
# in the machine's speed (shared hosts) hits them alike.  Faster noise is not
# cancelled this way: the report gives the lowest value beside the median.
# scenarios TYPES NOCACHE NOPMTU: the scenarios of TYPES, with the decapnc
# and encapnp variants of ours if NOCACHE and NOPMTU are "yes".
scenarios () {
    local d t list=plain
    case " $1 " in
    *-6in*) list="$list plain6" ;;
    esac
    for d in encap decap; do
        for t in $1; do
            test "$d-${t#*-}" != encap-flow || continue
            list="$list $d-$t"
            case $d-$t-$2 in
            decap-ipip*-yes|decap-fou*-yes|decap-gue*-yes)
                list="$list decap2l-$t decap2p-$t decapnc-$t" ;;
            esac
            case $d-$t-$3 in
            encap-ipip*-yes|encap-fou*-yes|encap-gue*-yes)
                list="$list encapnp-$t" ;;
            esac
        done
    done
    echo "$list"
}
SCENARIOS=${IPTUN_BENCH_SCENARIOS:-$(scenarios "$TYPES" "$NOCACHE" "$NOPMTU")}
ovs_start "$OVS_DIR/dpdk-build" ours
tunnels_up
for round in $(seq "$REPEAT"); do
    for f in $FLOWS; do
        for s in $SIZES; do
            for sc in $SCENARIOS; do
                scenario ours "$sc" "$f" "$s" "$round"
            done
        done
    done
done
ovs_stop

# The baseline: what the stock build can do, with the feature unused (no
# port of ours), our build and the stock build alternating, one round each
# at a time: the plain scenarios and Open vSwitch's own tunnels (those of
# IPTUN_BENCH_TYPES).
if test "$BASELINE" = yes; then
    STOCK_TYPES=
    for t in $TYPES; do
        case ${t%%-*} in
        gre|vxlan|geneve) STOCK_TYPES="$STOCK_TYPES $t" ;;
        esac
    done
    STOCK_SCENARIOS=$(scenarios "$STOCK_TYPES" no no)
    for round in $(seq "$REPEAT"); do
        for b in ours stock; do
            if test $b = ours; then
                ovs_start "$OVS_DIR/dpdk-build" ours-baseline
            else
                ovs_start "$OVS_DIR/stock-build" stock
            fi
            if test -n "$STOCK_TYPES"; then
                TYPES=$STOCK_TYPES tunnels_up
            fi
            for f in $FLOWS; do
                for s in $SIZES; do
                    for sc in $STOCK_SCENARIOS; do
                        scenario "$b-base" "$sc" "$f" "$s" "$round"
                    done
                done
            done
            ovs_stop
        done
    done
fi
