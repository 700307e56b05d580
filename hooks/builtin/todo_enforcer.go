package builtin

import (
	"encoding/json"
	"fmt"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
)

// TodoEnforcerConfig configures todo-enforcer.
type TodoEnforcerConfig struct {
	RemindersPerTurn int `yaml:"remindersPerTurn,omitempty" json:"remindersPerTurn,omitempty" jsonschema:"minimum=0,description=How many times in one turn a stop is refused while TodoWrite items are pending or in progress (1: once; the agent's maxStopBlocks still caps it); 0: todo-enforcer is off"`
}

type todoItem struct {
	Content string `json:"content"`
	Status  string `json:"status"`
}

type todoState struct {
	// lists holds the latest TodoWrite list per agent ("" the main agent).
	lists map[string][]todoItem
	// refused counts refusals per agent in refusedTurn.
	refusedTurn string
	refused     map[string]int
}

// todoEnforcerHooks remember each agent's TodoWrite list (PostToolUse) and
// refuse a Stop / SubagentStop while items are pending or in progress, at
// most RemindersPerTurn times per turn, with a reminder listing them.
func todoEnforcerHooks(cfg TodoEnforcerConfig) ([]registration, error) {
	if cfg.RemindersPerTurn < 0 {
		return nil, fmt.Errorf("remindersPerTurn must not be negative")
	}
	if cfg.RemindersPerTurn == 0 {
		return nil, nil
	}
	var state sessions[todoState]
	track := func(in *hooks.Input) (hooks.Decision, error) {
		if in.ToolName != "TodoWrite" {
			return hooks.Decision{}, nil
		}
		var input struct {
			Todos []todoItem `json:"todos"`
		}
		if err := json.Unmarshal(in.ToolInput, &input); err != nil {
			return hooks.Decision{}, fmt.Errorf("reading the TodoWrite input: %w", err)
		}
		state.with(in.SessionID, func(st *todoState) {
			if st.lists == nil {
				st.lists = map[string][]todoItem{}
			}
			st.lists[in.AgentID] = input.Todos
		})
		return hooks.Decision{}, nil
	}
	stop := func(in *hooks.Input) (hooks.Decision, error) {
		var open []todoItem
		state.with(in.SessionID, func(st *todoState) {
			for _, it := range st.lists[in.AgentID] {
				if it.Status == "pending" || it.Status == "in_progress" {
					open = append(open, it)
				}
			}
			if len(open) == 0 {
				return
			}
			if st.refusedTurn != in.TurnID {
				st.refusedTurn, st.refused = in.TurnID, map[string]int{}
			}
			if st.refused[in.AgentID] >= cfg.RemindersPerTurn {
				open = nil
				return
			}
			st.refused[in.AgentID]++
		})
		if len(open) == 0 {
			return hooks.Decision{}, nil
		}
		var b strings.Builder
		fmt.Fprintf(&b, "You are stopping with %d todo item(s) not completed:\n", len(open))
		for _, it := range open {
			fmt.Fprintf(&b, "- [%s] %s\n", it.Status, it.Content)
		}
		b.WriteString("Continue with them, or update the list with TodoWrite (mark finished items completed and remove the ones that no longer apply) before you stop.")
		return hooks.Decision{Block: true, Reason: b.String()}, nil
	}
	return []registration{
		{event: hooks.PostToolUse, priority: 40, run: track},
		{event: hooks.Stop, priority: 10, run: stop},
		{event: hooks.SubagentStop, priority: 10, run: stop},
		state.dropOnEnd(),
	}, nil
}
