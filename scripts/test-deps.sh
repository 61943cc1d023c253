#!/usr/bin/env bash
# The Debian packages the test suite drives as real peers: Chromium (Playwright UI tests) and
# Dovecot (IMAP polling tests; started standalone by the tests, no system service). Installed
# only when missing; runs before `npm test` (the "pretest" script).
set -euo pipefail
need=()
command -v chromium >/dev/null 2>&1 || [ -n "${CHROMIUM_PATH:-}" ] || need+=(chromium)
command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ] || need+=(dovecot-imapd)
[ ${#need[@]} -eq 0 ] && exit 0
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need these Debian packages: ${need[*]}. Install them (apt-get install ${need[*]}) and run again." >&2
  exit 1
fi
echo "Installing test dependencies: ${need[*]}"
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
