#! /bin/sh
# ovs-iptun-stage.sh: manage the staged Open vSwitch tree.
#
# Called by the top-level Makefile with OVS_DIR, OVS_SOURCE, OVS_SOURCE_KIND,
# PROJECT and GIT in the environment.
#
#   unpack            unpack the pristine source into $OVS_DIR/src and record
#                     it as commit "pristine" in the stage's git dir
#   apply PATCH...    make the staged tree pristine + PATCH..., rewriting only
#                     files whose content changes
#   links             link the project's own files (lib/, ofproto/, tests/, utilities/)
#                     into the staged tree
#   configure ARG...  boot.sh + configure the staged tree in $OVS_DIR/build
#   export DIR        write the staged commits (and edits) back to DIR/*.patch
#   files             list the project's files that "links" puts into the
#                     tree (paths relative to both; needs PROJECT alone)
#
# The stage's git repository lives in $OVS_DIR/git (not $OVS_DIR/src/.git),
# so that Open vSwitch's makefiles do not run their development-checkout
# checks against files git does not know.

set -e

: "${PROJECT:?}"
test "${1:-}" = files || : "${OVS_DIR:?}"
GIT=${GIT:-git}
SRC=$OVS_DIR/src
GITDIR=$OVS_DIR/git
ID="-c user.name=ovs-iptun -c user.email=ovs-iptun@localhost"
ID="$ID -c core.autocrlf=false -c advice.detachedHead=false"
sgit () {
    # shellcheck disable=SC2086
    $GIT $ID --git-dir="$GITDIR" --work-tree="$SRC" "$@"
}

