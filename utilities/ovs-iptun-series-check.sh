#! /bin/bash
# ovs-iptun-series-check.sh: checks upstream's rule that every patch of the
# series builds, and passes the tests it adds, on its own.
#
# Called by "make series-check" with OVS_DIR, OVS_SOURCE, OVS_SOURCE_KIND,
# PROJECT and GIT in the environment (as ovs-iptun-stage.sh).  In a stage
# of its own, $OVS_DIR/series (src, git, build: the main stage is left
# alone), it applies patches/ one more at a time (ovs-iptun-stage.sh apply,
# which rewrites only the files that change, so that each step's build is
# incremental), with the project's own files linked in as "make" links
# them (they are in the build from the patch that adds them to it on),
# builds, and runs the unit tests that the patch adds to upstream's test
# files (its "+AT_SETUP" lines; the project's own tests/iptun*.at are
# files of the checkout, at their final state, not of one patch).
#
# Prints one line per patch, "series: NNNN build ok|FAILED, tests
# PASSED/ADDED|FAILED (FOUND of ADDED found): SUBJECT", and exits nonzero
# if a step failed.
# IPTUN_SERIES_FROM and IPTUN_SERIES_TO (patch numbers, default all)
# choose the steps checked; the steps before are applied, not built.  Logs:
# $OVS_DIR/series/NNNN.log.

set -u
: "${OVS_DIR:?}" "${PROJECT:?}"
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

stage_script=$iptun_dir/ovs-iptun-stage.sh
main_dir=$OVS_DIR
dir=$OVS_DIR/series
from=${IPTUN_SERIES_FROM:-1}
to=${IPTUN_SERIES_TO:-9999}
# The main build's configure arguments, quoted.
configure_args=$("$main_dir/build/config.status" --config 2>/dev/null)
mkdir -p "$dir"
stage () { OVS_DIR=$dir bash "$stage_script" "$@"; }

if test ! -d "$dir/git"; then
    stage unpack > "$dir/unpack.log" 2>&1 || {
        cat "$dir/unpack.log"; exit 1; }
fi

mapfile -t patches < <(printf '%s\n' "$PROJECT"/patches/*.patch | LC_ALL=C sort)
failed=0
n=0
for patch in "${patches[@]}"; do
    n=$((n + 1))
    test $n -le "$to" || break
    test $n -ge "$from" || continue
    num=$(printf %04d $n)
    log=$dir/$num.log
    subject=$(sed -n 's/^Subject: \[PATCH\] //p' "$patch" | head -1)
    {
        stage apply "${patches[@]:0:$n}" && stage links \
            && { test -f "$dir/build/Makefile" \
                     || eval stage configure "$configure_args"; } \
            && make -C "$dir/build" -j2
    } > "$log" 2>&1
    if test $? != 0; then
        echo "series: $num build FAILED: $subject"
        failed=$((failed + 1))
        continue
    fi

    # The tests this patch adds to upstream's test files, by title.
    titles=$(sed -n 's/^+AT_SETUP(\[\(.*\)\])$/\1/p' "$patch")
    if test -z "$titles"; then
        echo "series: $num build ok, tests 0/0: $subject"
        continue
    fi
    make -C "$dir/build" check TESTSUITEFLAGS=--list >> "$log" 2>&1
    # "--list": " NUM: FILE:LINE   TITLE", then the keywords.
    numbers=$( (cd "$dir/build" && /bin/sh "$dir/src/tests/testsuite" \
                    -C tests --list) 2>/dev/null \
                   | awk -v t="$titles" '
                       BEGIN { n = split(t, want, "\n")
                               for (i = 1; i <= n; i++) title[want[i]] = 1 }
                       $1 ~ /^[0-9]+:$/ && $2 ~ /:[0-9]+$/ {
                           line = $0
                           sub(/^ *[0-9]+: +[^ ]+ +/, "", line)
                           if (line in title) { sub(/:$/, "", $1); print $1 }
                       }' | tr '\n' ' ')
    added=$(printf '%s\n' "$titles" | wc -l)
    found=$(echo "$numbers" | wc -w)
    # A title the testsuite does not list is a test that did not run: a
    # failure, as one that fails.
    if test "$found" = "$added" \
       && make -C "$dir/build" check TESTSUITEFLAGS="-j2 $numbers" \
            >> "$log" 2>&1; then
        echo "series: $num build ok, tests $found/$added: $subject"
    else
        echo "series: $num build ok, tests FAILED ($found of $added found):" \
             "$subject"
        failed=$((failed + 1))
    fi
done
test $failed = 0
