#! /bin/bash
# ovs-iptun-build.sh: configures and builds Open vSwitch in a build
# directory of its own, beside the main one ($OVS_DIR/build):
#
#   ovs-iptun-build.sh BUILDDIR SRCDIR [CONFIGURE-ARG...]
#
# runs SRCDIR/configure with the arguments in BUILDDIR when BUILDDIR has no
# Makefile yet or was configured with other arguments, then "make -j2".
# Used by "make fuzz" (clang, sanitizers), "make check-dpdk" and "make
# bench" (DPDK builds of the patched and of the stock tree).

set -eu
B=$1 S=$2
shift 2
MAKE=${MAKE:-make}

if test ! -f "$B/Makefile" \
   || test "$(cat "$B/.iptun-configure-args" 2>/dev/null)" != "$*"; then
    mkdir -p "$B"
    echo "  CONFIGURE $B"
    (cd "$B" && "$S/configure" "$@" >configure.log 2>&1) || {
        tail -20 "$B/configure.log" >&2
        echo "$0: configure failed in $B (log: $B/configure.log)" >&2
        exit 1
    }
    echo "$*" > "$B/.iptun-configure-args"
fi
echo "  BUILD     $B"
$MAKE -C "$B" -s -j2
