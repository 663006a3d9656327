#! /bin/bash
# ovs-iptun-deb.sh: builds ovs-iptun's Debian packages for a Debian suite,
# inside a debootstrapped root of that suite (never on the host):
#
#   ovs-iptun-deb.sh [trixie|bookworm|forky] OUTDIR
#
# 1. Debian's own openvswitch source package, 4.0.0-2 of suite forky
#    (OVS_DEB_* below, pinned by SHA-256, fetched through forky's signed
#    index: iptun_fetch_src), with
#    - packaging/openvswitch/*.patch applied to its debian/ (the build
#      profiles pkg.openvswitch.nodpdk and pkg.openvswitch.noafxdp;
#      openvswitch-switch-dpdk's dependency on DPDK's bus drivers; the
#      purge of the database itself, not only of its link in /etc),
#    - the project's series (patches/*.patch) as quilt patches, after
#      ovs-iptun-files.patch, which adds the project's own files (those
#      that the staged tree links: ovs-iptun-stage.sh files),
#    - a changelog entry "4.0.0-2+iptunN" (N: IPTUN_DEB_REVISION, default
#      1), which sorts above Debian's 4.0.0-2 and below its next upload,
#      and the project as the Maintainer (no Uploaders),
#    built with "dpkg-buildpackage -F" (source and binaries) and the
#    profiles the suite needs: trixie nodpdk (it has DPDK 24.11), bookworm
#    nodpdk and noafxdp (libxdp 1.3.1), forky none (it has DPDK 25.11).
#    Same binary packages as Debian's (openvswitch-common,
#    openvswitch-switch, python3-openvswitch, ...), with
#    openvswitch-switch-dpdk for forky only.
# 2. ovs-iptun-dkms (packaging/dkms/debian, native, the project's version
#    from datapath/dkms.conf): the module's source in
#    /usr/src/ovs-iptun-VERSION for DKMS.
#
# IPTUN_DEB_STOCK=yes builds Debian's openvswitch as it is instead (the
# build profiles' patch alone, version 4.0.0-2+stockN, no ovs-iptun-dkms): the
# baseline that "make check-deb" measures Debian's own upgrade with.
#
# The packages' tests do not run (DEB_BUILD_OPTIONS=nocheck: the project's
# own tiers run them) unless IPTUN_DEB_CHECK=yes.  The root,
# $IPTUN_CACHE/deb-SUITE-root (default /var/cache/ovs-iptun), is made once
# (debootstrap --variant=buildd from the system's apt mirror) and keeps the
# build dependencies; each build runs in a fresh /build in it.  lintian
# runs on both builds there (OUTDIR/lintian-SOURCE.txt, and both in
# lintian.txt): "deb: SUITE: SOURCE ok" for each without errors, then the
# packages with their sizes; exits 1 if one has errors.  Needs root.

set -eu
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

suite=${1:-trixie}
out=${2:?usage: $0 [trixie|bookworm|forky] OUTDIR}
iptun_need_root "debootstrap, chroot"

# Debian's openvswitch source package.
OVS_DEB_PKG=openvswitch OVS_DEB_VER=4.0.0-2
OVS_DEB_SHA256="
eea5aee0fc5c0d278753a67d85ae59e0ab1de43962fddb59245afac5cd123de5  openvswitch_4.0.0-2.dsc
2b4d75ed077e94bc649ffbc9be5f9f822db82cf266c920cb3060f94db9d6d796  openvswitch_4.0.0.orig.tar.xz
951c7a76aca773bfab944ce8cf474e825ccf7ea6863807ec6d43380e80092f81  openvswitch_4.0.0-2.debian.tar.xz
"

case $suite in
trixie) profiles=pkg.openvswitch.nodpdk ;;
bookworm) profiles=pkg.openvswitch.nodpdk,pkg.openvswitch.noafxdp ;;
forky) profiles= ;;
*)
    echo "$0: suite $suite: trixie, bookworm or forky" >&2
    exit 1 ;;
esac

project=$(cd "$iptun_dir/.." && pwd)
cache=${IPTUN_CACHE:-/var/cache/ovs-iptun}
root=$cache/deb-$suite-root
revision=${IPTUN_DEB_REVISION:-1}
stock=${IPTUN_DEB_STOCK:-no}
if test "$stock" = yes; then
    version=$OVS_DEB_VER+stock$revision
else
    version=$OVS_DEB_VER+iptun$revision
fi
mod_version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' \
                  "$project/datapath/dkms.conf")
log=$cache/deb-$suite.log

command -v debootstrap >/dev/null \
    || apt-get install -y -q --no-install-recommends debootstrap >/dev/null

# The changelog entries' author and date: the project's last commit.
maint="ovs-iptun developers <maintainers@users.noreply.a-seed-5dbf0002.example>"
if date=$(git -C "$project" log -1 --format=%aD 2>/dev/null); then
    commit=$(git -C "$project" log -1 --format=%h)
