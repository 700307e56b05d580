//go:build !race

package sessionlog

const raceEnabled = false
