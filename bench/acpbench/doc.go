// Command acpbench runs the whole-process benchmarks of BENCHMARKS.md: it
// drives ACP agents over stdio as an editor would and writes one JSON
// file per benchmark into -out; `acpbench report` turns that folder (plus
// the Go benchmark output and the timed commands) into the table.
// bench/run.sh is the way to run it.
//
//	acpbench [flags] coldstart|memory|stream|latency|load|tools ...
//	acpbench [flags] time NAME -- command args...
//	acpbench -repo DIR snaptree N DEST
//	acpbench [flags] report
//
// Concurrency: a single command-line run; the benchmarks it drives run one agent process at a time unless a table says otherwise.
package main
