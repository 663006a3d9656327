#! /bin/sh
# ovs-iptun-check.sh: run the ovs-iptun test tiers and print a summary.
#
# Called by "make check" with OVS_SRCDIR, OVS_BUILDDIR and MAKE set.
#
# Tiers (all by default; give names to choose):
#   unit     the project's unit tests (keyword "iptun") and upstream's
#            suites that the patches touch (IPTUN_UPSTREAM, below), every
#            test of them, dummy datapath, no root; upstream's run first,
#            IPTUN_UPSTREAM_JOBS (default 8) at a time
#   system   the project's host system tests (userspace datapath, network
#            namespaces and veth; needs root, skipped otherwise)
#   guest    the project's system tests that need Linux's ipip and fou
#            (keyword "guest"), run in a qemu guest booting Debian's 6.1
#            kernel (utilities/ovs-iptun-guest.sh); needs root
#   guest612 the kernel datapath's guest tests of keyword k612 (or
#            IPTUN_GUEST612_KEYWORDS, e.g. "kernel,guest" for all) on
#            Debian 13's Linux 6.12, with the module DKMS built there
#            (utilities/ovs-iptun-kbuild612.sh --install); needs root
#
# TESTSUITEFLAGS (e.g. "-j2" or "-k ipip") is passed to every testsuite
# run; default "-j2".  The last line is "N passed, N failed, N skipped",
# counted from the testsuites' own per-test results.
#
# IPTUN_UNIT_EXCLUDE (keywords, e.g. "slow") leaves the unit tier's tests
# with any of them out (not run, not counted), unless TESTSUITEFLAGS
# chooses the tests.
#
# IPTUN_UPSTREAM chooses the upstream test files of the unit tier (files of
# tests/, shell patterns allowed), or names a set of them:
#   datapath  (the default, "make check") the tunnel set and the suites of
#             the code the patches change: dpif-netdev.at, pmd.at,
#             ofproto-dpif.at, packet-type-aware.at, nsh.at, library.at
#             (test-packets: push_eth)
#   tunnel    (the default of "make check-dpdk" and "make
#             check-sanitizers") upstream's tunnel regressions: tunnel*.at
#             (tunnel.at, tunnel-push-pop.at, tunnel-push-pop-ipv6.at) and
#             odp.at
#   none      the project's tests only

set -u
: "${OVS_SRCDIR:?}" "${OVS_BUILDDIR:?}"
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
MAKE=${MAKE:-make}
FLAGS=${TESTSUITEFLAGS:--j2}
tiers=${*:-unit system guest guest612}

UPSTREAM_TUNNEL="tunnel*.at odp.at"
UPSTREAM_DATAPATH="$UPSTREAM_TUNNEL dpif-netdev.at pmd.at ofproto-dpif.at
                   packet-type-aware.at nsh.at library.at"
case ${IPTUN_UPSTREAM:-datapath} in
datapath) upstream=$UPSTREAM_DATAPATH ;;
tunnel) upstream=$UPSTREAM_TUNNEL ;;
none) upstream= ;;
*) upstream=$IPTUN_UPSTREAM ;;
esac
# The file names, each of which must exist.
UPSTREAM_FILES=
for p in $upstream; do
    for f in "$OVS_SRCDIR"/tests/$p; do
        if test ! -f "$f"; then
            echo "$0: IPTUN_UPSTREAM: no upstream test file $p" \
                 "in $OVS_SRCDIR/tests" >&2
            exit 1
        fi
        UPSTREAM_FILES="$UPSTREAM_FILES ${f##*/}"
    done
done

log_dir=$OVS_BUILDDIR/iptun-check
rm -rf "$log_dir"
mkdir -p "$log_dir"

