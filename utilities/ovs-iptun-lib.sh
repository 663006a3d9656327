# shellcheck shell=dash
# ovs-iptun-lib.sh: what the ovs-iptun scripts share.  Sourced, not run:
#
#   . "$(dirname "$(readlink -f "$0")")/ovs-iptun-lib.sh"
#
# (readlink: the scripts are also reached through the staged tree's links,
# _ovs/src/utilities/.)  Plain sh with "local", for bash and dash scripts.
#
# Sets:
#   iptun_dir   this directory (utilities/), for the other scripts
#   iptun_py    Debian's python3, which has scapy and netaddr (the python3
#               first on PATH may not)
#
# Functions:
#   iptun_usage                  prints the calling script's header comment
#   iptun_is_root                true when running as root
#   iptun_need_root WHY          exits with "$0: needs root (WHY)" unless root
#   iptun_cc gcc|clang           the C compiler: "ccache CC" if ccache is
#                                installed, else CC
#   iptun_ovs_path BUILDDIR [PATH]  PATH with an Open vSwitch build tree's
#                                programs first (before PATH, default $PATH)
#   iptun_ovs_schema BUILDDIR    the database schema of a build tree's source
#   iptun_on DIR CMD...          runs CMD with OVS_RUNDIR, OVS_LOGDIR,
#                                OVS_DBDIR and OVS_SYSCONFDIR all DIR (a
#                                sandboxed Open vSwitch: socket, database,
#                                pid and log files in DIR)
#   iptun_ovsdb_start DIR SCHEMA creates DIR/conf.db, starts ovsdb-server on
#                                DIR/db.sock and initialises the database
#   iptun_vswitchd_start DIR [NETNS [WRAPPER...]]  starts ovs-vswitchd on
#                                DIR/db.sock, in network namespace NETNS if
#                                given (not empty); with WRAPPER (a command
#                                and its arguments, e.g. valgrind), runs
#                                "WRAPPER... ovs-vswitchd ..." in the
#                                background instead of detaching (a daemon
#                                that forks leaves valgrind's gdbserver,
#                                which callgrind_control talks to, behind),
#                                its output in DIR/ovs-vswitchd.out, and
#                                returns when it answers ovs-appctl (needs
#                                the build's ovs-appctl on PATH), 300 s at
#                                most
#   iptun_ovs_stop DIR           stops the ovs-vswitchd and ovsdb-server of
#                                DIR (SIGTERM; SIGKILL after 10 s)
#   iptun_netns_add NAME         network namespace NAME with lo up and IPv6
#                                off (no autoconfiguration or router
#                                solicitation noise in flows and captures)
#   iptun_netns_del NAME...      deletes namespaces, if they exist
#   iptun_fetch_deb SUITE PACKAGE VERSION SHA256 DIR
#                                unpacks Debian package PACKAGE at VERSION
#                                from Debian's suite SUITE (e.g. forky) into
#                                DIR, once: fetched through the suite's
#                                signed index with a private apt
#                                configuration and state in
#                                $IPTUN_CACHE/apt-SUITE (the system's apt
#                                sources are left alone), its SHA-256 checked
#                                against SHA256.  IPTUN_CACHE defaults to
#                                /var/cache/ovs-iptun.
#   iptun_fetch_src SUITE PACKAGE VERSION SUMS DIR
#                                unpacks Debian source package PACKAGE at
#                                VERSION from SUITE into DIR (dpkg-source -x:
#                                Debian's patches applied), once: its files
#                                (.dsc, orig and debian tarballs) fetched
#                                through the suite's signed index with the
#                                same private apt configuration and checked
#                                against SUMS, sha256sum's format (a line
#                                "SHA256  FILE" for each file)
#   iptun_src_files SUITE PACKAGE VERSION
#                                the folder where iptun_fetch_src keeps
#                                those files (e.g. for the orig tarball
#                                that dpkg-buildpackage wants beside the
#                                tree)
#   iptun_iperf_rate NS-SERVER ADDR NS-CLIENT SECONDS [STREAMS]
#                                TCP from network namespace NS-CLIENT to an
#                                iperf3 server on ADDR in NS-SERVER for
#                                SECONDS with STREAMS streams (default 1):
#                                prints the receiver's Mbit/s
#   iptun_apt SUITE ARG...       apt-get ARG... with that private apt
#                                configuration and state (deb and deb-src
#                                lines for SUITE's main from
#                                iptun_debian_mirror, signed by Debian's
#                                archive keyring); "iptun_apt SUITE update"
#                                logs to $IPTUN_CACHE/apt-SUITE/update.log
#                                and says what failed
#   iptun_root_make SUITE ROOT [VARIANT]
#                                a Debian SUITE root in ROOT (debootstrap
#                                --variant=VARIANT, default minbase, from
#                                iptun_debian_mirror, checked with Debian's
#                                archive keyring; log in ROOT.log), made
#                                once: kept while it has apt; package
#                                scripts start no daemons in it
#                                (policy-rc.d); needs root and debootstrap
#   iptun_in_root ROOT CMD...    runs CMD in ROOT (chroot, a clean
#                                environment)
#   iptun_root_install [-d] ROOT PACKAGE...
#                                apt-get update and install (no
#                                recommends) in ROOT, /proc mounted for it,
#                                the output appended to ROOT.log (-d:
#                                download them to apt's cache in ROOT
#                                only, for an offline install there
#                                later; without, the cache is emptied
#                                after the install); returns 77,
#                                saying so, if the archive no longer serves
#                                a pinned version of a linux-* package (a
#                                newer point release replaced it), 1 on
#                                another failure
#   iptun_debian_mirror          the Debian archive mirror this system's
#                                apt uses (IPTUN_DEBIAN_MIRROR if set): the
#                                first URI, in /etc/apt/sources.list and
#                                then sources.list.d/*.list and *.sources
#                                (one-line and deb822 formats), of an
#                                enabled "deb" entry of main whose suite is
#                                a Debian suite other than its -security
#                                one, so that a site's own mirror or proxy
#                                serves the other suites too; fails, saying
#                                so, if there is none

