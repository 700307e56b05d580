package builtin

import (
	"fmt"

	"github.com/cordis-agent/cordis/hooks"
)

// ContextMonitorConfig configures context-monitor.
type ContextMonitorConfig struct {
	WarnAt    float64 `yaml:"warnAt,omitempty" json:"warnAt,omitempty" jsonschema:"minimum=0,maximum=1,description=Share of the context window at which the user is warned (default 0.6)"`
	CompactAt float64 `yaml:"compactAt,omitempty" json:"compactAt,omitempty" jsonschema:"minimum=0,maximum=1,description=Share of the context window at which compaction is requested (default 0.7)"`
}

type monitorState struct {
	warned, compactRequested bool
}

// contextMonitorHooks watch the main agent's context after each model
// response (LLMResponse). Crossing warnAt shows the user a warning;
// crossing compactAt sets Decision.Compact, which the loop records as a
// notice and asks the loop to compact (Decision.Compact). Each fires once per crossing: once the
// context is back under warnAt (after /compact or /clear) they re-arm.
func contextMonitorHooks(cfg ContextMonitorConfig) ([]registration, error) {
	if cfg.WarnAt < 0 || cfg.WarnAt > 1 || cfg.CompactAt < 0 || cfg.CompactAt > 1 {
		return nil, fmt.Errorf("warnAt and compactAt are shares of the window, between 0 and 1")
	}
	if cfg.WarnAt == 0 && cfg.CompactAt == 0 {
		return nil, nil
	}
	rearm := cfg.WarnAt // below the lower threshold both fire again
	if rearm == 0 || cfg.CompactAt > 0 && cfg.CompactAt < rearm {
		rearm = cfg.CompactAt
	}
	var state sessions[monitorState]
	run := func(in *hooks.Input) (hooks.Decision, error) {
		if in.AgentID != "" || in.Response == nil || in.ContextWindow <= 0 {
			return hooks.Decision{}, nil // a subagent's context is its own
		}
		used := in.Response.Usage.ContextTokens()
		share := float64(used) / float64(in.ContextWindow)
		var d hooks.Decision
		state.with(in.SessionID, func(st *monitorState) {
			if share < rearm {
				*st = monitorState{}
				return
			}
			compact := cfg.CompactAt > 0 && share >= cfg.CompactAt && !st.compactRequested
			warn := cfg.WarnAt > 0 && share >= cfg.WarnAt && !st.warned
			if !compact && !warn {
				return
			}
			st.warned = st.warned || warn || compact
			msg := fmt.Sprintf("[cordis: the conversation fills %.0f%% of the model's context window (%s of %s tokens).", share*100, thousands(used), thousands(in.ContextWindow))
			if compact {
				st.compactRequested = true
				d.Compact = true
				msg += fmt.Sprintf(" It is past the %.0f%% compaction threshold, so cordis compacts the conversation when this turn ends (or run /compact now).]", cfg.CompactAt*100)
			} else {
				msg += " Consider /compact before it fills up.]"
			}
			d.SystemMessages = []string{"\n\n" + msg}
		})
		return d, nil
	}
	return []registration{{event: hooks.LLMResponse, priority: 10, run: run}, state.dropOnEnd()}, nil
}
