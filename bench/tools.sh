#!/usr/bin/env bash
# bench/tools.sh measures Grep, Glob and Read through the built binary,
# in real turns against a loopback model, next to ripgrep (issue 23), and
# writes the table to $CORDIS_BENCH_OUT/table.md (bench/results).
#
#   bench/tools.sh                 # n = 7 pairs per row
#   COUNT=15 bench/tools.sh
#
# Trees (built once into $CORDIS_BENCH_TREES, default
# ${TMPDIR:-/tmp}/cordis-bench-trees: outside the checkout, where Go
# sources would join the module; only
# what the machine has, nothing downloaded but ripgrep):
#   go    a copy of $(go env GOROOT)/src (about 11.5k files), a git
#         repository with a .gitignore
#   big   six copies of it side by side (about 70k files), one git
#         repository with a .gitignore and .git/info/exclude
#   big.log  a 100 MB log whose one match is on its last line
# ripgrep is installed with apt when missing (measuring only: no test
# needs it).
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
cache=${CORDIS_BENCH_CACHE:-$root/bench/.cache}
out=${CORDIS_BENCH_OUT:-$root/bench/results}
count=${COUNT:-7}
trees=${CORDIS_BENCH_TREES:-${TMPDIR:-/tmp}/cordis-bench-trees}
bin=$cache/bin
mkdir -p "$trees" "$bin" "$out"

install_rg() { # with apt, as root or through sudo; the package lists of a fresh machine may be empty
	local as=()
	[ "$(id -u)" = 0 ] || as=(sudo)
	"${as[@]}" apt-get install -y ripgrep >/dev/null 2>&1 ||
		{ "${as[@]}" apt-get update >/dev/null && "${as[@]}" apt-get install -y ripgrep >/dev/null; }
}
command -v rg >/dev/null || install_rg || { echo "ripgrep is missing and apt could not install it" >&2 && exit 1; }
echo "ripgrep: $(rg --version | sed -n 1p)"

src=$(go env GOROOT)/src
repo() { # repo DIR: a git repository with ignore rules that leave most files in
	git -C "$1" init -q
	printf '# build output\n/bin/\n*.test\n*.out\n' >"$1/.gitignore"
}
if [ ! -e "$trees/go/.done" ]; then
	rm -rf "$trees/go" && mkdir -p "$trees/go"
	cp -r "$src/." "$trees/go/"
	repo "$trees/go"
	touch "$trees/go/.done"
fi
if [ ! -e "$trees/big/.done" ]; then
	rm -rf "$trees/big" && mkdir -p "$trees/big"
	for k in 1 2 3 4 5 6; do cp -r "$src" "$trees/big/module$k"; done
	repo "$trees/big"
	printf 'module6/cmd/vendor/\n' >>"$trees/big/.git/info/exclude"
	touch "$trees/big/.done"
fi
if [ ! -e "$trees/log/big.log" ]; then
	mkdir -p "$trees/log"
	awk 'BEGIN { for (i = 1; i <= 1400000; i++) printf "2025-01-02T03:04:05Z INFO request %d served in %d ms from the cache layer\n", i, i % 97; print "2025-01-02T03:04:06Z ERROR needle-at-the-end" }' >"$trees/log/big.log.tmp"
	mv "$trees/log/big.log.tmp" "$trees/log/big.log"
fi

go build -o "$bin/cordis" ./cmd/cordis
go build -o "$bin/acpbench" ./bench/acpbench
"$bin/acpbench" -out "$out" -repo "$root" -cordis "$bin/cordis" -n "$count" -warmup 1 \
	-trees "go=$trees/go,big=$trees/big" -bigfile "$trees/log/big.log" tools
"$bin/acpbench" -out "$out" -repo "$root" report >/dev/null
echo "table: $out/table.md"
