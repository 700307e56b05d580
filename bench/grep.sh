#!/bin/sh
# Grep against ripgrep, and the peak memory of Write/Edit (issues 18, 23).
# Usage: bench/grep.sh [rounds]   (from the repository root)
# Copies $(go env GOROOT)/src to a temporary tree, runs BenchmarkGrepTree
# on it and times `rg` with the same searches, alternating, then runs
# BenchmarkFileToolMemory. ripgrep is installed with apt when missing
# (measuring only; no test needs it).
set -eu
rounds=${1:-3}
tree=$(mktemp -d)/src
trap 'rm -rf "$(dirname "$tree")"' EXIT
cp -r "$(go env GOROOT)/src" "$tree"
command -v rg >/dev/null || apt-get install -y ripgrep >/dev/null
go test -c -o /tmp/cordis-tools.test ./loop/tools
rgms() { # median-free mean of 5 runs, in ms
	s=$(date +%s%N)
	for _ in 1 2 3 4 5; do (cd "$tree" && rg "$@" . >/dev/null || true); done
	echo $(( ($(date +%s%N) - s) / 5000000 ))
}
for r in $(seq "$rounds"); do
	echo "round $r"
	CORDIS_GREP_TREE=$tree /tmp/cordis-tools.test -test.run '^$' -test.bench GrepTree -test.benchtime 5x | grep Benchmark
	echo "rg literal $(rgms -l 'func main') ms"
	echo "rg ignorecase $(rgms -l -i 'content-type') ms"
	echo "rg alternation $(rgms -l '(TODO|FIXME|XXX):') ms"
	echo "rg nomatch $(rgms -l zqxjkvbwpy) ms"
	echo "rg content-literal $(rgms -n 'func main') ms"
	echo "rg content-alternation $(rgms -n '(TODO|FIXME|XXX):') ms"
done
/tmp/cordis-tools.test -test.run '^$' -test.bench FileToolMemory -test.benchtime 3x | grep Benchmark
