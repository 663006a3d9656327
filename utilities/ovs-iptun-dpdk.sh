#! /bin/sh
# ovs-iptun-dpdk.sh: builds the DPDK that Open vSwitch 4.0 links with
# (Debian 12's libdpdk-dev is 22.11, which lacks the vhost API of 4.0; 4.0
# is validated with DPDK 25.11) and installs it in a prefix of its own,
# once:
#
#   ovs-iptun-dpdk.sh
#
# Its last line of output (the only one on standard output) is the
# prefix's pkg-config directory, for PKG_CONFIG_PATH; the libraries are in
# the directory above it, PREFIX/lib (link with -Wl,-rpath,PREFIX/lib: the
# libraries and drivers have that run path too, and DPDK loads its drivers
# from PREFIX/lib/dpdk/pmds-*).  Progress and errors go to standard error.
#
# The source is Debian's dpdk source package 25.11.4-1 of suite forky
# (DPDK_* below), its .dsc and orig and debian tarballs pinned by SHA-256,
# fetched through forky's signed index without adding forky to the system's
# apt sources (iptun_fetch_src in ovs-iptun-lib.sh) and unpacked with
# Debian's patches into $IPTUN_CACHE/dpdk-source-25.11.4-1.  Where the
# archive does not serve it (its index lists it, but its files answered
# 404 in November 2026), the upstream release tarball beside the checkout,
# ../shared/deps/dpdk-25.11.2.tar.xz (DPDK_TARBALL_*, pinned by SHA-256
# here too), unpacked into $IPTUN_CACHE/dpdk-source-25.11.2.
#
# Built with meson and ninja (nice -n 10, -j2; ccache when meson finds it)
# in $IPTUN_CACHE/dpdk-VERSION.build, only what the project uses: the
# drivers net/null, net/pcap, net/ring, net/tap, net/virtio (virtio-user
# too) and the buses and mempool driver they need; the libraries Open
# vSwitch needs (vhost, for dpdkvhostuser ports, and what vhost and net/tap
# depend on, besides DPDK's mandatory ones), shared ones for
# --with-dpdk=shared (DPDK installs the static ones too); no applications,
# tests, examples or documentation; DPDK's generic x86-64
# instruction set (-Dplatform=generic), so that the build runs on any CI
# machine.  Installed into $IPTUN_CACHE/dpdk-VERSION (VERSION is DPDK's,
# e.g. 25.11.4).  A stamp there records the source and the options: a
# second run with the same is a no-op, a change rebuilds from scratch.
#
# Settings:
#   IPTUN_CACHE        the cache (default /var/cache/ovs-iptun)
#   IPTUN_DPDK_SOURCE  an unpacked DPDK 25.11 source tree to build instead
#                      of Debian's (e.g. an upstream 25.11.x release, where
#                      Debian's archive cannot be reached; the stamp
#                      records its path, so a tree changed in place is not
#                      rebuilt)
#   IPTUN_DPDK_TARBALL the release tarball to fall back on (default
#                      ../shared/deps/dpdk-25.11.2.tar.xz beside the
#                      checkout); its SHA-256 must be DPDK_TARBALL_SHA256
#
# Exits 77 when it has no source (Debian's archive did not serve it, the
# tarball is not there and IPTUN_DPDK_SOURCE is unset): callers report
# their DPDK work as skipped.
#
# Needs meson, ninja-build, python3-pyelftools and libpcap-dev
# (utilities/ovs-iptun-deps.sh installs them).

set -eu
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

# Debian forky's dpdk source package.
DPDK_PKG=dpdk DPDK_VER=25.11.4-1
DPDK_SHA256="
a76e89a6b8fcd2011b15ba549a9343b9d7b0f27775f15a1ed76603cdf3bb429d  dpdk_25.11.4-1.dsc
50272f214b2e7fd23dc9b6b4d5408b54798021b19611339298784faa5a189b43  dpdk_25.11.4.orig.tar.xz
84dfd0e10632832cecdc1dbdd8e89afd007b3c40fc851faa74a8c3eac3abb2a4  dpdk_25.11.4-1.debian.tar.xz
"

# DPDK's own v25.11.2 release ("git archive --prefix=dpdk-25.11.2/", xz).
DPDK_TARBALL=${IPTUN_DPDK_TARBALL:-$iptun_dir/../../shared/deps/dpdk-25.11.2.tar.xz}
DPDK_TARBALL_SHA256=00eb5bc242601163474116109fb7573c15ac7a9013d6ab24bc91dc51408411c8

