#!/usr/bin/env bash
# Fetches mail nobody here wrote, for tests/mail-corpus.test.ts: the test messages of seven
# mature mail projects, taken from Debian's own packages (the only source this project's
# machines reach besides npm):
#   rt         Request Tracker's t/data/emails          (source package request-tracker5, bookworm)
#   enmime     Go's enmime testdata                     (binary package golang-github-jhillyerd-enmime-dev)
#   notmuch    notmuch's test/corpora (LKML and more)   (source package notmuch, bookworm)
#   python     CPython's Lib/test/test_email/data       (source package python3.13, trixie)
#   mime-tools Perl MIME-tools' testmsgs                (source package libmime-tools-perl, trixie)
#   gmime      GMime's tests/data: MIME parts, message/partial (source package gmime, trixie)
#   mailutils  GNU Mailutils' testsuite/spool, each mbox split into its messages
#                                                       (source package mailutils, trixie)
# Into tests/.corpus (git-ignored), once; `--force` fetches again. Needs apt (root, as CI is).
# Only the upstream tarballs of source packages are downloaded (--tar-only).
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
dest="$root/tests/.corpus"
stamp="$dest/.complete-v2"
[ "${1:-}" = "--force" ] && rm -rf "$dest"
[ -f "$stamp" ] && exit 0
command -v apt-get >/dev/null || { echo "mail-corpus: apt-get is needed to fetch the corpus" >&2; exit 1; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
chmod 755 "$work"
cd "$work"
quiet() { grep -v '^W: Download is performed unsandboxed' || true; }

# Binary packages: downloaded, never installed (package lists refreshed first if they are stale).
download() { apt-get download -qq golang-github-jhillyerd-enmime-dev 2>&1 | quiet; }
download
ls ./*.deb >/dev/null 2>&1 || { apt-get update -qq; download; }
ls ./*.deb >/dev/null 2>&1 || { echo "mail-corpus: could not download the Debian packages" >&2; exit 1; }

# Source packages, through deb-src lists of our own (the machine's sources stay untouched).
sources() { # sources <suite> <package>...
  local suite="$1"; shift
  mkdir -p "apt-$suite/lists/partial"
  echo "deb-src http://deb.debian.org/debian $suite main" > "apt-$suite/sources.list"
  local opts=(-o Dir::Etc::SourceList="$work/apt-$suite/sources.list" -o Dir::Etc::SourceParts=/dev/null -o Dir::State::Lists="$work/apt-$suite/lists")
  apt-get "${opts[@]}" -qq update
  apt-get "${opts[@]}" -qq source --download-only --tar-only "$@" 2>&1 | quiet
}
sources bookworm request-tracker5 notmuch
sources trixie python3.13 libmime-tools-perl gmime mailutils
for p in request-tracker5 notmuch python3.13 libmime-tools-perl gmime mailutils; do
  ls "${p}"_*.orig.tar.* >/dev/null 2>&1 || { echo "mail-corpus: could not download the source of $p" >&2; exit 1; }
done

mkdir -p x/python x/enmime x/rt x/notmuch x/mime-tools x/gmime x/mailutils
dpkg-deb --fsys-tarfile golang-github-jhillyerd-enmime-dev_*.deb | tar -x -C x/enmime --wildcards '*/testdata/*.raw'
tar -xf request-tracker5_*.orig.tar.gz -C x/rt --wildcards '*/t/data/emails/*'
tar -xf notmuch_*.orig.tar.* -C x/notmuch --wildcards '*/test/corpora/*'
tar -xf python3.13_*.orig.tar.xz -C x/python --wildcards '*/Lib/test/test_email/data/msg_*.txt'
tar -xf libmime-tools-perl_*.orig.tar.gz -C x/mime-tools --wildcards '*/testmsgs/*.msg'
tar -xf gmime_*.orig.tar.xz -C x/gmime --wildcards '*/tests/data/mime-part/raptors.*.txt' '*/tests/data/partial/input/*'
tar -xf mailutils_*.orig.tar.xz -C x/mailutils --wildcards '*/testsuite/spool/*'

rm -rf "$dest.tmp" && mkdir -p "$dest.tmp"
copy() { # copy <project> <dir>: every file under dir, named by its path below it
  local project="$1" base="$2"
  (cd "$base" && find . -type f ! -name README ! -name DISTFILES ! -name '*.md' | sort) | while read -r f; do
    local name="${f#./}"; name="${name//\//__}"
    mkdir -p "$dest.tmp/$project" && cp "$base/$f" "$dest.tmp/$project/$name"
  done
}
copy python "$(echo x/python/*/Lib/test/test_email/data)"
copy enmime "$(echo x/enmime/usr/share/gocode/src/github.com/jhillyerd/enmime/testdata)"
copy rt "$(echo x/rt/*/t/data/emails)"
copy notmuch "$(echo x/notmuch/*/test/corpora)"
copy mime-tools "$(echo x/mime-tools/*/testmsgs)"
copy gmime "$(echo x/gmime/*/tests/data)"
# Mailboxes: one file per message (split at each "From " line), named <mailbox>.<n>.
mkdir -p x/mailutils-split
for box in x/mailutils/*/testsuite/spool/*; do
  name="$(basename "$box")"
  [ "$name" = DISTFILES ] && continue
  if [ "$(head -c 5 "$box")" = "From " ]; then
    awk -v out="x/mailutils-split/$name" '/^From / { if (f) close(f); f = sprintf("%s.%03d", out, ++n) } { print > f }' "$box"
  else
    cp "$box" "x/mailutils-split/$name" # a single message
  fi
done
copy mailutils x/mailutils-split
rm -rf "$dest" && mv "$dest.tmp" "$dest"
printf '%s\n' "$(date -u +%FT%TZ)" > "$stamp"
echo "mail-corpus: $(find "$dest" -type f ! -name '.complete-*' | wc -l) messages in tests/.corpus"
