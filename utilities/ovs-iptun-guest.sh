#! /bin/bash
# ovs-iptun-guest.sh: run one command as root in a qemu guest that boots
# Debian's Linux 6.1 kernel on this machine's own root filesystem.
#
# usage: ovs-iptun-guest.sh [-t SECONDS] [-m MB] [-c CPUS] [-r DIR]
#                           [-R ROOT [-s]] COMMAND...
#
#   -t SECONDS  time limit for the whole guest run (default 600)
#   -m MB       guest memory (default 2048)
#   -c CPUS     guest CPUs (default 2)
#   -r DIR      results directory, shared writable with the guest at the
#               same path (default: a new temporary directory, removed after)
#   -R ROOT     boot the Debian root ROOT (a directory made by debootstrap,
#               with a kernel image: its newest /boot/vmlinuz-*, unless
#               IPTUN_GUEST_KERNEL names one, and its modules) instead of
#               this machine's root filesystem, with the same read-only
#               share and tmpfs overlay: ROOT is left as it was
#   -s          with -R: boot ROOT's systemd (/sbin/init) and run COMMAND
#               as a service (iptun-cmd.service, started with the
#               multi-user target, its output on the console) instead of
#               running it in place of init; COMMAND can wait for the boot
#               with "systemctl is-system-running --wait".  The results
#               directory must then not be under /tmp, where systemd
#               mounts a tmpfs
#
# The guest sees the host's root filesystem read-only over virtio-9p
# (cached in the guest: IPTUN_GUEST_9P_CACHE, default "loose"), with a
# tmpfs overlay on top (so it can write anywhere; those writes are lost), and
# the results directory writable at the same path as on the host (even under
# /tmp: the guest sees the host's /tmp, writable through the overlay).  COMMAND
# runs with bash in the host's current directory (/ with -R), with the host's OVS_*,
# IPTUN_* and TESTSUITEFLAGS environment variables; its output is the guest
# console's; the runner exits with COMMAND's exit status (124 on timeout, 125
# if the guest did not run it).
#
# Needs Debian's qemu-system-x86, linux-image-amd64 (a 6.1 kernel in /boot;
# override with IPTUN_GUEST_KERNEL), busybox-static and kmod.  The guest runs
# under TCG (software emulation; IPTUN_GUEST_ACCEL=kvm for KVM).  The initramfs
# (busybox, and the virtio, 9p and overlay modules) is built on first use
# and cached in IPTUN_GUEST_CACHE (default /var/cache/ovs-iptun-guest).
#
set -e
# shellcheck source=ovs-iptun-lib.sh source-path=SCRIPTDIR
. "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"

timeout=600
mem=2048
cpus=2
results=
groot=/
systemd=no

while getopts t:m:c:r:R:s opt; do
    case $opt in
    t) timeout=$OPTARG ;;
    m) mem=$OPTARG ;;
    c) cpus=$OPTARG ;;
    r) results=$OPTARG ;;
    R) groot=$(cd "$OPTARG" && pwd) ;;
    s) systemd=yes ;;
    *) iptun_usage; exit 2 ;;
    esac
done
shift $((OPTIND - 1))
if test $# = 0 || { test $systemd = yes && test "$groot" = /; }; then
    iptun_usage
    exit 2
fi

if test "$groot" != /; then
    # The root's own kernel and modules.
    IPTUN_GUEST_KERNEL=${IPTUN_GUEST_KERNEL:-$(ls "$groot"/boot/vmlinuz-* 2>/dev/null | sort -V | tail -1)}
    IPTUN_GUEST_MODROOT=$groot
fi
kernel=$(iptun_guest_kernel)
if test ! -r "$kernel"; then
    echo "$0: no Linux 6.1 kernel in /boot (apt-get install linux-image-amd64)" >&2
    exit 125