# Prints the numbers of the tests of testsuite listing $1 (the output of
# "testsuite --list") that come from the files in $2, or, with a keyword
# $3, the tests with that keyword outside those files, less those with a
# keyword of $IPTUN_UNIT_EXCLUDE; runs of consecutive numbers as ranges
# ("12-40", as autotest takes them).
select_tests () {
    awk -v files="$2" -v kw="${3:-}" -v exclude="${IPTUN_UNIT_EXCLUDE:-}" '
        BEGIN { n = split(files, f, " "); for (i = 1; i <= n; i++) want[f[i]] = 1
                n = split(exclude, f, /[ ,]/); for (i = 1; i <= n; i++) excl[f[i]] = 1 }
        function flush() {
            if (last != "" && ((kw == "" && lastloc in want) \
                               || (kw != "" && has && !(lastloc in want))) && !skip)
                print last
        }
        /^ *[0-9]+: / {
            flush()
            num = $1; sub(":", "", num)
            loc = $2; sub(":.*", "", loc)
            last = num; lastloc = loc; has = skip = 0
            next
        }
        # keyword lines follow their test
        /^      / {
            for (i = 1; i <= NF; i++) {
                if ($i == kw) has = 1
                if ($i in excl) skip = 1
            }
        }
        END { flush() }
    ' "$1" | sort -n | uniq | awk '
        function flush() { if (n) printf "%s ", (first == prev ? first : first "-" prev) }
        { if (n && $1 == prev + 1) { prev = $1; next } flush(); first = prev = $1; n = 1 }
        END { flush() }'
}

# Keeps the per-test result lines of tier $1's log (without the colors a
# terminal gets) in $1.results; $2 is the exit status of the run.  A test
# run twice (upstream's RECHECK) keeps its last result; the ones that
# failed first are listed in $1.rechecked.
collect_results () {
    name=$1 status=$2
    # The tier's time, for a reader of CI's output ("time: NAME N s").
    echo "time: $name $(($(date +%s) - tier_started)) s"
    sed 's/\x1b\[[0-9;]*m//g; s/\r$//' "$log_dir/$name.log" \
        | grep -aE '^ *[0-9]+: .* (ok|FAILED \(.*\)|skipped \(.*\)|expected failure)$' \
        > "$log_dir/$name.all"
    awk '{ n = $1 + 0 } !(n in last) { order[++k] = n }
         { if (n in last && last[n] ~ /FAILED/) again[n] = last[n]; last[n] = $0 }
         END { for (i = 1; i <= k; i++) print last[order[i]]
               for (n in again) print again[n] > "/dev/stderr" }' \
        "$log_dir/$name.all" > "$log_dir/$name.results" \
        2> "$log_dir/$name.rechecked"
    cat "$log_dir/$name.results"
    if test -s "$log_dir/$name.rechecked"; then
        echo "$name: failed once, passed when run again (upstream's RECHECK):"
        sed 's/^/    /' "$log_dir/$name.rechecked"
    fi
    if test "$status" -ne 0 \
       && ! grep -q 'FAILED' "$log_dir/$name.results"; then
        # The suite failed without a test failing: a build or harness error.
        tail -30 "$log_dir/$name.log"
        echo "$name: FAILED (the run exited with $status)" \
            >> "$log_dir/$name.results"
    fi
}

