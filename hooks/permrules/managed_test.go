package permrules

import (
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestReadManaged: managed-settings.json first, then managed-settings.d
// in name order (hidden and non-.json files ignored); lists concatenated
// without duplicates, a later scalar replaces, a broken file is a problem
// and left out; the lock-down keys are read.
func TestReadManaged(t *testing.T) {
	dir := t.TempDir()
	write := func(rel, content string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(content), 0o644)
	}
	write("managed-settings.json", `{"permissions": {"deny": ["Bash(rm:*)"], "defaultMode": "acceptEdits"}}`)
	write("managed-settings.d/20-b.json", `{"allowManagedHooksOnly": true, "permissions": {"deny": ["Bash(curl:*)", "Bash(rm:*)"], "defaultMode": "plan"}}`)
	write("managed-settings.d/10-a.json", `{"permissions": {"ask": ["Bash(git push:*)"], "disableBypassPermissionsMode": "disable"}, "allowManagedPermissionRulesOnly": true}`)
	write("managed-settings.d/.hidden.json", `{"permissions": {"deny": ["Read"]}}`)
	write("managed-settings.d/notes.txt", `{"permissions": {"deny": ["Edit"]}}`)
	write("managed-settings.d/30-broken.json", `{"permissions": `)

	m := ReadManaged(dir)
	if want := []string{"managed-settings.json", "10-a.json", "20-b.json"}; len(m.Files) != 3 || !strings.HasSuffix(m.Files[1], want[1]) || !strings.HasSuffix(m.Files[2], want[2]) {
		t.Fatalf("files = %q", m.Files)
	}
	if !slices.Equal(m.Permissions.Deny, []string{"Bash(rm:*)", "Bash(curl:*)"}) || !slices.Equal(m.Permissions.Ask, []string{"Bash(git push:*)"}) {
		t.Errorf("rules = %+v", m.Permissions)
	}
	if m.Permissions.DefaultMode != "plan" || !m.BypassDisabled() || !m.RulesOnly || !m.HooksOnly || m.DisableAllHooks {
		t.Errorf("merged = %+v", m)
	}
	if len(m.Problems) != 1 || !strings.Contains(m.Problems[0], "30-broken.json") {
		t.Errorf("problems = %q", m.Problems)
	}
	if none := ReadManaged(t.TempDir()); none.Active() || none.HasRules() {
		t.Errorf("an empty folder is a policy: %+v", none)
	}
}

// TestResolveMode: the policy's mode over cordis.yml's over a project's
// (only when no more permissive than the user's) over the user's; a
// forbidden bypassPermissions becomes default.
func TestResolveMode(t *testing.T) {
	set := func(managed, project, user string) SessionSettings {
		return SessionSettings{ManagedMode: Setting{managed, "m"}, ProjectMode: Setting{project, "p"}, UserMode: Setting{user, "u"}}
	}
	for _, c := range []struct {
		configured string
		s          SessionSettings
		want       string
	}{
		{"", SessionSettings{}, "default"},
		{"", set("", "", "acceptEdits"), "acceptEdits"},
		{"", set("", "bypassPermissions", "acceptEdits"), "acceptEdits"},
		{"", set("", "plan", "acceptEdits"), "plan"},
		{"acceptEdits", set("", "plan", ""), "acceptEdits"},
		{"acceptEdits", set("plan", "", ""), "plan"},
		{"bypassPermissions", SessionSettings{BypassDisabledBy: "policy"}, "default"},
	} {
		if got, _, _ := ResolveMode(c.configured, c.s); got != c.want {
			t.Errorf("ResolveMode(%q, %+v) = %s, want %s", c.configured, c.s, got, c.want)
		}
	}
	if n, ok := ModeName("manual"); n != "default" || !ok {
		t.Errorf("manual = %s %v", n, ok)
	}
	if _, ok := ModeName("auto"); ok {
		t.Error("auto is a mode cordis has")
	}
}
