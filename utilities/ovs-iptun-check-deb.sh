#! /bin/bash
# ovs-iptun-check-deb.sh: the package tests ("make check-deb"): the
# packages that "make deb" built for Debian suite SUITE (trixie, the
# default, bookworm or forky), installed as an operator installs them, in
# a freshly booted system of that suite:
#
#   ovs-iptun-check-deb.sh [trixie|bookworm|forky] DEBDIR
#
# The system is a root of the suite, $IPTUN_CACHE/debtest-SUITE-root
# (default /var/cache/ovs-iptun; made once, about 4 minutes: debootstrap
# from the system's apt mirror, then systemd, the suite's own
# openvswitch-switch (Debian 13's 3.5, Debian 12's 3.1), dkms and a kernel
# with its headers: for Debian 13 the pinned 6.12 of the guest612 tier,
# for Debian 12 its current 6.1, linux-image-amd64; for forky, whose
# kernel the module does not claim yet, its kernel without DKMS), booted
# with its
# systemd and its kernel in the qemu guest
# (ovs-iptun-guest.sh -R ROOT -s; the root itself stays as it is: the
# guest writes to a tmpfs overlay).  Before the boot, DEBDIR's packages go
# to /srv/ovs-iptun-debs in the root and apt caches what they depend on,
# so that the guest, which has no network, installs them with apt
# offline.  In the guest, ovs-iptun-check-deb-guest.sh (its header lists
# the tests) upgrades Debian's Open vSwitch to ours, pings Linux's ipip,
# fou and gue devices through both datapaths, reloads and restarts the
# services and removes, purges and reinstalls the packages; its output
# and the files it records (the upgrade's before and after) are in
# $IPTUN_CACHE/debtest-results.  The last line is "N passed, N failed, N
# skipped".  Needs root; exits 77 if Debian's archive no longer serves the
# pinned kernel.  The steps (ovs-iptun-check-deb-guest.sh's header): all
# but "dpdk" for trixie and bookworm, all but "dkms" for forky (whose
# packages have openvswitch-switch-dpdk); IPTUN_CHECK_DEB_STEPS chooses
# others, e.g. "upgrade" alone on Debian's own 4.0.0-2
# ("IPTUN_DEB_STOCK=yes make deb"), to compare.

set -eu
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

case $# in
1) suite=trixie ;;
2) suite=$1; shift ;;
*) echo "usage: $0 [trixie|bookworm|forky] DEBDIR" >&2; exit 1 ;;
esac
debdir=$(cd "$1" && pwd)
iptun_need_root "debootstrap, chroot, qemu"

cache=${IPTUN_CACHE:-/var/cache/ovs-iptun}
root=$cache/debtest-$suite-root
results=$cache/debtest-results-$suite
# Both vCPUs on one TCG thread, as for the guest612 tier: 6.12's live
# patching of static branches crashes a guest with a thread per vCPU now
# and then (ovs-iptun-check.sh); 6.1 runs with one each.
accel=tcg,thread=single
case $suite in
trixie)
    suite_packages="dkms linux-image-$IPTUN_K612_RELEASE=${IPTUN_K612_HEADERS##*=}
 $IPTUN_K612_HEADERS"
    steps="upgrade userspace dkms reload remove" ;;
bookworm)
    suite_packages="dkms linux-image-amd64 linux-headers-amd64"
    steps="upgrade userspace dkms reload remove"
    accel= ;;
forky)
    suite_packages=linux-image-amd64
    steps="upgrade userspace dpdk reload remove" ;;
*)
    echo "$0: suite $suite: trixie, bookworm or forky" >&2
    exit 1 ;;
esac
IPTUN_CHECK_DEB_STEPS=${IPTUN_CHECK_DEB_STEPS:-$steps}
export IPTUN_CHECK_DEB_STEPS
set -- openvswitch-switch
case " $IPTUN_CHECK_DEB_STEPS " in *" dkms "*) set -- "$@" ovs-iptun-dkms ;; esac
case " $IPTUN_CHECK_DEB_STEPS " in *" dpdk "*) set -- "$@" openvswitch-switch-dpdk ;; esac
for p; do
    ls "$debdir/${p}_"*.deb >/dev/null 2>&1 || {
        echo "$0: no $p package in $debdir (run make deb first)" >&2
        exit 1
    }
done
PACKAGES="systemd-sysv udev dbus iproute2 iputils-ping kmod procps ethtool
 $suite_packages openvswitch-switch"
stamp=$(echo "$PACKAGES" | tr '\n' ' ')

if test "$(cat "$root/.iptun-debtest" 2>/dev/null)" != "$stamp"; then
    echo "check-deb: making the Debian $suite test system in $root"
    rm -rf "$root"
    iptun_root_make "$suite" "$root"
    # shellcheck disable=SC2086  # PACKAGES are words
    iptun_root_install "$root" $PACKAGES || exit
    # A hostname and no console login prompt to wait for.
    echo debtest > "$root/etc/hostname"
    rm -f "$root/etc/systemd/system/getty.target.wants/"*
    echo "$stamp" > "$root/.iptun-debtest"
fi

# The packages, and what they need from the archive, in the root.
rm -rf "$root/srv/ovs-iptun-debs"
mkdir -p "$root/srv/ovs-iptun-debs"
cp "$debdir"/*.deb "$root/srv/ovs-iptun-debs/"
rm -f "$root/srv/ovs-iptun-debs/"*-dbgsym_*.deb
debs=("$root"/srv/ovs-iptun-debs/*.deb)
iptun_root_install -d "$root" "${debs[@]#"$root"}" || {
    echo "$0: apt cannot resolve the packages' dependencies" >&2
    exit 1
}

rm -rf "$results"
mkdir -p "$results"
cp "$iptun_dir/ovs-iptun-check-deb-guest.sh" "$iptun_dir/ovs-iptun-lib.sh" \
    "$results/"
# The guest takes about 20 minutes (each DKMS build of the module about 5
# under one TCG thread), twice that on a loaded machine: an hour at most.
test -z "$accel" || export IPTUN_GUEST_ACCEL=${IPTUN_GUEST_ACCEL:-$accel}
set +e
bash "$iptun_dir/ovs-iptun-guest.sh" -R "$root" -s -m 3072 -t 3600 \
    -r "$results" bash "$results/ovs-iptun-check-deb-guest.sh" \
    | tee "$results/console.log" \
    | grep --line-buffered -E '^(check-deb: |  |[0-9]+ passed)'
status=${PIPESTATUS[0]}
set -e
grep -qE '^[0-9]+ passed, [0-9]+ failed' "$results/console.log" || {
    tail -30 "$results/console.log"
    echo "$0: the guest did not finish its tests" >&2
    echo "0 passed, 1 failed, 0 skipped"
    exit 1
}
exit "$status"
