package loop

import (
	"context"
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/loop/tools"
)

// Claude Code's destinations of a permission update.
const (
	destSession       = "session"
	destLocalSettings = "localSettings"
)

// permissionSuggestions are what a PermissionRequest hook is told the user
// could grant, as Claude Code suggests it: the "Always allow" rule the
// editor is offered (kept in .claude/settings.local.json, or for the
// session when cordis saves no rules), and for an edit in default mode,
// switching to acceptEdits for the session. Empty when there is nothing
// to grant (no scope, plan mode, a policy that allows only its rules).
func permissionSuggestions(t tools.Tool, mode string, scope permrules.Scope, always, saves bool) []hooks.PermissionUpdate {
	out := []hooks.PermissionUpdate{}
	if always && scope.Rule != "" {
		dest := destSession
		if saves {
			dest = destLocalSettings
		}
		out = append(out, hooks.PermissionUpdate{Type: "addRules", Rules: []string{scope.Rule}, Behavior: "allow", Destination: dest})
	}
	switch t.Name() {
	case "Edit", "Write", "NotebookEdit":
		if mode == ModeDefault {
			out = append(out, hooks.PermissionUpdate{Type: "setMode", Mode: ModeAcceptEdits, Destination: destSession})
		}
	}
	return out
}

// grantPermissions applies the permission updates a PermissionRequest
// hook's allow carries (Claude Code's updatedPermissions): allow rules
// hold for the session, and are saved to the project's local settings
// file when the hook asks for a settings file and cordis saves rules
// (always false, under a policy that allows only its own rules: nothing
// is granted beyond the call); deny rules reject for the session; a
// setMode switches the session's mode as /mode would. Anything else is
// left out and the user told.
func (r *runner) grantPermissions(ctx context.Context, updates []hooks.PermissionUpdate, always, saves bool) {
	s := r.s
	var notes []string
	for _, u := range updates {
		switch {
		case u.Type == "addRules" && u.Behavior == "allow" && always:
			for _, rule := range u.Rules {
				s.answers.remember(rule, true)
				if u.Destination != destSession && saves {
					if err := s.agent.cfg.SavePermissionRule(s.cwd, rule); err != nil {
						notes = append(notes, "cordis could not save the rule "+rule+" a hook granted ("+err.Error()+"); it holds for this session only.")
					}
				}
			}
		case u.Type == "addRules" && u.Behavior == "deny":
			for _, rule := range u.Rules {
				s.answers.remember(rule, false)
			}
		case u.Type == "setMode" && u.Mode != "":
			if err := s.setMode(u.Mode); err != nil {
				notes = append(notes, "A PermissionRequest hook asked for mode "+u.Mode+": "+err.Error())
				continue
			}
			s.notify(ctx, acp.CurrentModeUpdate{CurrentModeID: u.Mode})
			s.notify(ctx, acp.ConfigOptionUpdate{ConfigOptions: s.configOptions()})
		default:
			what := u.Type
			if len(u.Rules) > 0 {
				what += " " + strings.Join(u.Rules, ", ")
			}
			notes = append(notes, "A PermissionRequest hook's permission update ("+what+") was not applied: cordis applies allow and deny rules and setMode.")
		}
	}
	if len(notes) > 0 {
		s.showSystemMessages(ctx, hooks.Decision{SystemMessages: notes})
	}
}
