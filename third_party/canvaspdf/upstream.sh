#!/bin/sh
# upstream.sh keeps canvaspdf's record of what it changed in tdewolff/canvas's
# PDF writer (renderers/pdf: pdf.go, util.go, writer.go). UPSTREAM names the
# module version the files came from; upstream.patch is every change made to
# them since. The other files here are Platen's own.
#
#   ./upstream.sh check          the patch applied to UPSTREAM's files gives the files here
#   ./upstream.sh diff           write upstream.patch from the files here (after changing them)
#   ./upstream.sh apply VERSION  take VERSION's files, apply the patch, record VERSION in UPSTREAM
#                                (to move to a new upstream; fix what does not apply by hand,
#                                then run diff)
#
# It needs go (to fetch the module into the module cache), diff and patch.
set -eu
cd "$(dirname "$0")"
files="pdf.go util.go writer.go"
module=github.com/tdewolff/canvas

# upstream_dir prints the module cache folder of version $1.
upstream_dir() {
	go mod download -json "$module@$1" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",$/\1/p'
}

# patched writes into folder $2 version $1's files with the patch applied.
patched() {
	src=$(upstream_dir "$1")/renderers/pdf
	test -d "$src" || { echo "upstream.sh: no renderers/pdf in $module@$1" >&2; exit 1; }
	for f in $files; do
		sed 's/^package pdf$/package canvaspdf/' "$src/$f" > "$2/$f"
	done
	(cd "$2" && patch -s -p1 < "$OLDPWD/upstream.patch")
}

version=$(cat UPSTREAM)
case "${1:-}" in
check)
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	patched "$version" "$tmp"
	for f in $files; do
		diff -u "$tmp/$f" "$f" || { echo "upstream.sh: $f differs from $module@$version with upstream.patch: run ./upstream.sh diff" >&2; exit 1; }
	done
	echo "canvaspdf: $files are $module@$version renderers/pdf with upstream.patch"
	;;
diff)
	src=$(upstream_dir "$version")/renderers/pdf
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	: > "$tmp/patch"
	for f in $files; do
		sed 's/^package pdf$/package canvaspdf/' "$src/$f" > "$tmp/$f"
		diff -u --label "a/$f" --label "b/$f" "$tmp/$f" "$f" >> "$tmp/patch" || test $? = 1
	done
	mv "$tmp/patch" upstream.patch
	echo "canvaspdf: upstream.patch rewritten ($(grep -c '^[-+][^-+]' upstream.patch) changed lines)"
	;;
apply)
	test -n "${2:-}" || { echo "usage: upstream.sh apply VERSION" >&2; exit 2; }
	tmp=$(mktemp -d)
	trap 'rm -rf "$tmp"' EXIT
	patched "$2" "$tmp"
	for f in $files; do cp "$tmp/$f" "$f"; done
	echo "$2" > UPSTREAM
	echo "canvaspdf: $files taken from $module@$2 with upstream.patch"
	;;
*)
	sed -n '2,/^$/s/^# \{0,1\}//p' "$0" >&2
	exit 2
	;;
esac
