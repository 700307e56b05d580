package commands

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/internal/setup"
)

// TestBundles: a plugin's commands, skills and subagents are named
// PLUGIN:NAME (subfolders add segments) and its variables are substituted
// in their text; a user command of the same name still wins, and an
// added plugin file is picked up without a restart.
func TestBundles(t *testing.T) {
	root := t.TempDir()
	write := func(rel, body string) {
		p := filepath.Join(root, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write("commands/hello.md", "---\ndescription: Hi\n---\nHello from ${CLAUDE_PLUGIN_ROOT}, $ARGUMENTS")
	write("commands/git/ship.md", "ship it")
	write("skills/check/SKILL.md", "---\ndescription: Checks\n---\nRun ${CLAUDE_PLUGIN_ROOT}/check.sh")
	write("agents/review/deep.md", "---\nname: deep\ndescription: Deep review\n---\nData in ${CLAUDE_PLUGIN_DATA}")
	user := t.TempDir()
	os.MkdirAll(filepath.Join(user, "kit"), 0o755)
	os.WriteFile(filepath.Join(user, "kit", "hello.md"), []byte("the user's own"), 0o644)

	b := setup.Bundle{Name: "kit", Root: root, Commands: []string{filepath.Join(root, "commands")}, Skills: []string{filepath.Join(root, "skills")},
		Agents: []string{filepath.Join(root, "agents")}, Vars: []string{"CLAUDE_PLUGIN_ROOT=" + root, "CLAUDE_PLUGIN_DATA=/data"}}
	r := NewRegistry(nil, Sources{Commands: []setup.Source{setup.User(user)}, Bundles: func(string) []setup.Bundle { return []setup.Bundle{b} }})
	cwd := t.TempDir()
	set := r.Load(cwd)
	if len(set.Errors) > 0 {
		t.Fatalf("errors: %v", set.Errors)
	}
	c, ok := set.Lookup("kit:git:ship")
	if !ok || SpecOf(c).Source != SourcePlugin {
		t.Fatalf("kit:git:ship = %v, %v", c, ok)
	}
	if c, _ := set.Lookup("kit:hello"); c.(*Prompt).Template != "the user's own" {
		t.Errorf("the user's kit/hello.md does not win: %q", c.(*Prompt).Template)
	}
	if len(set.Skills) != 1 || set.Skills[0].Name != "kit:check" || !strings.Contains(set.Skills[0].Body, root+"/check.sh") {
		t.Fatalf("skills = %+v", set.Skills)
	}
	if _, ok := set.Lookup("kit:check"); !ok {
		t.Error("the plugin's skill is not a command")
	}
	if len(set.Agents) != 1 || set.Agents[0].Name != "kit:review:deep" || set.Agents[0].Prompt != "Data in /data" {
		t.Fatalf("agents = %+v", set.Agents)
	}
	if roots := r.BundleRoots("x"); len(roots) != 1 || roots[0] != root {
		t.Errorf("roots = %q", roots)
	}
	write("commands/later.md", "later")
	if _, ok := r.Load(cwd).Lookup("kit:later"); !ok {
		t.Error("a new plugin command is not picked up")
	}
}
