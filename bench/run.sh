#!/usr/bin/env bash
# bench/run.sh reproduces the tables of BENCHMARKS.md on this machine and
# writes them to bench/results/table.md. Needs Go; Node and npm for the
# peer adapters (without them the peers are left out and the rest runs).
#
#   bench/run.sh                 # everything (about 10 minutes on 2 cores)
#   RUNS=40 COUNT=10 TOOLS_COUNT=15 bench/run.sh
#
# Environment: RUNS (spawns per agent in the cold-start comparison, 20),
# COUNT (runs of every other benchmark, 5), TOOLS_COUNT (pairs per row of
# the Grep/Glob/Read comparison with ripgrep, COUNT), CORDIS_BENCH_CACHE (binaries,
# the npm prefix and scratch trees; bench/.cache), CORDIS_BENCH_OUT
# (results; bench/results), CODEX_ACP_VERSION and CLAUDE_AGENT_ACP_VERSION
# (default: the current release, asked of npm).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=${CORDIS_BENCH_CACHE:-$root/bench/.cache}
out=${CORDIS_BENCH_OUT:-$root/bench/results}
runs=${RUNS:-20}
count=${COUNT:-5}
tools_count=${TOOLS_COUNT:-$count}
bin=$cache/bin
mkdir -p "$bin" "$out"
rm -f "$out"/*.json "$out"/*.log "$out"/gobench.txt "$out"/table.md

step() { printf '\n== %s (%s)\n' "$1" "$(date -u +%H:%M:%S)"; }

step "build"
go build -o "$bin/cordis" ./cmd/cordis # as the README builds it
CGO_ENABLED=0 go build -o "$bin/cordis-static" ./cmd/cordis
CGO_ENABLED=0 go build -o "$bin/floor" ./bench/floor
CGO_ENABLED=0 go build -o "$bin/relay" ./bench/relay
go build -o "$bin/acpbench" ./bench/acpbench

step "peer adapters (npm, into $cache/npm)"
peers=()
if command -v node >/dev/null && command -v npm >/dev/null; then
	codex_v=${CODEX_ACP_VERSION:-$(npm view @zed-industries/codex-acp version 2>/dev/null || true)}
	claude_v=${CLAUDE_AGENT_ACP_VERSION:-$(npm view @zed-industries/claude-agent-acp version 2>/dev/null || true)}
	mkdir -p "$cache/npm"
	for spec in "@zed-industries/codex-acp@$codex_v" "@zed-industries/claude-agent-acp@$claude_v"; do
		case $spec in *@) echo "could not look up $spec on npm; left out" && continue ;; esac
		npm install --prefix "$cache/npm" --no-audit --no-fund --loglevel=error "$spec" >/dev/null ||
			echo "npm install $spec failed; left out"
	done
	platform=$(node -p 'process.platform + "-" + process.arch')
	codex=$cache/npm/node_modules/@zed-industries/codex-acp-$platform/bin/codex-acp
	claude=$cache/npm/node_modules/@zed-industries/claude-agent-acp/dist/index.js
	[ -x "$codex" ] && peers+=(-codex "$codex") || echo "no native codex-acp for $platform; left out"
	[ -f "$claude" ] && peers+=(-claude "$claude" -node "$(command -v node)") || echo "claude-agent-acp not installed; left out"
else
	echo "node/npm not found: the peer adapters are left out"
fi

acpbench=("$bin/acpbench" -out "$out" -repo "$root" -npm "$cache/npm"
	-cordis "$bin/cordis" -static "$bin/cordis-static" -floor "$bin/floor" -relay "$bin/relay")

step "cold start: floor, cordis, peers ($runs spawns each)"
"${acpbench[@]}" "${peers[@]}" -n "$runs" -warmup 2 coldstart

step "memory, streaming, latency, session/load ($count runs each)"
"${acpbench[@]}" -n "$count" -warmup 1 memory stream latency load

step "Go benchmarks (-count $count)"
go test -p 1 -run '^$' -count "$count" -benchmem \
	-bench 'SessionUpdate|StreamDeltas|LoadSession|LogPerToolByte|BenchmarkRead$|BenchmarkAppend$|DecodeStream|PipelineToolCall|ToolCallOverhead|ServeToInitialize' \
	./acp/ ./loop/ ./sessionlog/ ./llm/anthropic/ ./llm/openai/ ./hooks/builtin/ ./bridge/claude/ ./cmd/cordis/ |
	tee "$out/gobench.txt" | grep -E '^(Benchmark|ok|FAIL|---)' || true

step "snapshot suite"
scenarios=$(find snapshots -mindepth 2 -maxdepth 2 -name manifest.yml | wc -l | tr -d ' ')
"${acpbench[@]}" -n "$count" -warmup 1 time "snapshots-$scenarios" -- go test -count=1 ./snapshots/
for n in 100 200; do
	"${acpbench[@]}" snaptree "$n" "$cache/snapshots-$n"
	"${acpbench[@]}" -n "$count" -warmup 1 time "snapshots-$n" -- env CORDIS_SNAPSHOTS_ROOT="$cache/snapshots-$n" go test -count=1 ./snapshots/
done

step "Grep, Glob and Read against ripgrep, through the binary ($tools_count pairs each)"
COUNT=$tools_count CORDIS_BENCH_OUT=$out CORDIS_BENCH_CACHE=$cache bench/tools.sh

step "report"
"${acpbench[@]}" report >/dev/null
echo "table: $out/table.md"