# shellcheck disable=SC2034  # for the scripts that source this file
{
iptun_dir=$(dirname "$(readlink -f "$0")")
iptun_py=/usr/bin/python3
}

iptun_usage () {
    sed -n '2,/^$/p' "$0" >&2
}

iptun_is_root () {
    test "$(id -u)" = 0
}

iptun_need_root () {
    iptun_is_root && return 0
    echo "$0: needs root ($1)" >&2
    exit 1
}

iptun_cc () {
    if command -v ccache >/dev/null; then
        echo "ccache $1"
    else
        echo "$1"
    fi
}

iptun_ovs_path () {
    echo "$1/utilities:$1/vswitchd:$1/ovsdb:${2-$PATH}"
}

iptun_ovs_schema () {
    echo "$(sed -n 's/^abs_top_srcdir = //p' "$1/Makefile")/vswitchd/vswitch.ovsschema"
}

iptun_on () {
    local d=$1
    shift
    OVS_RUNDIR=$d OVS_LOGDIR=$d OVS_DBDIR=$d OVS_SYSCONFDIR=$d "$@"
}

iptun_ovsdb_start () {
    local d=$1
    mkdir -p "$d"
    ovsdb-tool create "$d/conf.db" "$2"
    iptun_on "$d" ovsdb-server "$d/conf.db" -vconsole:off \
        --remote="punix:$d/db.sock" --pidfile="$d/ovsdb-server.pid" \
        --log-file="$d/ovsdb-server.log" --detach --no-chdir
    iptun_on "$d" ovs-vsctl --db="unix:$d/db.sock" --no-wait init
}

iptun_vswitchd_start () {
    local d=$1 ns=${2:-} detach=--detach n=0
    shift
    test $# = 0 || shift
    test $# = 0 || detach=
    set -- env OVS_RUNDIR="$d" OVS_LOGDIR="$d" OVS_DBDIR="$d" \
        OVS_SYSCONFDIR="$d" "$@" ovs-vswitchd "unix:$d/db.sock" -vconsole:off \
        --pidfile="$d/ovs-vswitchd.pid" --log-file="$d/ovs-vswitchd.log" \
        ${detach:+"$detach"} --no-chdir
    if test -n "$ns"; then
        set -- ip netns exec "$ns" "$@"
    fi
    if test -n "$detach"; then
        "$@"
        return
    fi
    "$@" > "$d/ovs-vswitchd.out" 2>&1 < /dev/null &
    until iptun_on "$d" ovs-appctl -T 10 version > /dev/null 2>&1; do
        n=$((n + 1))
        if test $n -gt 300 || ! kill -0 $! 2>/dev/null; then
            echo "ovs-vswitchd did not start (see $d/ovs-vswitchd.out)" >&2
            return 1
        fi
        sleep 1
    done
}