else
    date=$(date -R) commit=unknown
fi

src=$cache/$OVS_DEB_PKG-deb-source-$OVS_DEB_VER
iptun_fetch_src forky $OVS_DEB_PKG $OVS_DEB_VER "$OVS_DEB_SHA256" "$src"

iptun_root_make "$suite" "$root" buildd
cleanup () { umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT
mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
cp /etc/resolv.conf "$root/etc/resolv.conf"

# The source trees, in a fresh /build of the root.
rm -rf "$root/build"
mkdir -p "$root/build"
tree=$root/build/$OVS_DEB_PKG-${OVS_DEB_VER%-*}
cp -a "$src" "$tree"
rm -f "$tree/.iptun-src"
cp "$(iptun_src_files forky $OVS_DEB_PKG $OVS_DEB_VER)/"*.orig.tar.* \
   "$root/build/"
# The changes to Debian's packaging (packaging/openvswitch/, in order);
# Debian's own build takes the build profiles alone.
for p in "$project"/packaging/openvswitch/*.patch; do
    case $stock,${p##*/} in
    yes,debian-build-profiles.patch|no,*) ;;
    *) continue ;;
    esac
    patch -s -d "$tree" -p1 < "$p"
done
# These packages are ours: their bugs are ours to hear of, not Debian's
# maintainers', who did not upload them (their names stay in the
# changelog).  Not XSBC-Original-Maintainer, as derived distributions
# keep it: lintian flags that field in every binary package.
sed -i -e "s/^Maintainer: .*/Maintainer: $maint/" \
    -e '/^Uploaders:/,/^[^ ]/{/^Uploaders:/d;/^ /d}' "$tree/debian/control"

# The project's files as one quilt patch that creates them, then the series.
if test "$stock" = yes; then
    : > "$tree/debian/patches/series"
    npatches=0
else
    (cd "$project" && PROJECT=$project sh utilities/ovs-iptun-stage.sh files \
     | while read -r f; do
           test ! -e "$tree/$f" || {
               echo "$0: $f is in Debian's source too" >&2
               exit 1
           }
           diff -u --label /dev/null --label "b/$f" /dev/null "$f" || true
       done) > "$tree/debian/patches/ovs-iptun-files.patch.body"
    {
        printf 'Description: Add the ovs-iptun files (lib/, ofproto/, tests/, utilities/).\n'
        printf ' New files of the ovs-iptun project (commit %s) that its series\n' "$commit"
        printf ' builds and tests; no upstream file is changed here.\n'
        printf 'Forwarded: not-needed\n\n'
        cat "$tree/debian/patches/ovs-iptun-files.patch.body"
    } > "$tree/debian/patches/ovs-iptun-files.patch"
    rm "$tree/debian/patches/ovs-iptun-files.patch.body"
    echo ovs-iptun-files.patch > "$tree/debian/patches/series"
    for p in "$project"/patches/*.patch; do
        cp "$p" "$tree/debian/patches/"
        basename "$p" >> "$tree/debian/patches/series"
    done
    npatches=$(($(wc -l < "$tree/debian/patches/series") - 1))
fi

{
    printf '%s (%s) %s; urgency=medium\n\n' "$OVS_DEB_PKG" "$version" "$suite"
    if test "$stock" = yes; then
        printf '  * Debian'"'"'s 4.0.0-2, rebuilt by ovs-iptun %s (commit %s)\n' \
            "$mod_version" "$commit"
        printf '    without its patches, as a baseline.\n'
    else
        printf '  * ovs-iptun %s (commit %s): ipip, fou and gue tunnel ports.\n' \
            "$mod_version" "$commit"
        printf '    - d/patches: the ovs-iptun series (%s patches) and\n' \
            "$npatches"
        printf '      ovs-iptun-files.patch, the project'"'"'s own files.\n'
    fi
    printf '    - d/control, d/rules: build profiles pkg.openvswitch.nodpdk (no\n'
    printf '      openvswitch-switch-dpdk) and pkg.openvswitch.noafxdp (no AF_XDP)\n'
    printf '      for suites without libdpdk-dev (>= 25.11) or libxdp-dev\n'
    printf '      (>= 1.4.3).  Built for %s with the profiles:\n' "$suite"
    printf '      %s.\n' "$(echo "${profiles:-none}" | sed 's/,/, /g')"
    if test "$stock" != yes; then
        printf '    - d/openvswitch-switch.postrm: purge the database in\n'
        printf '      /var/lib/openvswitch, not only its link in /etc.\n'
        printf '    - d/control: openvswitch-switch-dpdk depends on librte-meta-bus:\n'
        printf '      ovs-vswitchd-dpdk names every bus DPDK was built with at start.\n'
    fi
    printf '\n -- %s  %s\n\n' "$maint" "$date"
    cat "$tree/debian/changelog"
} > "$tree/debian/changelog.new"
mv "$tree/debian/changelog.new" "$tree/debian/changelog"

dkms_tree=$root/build/ovs-iptun-dkms-$mod_version
mkdir -p "$dkms_tree"
cp -r "$project/datapath" "$project/packaging/dkms/debian" "$dkms_tree/"
{
    printf 'ovs-iptun-dkms (%s) %s; urgency=medium\n\n' "$mod_version" "$suite"
    printf '  * ovs-iptun %s (commit %s): the iptun.ko module for DKMS.\n' \
        "$mod_version" "$commit"
    printf '\n -- %s  %s\n' "$maint" "$date"
} > "$dkms_tree/debian/changelog"

# Build dependencies (for these profiles), then the builds.
echo "deb: $suite: build dependencies (log: $log)"
{
    iptun_in_root "$root" apt-get update -q
    iptun_in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get \
        build-dep -y -q --no-install-recommends ${profiles:+-P "$profiles"} \
        "/build/${tree##*/}" "/build/${dkms_tree##*/}"
    iptun_in_root "$root" env DEBIAN_FRONTEND=noninteractive apt-get \
        install -y -q --no-install-recommends lintian
    iptun_in_root "$root" apt-get clean
} > "$log" 2>&1 || {
    tail -20 "$log" >&2
    echo "$0: installing the build dependencies in $root failed" >&2
    exit 1
}

