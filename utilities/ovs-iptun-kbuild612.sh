#! /bin/bash
# ovs-iptun-kbuild612.sh: builds the kernel module (datapath/) against
# Debian 13's Linux 6.12 headers, inside a minimal Debian 13 root, as DKMS
# would build it there: make modules (modpost and BTF included) and "dkms
# build" with datapath/dkms.conf.  Debian 13's linux-kbuild binaries
# (modpost, objtool) need glibc 2.38 and do not run on a Debian 12 host;
# in the root they run as on a Debian 13 machine.
#
# The root (debootstrap --variant=minbase trixie, from the Debian mirror the
# system's apt uses (iptun_debian_mirror in ovs-iptun-lib.sh), its
# signature checked with debian-archive-keyring; about 2 minutes the first
# time, 800 MB: the headers pull in the kernel image) is kept in
# $IPTUN_CACHE/trixie-root (default /var/cache/ovs-iptun) and reused while
# it has the pinned headers.  Needs root.  Exits 77 (skipped) if Debian's
# archive no longer serves the pinned headers (a newer 6.12 point release
# replaced them: update IPTUN_K612_* in ovs-iptun-lib.sh).  Prints one line
# per build, "kbuild612: make modules ok|FAILED" and "kbuild612: dkms build
# ok|FAILED".  With --install, then "dkms install" in the root too (its
# /lib/modules/6.12...: the guest tier's "guest612" boots with it).
set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

KREL=$IPTUN_K612_RELEASE
KHDR=$IPTUN_K612_HEADERS
root=$(iptun_k612_root)
install=no
test "${1:-}" = --install && install=yes
src=$(cd "$iptun_dir/../datapath" && pwd)

if ! iptun_is_root; then
    echo "$0: needs root (debootstrap, chroot)" >&2
    exit 77
fi
command -v debootstrap >/dev/null || apt-get install -y -q debootstrap

in_root () { iptun_in_root "$root" "$@"; }
cleanup () { umount "$root/proc" 2>/dev/null || true; }
trap cleanup EXIT

if ! test -e "$root/lib/modules/$KREL/build/Makefile"; then
    iptun_root_make trixie "$root" || exit 1
    iptun_root_install "$root" gcc make libc6-dev dkms "$KHDR" || exit
fi

# The module's source, as DKMS takes it (/usr/src/NAME-VERSION).
name=$(sed -n 's/^PACKAGE_NAME="\(.*\)"/\1/p' "$src/dkms.conf")
version=$(sed -n 's/^PACKAGE_VERSION="\(.*\)"/\1/p' "$src/dkms.conf")
rm -rf "$root/usr/src/iptun" "$root/usr/src/$name-$version" \
       "$root/var/lib/dkms/$name"
cp -r "$src" "$root/usr/src/iptun"
cp -r "$src" "$root/usr/src/$name-$version"

status=0
if in_root make -C "/lib/modules/$KREL/build" M=/usr/src/iptun modules \
       > "$root/usr/src/iptun/build.log" 2>&1 \
   && test -f "$root/usr/src/iptun/iptun.ko" \
   && ! grep -E 'warning:|error:|WARNING:' "$root/usr/src/iptun/build.log"; then
    echo "kbuild612: make modules ok: iptun.ko, vermagic $(in_root modinfo -F vermagic /usr/src/iptun/iptun.ko)"
else
    cat "$root/usr/src/iptun/build.log"
    echo "kbuild612: make modules FAILED"
    status=1
fi
if in_root dkms add "$name/$version" > "$root.dkms.log" 2>&1 \
   && in_root dkms build -j 1 "$name/$version" -k "$KREL" >> "$root.dkms.log" 2>&1; then
    echo "kbuild612: dkms build ok: $name/$version for $KREL"
else
    tail -30 "$root.dkms.log"
    echo "kbuild612: dkms build FAILED"
    status=1
fi
if test $install = yes && test $status = 0; then
    if in_root dkms install --force "$name/$version" -k "$KREL" >> "$root.dkms.log" 2>&1; then
        echo "kbuild612: dkms install ok: $(in_root modinfo -k "$KREL" -n iptun)"
    else
        tail -30 "$root.dkms.log"
        echo "kbuild612: dkms install FAILED"
        status=1
    fi
fi
exit $status
