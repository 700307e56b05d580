package builtin

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/hooks/permrules"
	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/internal/setup"
)

func writeSettings(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// claudeSettings are the settings files cmd/cordis gives the hook: Claude
// Code's, the user's in userDir ($CLAUDE_CONFIG_DIR; "": none).
func claudeSettings(userDir string) []setup.Source {
	return claudecode.Locate("", func(string) string { return userDir }).Settings
}

// A repository can ship .claude/settings.local.json: its deny and ask rules
// apply (they only restrict), its allow rules only once trusted, and a
// skipped rule is reported once per session. The user's own settings.json
// needs no trust.
func TestPermissionRulesFromClaudeSettings(t *testing.T) {
	project, claudeDir := t.TempDir(), t.TempDir()
	local := filepath.Join(project, ".claude", "settings.local.json")
	writeSettings(t, local, `{"permissions": {"allow": ["Bash(touch:*)"], "deny": ["Bash(rm:*)"], "ask": ["Bash(git push:*)"]}}`)
	writeSettings(t, filepath.Join(project, ".claude", "settings.json"), `{"permissions": {"deny": ["Edit(/secrets/**)"], "allow": ["Edit(/**)"]}}`)
	writeSettings(t, filepath.Join(claudeDir, "settings.json"), `{"permissions": {"allow": ["Bash(make:*)"]}}`)
	trusted := map[string]bool{}
	p, _ := pipeline(t, DefaultConfig(), Options{Settings: claudeSettings(claudeDir), TrustedRule: func(path, rule string) bool {
		return trusted[path+" "+rule]
	}})
	decide := func(session, tool, input string) hooks.Decision {
		return p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, SessionID: session, Cwd: project, ToolName: tool, ToolInput: []byte(input)})
	}

	d := decide("s1", "Bash", `{"command":"touch planted.txt"}`)
	if d.Permission != hooks.NoOpinion {
		t.Errorf("an untrusted project allow rule decided: %q (%s)", d.Permission, d.Reason)
	}
	if len(d.SystemMessages) != 2 || !strings.Contains(strings.Join(d.SystemMessages, "\n"), "Bash(touch:*)") ||
		!strings.Contains(strings.Join(d.SystemMessages, "\n"), "cordis hooks trust --cwd "+project) {
		t.Errorf("the skipped allow rules were not reported: %q", d.SystemMessages)
	}
	if d := decide("s1", "Bash", `{"command":"touch again.txt"}`); len(d.SystemMessages) != 0 {
		t.Errorf("reported twice in one session: %q", d.SystemMessages)
	}
	if d := decide("s2", "Bash", `{"command":"ls"}`); len(d.SystemMessages) != 2 {
		t.Errorf("another session was not told: %q", d.SystemMessages)
	}
	for _, tt := range []struct {
		tool, input string
		want        hooks.Permission
	}{
		{"Bash", `{"command":"rm -rf build"}`, hooks.Deny},
		{"Bash", `{"command":"git push origin main"}`, hooks.Ask},
		{"Write", `{"file_path":"` + project + `/secrets/key"}`, hooks.Deny},
		{"Write", `{"file_path":"` + project + `/src/a.go"}`, hooks.NoOpinion},
		{"Bash", `{"command":"make build"}`, hooks.Allow}, // the user's own rule
	} {
		if d := decide("s1", tt.tool, tt.input); d.Permission != tt.want {
			t.Errorf("%s %s: %q (%s), want %q", tt.tool, tt.input, d.Permission, d.Reason, tt.want)
		}
	}

	// Once trusted, the allow rule applies; a deny still beats it.
	trusted[local+" Bash(touch:*)"] = true
	if d := decide("s1", "Bash", `{"command":"touch planted.txt"}`); d.Permission != hooks.Allow {
		t.Errorf("a trusted allow rule: %q (%s)", d.Permission, d.Reason)
	}
	if d := decide("s1", "Bash", `{"command":"touch x && rm -rf /"}`); d.Permission != hooks.Deny {
		t.Errorf("deny did not win over a trusted allow: %q", d.Permission)
	}

	// A file that stops parsing stops its rules, and says so.
	writeSettings(t, local, `{"permissions": {"deny": ["Bash(rm:*)"],}}`)
	d = decide("s1", "Bash", `{"command":"rm -rf build"}`)
	if d.Permission == hooks.Deny || len(d.SystemMessages) != 1 || !strings.Contains(d.SystemMessages[0], "could not read the permission rules of "+local) {
		t.Errorf("broken file: %q, %q", d.Permission, d.SystemMessages)
	}
}

