#!/usr/bin/env bash
# Installs the pinned Claude Code (@anthropic-ai/claude-code and, through its optional
# dependencies, the native program for this platform) into .cache/claude-code-e2e, from the
# lockfile in test/e2e/claude-code-install. Idempotent: when the cache already holds exactly that
# lockfile's install it returns at once. Prints the claude binary, for the end-to-end tier.
set -euo pipefail
repo="$(cd "$(dirname "$0")/.." && pwd)"
spec="$repo/test/e2e/claude-code-install"
cache="${PROVENANT_CLAUDE_CODE_CACHE:-$repo/.cache/claude-code-e2e}"
case "$(uname -s)-$(uname -m)" in
  Linux-x86_64) platform="linux-x64" ;;
  Linux-aarch64) platform="linux-arm64" ;;
  Darwin-arm64) platform="darwin-arm64" ;;
  Darwin-x86_64) platform="darwin-x64" ;;
  *) echo "claude-code-e2e-install: no pinned Claude Code build for $(uname -s)-$(uname -m)" >&2; exit 1 ;;
esac
bin="$cache/node_modules/@anthropic-ai/claude-code-$platform/claude"
stamp="$cache/.installed-lock.sha256"

want="$(sha256sum "$spec/package-lock.json" | cut -d' ' -f1)"
# Test files run in parallel workers and each may ask for the install: one installs, the others wait.
mkdir -p "$(dirname "$cache")"
exec 9>"$cache.lock"
flock 9
if [ -f "$stamp" ] && [ "$(cat "$stamp")" = "$want" ] && [ -x "$bin" ]; then
  printf '%s\n' "$bin"
  exit 0
fi

mkdir -p "$cache"
rm -f "$stamp"
cp "$spec/package.json" "$spec/package-lock.json" "$cache/"
# Install scripts stay off (nothing from the registry runs code here at install time): the
# package's postinstall only links the platform binary, which is used from its own package.
(cd "$cache" && npm ci --no-audit --no-fund --ignore-scripts --loglevel=error >&2)
"$bin" --version >/dev/null
printf '%s\n' "$want" > "$stamp"
printf '%s\n' "$bin"