# Files that boot.sh, configure or the Open vSwitch build regenerate inside
# the source tree: not part of the patchable source.
GENERATED='/configure
Makefile.in
/aclocal.m4
/config.h.in
/package.m4
/autom4te.cache/
/build-aux/compile
/build-aux/config.guess
/build-aux/config.sub
/build-aux/depcomp
/build-aux/install-sh
/build-aux/ltmain.sh
/build-aux/missing
/build-aux/test-driver
/m4/libtool.m4
/m4/ltoptions.m4
/m4/ltsugar.m4
/m4/ltversion.m4
/m4/lt~obsolete.m4
/tests/testsuite
/tests/*-testsuite
/tests/testsuite.dir/
/tests/testsuite.log
*.pyc
*~
__pycache__/'

overlay_files () {
    cd "$PROJECT"
    for d in lib ofproto tests utilities; do
        test -d $d || continue
        find $d -type f ! -name '*~' ! -name '*.pyc' ! -path '*/__pycache__/*'
    done
}

case $1 in
files)
    overlay_files | LC_ALL=C sort
    ;;

unpack)
    rm -rf "$SRC" "$GITDIR"
    mkdir -p "$SRC"
    case $OVS_SOURCE_KIND in
    tarball)
        tar -xzf "$OVS_SOURCE" --strip-components=1 -C "$SRC" ;;
    dir)
        (cd "$OVS_SOURCE" && tar --exclude=.git -cf - .) | tar -xf - -C "$SRC" ;;
    *)
        echo "$0: unknown source kind '$OVS_SOURCE_KIND'" >&2; exit 1 ;;
    esac
    test -f "$SRC/lib/netdev-vport.c" || {
        echo "$0: $OVS_SOURCE does not hold an Open vSwitch tree" >&2; exit 1; }
    sgit init -q
    printf '%s\n' "$GENERATED" > "$GITDIR/info/exclude"
    sgit add -A
    sgit commit -q -m "Pristine Open vSwitch source from $OVS_SOURCE"
    sgit tag -f pristine >/dev/null
    echo "  STAGE  unpacked $OVS_SOURCE into $SRC"
    ;;

apply)
    shift
    # git am runs in another directory: make the patch names absolute.
    for p; do
        case $p in
        /*) set -- "$@" "$p" ;;
        *) set -- "$@" "$PWD/$p" ;;
        esac
        shift
    done
    if ! sgit diff --quiet HEAD; then
        echo "$0: the staged tree has edits that are not in patches/:" >&2
        sgit diff --stat HEAD >&2
        echo "run 'make export-patches' to keep them, or" \
             "'git --git-dir=$GITDIR --work-tree=$SRC checkout -- .'" \
             "to drop them" >&2
        exit 1
    fi
    # Apply the series in a scratch worktree, then move the stage to the
    # result: git rewrites only the files that differ from the old state.
    tmp=$OVS_DIR/am.tmp
    sgit worktree remove --force "$tmp" 2>/dev/null || rm -rf "$tmp"
    sgit worktree prune
    sgit worktree add -q --detach "$tmp" pristine
    if test $# -gt 0; then
        if ! (cd "$tmp" && $GIT $ID am -q --keep-cr "$@"); then
            echo "$0: a patch in patches/ does not apply to the pristine" \
                 "source; see above" >&2
            (cd "$tmp" && $GIT am --abort) 2>/dev/null || true
            exit 1
        fi
    fi
    new=$(cd "$tmp" && $GIT rev-parse HEAD)
    sgit worktree remove --force "$tmp"
    sgit reset -q --hard "$new"
    echo "  STAGE  applied $# patch(es)"
    ;;

links)
    # Drop links to project files that no longer exist.
    find "$SRC" -type l -lname "$PROJECT/*" ! -exec test -e {} \; \
         -print -delete | sed 's/^/  UNLINK /'
    overlay_files | while read -r f; do
        dst=$SRC/$f
        if test "$(readlink "$dst" 2>/dev/null)" != "$PROJECT/$f"; then
            if test -e "$dst" && test ! -L "$dst"; then
                echo "$0: $f exists upstream; change it through patches/" >&2
                exit 1
            fi
            mkdir -p "$(dirname "$dst")"
            ln -sfn "$PROJECT/$f" "$dst"
            echo "  LINK   $f"
            # Keep our files out of the stage's git status.
            grep -qxF "/$f" "$GITDIR/info/exclude" \
                || echo "/$f" >> "$GITDIR/info/exclude"
        fi
    done
    ;;

configure)
    shift
    (cd "$SRC" && ./boot.sh)
    mkdir -p "$OVS_DIR/build"
    cd "$OVS_DIR/build"
    echo "  STAGE  $SRC/configure $*"
    "$SRC/configure" "$@"
    ;;

export)
    out=${2:?export needs the patches directory}
    # An edited file that one patch touches goes into that patch.  One
    # that several patches touch goes into none by itself (the newest is
    # not always the topic, and a series cut by file grows that way): the
    # developer names the topic with "commit --fixup", which the rebase
    # below squashes.  A file that no patch touches needs a commit (with a
    # message) of its own in the stage.
    nl='
'
    orphans=
    shared=
    for f in $(sgit diff --name-only HEAD); do
        commits=$(sgit log --format=%H pristine..HEAD -- "$f")
        case $commits in
        '')
            orphans="$orphans $f" ;;
        *"$nl"*)
            shared="$shared$nl  $f:$nl$(sgit log --format='    %h %s' \
                                          pristine..HEAD -- "$f")" ;;
        *)
            sgit commit -q --fixup="$commits" -- "$f" ;;
        esac
    done
    if test -n "$shared"; then
        echo "$0: these edited files are in several patches; commit each" \
             "edit as a fixup of its topic:$shared" >&2
        echo "for example:" >&2
        echo "  git --git-dir=$GITDIR --work-tree=$SRC commit" \
             "--fixup=COMMIT -p -- FILE" >&2
        echo "then run 'make export-patches' again." >&2
        exit 1
    fi
    if test -n "$orphans"; then
        echo "$0: these edited files are in no patch yet:$orphans" >&2
        echo "commit them as a new topic, for example:" >&2
        echo "  git --git-dir=$GITDIR --work-tree=$SRC commit -m" \
             "'subsystem: What it does.' --$orphans" >&2
        echo "then run 'make export-patches' again." >&2
        exit 1
    fi
    GIT_SEQUENCE_EDITOR=: sgit -c rebase.autoSquash=true rebase -q -i \
        pristine >/dev/null
    rm -f "$out"/*.patch
    sgit format-patch -q --no-signature --zero-commit --no-numbered \
        -o "$out" pristine..HEAD
    ls "$out"/*.patch 2>/dev/null | sed 's/^/  EXPORT /'
    ;;

*)
    echo "usage: $0 unpack|apply|links|configure|export|files" >&2
    exit 1
    ;;
esac