iptun_ovs_stop () {
    local daemon pid n
    for daemon in ovs-vswitchd ovsdb-server; do
        test -f "$1/$daemon.pid" || continue
        pid=$(cat "$1/$daemon.pid")
        kill "$pid" 2>/dev/null || true
        n=0
        while kill -0 "$pid" 2>/dev/null && test $n -lt 50; do
            sleep 0.2
            n=$((n + 1))
        done
        kill -9 "$pid" 2>/dev/null || true
        rm -f "$1/$daemon.pid"
    done
}

iptun_netns_add () {
    ip netns add "$1"
    ip netns exec "$1" sysctl -q -w net.ipv6.conf.all.disable_ipv6=1 \
        net.ipv6.conf.default.disable_ipv6=1
    ip -n "$1" link set lo up
}

iptun_netns_del () {
    local ns
    for ns; do
        ip netns del "$ns" 2>/dev/null || true
    done
}

iptun_debian_mirror () {
    local etc=${IPTUN_APT_ETC:-/etc/apt} uri
    if test -n "${IPTUN_DEBIAN_MIRROR:-}"; then
        echo "${IPTUN_DEBIAN_MIRROR%/}"
        return 0
    fi
    # One-line entries ("deb [OPTIONS] URI SUITE COMPONENT...") and deb822
    # paragraphs (Types, URIs, Suites, Components, Enabled), in apt's order.
    # shellcheck disable=SC2016  # awk's dollars
    uri=$(for f in "$etc/sources.list" "$etc"/sources.list.d/*.list \
                   "$etc"/sources.list.d/*.sources; do
              test -f "$f" || continue
              case $f in
              *.sources) echo "@deb822"; cat "$f"; echo; echo "@end" ;;
              *) echo "@oneline"; cat "$f"; echo "@end" ;;
              esac
          done | awk '
        function debian_suite(s) {
            sub(/-(updates|backports|proposed-updates)$/, "", s)
            return s ~ /^(oldoldstable|oldstable|stable|testing|unstable|sid|experimental|buster|bullseye|bookworm|trixie|forky|duke)$/
        }
        function take(types, uris, suites, comps,   n, i, t, u, s) {
            if (types !~ /(^| )deb( |$)/ || comps !~ /(^| )main( |$)/)
                return
            n = split(suites, s, " ")
            for (i = 1; i <= n; i++)
                if (debian_suite(s[i])) {
                    split(uris, u, " ")
                    print u[1]
                    exit
                }
        }
        /^@deb822$/ { mode = "deb822"; reset(); next }
        /^@oneline$/ { mode = "oneline"; next }
        /^@end$/ { if (mode == "deb822") para(); mode = ""; next }
        function reset() { types = uris = suites = comps = ""; enabled = 1 }
        function para() {
            if (enabled && uris != "") take(types, uris, suites, comps)
            reset()
        }
        mode == "oneline" {
            sub(/#.*/, "")
            if ($1 != "deb") next
            i = 2
            if ($2 ~ /^\[/) {
                while (i <= NF && $i !~ /\]$/) i++
                i++
            }
            comps = ""
            for (j = i + 2; j <= NF; j++) comps = comps " " $j
            take("deb", $i, $(i + 1), comps)
            next
        }
        mode == "deb822" && /^[ \t]*$/ { para(); next }
        mode == "deb822" && /^#/ { next }
        mode == "deb822" {
            key = tolower($1); $1 = ""; sub(/^ +/, "")
            if (key == "types:") types = $0
            else if (key == "uris:") uris = $0
            else if (key == "suites:") suites = $0
            else if (key == "components:") comps = $0
            else if (key == "enabled:") enabled = ($0 !~ /^no/)
        }')
    if test -z "$uri"; then
        echo "iptun_debian_mirror: no Debian archive in $etc's sources" \
             "(set IPTUN_DEBIAN_MIRROR to one)" >&2
        return 1
    fi
    echo "${uri%/}"
}

