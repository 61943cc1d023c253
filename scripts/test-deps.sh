#!/usr/bin/env bash
# The Debian packages the test suite drives as real peers: Chromium (Playwright UI tests),
# Dovecot (IMAP polling tests), Exim (the MTA hand-off through hxdesk-mailgate) and PostgreSQL
# (the second store: throwaway clusters from tests/helpers/postgres.ts). Each is
# started by the tests from its own config in a temp dir: no system service is started or
# left running. Installed only when missing; runs before `npm test` (the "pretest" script).
set -euo pipefail
here="$(dirname "$0")"
need=()
command -v python3 >/dev/null 2>&1 || need+=(python3) # the mail corpus test's reference parser (CPython's email)
command -v chromium >/dev/null 2>&1 || [ -n "${CHROMIUM_PATH:-}" ] || need+=(chromium)
command -v dovecot >/dev/null 2>&1 || [ -x /usr/sbin/dovecot ] || need+=(dovecot-imapd)
command -v exim >/dev/null 2>&1 || [ -x /usr/sbin/exim ] || need+=(exim4-daemon-light)
# Any server version's initdb will do (Debian 12: 15, with pg_trgm); the metapackage picks the release's.
[ "${HXDESK_TEST_POSTGRES:-}" = 0 ] || compgen -G '/usr/lib/postgresql/*/bin/initdb' >/dev/null || [ -n "${PG_BIN:-}" ] || need+=(postgresql)
# Mail nobody here wrote, from Debian's packages, for tests/mail-corpus.test.ts (fetched once).
fetch_corpus() { bash "$here/mail-corpus.sh"; }
[ ${#need[@]} -eq 0 ] && { fetch_corpus; exit 0; }
if [ "$(id -u)" -ne 0 ] || ! command -v apt-get >/dev/null 2>&1; then
  echo "The tests need these Debian packages: ${need[*]}. Install them (apt-get install ${need[*]}) and run again." >&2
  exit 1
fi
echo "Installing test dependencies: ${need[*]}"
# Dovecot, Exim and PostgreSQL would start as system services (Exim listening on port 25): a policy-rc.d
# that answers 101 ("action forbidden") keeps them stopped, as in containers.
policy=/usr/sbin/policy-rc.d
own_policy=
if [ ! -e "$policy" ]; then
  printf '#!/bin/sh\nexit 101\n' >"$policy" && chmod 755 "$policy" && own_policy=1
fi
trap '[ -z "$own_policy" ] || rm -f "$policy"' EXIT
apt-get update -qq
DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
if [ -d /run/systemd/system ]; then
  # Not started now, and not at the next boot either (only the services installed here).
  units=()
  [[ " ${need[*]} " == *" dovecot-imapd "* ]] && units+=(dovecot.service)
  [[ " ${need[*]} " == *" exim4-daemon-light "* ]] && units+=(exim4.service exim4-base.timer)
  [[ " ${need[*]} " == *" postgresql "* ]] && units+=(postgresql.service)
  [ ${#units[@]} -eq 0 ] || systemctl disable --quiet "${units[@]}" 2>/dev/null || true
fi
fetch_corpus