opts="parallel=$(nproc)"
test "${IPTUN_DEB_CHECK:-no}" = yes || opts="nocheck $opts"
build () {
    local dir=$1
    shift
    echo "deb: $suite: dpkg-buildpackage in /build/$dir"
    iptun_in_root "$root" sh -c 'cd "$1" && shift && "$@"' - "/build/$dir" \
        env DEB_BUILD_OPTIONS="$opts" nice -n 10 \
        dpkg-buildpackage -us -uc -F "$@" >> "$log" 2>&1 || {
        tail -40 "$log" >&2
        echo "$0: the build of $dir failed (log: $log)" >&2
        exit 1
    }
}
build "${tree##*/}" ${profiles:+-P"$profiles"}
if test "$stock" = yes; then
    rm -rf "$dkms_tree"
else
    build "${dkms_tree##*/}"
fi

rm -rf "$out"
mkdir -p "$out"
(cd "$root/build" && cp ./*.deb ./*.dsc ./*.tar.* ./*.changes ./*.buildinfo \
     "$out/")
# lintian on each build, its source package and binary packages: "deb:
# SUITE: NAME ok" if it reports no error, else "deb: SUITE: NAME: N
# lintian errors".  Not on the automatic debug symbol packages, nor on
# openvswitch-source (Debian's copy of the source tree, which the source
# package's check covers: 2 minutes more), unless IPTUN_DEB_LINTIAN=full;
# without openvswitch-source, lintian misses the NOTICE file that it ships
# for the Apache license (missing-notice-file-for-apache-license, not
# shown then).
: > "$out/lintian.txt"
fails=0
# Debian 12's lintian (2.116) predates the loong64 port, which Debian's
# 4.0.0-2 names in its architecture lists, and calls it invalid.
suppress=
test "$suite" != bookworm || suppress=invalid-arch-string-in-source-relation
for dsc in "$root"/build/*.dsc; do
    name=${dsc##*/}
    name=${name%%_*}
    if test "${IPTUN_DEB_LINTIAN:-}" = full; then
        set -- ${suppress:+--suppress-tags "$suppress"} \
            "/build/$(basename "$root"/build/"${name}"_*.changes)"
    else
        set -- --suppress-tags \
            "missing-notice-file-for-apache-license${suppress:+,$suppress}" \
            "/build/${dsc##*/}"
        for deb in $(sed -n '/^Files:/,/^[^ ]/s/.* \([^ ]*\.deb\)$/\1/p' \
                         "$root"/build/"${name}"_*.changes); do
            case $deb in
            *-dbgsym_*|openvswitch-source_*) ;;
            *) set -- "$@" "/build/$deb" ;;
            esac
        done
    fi
    iptun_in_root "$root" lintian --info --display-info "$@" \
        > "$out/lintian-$name.txt" 2>&1 || true
    cat "$out/lintian-$name.txt" >> "$out/lintian.txt"
    errors=$(grep -c '^E:' "$out/lintian-$name.txt" || true)
    warnings=$(grep -c '^W:' "$out/lintian-$name.txt" || true)
    if test "$errors" = 0; then
        echo "deb: $suite: $name: lintian: $warnings warnings"
        echo "deb: $suite: $name ok"
    else
        grep '^E:' "$out/lintian-$name.txt" | sed 's/^/  /'
        echo "deb: $suite: $name: $errors lintian errors"
        fails=$((fails + 1))
    fi
done
echo "deb: $suite: $(ls "$out"/*.deb | wc -l) packages in $out"
(cd "$out" && ls -s --block-size=K ./*.deb | sed 's/^/  /')
test $fails = 0