fi
kver=${kernel##*/vmlinuz-}
# IPTUN_GUEST_MODROOT: a root directory whose lib/modules/KVER holds the
# booted kernel's modules when the host has none for it (Debian 13's 6.12
# in the root that ovs-iptun-kbuild612.sh makes): the initramfs takes its
# modules from there, and the guest sees that directory as its own.
modroot=${IPTUN_GUEST_MODROOT:-}
for tool in qemu-system-x86_64 modprobe cpio; do
    command -v $tool >/dev/null || {
        echo "$0: $tool is missing (apt-get install qemu-system-x86 kmod cpio)" >&2
        exit 125; }
done
busybox=/bin/busybox
test -x "$busybox" && file -L "$busybox" 2>/dev/null | grep -q static \
    || busybox=/usr/bin/busybox
test -x "$busybox" || {
    echo "$0: busybox is missing (apt-get install busybox-static)" >&2
    exit 125; }

# The initramfs: busybox, the modules needed to reach the host's files,
# and an init that mounts them and runs /cmd.sh from the results share.
cache=${IPTUN_GUEST_CACHE:-/var/cache/ovs-iptun-guest}
initrd=$cache/initrd-$kver${modroot:+-modroot}.cpio.gz
if test ! -s "$initrd" || test "$0" -nt "$initrd"; then
    mkdir -p "$cache"
    stage=$(mktemp -d)
    mkdir -p "$stage"/{bin,dev,proc,sys,mnt/lower,mnt/rw,mnt/root,lib/modules}
    cp "$busybox" "$stage/bin/busybox"
    for m in virtio_pci 9pnet_virtio 9p overlay; do
        modprobe ${modroot:+-d "$modroot"} -S "$kver" --show-depends $m
    done | awk '$1 == "insmod" && !seen[$2]++ { print $2 }' \
        > "$stage/modules.order"
    while read -r ko; do
        cp "$ko" "$stage/lib/modules/"
    done < "$stage/modules.order"
    sed -i 's|.*/||' "$stage/modules.order"
    cat > "$stage/init" <<'EOF'
#!/bin/busybox sh
/bin/busybox --install -s /bin
mount -t proc proc /proc
grep -q iptun.debug /proc/cmdline && set -x
mount -t sysfs sys /sys
mount -t devtmpfs dev /dev
for m in $(cat /modules.order); do insmod /lib/modules/$m; done
results=$(sed -n 's/.*iptun.results=\([^ ]*\).*/\1/p' /proc/cmdline)
cache=$(sed -n 's/.*iptun.9pcache=\([^ ]*\).*/\1/p' /proc/cmdline)
mount -t 9p -o trans=virtio,version=9p2000.L,ro,msize=512000${cache:+,cache=$cache} \
    hostroot /mnt/lower
mount -t tmpfs -o size=75% rw /mnt/rw
mkdir -p /mnt/rw/upper /mnt/rw/work
mount -t overlay overlay \
    -o lowerdir=/mnt/lower,upperdir=/mnt/rw/upper,workdir=/mnt/rw/work /mnt/root
mount -t proc proc /mnt/root/proc
mount -t sysfs sys /mnt/root/sys
mount -t devtmpfs dev /mnt/root/dev
mkdir -p /mnt/root/dev/pts /mnt/root/dev/shm
ln -sf /proc/self/fd /mnt/root/dev/fd
ln -sf /proc/self/fd/0 /mnt/root/dev/stdin
ln -sf /proc/self/fd/1 /mnt/root/dev/stdout
ln -sf /proc/self/fd/2 /mnt/root/dev/stderr
mount -t devpts devpts /mnt/root/dev/pts
mount -t tmpfs shm /mnt/root/dev/shm
mount -t tmpfs run /mnt/root/run
mkdir -p "/mnt/root$results"
mount -t 9p -o trans=virtio,version=9p2000.L,msize=512000 results "/mnt/root$results"
modroot=$(sed -n 's/.*iptun.modroot=\([^ ]*\).*/\1/p' /proc/cmdline)
if test -n "$modroot"; then
    kver=$(uname -r)
    mkdir -p "/mnt/root/lib/modules/$kver"
    mount -o bind "/mnt/root$modroot/lib/modules/$kver" "/mnt/root/lib/modules/$kver"
fi
# Make the overlay the real root, so that the kernel's module loader (and
# everything else) sees the host's files, then run the command.
cat > /mnt/root/run/iptun-init <<EOS
#!/bin/bash
# Device nodes of modules loaded on first use (/dev/net/tun...), as
# systemd-tmpfiles would create them at boot.
kmod static-nodes --format=tmpfiles 2>/dev/null |
while read -r type path mode _ _ _ dev; do
    case \$type in c*|b*) ;; *) continue ;; esac
    mkdir -p "\$(dirname "\$path")"
    mknod -m "\$mode" "\$path" "\${type%!}" "\${dev%:*}" "\${dev#*:}" 2>/dev/null
