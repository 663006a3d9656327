#! /bin/bash
# ovs-iptun-build.sh: configures and builds Open vSwitch in a build
# directory of its own, beside the main one ($OVS_DIR/build):
#
#   ovs-iptun-build.sh dpdk|stock|fuzz
#   ovs-iptun-build.sh BUILDDIR SRCDIR [CONFIGURE-ARG...]
#
#   dpdk   the staged tree ($OVS_SRCDIR) with DPDK (--with-dpdk=shared) in
#          $OVS_DIR/dpdk-build: "make check-dpdk", "make bench"
#   stock  the pristine, unpatched source (unpacked from the stage's git
#          into $OVS_DIR/stock-src) with DPDK in $OVS_DIR/stock-build: the
#          baseline of "make bench"
#   fuzz   the staged tree with clang, libFuzzer instrumentation,
#          AddressSanitizer and UndefinedBehaviorSanitizer, static, in
#          $OVS_DIR/fuzz-build: "make fuzz", "make check-sanitizers"
#
# The DPDK of dpdk and stock is DPDK 25.11 (Open vSwitch 4.0's) as
# utilities/ovs-iptun-dpdk.sh builds it (once) in the cache, found through
# PKG_CONFIG_PATH and linked with a run path to its libraries.
#
# runs SRCDIR/configure with the arguments in BUILDDIR when BUILDDIR has no
# Makefile yet or was configured with other arguments, then "make -j2".
# The named builds need OVS_DIR and OVS_SRCDIR; all use Debian's python3
# (with scapy, for the tests).

set -eu
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
MAKE=${MAKE:-make}

case $1 in
dpdk|stock)
    : "${OVS_SRCDIR:?}" "${OVS_DIR:?}"
    S=$OVS_SRCDIR
    if test "$1" = stock; then
        S=$OVS_DIR/stock-src
        if test ! -f "$S/configure"; then
            rm -rf "$S"
            mkdir -p "$S"
            git --git-dir="$OVS_DIR/git" archive pristine | tar -x -C "$S"
            (cd "$S" && ./boot.sh >/dev/null)
        fi
    fi
    pc=$(sh "$iptun_dir/ovs-iptun-dpdk.sh")
    set -- "$OVS_DIR/$1-build" "$S" CC="$(iptun_cc gcc)" \
        PYTHON3="$iptun_py" --enable-silent-rules --with-dpdk=shared \
        PKG_CONFIG_PATH="$pc" LDFLAGS="-Wl,-rpath,${pc%/*}"
    ;;
fuzz)
    : "${OVS_SRCDIR:?}" "${OVS_DIR:?}"
    SAN="-fsanitize=address,undefined -fno-sanitize-recover=undefined"
    # All of Open vSwitch (the generated headers first need most of it, and
    # the sanitizer build serves the unit tests too).
    set -- "$OVS_DIR/fuzz-build" "$OVS_SRCDIR" CC="$(iptun_cc clang)" \
        PYTHON3="$iptun_py" --disable-shared \
        CFLAGS="-g -O1 -fno-omit-frame-pointer $SAN -fsanitize=fuzzer-no-link" \
        LDFLAGS="$SAN"
    ;;
esac
B=$1 S=$2
shift 2

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
