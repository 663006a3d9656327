#! /bin/bash
# ovs-iptun-fuzz.sh: builds the fuzz targets with clang (libFuzzer,
# AddressSanitizer, UndefinedBehaviorSanitizer) and runs each for a bounded
# time.  Called by "make fuzz" with OVS_SRCDIR and OVS_DIR set.
#
#   iptun-fuzz-pop  the ipip, fou and gue receive paths
#                   (tests/iptun-fuzz-pop.c),
#                   seeded with every frame of tests/iptun-malformed.py
#   odp_target      Open vSwitch's datapath flow and action parser
#                   (tests/oss-fuzz/odp_target.c), seeded with ipip, fou and gue
#                   tnl_push actions
#
# IPTUN_FUZZ_TIME: seconds per target (default 60).  The build is
# utilities/ovs-iptun-build.sh's "fuzz" ($OVS_DIR/fuzz-build, which "make
# check-sanitizers" runs the unit tests on) and the two targets in it; the
# corpora and crash files go to $OVS_DIR/fuzz.
# Prints one line per target ("executions", "crashes") and exits nonzero
# if a target crashed.

set -eu
: "${OVS_SRCDIR:?}" "${OVS_DIR:?}"
T=${IPTUN_FUZZ_TIME:-60}
B=$OVS_DIR/fuzz-build
W=$OVS_DIR/fuzz
MAKE=${MAKE:-make}
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
here=$iptun_dir

bash "$here/ovs-iptun-build.sh" fuzz
$MAKE -C "$B" -s tests/iptun-fuzz-pop tests/oss-fuzz/odp_target \
    LIB_FUZZING_ENGINE=-fsanitize=fuzzer \
    tests_oss_fuzz_odp_target_LDFLAGS=-fsanitize=fuzzer

# Seed corpora.
rm -rf "$W"
mkdir -p "$W/pop" "$W/odp" "$W/crashes"
cases=$(sed -n 's/^  \(\(ipip6\|ip6ip6\|fou6\|gue6\|ipip\|sit\|fou\|gue\|good\)-[a-z0-9-]*\).*/\1/p' \
            "$here/../tests/iptun-malformed.py" | sed 's/,//')
i=0
for c in $cases good-ipip good-fou good-ip6ip6 good-fou6 good-gue-v1-ipv6 \
         gue-proto-0 gue-remcsum-inner; do
    hex=$($iptun_py "$here/../tests/iptun-malformed.py" - \
              aa:55:aa:55:00:00 1.1.2.92 1.1.2.88 5555 "$c")
    for sel in 00 01 02; do
        printf '%s%s' "$sel" "$hex" | xxd -r -p > "$W/pop/seed-$i"
        i=$((i + 1))
    done
done
n=0
for hdr in \
    'ipv4(src=1.1.2.88,dst=1.1.2.92,proto=4,tos=0,ttl=64,frag=0x4000),ipip()' \
    'ipv4(src=1.1.2.88,dst=1.1.2.92,proto=41,tos=0,ttl=64,frag=0x4000),ipip()' \
    'ipv4(src=1.1.2.88,dst=1.1.2.92,proto=17,tos=0,ttl=64,frag=0x4000),udp(src=0,dst=5555,csum=0x0),fou()' \
    'ipv4(src=1.1.2.88,dst=1.1.2.92,proto=17,tos=0,ttl=64,frag=0x4000),udp(src=0,dst=5555,csum=0xffff),fou()' \
    'ipv6(src=2001:cafe::88,dst=2001:cafe::92,label=0,proto=4,tclass=0x0,hlimit=64),ipip()' \
    'ipv6(src=2001:cafe::88,dst=2001:cafe::92,label=0,proto=41,tclass=0x0,hlimit=64),ipip()' \
    'ipv6(src=2001:cafe::88,dst=2001:cafe::92,label=0,proto=17,tclass=0x0,hlimit=64),udp(src=0,dst=5555,csum=0xffff),fou()' \
    'ipv4(src=1.1.2.88,dst=1.1.2.92,proto=17,tos=0,ttl=64,frag=0x4000),udp(src=0,dst=5555,csum=0x0),gue(proto=4)' \
    'ipv6(src=2001:cafe::88,dst=2001:cafe::92,label=0,proto=17,tclass=0x0,hlimit=64),udp(src=0,dst=5555,csum=0xffff),gue(proto=41)'
do
    size=34 type=113 dl_type=0x0800
    case $hdr in ipv6*) size=54 dl_type=0x86dd ;; esac
    case $hdr in *fou*) size=$((size + 8)) type=114 ;; esac
    case $hdr in *gue*) size=$((size + 12)) type=115 ;; esac
    # odp_target wants one NUL-terminated line.
    printf 'tnl_push(tnl_port(4),header(size=%s,type=%s,eth(dst=f8:bc:12:44:34:b6,src=aa:55:aa:55:00:00,dl_type=%s),%s),out_port(100)),1\0' \
        "$size" "$type" "$dl_type" "$hdr" > "$W/odp/seed-$n"
    n=$((n + 1))
done

status=0
run () {
    local name=$1 prog=$2 corpus=$3 log
    log=$W/$name.log
    # -close_fd_mask=3: the targets print what they parse.
    if (cd "$W/crashes" && "$prog" -max_total_time="$T" -print_final_stats=1 \
            -close_fd_mask=3 -artifact_prefix="$W/crashes/$name-" \
            "$corpus" >"$log" 2>&1); then
        :
    else
        status=1
    fi
    printf 'fuzz: %-15s %s s, %s executions, %s crashes\n' "$name" "$T" \
        "$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)" \
        "$(find "$W/crashes" -name "$name-*" | wc -l)"
}
run iptun-fuzz-pop "$B/tests/iptun-fuzz-pop" "$W/pop"
run odp_target "$B/tests/oss-fuzz/odp_target" "$W/odp"
if test $status != 0; then
    echo "fuzz: a target failed; logs and inputs in $W" >&2
fi
exit $status
