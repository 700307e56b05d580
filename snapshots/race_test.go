//go:build race

package snapshots

// raceEnabled: under go test -race the cordis binary is built with the race
// detector too, so the end-to-end runs also look for data races in the
// agent.
const raceEnabled = true
