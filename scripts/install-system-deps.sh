#!/usr/bin/env bash
# Debian packages the test suite drives for real: gpg and pass (the broker's pass: credential source),
# chromium (the console's browser tests drive it through playwright-core).
set -euo pipefail
need=()
command -v gpg >/dev/null || need+=(gnupg)
command -v pass >/dev/null || need+=(pass)
command -v chromium >/dev/null || need+=(chromium)
if [ ${#need[@]} -gt 0 ]; then
  if [ "$(id -u)" -ne 0 ]; then echo "install as root: apt-get install ${need[*]}" >&2; exit 1; fi
  apt-get update -qq
  DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "${need[@]}"
fi
