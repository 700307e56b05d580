package loop

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop/commands"
)

func cmdStatus(ctx context.Context, s *Session, _ string) commands.Intent {
	s.mu.Lock()
	defer s.mu.Unlock()
	var b strings.Builder
	fmt.Fprintf(&b, "Session %s\n- cwd: %s\n- model: %s\n- mode: %s\n- turns: %d\n- messages in context: %d\n", s.id, s.cwd, s.model, s.mode, s.turnSeq, len(s.history))
	_, used := s.usage.read()
	fmt.Fprintf(&b, "- context: %d of %d tokens\n", used, s.agent.modelInfo(s.model).ContextWindow)
	for _, line := range s.background.Status() {
		b.WriteString("- background task " + line + "\n")
	}
	if s.agent.cfg.Status != nil {
		for _, line := range s.agent.cfg.Status(s.id) {
			b.WriteString(line + "\n")
		}
	}
	return commands.ShowText{Text: strings.TrimRight(b.String(), "\n")}
}

func cmdDoctor(ctx context.Context, s *Session, _ string) commands.Intent {
	var lines []string
	ok := func(format string, args ...any) { lines = append(lines, "✓ "+fmt.Sprintf(format, args...)) }
	bad := func(format string, args ...any) { lines = append(lines, "✗ "+fmt.Sprintf(format, args...)) }
	if err := s.agent.authError(); err != nil {
		bad("model provider %s: %v", s.agent.cfg.Provider.Name(), errorMessage(err))
	} else {
		ok("model provider %s has credentials (model %s)", s.agent.cfg.Provider.Name(), s.agent.cfg.Model)
	}
	probe := filepath.Join(s.agent.cfg.StateDir, ".doctor-probe")
	if err := os.WriteFile(probe, nil, 0o600); err != nil {
		bad("state directory %s is not writable: %v", s.agent.cfg.StateDir, err)
	} else {
		os.Remove(probe)
		ok("state directory %s", s.agent.cfg.StateDir)
	}
	set := s.agent.commands.Load(s.cwd)
	ok("%d slash commands", len(set.Commands()))
	for _, e := range set.Errors {
		bad("command file %s", e.String())
	}
	for _, w := range set.Warnings {
		bad("commands: %s", w)
	}
	lines = append(lines, s.mcpDoctor()...)
	if s.agent.cfg.Doctor != nil {
		lines = append(lines, s.agent.cfg.Doctor(s.cwd)...)
	}
	return commands.ShowText{Text: "cordis doctor\n" + strings.Join(lines, "\n")}
}

// hookAdmin is the part of the hook pipeline /hooks drives; hooks.Pipeline
// implements it.
type hookAdmin interface {
	List() []hooks.HookInfo
	Enable(name string) bool
	Disable(name string) bool
}

func cmdHooks(ctx context.Context, s *Session, args string) commands.Intent {
	admin, ok := s.agent.cfg.Hooks.(hookAdmin)
	if !ok {
		return commands.ShowText{Text: "No hook pipeline is configured."}
	}
	fields := strings.Fields(args)
	if len(fields) == 2 && (fields[0] == "enable" || fields[0] == "disable") {
		// Enabling or disabling is process-wide, like the pipeline it
		// changes; it lasts until cordis restarts. An administrator's
		// policy (managed settings) may forbid it.
		if r, ok := admin.(interface{ Refusal(string, bool) string }); ok {
			if why := r.Refusal(fields[1], fields[0] == "enable"); why != "" {
				return commands.ShowError{Message: fmt.Sprintf("Hook %s cannot be %sd: %s", fields[1], fields[0], why)}
			}
		}
		found := false
		if fields[0] == "enable" {
			found = admin.Enable(fields[1])
		} else {
			found = admin.Disable(fields[1])
		}
		if !found {
			return commands.ShowError{Message: fmt.Sprintf("No hook named %q. Type /hooks to list them.", fields[1])}
		}
		s.record(hookToggleEvent{Name: "hooks", Action: fields[0], Hook: fields[1]})
		return commands.ShowText{Text: fmt.Sprintf("Hook %s %sd (until cordis restarts).", fields[1], fields[0])}
	}
	if len(fields) != 0 {
		return commands.ShowError{Message: "Usage: /hooks [enable|disable NAME]"}
	}
	list := admin.List()
	if len(list) == 0 {
		return commands.ShowText{Text: "No hooks are registered."}
	}
	var b strings.Builder
	b.WriteString("Hooks by seam (lower priority runs first):\n")
	var last hooks.Event
	for _, h := range list {
		if h.Event != last {
			fmt.Fprintf(&b, "%s\n", h.Event)
			last = h.Event
		}
		state := "on"
		if !h.Enabled {
			state = "off"
		}
		fmt.Fprintf(&b, "  - %s (priority %d, %s)\n", h.Name, h.Priority, state)
	}
	return commands.ShowText{Text: strings.TrimRight(b.String(), "\n")}
}

func cmdBudget(ctx context.Context, s *Session, _ string) commands.Intent {
	t, _ := s.usage.read()
	cost := "unknown (a model without a known price answered)"
	if t.CostKnown || t.Requests == 0 {
		cost = fmt.Sprintf("$%.4f", t.CostUSD)
	}
	text := fmt.Sprintf("This session: %d model requests, %d tokens, cost %s.\nLimits are set by budgetCheck (maxTokens, maxCostUSD) in the hooks/builtin entry of cordis.yml.", t.Requests, t.Tokens, cost)
	return commands.ShowText{Text: text}
}