# What is built.  Open vSwitch needs ethdev, mbuf, mempool, meter, pci and
# their dependencies (mandatory in DPDK) and vhost; vhost needs cryptodev
# and dmadev, net/tap gso.
DPDK_DRIVERS=bus/pci,bus/vdev,mempool/ring
DPDK_DRIVERS=$DPDK_DRIVERS,net/null,net/pcap,net/ring,net/tap,net/virtio
DPDK_LIBS=vhost,cryptodev,dmadev,gso
DPDK_OPTIONS="-Ddefault_library=shared -Dlibdir=lib -Dplatform=generic
 -Denable_drivers=$DPDK_DRIVERS -Denable_libs=$DPDK_LIBS -Ddisable_apps=*
 -Dtests=false -Dexamples= -Denable_docs=false -Ddeveloper_mode=disabled"

# Standard output is for the pkg-config directory alone.
exec 3>&1 1>&2

cache=${IPTUN_CACHE:-/var/cache/ovs-iptun}
if test -n "${IPTUN_DPDK_SOURCE:-}"; then
    src=$(readlink -f "$IPTUN_DPDK_SOURCE")
    source_id="$src"
else
    src=$cache/$DPDK_PKG-source-$DPDK_VER
    if iptun_fetch_src forky $DPDK_PKG $DPDK_VER "$DPDK_SHA256" "$src"; then
        source_id="$(cat "$src/.iptun-src")"
    elif test -f "$DPDK_TARBALL"; then
        name=$(basename "$DPDK_TARBALL" .tar.xz)
        src=$cache/dpdk-source-${name#dpdk-}
        source_id="$name $DPDK_TARBALL_SHA256"
        if test "$(cat "$src/.iptun-src" 2>/dev/null)" != "$source_id"; then
            echo "$0: Debian's DPDK source not served: $DPDK_TARBALL"
            got=$(sha256sum < "$DPDK_TARBALL" | cut -d' ' -f1)
            if test "$got" != "$DPDK_TARBALL_SHA256"; then
                echo "$0: $DPDK_TARBALL: SHA-256 $got," \
                     "expected $DPDK_TARBALL_SHA256" >&2
                exit 1
            fi
            rm -rf "$src"
            mkdir -p "$src"
            tar -xJf "$DPDK_TARBALL" -C "$src" --strip-components=1
            echo "$source_id" > "$src/.iptun-src"
        fi
    else
        echo "$0: no DPDK source (IPTUN_DPDK_SOURCE can name a DPDK" \
             "25.11 tree, IPTUN_DPDK_TARBALL a release tarball)" >&2
        exit 77
    fi
fi
version=$(cat "$src/VERSION" 2>/dev/null) || {
    echo "$0: $src is not a DPDK source tree" >&2
    exit 1
}
case $version in
25.11*) ;;
*)
    echo "$0: $src is DPDK $version, not 25.11" >&2
    exit 1 ;;
esac

prefix=$cache/dpdk-$version
build=$prefix.build
pcdir=$prefix/lib/pkgconfig
stamp="$version $source_id $DPDK_OPTIONS -Dc_link_args=-Wl,-rpath,$prefix/lib"
if test "$(cat "$prefix/.iptun-dpdk" 2>/dev/null)" = "$stamp" \
   && test -f "$pcdir/libdpdk.pc"; then
    echo "$pcdir" >&3
    exit 0
fi

for tool in meson ninja; do
    command -v $tool >/dev/null || {
        echo "$0: needs $tool (run utilities/ovs-iptun-deps.sh)" >&2
        exit 1
    }
done
echo "  DPDK      $version in $prefix"
rm -rf "$build" "$prefix"
mkdir -p "$build"
# DPDK's meson looks for python3 (with elftools) on PATH: Debian's first.
# shellcheck disable=SC2086  # the options are words
(set -f; cd "$build" \
 && PATH=$(dirname "$iptun_py"):$PATH nice -n 10 meson setup \
        --prefix="$prefix" $DPDK_OPTIONS \
        -Dc_link_args="-Wl,-rpath,$prefix/lib" "$src" . \
 && nice -n 10 ninja -j2 && nice -n 10 ninja install) \
    > "$build/build.log" 2>&1 || {
    tail -30 "$build/build.log" >&2
    echo "$0: DPDK build failed (log: $build/build.log)" >&2
    exit 1
}
echo "$stamp" > "$prefix/.iptun-dpdk"
echo "$pcdir" >&3
