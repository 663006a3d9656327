#! /bin/sh
# ovs-iptun-deps.sh: install the Debian 12 packages that ovs-iptun needs to
# build, to run its demo and to run its tests (the guest tier needs qemu,
# Debian's 6.1 kernel image and busybox).  Runs apt-get (update, then
# install) only when something is missing.  Needs root for that.
#
#   ovs-iptun-deps.sh             all of them
#   ovs-iptun-deps.sh checkpatch  only what "make checkpatch" needs besides:
#                                 the kernel's checkpatch.pl (linux-source)

set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

PACKAGES="
    openvswitch-source
    git autoconf automake libtool pkg-config gcc make ccache
    libssl-dev libcap-ng-dev
    python3 python3-netaddr python3-pytest python3-scapy
    python3-sortedcontainers python3-os-ken
    iproute2 iputils-ping procps tcpdump ethtool iperf3
    linux-headers-amd64
    clang libclang-rt-14-dev xxd
    libdpdk-dev gnuplot-nox
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
    exit 0
fi

echo "ovs-iptun-deps: installing$missing"
SUDO=
iptun_is_root || SUDO=sudo
$SUDO apt-get update -q
# shellcheck disable=SC2086
$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends $missing
