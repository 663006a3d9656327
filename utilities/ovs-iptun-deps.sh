#! /bin/sh
# ovs-iptun-deps.sh: install the Debian 12 packages that ovs-iptun needs to
# build, to run its demo and to run its tests (the guest tier needs qemu,
# Debian's 6.1 kernel image and busybox).  Runs apt-get (update, then
# install) only when something is missing.  Needs root for that.
#
# Also unpacks the pinned Open vSwitch 4.0.0 source (Debian's
# openvswitch-source 4.0.0-2, suite forky; see OVS40_* below) into
# $IPTUN_CACHE/openvswitch-source-4.0.0-2 (default /var/cache/ovs-iptun),
# fetched through forky's signed index without adding forky to the system's
# apt sources: configure builds on it.  (DPDK 25.11, for the DPDK builds, is
# built by utilities/ovs-iptun-dpdk.sh when first needed: meson,
# ninja-build, python3-pyelftools and libpcap-dev are for it.)
#
#   ovs-iptun-deps.sh             all of them
#   ovs-iptun-deps.sh checkpatch  only what "make checkpatch" needs besides:
#                                 the kernel's checkpatch.pl (linux-source)

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

PACKAGES="
    git autoconf automake libtool pkg-config gcc make ccache
    libssl-dev libcap-ng-dev
    python3 python3-netaddr python3-pyparsing python3-pytest python3-scapy
    python3-sortedcontainers python3-os-ken
    iproute2 iputils-ping procps tcpdump ethtool iperf3
    linux-headers-amd64
    clang libclang-rt-14-dev xxd
    gnuplot-nox
    meson ninja-build python3-pyelftools libpcap-dev libnuma-dev
    qemu-system-x86 linux-image-amd64 busybox-static cpio kmod
"

if test "${1:-}" = checkpatch; then
    PACKAGES="linux-source-6.1 xz-utils"
fi

missing=
for p in $PACKAGES; do
    if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null \
            | grep -q 'install ok installed'; then
        missing="$missing $p"
    fi
done

if test -z "$missing"; then
    echo "ovs-iptun-deps: all packages are installed"
else
    echo "ovs-iptun-deps: installing$missing"
    SUDO=
    iptun_is_root || SUDO=sudo
    $SUDO apt-get update -q
    # shellcheck disable=SC2086
    $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
        --no-install-recommends $missing
fi
test "${1:-}" != checkpatch || exit 0

# The Open vSwitch 4.0.0 source (the tree is usr/src/openvswitch in it).
OVS40_PKG=openvswitch-source OVS40_VER=4.0.0-2
OVS40_SHA256=9ba8f509b7b1e4fa2c2a592e9fd51242749dfcf42c594e043e0d6abdb8105be4
iptun_fetch_deb forky $OVS40_PKG $OVS40_VER $OVS40_SHA256 \
    "${IPTUN_CACHE:-/var/cache/ovs-iptun}/$OVS40_PKG-$OVS40_VER"