# run_guest NAME KEYWORDS: the system tests with KEYWORDS (autotest's
# "-k", comma-separated, all of them) in a qemu guest (ovs-iptun-guest.sh:
# IPTUN_GUEST_KERNEL, IPTUN_GUEST_MODROOT choose its kernel), results as
# tier NAME.  The guest sees this build tree (read-only, with a writable
# overlay) and writes each run's testsuite.log back (a test's CPU time
# after its result), with the failed tests' directories.
#
# Without a -k in TESTSUITEFLAGS the tests run in two parts: first those
# that load and unload kernel modules (keyword "modules"), which every other
# test in the guest would see, one at a time through upstream's
# check-system-userspace target (which runs its tests one at a time); then
# all the others two at a time on the guest's two CPUs (each test's hosts
# are network namespaces of its own), by calling the testsuite as that
# target does.
run_guest () {
    local name=$1 kw=$2 guest_flags modroot kver tier_started
    tier_started=$(date +%s)
    guest_flags="$FLAGS" IPTUN_CHECK_PARALLEL=
    case " $FLAGS " in
    *" -k "*) ;;
    *) guest_flags="$FLAGS -k iptun,$kw,modules"
       IPTUN_CHECK_PARALLEL="$FLAGS -k iptun,$kw,!modules -j2" ;;
    esac
    echo "=== $name: make check-system-userspace TESTSUITEFLAGS='$guest_flags'${IPTUN_CHECK_PARALLEL:+, then TESTSUITEFLAGS='$IPTUN_CHECK_PARALLEL'} in a qemu guest${IPTUN_GUEST_KERNEL:+ booting $IPTUN_GUEST_KERNEL}"
    mkdir -p "$log_dir/$name"
    # The kernel datapath tests need the tunnel module installed (in the
    # guest overlay only), when it was built for the guest's kernel (not
    # with IPTUN_GUEST_MODROOT, which has its own): "make modules_install"
    # here, natively, into a copy of the guest kernel's module directory
    # (symbolic links to its modules, its index files copied), which the
    # guest then copies over its own (41 s under TCG when the guest ran make
    # modules_install itself, mostly kbuild and depmod).
    modroot=$log_dir/$name/modroot
    rm -rf "$modroot"
    if test -z "${IPTUN_GUEST_MODROOT:-}" \
       && test -n "${IPTUN_TOP_BUILDDIR:-}" \
       && test -f "$IPTUN_TOP_BUILDDIR/_ovs/kmod/iptun.ko"; then
        kver=$(iptun_guest_kver)
        mkdir -p "$modroot/lib/modules"
        cp -as "/lib/modules/$kver" "$modroot/lib/modules/"
        for f in "$modroot/lib/modules/$kver"/modules.*; do
            cp --remove-destination "/lib/modules/$kver/${f##*/}" "$f"
        done
        make -s -C "$IPTUN_TOP_BUILDDIR" modules_install \
             INSTALL_MOD_PATH="$modroot" \
             > "$log_dir/$name/modules_install.log" 2>&1 \
            || echo "$name: make modules_install failed"
    fi
    export IPTUN_CHECK_PARALLEL
    TESTSUITEFLAGS="$guest_flags" \
    bash "$iptun_dir/ovs-iptun-guest.sh" -t "${IPTUN_GUEST_TIMEOUT:-2700}" \
        -r "$log_dir/$name" bash -c '
            modroot=$IPTUN_GUEST_RESULTS/modroot/lib/modules/$(uname -r)
            if test -f "$modroot/extra/iptun.ko"; then
                mkdir -p "/lib/modules/$(uname -r)/extra"
                cp "$modroot/extra/iptun.ko" "/lib/modules/$(uname -r)/extra/"
                cp "$modroot"/modules.* "/lib/modules/$(uname -r)/"
            fi
            keep_failed () {
                cp -r "$OVS_BUILDDIR/tests/system-userspace-testsuite.dir" \
                      "$IPTUN_GUEST_RESULTS/" 2>/dev/null
            }
            # Each run'"'"'s testsuite.log (with each test'"'"'s CPU time), failed
            # or not.
            keep_log () {
                cp "$OVS_BUILDDIR/tests/system-userspace-testsuite.log" \
                   "$IPTUN_GUEST_RESULTS/testsuite-$1.log" 2>/dev/null
            }
            rc=0
            make -C "$OVS_BUILDDIR" check-system-userspace \
                TESTSUITEFLAGS="$TESTSUITEFLAGS" || { rc=1; keep_failed; }
            keep_log 1
            if test -n "$IPTUN_CHECK_PARALLEL"; then
                cd "$OVS_BUILDDIR" || exit 1
                # shellcheck disable=SC2086  # one argument per flag
                /bin/bash "$OVS_SRCDIR/tests/system-userspace-testsuite" \
                    -C tests AUTOTEST_PATH=utilities:vswitchd:ovsdb:vtep:tests:ipsec:: \
                    $IPTUN_CHECK_PARALLEL || { rc=1; keep_failed; }
                keep_log 2
            fi
            exit $rc' > "$log_dir/$name.log" 2>&1
    status=$?
    slowest "$name" "$log_dir/$name"/testsuite-*.log
    collect_results "$name" $status
}