// Without a trust check (cordis.yml or tests that give none) no project
// allow rule applies.
func TestProjectAllowRulesNeedATrustCheck(t *testing.T) {
	project := t.TempDir()
	writeSettings(t, filepath.Join(project, ".claude", "settings.local.json"), `{"permissions": {"allow": ["Bash"]}}`)
	p, _ := pipeline(t, DefaultConfig(), Options{Settings: claudeSettings("")})
	d := p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, SessionID: "s", Cwd: project, ToolName: "Bash", ToolInput: []byte(`{"command":"touch x"}`)})
	if d.Permission != hooks.NoOpinion {
		t.Errorf("permission = %q (%s)", d.Permission, d.Reason)
	}
}

// Read-only Bash commands run without asking when no rule decided them,
// as in Claude Code: deny and ask rules still win, the switch turns it
// off, disabledHooks turns it off with the rules, and a managed policy
// that allows only its own rules leaves it on (it is not a rule).
func TestReadOnlyCommands(t *testing.T) {
	cwd := t.TempDir()
	run := func(cfg *Config, opts Options, cmd string) hooks.Decision {
		p, _ := pipeline(t, cfg, opts)
		return p.Run(context.Background(), &hooks.Input{Event: hooks.PreToolUse, SessionID: "s", Cwd: cwd, Directories: []string{cwd}, ToolName: "Bash", ToolInput: bash(cmd)})
	}
	def := DefaultConfig()
	for cmd, want := range map[string]hooks.Permission{
		"git status":         hooks.Allow,
		"ls -la | head":      hooks.Allow,
		"git diff > out.txt": hooks.NoOpinion,
		"git commit -m x":    hooks.NoOpinion,
		"cat /etc/passwd":    hooks.NoOpinion,
	} {
		if d := run(def, Options{}, cmd); d.Permission != want {
			t.Errorf("%s: permission %q (%s), want %q", cmd, d.Permission, d.Reason, want)
		}
	}

	rules := DefaultConfig()
	rules.PermissionRules = PermissionRulesConfig{Deny: []string{"Bash(cat:*)"}, Ask: []string{"Bash(git log:*)"}}
	if d := run(rules, Options{}, "cat a.txt"); d.Permission != hooks.Deny {
		t.Errorf("a deny rule lost to the read-only allowance: %q", d.Permission)
	}
	if d := run(rules, Options{}, "git log -1"); d.Permission != hooks.Ask {
		t.Errorf("an ask rule lost to the read-only allowance: %q", d.Permission)
	}

	off := DefaultConfig()
	no := false
	off.PermissionRules.ReadOnlyCommands = &no
	if d := run(off, Options{}, "git status"); d.Permission != hooks.NoOpinion {
		t.Errorf("readOnlyCommands: false still allowed: %q", d.Permission)
	}

	disabled := DefaultConfig()
	disabled.DisabledHooks = []string{PermissionRules}
	policy := t.TempDir()
	writeSettings(t, filepath.Join(policy, "managed-settings.json"), `{"permissions": {"deny": ["Bash(rm:*)"]}}`)
	if d := run(disabled, Options{Managed: permrules.NewManagedSource(policy)}, "git status"); d.Permission != hooks.NoOpinion {
		t.Errorf("the disabled hook still allowed: %q", d.Permission)
	}

	only := t.TempDir()
	writeSettings(t, filepath.Join(only, "managed-settings.json"), `{"allowManagedPermissionRulesOnly": true, "permissions": {"deny": ["Bash(rm:*)"]}}`)
	if d := run(def, Options{Managed: permrules.NewManagedSource(only)}, "git status"); d.Permission != hooks.Allow || !strings.Contains(strings.Join(d.SystemMessages, "\n"), "allow only their own permission rules") {
		t.Errorf("allowManagedPermissionRulesOnly switched the read-only allowance off: %q (%s) %q", d.Permission, d.Reason, d.SystemMessages)
	}
}
