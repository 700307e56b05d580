//go:build race

package sessionlog

// raceEnabled lets the 64 MiB tests skip under the race detector, where
// instrumented copies of that size take seconds and test nothing concurrent.
const raceEnabled = true