# slowest NAME LOG...: prints the five tests of tier NAME whose own
# processes (the commands it waits for, not its daemons) took the most CPU
# time, user + system as autotest's testsuite.log records it for each
# test, for a reader of CI's output ("slowest: NAME N s: TEST").
slowest () {
    slowest_tier=$1
    shift
    cat "$@" 2>/dev/null | awk '
        /^[0-9]+\. .*: (ok|FAILED|expected failure).*\([0-9]+m[0-9.]+s [0-9]+m[0-9.]+s\)$/ {
            t = $0
            sub(/^.*\(/, "", t)
            split(t, f, /[ms) ]+/)
            cpu = f[1] * 60 + f[2] + f[3] * 60 + f[4]
            test = $0
            sub(/ *\([0-9]+m.*$/, "", test)
            printf "%.1f %s\n", cpu, test
        }' | sort -rn | head -5 | while read -r cpu test; do
            echo "slowest: $slowest_tier $cpu s: $test"
        done
}

# Runs "make $1 TESTSUITEFLAGS=..." with the given test selection;
# RECHECK=yes in the environment runs the failed tests once more
# (upstream's own CI does so for its timing-sensitive tests).
run_suite () {
    target=$1 name=$2
    shift 2
    tier_started=$(date +%s)
    echo "=== $name: make $target TESTSUITEFLAGS='$FLAGS $*'"
    $MAKE -C "$OVS_BUILDDIR" "$target" TESTSUITEFLAGS="$FLAGS $*" \
        RECHECK="${RECHECK:-no}" > "$log_dir/$name.log" 2>&1
    status=$?
    case $target in
    check) slowest "$name" "$OVS_BUILDDIR/tests/testsuite.log" ;;
    *) slowest "$name" "$OVS_BUILDDIR/tests/system-userspace-testsuite.log" ;;
    esac
    # The unit tier runs the testsuite twice: keep the failed tests' logs
    # of each run.
    if test $status != 0 && test "$target" = check; then
        rm -rf "$log_dir/$name.dir"
        cp -r "$OVS_BUILDDIR/tests/testsuite.dir" "$log_dir/$name.dir" \
            2>/dev/null
    fi
    collect_results "$name" $status
}

# run_guest612: the guest612 tier (see the tier loop below).
run_guest612 () {
    # The kernel datapath's tests on Debian 13's Linux 6.12, with the
    # module that DKMS built and installed in the Debian 13 root of
    # ovs-iptun-kbuild612.sh (which boots there with its own modules).
    local kb_status accel
    if ! iptun_is_root; then
        echo "=== guest612: skipped (needs root)"
        echo "guest612: skipped (needs root)" > "$log_dir/guest612.results"
        return
    fi
    mkdir -p "$log_dir/guest612"
    kb_status=0
    bash "$iptun_dir/ovs-iptun-kbuild612.sh" --install \
        > "$log_dir/guest612/kbuild612.log" 2>&1 || kb_status=$?
    if test $kb_status != 0; then
        tail -20 "$log_dir/guest612/kbuild612.log"
        if test $kb_status = 77; then
            echo "guest612: skipped (no Debian 13 6.12 headers)" \
                > "$log_dir/guest612.results"
        else
            echo "guest612: FAILED (the 6.12 module did not build)" \
                > "$log_dir/guest612.results"
        fi
        return
    fi
    IPTUN_GUEST_KERNEL=$(iptun_k612_root)/boot/vmlinuz-$IPTUN_K612_RELEASE
    IPTUN_GUEST_MODROOT=$(iptun_k612_root)
    # Both vCPUs on one TCG thread: with a thread each, 6.12's live
    # patching of static branches (text_poke_bp(), e.g. when tcpdump
    # turns on timestamps) crashed the guest now and then (an int3, or
    # a jump into a half-patched instruction in __netif_receive_skb).
    accel=${IPTUN_GUEST_ACCEL-}
    IPTUN_GUEST_ACCEL=${accel:-tcg,thread=single}
    export IPTUN_GUEST_KERNEL IPTUN_GUEST_MODROOT IPTUN_GUEST_ACCEL
    run_guest guest612 "${IPTUN_GUEST612_KEYWORDS:-kernel,k612}"
    unset IPTUN_GUEST_KERNEL IPTUN_GUEST_MODROOT IPTUN_GUEST_ACCEL
    test -z "$accel" || export IPTUN_GUEST_ACCEL="$accel"
}