done
bash "$results/cmd.sh" < /dev/console > /dev/console 2>&1
echo \$? > "$results/rc"
sync
echo o > /proc/sysrq-trigger
sleep 60
EOS
if grep -q iptun.systemd /proc/cmdline; then
    # The command as a service of the booted system, on the console.
    cat > /mnt/root/etc/systemd/system/iptun-cmd.service <<EOS
[Unit]
Description=ovs-iptun guest command
After=basic.target
[Service]
Type=exec
ExecStart=/bin/bash /run/iptun-init
StandardOutput=journal+console
EOS
    # No login prompt on the console.
    ln -sf /dev/null /mnt/root/etc/systemd/system/serial-getty@ttyS0.service
    mkdir -p /mnt/root/etc/systemd/system/multi-user.target.wants
    ln -sf ../iptun-cmd.service \
        /mnt/root/etc/systemd/system/multi-user.target.wants/iptun-cmd.service
    exec switch_root /mnt/root /sbin/init
fi
exec switch_root /mnt/root /bin/bash /run/iptun-init
EOF
    chmod +x "$stage/init"
    (cd "$stage" && find . | cpio -o -H newc --quiet | gzip -1) > "$initrd.tmp"
    mv "$initrd.tmp" "$initrd"
    rm -rf "$stage"
fi

own_results=no
if test -z "$results"; then
    results=$(mktemp -d)
    own_results=yes
fi
mkdir -p "$results"
results=$(cd "$results" && pwd)
rm -f "$results/rc"

# The command, run in the guest from the host's current directory.
{
    if test "$groot" = /; then
        echo "cd $(printf %q "$PWD") || exit 125"
    else
        echo "cd /"
    fi
    echo "export PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
    echo "export HOME=/root IPTUN_GUEST=1 IPTUN_GUEST_RESULTS=$(printf %q "$results")"
    # The environment that concerns Open vSwitch and this project.
    for v in $(compgen -e | grep -E '^(OVS_|IPTUN_|TESTSUITEFLAGS$)' \
               | grep -v '^IPTUN_GUEST'); do
        echo "export $v=$(printf %q "${!v}")"
    done
    printf 'exec'
    printf ' %q' "$@"
    echo
} > "$results/cmd.sh"

# TCG by default: /dev/kvm exists on the development machines but KVM
# guests hang there.  IPTUN_GUEST_ACCEL=kvm where KVM works.
accel=${IPTUN_GUEST_ACCEL:-tcg}
# The host's root is read-only to the guest and does not change while it
# runs: the guest caches it (9p "cache=loose"), which took the guest tests
# 12-22 % less time than "none" (each read a request to qemu's main
# thread, which then competed with the two vCPUs for two host cores).
cache_mode=${IPTUN_GUEST_9P_CACHE:-loose}

# The modules of another root are bind-mounted into this machine's root in
# the guest; a root of its own (-R) has them in place.
bindmods=
test "$groot" != / || bindmods=$modroot
sysd=
test $systemd = no || sysd=yes

status=0
timeout --foreground -k 10 "$timeout" qemu-system-x86_64 \
    -accel $accel -m "$mem" -smp "$cpus" -cpu max \
    -nographic -no-reboot -nodefaults -serial stdio -display none \
    -kernel "$kernel" -initrd "$initrd" \
    -append "console=ttyS0 panic=-1 ${IPTUN_GUEST_DEBUG:-quiet loglevel=3} iptun.results=$results${IPTUN_GUEST_DEBUG:+ iptun.debug} iptun.9pcache=$cache_mode${bindmods:+ iptun.modroot=$modroot}${sysd:+ iptun.systemd}" \
    -fsdev local,id=hostroot,path="$groot",security_model=none,readonly=on,multidevs=remap \
    -device virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot \
    -fsdev local,id=results,path="$results",security_model=none \
    -device virtio-9p-pci,fsdev=results,mount_tag=results \
    || status=$?

if test $status = 124; then
    echo "$0: the guest did not finish within $timeout s" >&2
elif test -s "$results/rc"; then
    status=$(cat "$results/rc")
else
    echo "$0: the guest did not run the command (qemu exit status $status)" >&2
    status=125
fi
if test $own_results = yes; then
    rm -rf "$results"
fi
exit "$status"
