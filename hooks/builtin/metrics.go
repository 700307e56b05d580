package builtin

import (
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/cordis-agent/cordis/hooks"
)

// ToolStats are one tool's executions in one session.
type ToolStats struct {
	Tool     string
	Calls    int
	Failures int
	Total    time.Duration
	Max      time.Duration
}

// MetricsStore is the metrics hook's per-session counters: fixed-size
// aggregates per tool, never a list of calls, so memory and cost do not
// grow with the session. It is safe for concurrent use.
type MetricsStore struct {
	s sessions[map[string]*ToolStats]
}

func (m *MetricsStore) hooks() []registration {
	run := func(in *hooks.Input) (hooks.Decision, error) {
		m.s.with(in.SessionID, func(st *map[string]*ToolStats) {
			if *st == nil {
				*st = map[string]*ToolStats{}
			}
			ts := (*st)[in.ToolName]
			if ts == nil {
				ts = &ToolStats{Tool: in.ToolName}
				(*st)[in.ToolName] = ts
			}
			ts.Calls++
			if in.Event == hooks.PostToolUseFailure {
				ts.Failures++
			}
			ts.Total += in.Duration
			ts.Max = max(ts.Max, in.Duration)
		})
		return hooks.Decision{}, nil
	}
	return []registration{
		{event: hooks.PostToolUse, priority: 90, run: run},
		{event: hooks.PostToolUseFailure, priority: 90, run: run},
		m.s.dropOnEnd(),
	}
}

// Snapshot returns a session's per-tool counters, by tool name.
func (m *MetricsStore) Snapshot(sessionID string) []ToolStats {
	var out []ToolStats
	m.s.with(sessionID, func(st *map[string]*ToolStats) {
		for _, ts := range *st {
			out = append(out, *ts)
		}
	})
	slices.SortFunc(out, func(a, b ToolStats) int { return strings.Compare(a.Tool, b.Tool) })
	return out
}

// Restore sets a reopened session's counters to stats (what its log
// holds), replacing any it has, so /status after a reload counts the
// calls made before it.
func (m *MetricsStore) Restore(sessionID string, stats []ToolStats) {
	m.s.with(sessionID, func(st *map[string]*ToolStats) {
		*st = make(map[string]*ToolStats, len(stats))
		for _, ts := range stats {
			(*st)[ts.Tool] = &ts
		}
	})
}

// StatusLines renders Snapshot for /status.
func (m *MetricsStore) StatusLines(sessionID string) []string {
	snap := m.Snapshot(sessionID)
	if len(snap) == 0 {
		return []string{"- tool calls: none yet"}
	}
	lines := []string{"- tool calls (calls, failures, average / longest duration):"}
	for _, ts := range snap {
		avg := ts.Total / time.Duration(ts.Calls)
		lines = append(lines, fmt.Sprintf("  - %s: %d, %d failed, %s / %s", ts.Tool, ts.Calls, ts.Failures, avg.Round(time.Millisecond), ts.Max.Round(time.Millisecond)))
	}
	return lines
}