# The guest612 tier runs beside the guest tier when both are asked for:
# guest612's one TCG thread takes at most one core, and the 6.1 guest on
# two vCPUs keeps 1.6 of the 2 busy, so apart they take 41 minutes and
# together some 34 (the 6.1 guest's time limit is then an hour, not 45
# minutes).  IPTUN_GUEST_BESIDE=no runs them one after the other.
guest612_beside=
case " $tiers " in
*" guest "*)
    case " $tiers " in
    *" guest612 "*)
        test "${IPTUN_GUEST_BESIDE:-yes}" = no || ! iptun_is_root \
            || guest612_beside=yes ;;
    esac ;;
esac

for tier in $tiers; do
    case $tier in
    unit)
        # "--list" also builds the test programs and regenerates the suite.
        $MAKE -C "$OVS_BUILDDIR" check TESTSUITEFLAGS=--list \
            > "$log_dir/unit.list" 2>&1 || {
            cat "$log_dir/unit.list"; echo "unit: cannot list tests"; exit 1; }
        case " $FLAGS " in
        *" -k "*)   # the caller chose the tests
            run_suite check unit
            continue ;;
        esac
        # Upstream's tests mostly wait (on daemons, timeouts, time/warp):
        # many at a time (IPTUN_UPSTREAM_JOBS, default 8, on 2 cores:
        # three times faster than -j2).  The project's are busier and
        # check timing (flows that must not expire before they are dumped):
        # FLAGS' own.
        # (A run with no test numbers would run the whole testsuite: an
        # empty selection runs nothing.)
        tests=$(select_tests "$log_dir/unit.list" "$UPSTREAM_FILES")
        # shellcheck disable=SC2086  # one argument per test or range
        # Upstream's tests get a second run when they fail (some depend on
        # a revalidator's dump finishing before appctl returns, e.g. the
        # bond rebalance interval test: failed once of many CI runs at
        # -j8); the project's own do not.
        test -z "$tests" \
            || RECHECK=yes run_suite check upstream \
                   -j"${IPTUN_UPSTREAM_JOBS:-8}" $tests
        tests=$(select_tests "$log_dir/unit.list" "$UPSTREAM_FILES" iptun)
        # shellcheck disable=SC2086  # one argument per test or range
        test -z "$tests" || run_suite check unit $tests
        ;;
    system)
        if ! iptun_is_root; then
            echo "=== system: skipped (needs root)"
            echo "system: skipped (needs root)" > "$log_dir/system.results"
            continue
        fi
        case " $FLAGS " in
        *" -k "*) run_suite check-system-userspace system ;;
        *) run_suite check-system-userspace system -k 'iptun,!guest' ;;
        esac
        ;;
    guest)
        if ! iptun_is_root; then
            echo "=== guest: skipped (needs root)"
            echo "guest: skipped (needs root)" > "$log_dir/guest.results"
            continue
        fi
        if test -n "$guest612_beside"; then
            run_guest612 > "$log_dir/guest612.out" 2>&1 &
            guest612_pid=$!
            IPTUN_GUEST_TIMEOUT=${IPTUN_GUEST_TIMEOUT:-3600} run_guest guest guest
            wait "$guest612_pid"
            cat "$log_dir/guest612.out"
        else
            run_guest guest guest
        fi
        ;;
    guest612)
        test -n "$guest612_beside" || run_guest612
        ;;
    *)
        echo "$0: unknown tier '$tier'" >&2
        exit 1
        ;;
    esac
done

cat "$log_dir"/*.results > "$log_dir/all.results"
passed=$(grep -cE ' (ok|expected failure)$' "$log_dir/all.results")
failed=$(grep -c 'FAILED' "$log_dir/all.results")
skipped=$(grep -c 'skipped' "$log_dir/all.results")
echo
if test "$failed" -gt 0; then
    echo "Failed tests:"
    grep 'FAILED' "$log_dir/all.results"
    echo "Logs: $log_dir/ (*.dir: the unit tier's failed tests)" \
         "and $OVS_BUILDDIR/tests/*testsuite.dir/"
    # The end of the first failed tests' logs, for a reader who has only
    # this output (CI's): "log DIR/NNNN: line".
    find "$log_dir" -path '*.dir/[0-9]*/testsuite.log' 2>/dev/null \
        | sort | head -5 | while read -r f; do
            dir=${f%/testsuite.log}
            tail -40 "$f" | sed "s|^|log ${dir#"$log_dir"/}: |"
        done
fi
echo "$passed passed, $failed failed, $skipped skipped"
test "$failed" -eq 0