iptun_root_make () {
    local suite=$1 root=$2 variant=${3:-minbase} mirror script
    if test -x "$root/usr/bin/apt-get"; then
        iptun_root_apt_conf "$root"
        return 0
    fi
    command -v debootstrap >/dev/null || {
        echo "iptun_root_make: needs debootstrap" >&2
        return 1
    }
    mirror=$(iptun_debian_mirror) || return 1
    rm -rf "$root"
    mkdir -p "$(dirname "$root")"
    # A suite newer than this debootstrap (forky on Debian 12's) is made
    # as the unstable one is.
    script=/usr/share/debootstrap/scripts/$suite
    test -e "$script" || script=/usr/share/debootstrap/scripts/sid
    debootstrap --variant="$variant" \
        --keyring=/usr/share/keyrings/debian-archive-keyring.gpg \
        "$suite" "$root" "$mirror" "$script" > "$root.log" 2>&1 || {
        tail -20 "$root.log" >&2
        echo "iptun_root_make: debootstrap of Debian $suite failed" >&2
        rm -rf "$root"
        return 1
    }
    printf '#!/bin/sh\nexit 101\n' > "$root/usr/sbin/policy-rc.d"
    chmod 755 "$root/usr/sbin/policy-rc.d"
    iptun_root_apt_conf "$root"
}

# The index of a suite in development (forky, sid) is valid for a week
# (its Release's Valid-Until), then renewed by the archive; a mirror that
# is a snapshot (as on the project's machines) keeps serving the expired
# one, which debootstrap takes but apt in the root refuses.  apt there
# still checks the index's signature, not its age, as snapshot users do.
iptun_root_apt_conf () {
    echo 'Acquire::Check-Valid-Until "false";' \
        > "$1/etc/apt/apt.conf.d/99ovs-iptun-valid-until"
}

iptun_in_root () {
    local root=$1
    shift
    chroot "$root" env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root \
        LC_ALL=C.UTF-8 "$@"
}

iptun_root_install () {
    local root status=0 download=
    if test "$1" = -d; then
        download=-d
        shift
    fi
    root=$1
    shift
    cp /etc/resolv.conf "$root/etc/resolv.conf"
    mountpoint -q "$root/proc" || mount -t proc proc "$root/proc"
    { iptun_in_root "$root" apt-get update -q \
      && iptun_in_root "$root" env DEBIAN_FRONTEND=noninteractive \
           apt-get install -y -q $download --no-install-recommends "$@" \
      && { test -n "$download" || iptun_in_root "$root" apt-get clean; }; } \
        >> "$root.log" 2>&1 || status=1
    umount "$root/proc"
    test $status = 0 && return 0
    tail -5 "$root.log" >&2
    if grep -q "Version '.*' for 'linux-.*' was not found\|Unable to locate package linux-" "$root.log"; then
        echo "iptun_root_install: Debian's archive no longer serves the" \
             "pinned kernel packages ($*)" >&2
        return 77
    fi
    echo "iptun_root_install: installing $* in $root failed" >&2
    return 1
}

iptun_apt () {
    local suite=$1 cmd=$2 apt kind mirror
    shift
    mirror=$(iptun_debian_mirror) || return 1
    apt=${IPTUN_CACHE:-/var/cache/ovs-iptun}/apt-$suite
    mkdir -p "$apt/lists/partial" "$apt/archives/partial"
    for kind in deb deb-src; do
        echo "$kind" \
             "[signed-by=/usr/share/keyrings/debian-archive-keyring.gpg]" \
             "$mirror $suite main"
    done > "$apt/sources.list"
    set -- -q -o Dir::Etc::SourceList="$apt/sources.list" \
        -o Dir::Etc::SourceParts=/dev/null \
        -o Dir::Etc::Preferences=/dev/null \
        -o Dir::Etc::PreferencesParts=/dev/null \
        -o Dir::State::Lists="$apt/lists" -o Dir::Cache="$apt" \
        -o Dir::Cache::Archives="$apt/archives" \
        -o APT::Sandbox::User=root "$@"
    if test "$cmd" != update; then
        apt-get "$@"
        return
    fi
    apt-get "$@" > "$apt/update.log" 2>&1 || {
        cat "$apt/update.log" >&2
        echo "iptun_apt: cannot read Debian $suite's index" >&2
        return 1
    }
}

