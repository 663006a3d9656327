#! /bin/bash
# ovs-iptun-check-deb.sh: the package tests ("make check-deb"): the
# packages that "make deb" built, installed as an operator installs them,
# in a freshly booted Debian 13 system:
#
#   ovs-iptun-check-deb.sh DEBDIR
#
# The system is a Debian 13 root, $IPTUN_CACHE/debtest-trixie-root
# (default /var/cache/ovs-iptun; made once, about 4 minutes: debootstrap
# from the system's apt mirror, then systemd, Debian 13's own
# openvswitch-switch, dkms and the pinned 6.12 kernel and its headers),
# booted with its systemd and its kernel in the qemu guest
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
# pinned kernel.  IPTUN_CHECK_DEB_STEPS=upgrade runs the upgrade's tests
# alone, e.g. on Debian's own 4.0.0-2 ("IPTUN_DEB_STOCK=yes make deb"), to
# compare.

set -eu
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

debdir=$(cd "${1:?usage: $0 DEBDIR}" && pwd)
iptun_need_root "debootstrap, chroot, qemu"
set -- openvswitch-switch ovs-iptun-dkms
test "${IPTUN_CHECK_DEB_STEPS:-all}" != upgrade || set -- openvswitch-switch
for p; do
    ls "$debdir/${p}_"*.deb >/dev/null 2>&1 || {
        echo "$0: no $p package in $debdir (run make deb first)" >&2
        exit 1
    }
done

cache=${IPTUN_CACHE:-/var/cache/ovs-iptun}
root=$cache/debtest-trixie-root
results=$cache/debtest-results
KREL=$IPTUN_K612_RELEASE
KVER=${IPTUN_K612_HEADERS##*=}
PACKAGES="systemd-sysv udev dbus iproute2 iputils-ping kmod procps ethtool
 dkms linux-image-$KREL=$KVER $IPTUN_K612_HEADERS openvswitch-switch"
stamp=$(echo "$PACKAGES" | tr '\n' ' ')

cleanup () {
    umount "$root/proc" 2>/dev/null || true
}
trap cleanup EXIT

if test "$(cat "$root/.iptun-debtest" 2>/dev/null)" != "$stamp"; then
    echo "check-deb: making the Debian 13 test system in $root"
    rm -rf "$root"
    iptun_root_make trixie "$root"
    # shellcheck disable=SC2086  # PACKAGES are words
    iptun_root_install "$root" $PACKAGES || exit
    # A hostname and no console login prompt to wait for.
    echo debtest > "$root/etc/hostname"
    rm -f "$root/etc/systemd/system/getty.target.wants/"*
    echo "$stamp" > "$root/.iptun-debtest"
fi

# The packages, and what they need from the archive, in the root.
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"
rm -rf "$root/srv/ovs-iptun-debs"
mkdir -p "$root/srv/ovs-iptun-debs"
cp "$debdir"/*.deb "$root/srv/ovs-iptun-debs/"
rm -f "$root/srv/ovs-iptun-debs/"*-dbgsym_*.deb
iptun_in_root "$root" sh -c 'apt-get update -q >/dev/null && DEBIAN_FRONTEND=noninteractive apt-get install -y -q -d --no-install-recommends /srv/ovs-iptun-debs/*.deb' \
    > "$root.log" 2>&1 || {
    tail -20 "$root.log" >&2
    echo "$0: apt cannot resolve the packages' dependencies" >&2
    exit 1
}
umount "$root/proc"

rm -rf "$results"
mkdir -p "$results"
cp "$iptun_dir/ovs-iptun-check-deb-guest.sh" "$iptun_dir/ovs-iptun-lib.sh" \
    "$results/"
# The guest takes about 20 minutes (each DKMS build of the module about 5
# under one TCG thread), twice that on a loaded machine: an hour at most.
# Both vCPUs on one TCG thread, as for the guest612 tier: 6.12's live
# patching of static branches crashes a guest with a thread per vCPU now
# and then (ovs-iptun-check.sh).
export IPTUN_GUEST_ACCEL=${IPTUN_GUEST_ACCEL:-tcg,thread=single}
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
