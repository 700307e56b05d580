//go:build !race

package snapshots

const raceEnabled = false
