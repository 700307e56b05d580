// Command floor is the cold-start floor of the ACP benchmarks: the least
// a Go program can do to answer an editor. It reads one line at a time and
// writes a canned response carrying the request's id (initialize, then
// session/new); it does nothing else. See BENCHMARKS.md.
//
// Concurrency: one goroutine; it answers requests in the order they arrive.
package main
