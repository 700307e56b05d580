#!/usr/bin/env bash
# Interoperability check: drives the cordis binary with the official ACP
# TypeScript SDK (interop.test.mjs), then validates against the ACP v1 JSON
# Schema every transcript the Go suites wrote, when given their directory.
#
#   interop/run.sh [TRANSCRIPT_DIR]      (or CORDIS_ACP_TRANSCRIPT_DIR=DIR)
#
# The Go tests write transcripts when CORDIS_ACP_TRANSCRIPT_DIR is set in
# their environment (acp/acptest). Needs Node 20+ and npm; installs the
# pinned packages with npm ci.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
transcripts="${1:-${CORDIS_ACP_TRANSCRIPT_DIR:-}}"
if [[ -n "$transcripts" ]]; then
  if [[ ! -d "$transcripts" ]]; then
    echo "interop: transcript directory $transcripts does not exist" >&2
    exit 1
  fi
  transcripts="$(cd "$transcripts" && pwd)"
fi

cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null

bin="$(mktemp -d)"
trap 'rm -rf "$bin"' EXIT
(cd "$here/.." && go build -o "$bin/cordis" ./cmd/cordis)

# The test's own transcripts join the Go ones, so the summary covers both.
CORDIS_BIN="$bin/cordis" CORDIS_ACP_TRANSCRIPT_DIR="$transcripts" \
  node --test --test-reporter=spec validate.test.mjs interop.test.mjs

if [[ -n "$transcripts" ]]; then
  shopt -s nullglob
  files=("$transcripts"/*.jsonl)
  if (( ${#files[@]} == 0 )); then
    echo "interop: no transcripts (*.jsonl) in $transcripts" >&2
    exit 1
  fi
  node validate.mjs "${files[@]}"
fi
