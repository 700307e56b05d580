package loop

import (
	"cmp"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/loop/tools"
)

func agentTypes(defs []commands.AgentDef) []tools.AgentType {
	out := make([]tools.AgentType, len(defs))
	for i, d := range defs {
		out[i] = tools.AgentType{Name: d.Name, Description: d.Description, Tools: d.Tools}
	}
	return out
}

// subagentKind is what a subagent type gives the child: its system
// prompt, its tools and its model ("" inherits the session's).
type subagentKind struct {
	prompt string
	def    *commands.AgentDef // nil for general-purpose
	model  string
}

// subagentKindOf routes the Agent tool's subagent_type: a custom
// subagent of the session's (its agent folders) by name; anything else,
// general-purpose included, is cordis's own subagent (an unknown name is
// not refused, as cordis has always run it; hooks still see the name).
func (s *Session) subagentKindOf(name string) subagentKind {
	defs := s.agent.commands.Load(s.cwd).Agents
	for i := range defs {
		if d := &defs[i]; d.Name == name {
			return subagentKind{prompt: cmp.Or(d.Prompt, subagentPrompt), def: d, model: s.subagentModel(d.Model)}
		}
	}
	return subagentKind{prompt: subagentPrompt}
}

// tools narrows a subagent's tools to its definition's: the listed ones
// only when it lists any, minus its disallowed ones.
func (k subagentKind) tools(all []tools.Tool) []tools.Tool {
	if k.def == nil {
		return all
	}
	var out []tools.Tool
	for _, t := range all {
		if k.def.Tools != nil && !slices.Contains(k.def.Tools, t.Name()) {
			continue
		}
		if slices.Contains(k.def.DisallowedTools, t.Name()) {
			continue
		}
		out = append(out, t)
	}
	return out
}

// subagentModel resolves a subagent's model field: inherit (or none)
// keeps the session's; an alias (sonnet, opus, haiku) picks the first
// offered model whose name has it, else inherits; anything else is a
// model id, used as given.
func (s *Session) subagentModel(model string) string {
	switch model {
	case "", "inherit":
		return ""
	case "sonnet", "opus", "haiku", "fable":
		for _, m := range s.agent.cfg.Models {
			if strings.Contains(m, model) {
				return m
			}
		}
		return ""
	}
	return model
}
