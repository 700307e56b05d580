#!/usr/bin/env bash
# Wire conformance: every request body cordis builds (the snapshot fixtures'
# Anthropic requests rebuilt in full, and representative bodies built
# through llm/anthropic and llm/openai) is type-checked against the official
# SDK types with tsc --strict (an unknown field is an excess-property
# error) and checked against the API rules the types cannot express; and
# every authored response stream in streams/ is decoded by cordis and by the
# official SDKs' stream accumulators, and the final messages compared.
#
#   bash wire/run.sh
#
# Needs Go, Node 20+ and npm; installs the pinned packages with npm ci.
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bodies="$(mktemp -d)"
decoded="$(mktemp -d)"
trap 'rm -rf "$bodies" "$decoded" "$here/out"' EXIT

cd "$here"
npm ci --no-audit --no-fund --loglevel=error >/dev/null

echo "== wire: capture"
(cd "$here/.." && WIRE_OUT="$bodies" go test -count=1 -run '^TestCapture$' ./wire/ >/dev/null)

echo "== wire: rule checks"
node --test --test-reporter=dot rules.test.mjs
status=0
node check.mjs "$bodies" || status=1

echo "== wire: tsc --strict against @anthropic-ai/sdk and openai"
npx --no-install tsc -p tsconfig.json --strict --noEmit || status=1

echo "== wire: response decoding against the SDK stream accumulators"
(cd "$here/.." && WIRE_DECODED="$decoded" go test -count=1 -run '^TestDecode$' ./wire/)
node --test --test-reporter=dot accumulate.test.mjs
node accumulate.mjs streams "$decoded" || status=1

if (( status != 0 )); then
  echo "wire: FAILED" >&2
  exit 1
fi
echo "wire: ok"
