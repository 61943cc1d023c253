#!/usr/bin/env bash
# Fetches mail nobody here wrote, for tests/mail-corpus.test.ts: the test messages of four
# mature mail projects, taken from Debian's own packages (the only source this project's
# machines reach besides npm):
#   rt       Request Tracker's t/data/emails           (source package request-tracker5)
#   python   CPython's Lib/test/test_email/data        (binary package libpython3.11-testsuite)
#   enmime   Go's enmime testdata                      (binary package golang-github-jhillyerd-enmime-dev)
#   notmuch  notmuch's test/corpora (LKML and more)    (source package notmuch)
# Into tests/.corpus (git-ignored), once; `--force` fetches again. Needs apt (root, as CI is).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/tests/.corpus"
stamp="$dest/.complete-v1"
[ "${1:-}" = "--force" ] && rm -rf "$dest"
[ -f "$stamp" ] && exit 0
command -v apt-get >/dev/null || { echo "mail-corpus: apt-get is needed to fetch the corpus" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cd "$work"

# Binary packages: downloaded, never installed (package lists refreshed first if they are stale).
download() { apt-get download -qq libpython3.11-testsuite golang-github-jhillyerd-enmime-dev 2>&1 | grep -v '^W: Download is performed unsandboxed' || true; }
download
ls ./*.deb >/dev/null 2>&1 && [ "$(ls ./*.deb | wc -l)" -eq 2 ] || { apt-get update -qq; download; }
[ "$(ls ./*.deb 2>/dev/null | wc -l)" -eq 2 ] || { echo "mail-corpus: could not download the Debian packages" >&2; exit 1; }

# Source packages, through a deb-src list of our own (the machine's sources stay untouched).
mkdir -p apt/lists/partial
echo "deb-src http://deb.debian.org/debian bookworm main" > apt/sources.list
apt_src=(-o Dir::Etc::SourceList="$work/apt/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$work/apt/lists")
apt-get "${apt_src[@]}" -qq update
apt-get "${apt_src[@]}" -qq source --download-only request-tracker5 notmuch 2>&1 | grep -v '^W: Download is performed unsandboxed' || true

mkdir -p x/python x/enmime x/rt x/notmuch
dpkg-deb --fsys-tarfile libpython3.11-testsuite_*.deb | tar -x -C x/python --wildcards './usr/lib/python3.*/test/test_email/data/msg_*.txt'
dpkg-deb --fsys-tarfile golang-github-jhillyerd-enmime-dev_*.deb | tar -x -C x/enmime --wildcards '*/testdata/*.raw'
tar -xf request-tracker5_*.orig.tar.gz -C x/rt --wildcards '*/t/data/emails/*'
tar -xf notmuch_*.orig.tar.* -C x/notmuch --wildcards '*/test/corpora/*'

rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
copy() { # copy <project> <dir>: every file under dir, named by its path below it
  local project="$1" base="$2"
  (cd "$base" && find . -type f ! -name README ! -name '*.md' | sort) | while read -r f; do
    local name="${f#./}"; name="${name//\//__}"
    mkdir -p "$dest.tmp/$project" && cp "$base/$f" "$dest.tmp/$project/$name"
  done
}
copy python "$(echo x/python/usr/lib/python3.*/test/test_email/data)"
copy enmime "$(echo x/enmime/usr/share/gocode/src/github.com/jhillyerd/enmime/testdata)"
copy rt "$(echo x/rt/*/t/data/emails)"
copy notmuch "$(echo x/notmuch/*/test/corpora)"
rm -rf "$dest" && mv "$dest.tmp" "$dest"
printf '%s\n' "$(date -u +%FT%TZ)" > "$stamp"
echo "mail-corpus: $(find "$dest" -type f ! -name '.complete-v1' | wc -l) messages in tests/.corpus"