iptun_fetch_deb () {
    local suite=$1 pkg=$2 ver=$3 sum=$4 dest=$5 apt deb got
    local stamp="$pkg $ver $sum"
    if test "$(cat "$dest/.iptun-deb" 2>/dev/null)" = "$stamp"; then
        return 0
    fi
    apt=${IPTUN_CACHE:-/var/cache/ovs-iptun}/apt-$suite
    mkdir -p "$apt/deb"
    deb=$apt/deb/${pkg}_${ver}_all.deb
    if ! test -f "$deb" \
       || test "$(sha256sum < "$deb" | cut -d' ' -f1)" != "$sum"; then
        echo "iptun_fetch_deb: $pkg $ver from Debian $suite"
        iptun_apt "$suite" update || return 1
        rm -f "$apt/deb/${pkg}_"*
        (cd "$apt/deb" && iptun_apt "$suite" download "$pkg=$ver") || {
            echo "iptun_fetch_deb: $pkg $ver is not in Debian $suite" >&2
            return 1
        }
        deb=$(ls "$apt/deb/${pkg}_"*.deb)
    fi
    got=$(sha256sum < "$deb" | cut -d' ' -f1)
    if test "$got" != "$sum"; then
        echo "iptun_fetch_deb: $deb: SHA-256 $got, expected $sum" >&2
        return 1
    fi
    rm -rf "$dest"
    mkdir -p "$dest"
    dpkg-deb -x "$deb" "$dest"
    echo "$stamp" > "$dest/.iptun-deb"
}

# iptun_guest_kernel: the kernel that ovs-iptun-guest.sh boots (Debian's
# 6.1 in /boot, or IPTUN_GUEST_KERNEL); iptun_guest_kver: its release.
iptun_guest_kernel () {
    echo "${IPTUN_GUEST_KERNEL:-$(ls /boot/vmlinuz-6.1.* 2>/dev/null | sort -V | tail -1)}"
}
iptun_guest_kver () {
    local kernel
    kernel=$(iptun_guest_kernel)
    echo "${kernel##*/vmlinuz-}"
}

# Debian 13's Linux 6.12 (ovs-iptun-kbuild612.sh): the release, its pinned
# headers package, and the Debian 13 root that holds them and the kernel.
IPTUN_K612_RELEASE=6.12.117+deb13-amd64
IPTUN_K612_HEADERS="linux-headers-$IPTUN_K612_RELEASE=6.12.117-1"
iptun_k612_root () {
    echo "${IPTUN_CACHE:-/var/cache/ovs-iptun}/trixie-root"
}

iptun_src_files () {
    echo "${IPTUN_CACHE:-/var/cache/ovs-iptun}/apt-$1/src/${2}_$3"
}

iptun_fetch_src () {
    local suite=$1 pkg=$2 ver=$3 sums=$4 dest=$5 src
    local stamp
    stamp="$pkg $ver $(echo "$sums" | sha256sum | cut -d' ' -f1)"
    if test "$(cat "$dest/.iptun-src" 2>/dev/null)" = "$stamp"; then
        return 0
    fi
    src=$(iptun_src_files "$suite" "$pkg" "$ver")
    mkdir -p "$src"
    echo "$sums" | sed '/^[[:space:]]*$/d; s/^[[:space:]]*//' \
        > "$src/SHA256SUMS"
    if ! (cd "$src" && sha256sum -c --quiet SHA256SUMS >/dev/null 2>&1); then
        echo "iptun_fetch_src: source $pkg $ver from Debian $suite"
        iptun_apt "$suite" update || return 1
        find "$src" -mindepth 1 ! -name SHA256SUMS -delete
        (cd "$src" && iptun_apt "$suite" source --download-only \
            --only-source "$pkg=$ver") || {
            echo "iptun_fetch_src: cannot fetch source $pkg $ver" \
                 "from Debian $suite" >&2
            return 1
        }
        (cd "$src" && sha256sum -c --quiet SHA256SUMS) || {
            echo "iptun_fetch_src: $src: not the pinned SHA-256" >&2
            return 1
        }
    fi
    rm -rf "$dest"
    mkdir -p "$(dirname "$dest")"
    dpkg-source -x "$src/${pkg}_${ver#*:}.dsc" "$dest" \
        > "$src/unpack.log" 2>&1 || {
        cat "$src/unpack.log" >&2
        return 1
    }
    echo "$stamp" > "$dest/.iptun-src"
}

iptun_iperf_rate () {
    ip netns exec "$1" iperf3 -s -1 -D -B "$2" >/dev/null
    sleep 1
    ip netns exec "$3" iperf3 -c "$2" -t "$4" -P "${5:-1}" -J \
        | $iptun_py -c 'import json,sys; print("%.0f" % (json.load(sys.stdin)["end"]["sum_received"]["bits_per_second"] / 1e6))'
}
