package permrules

import (
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"testing"
)

// Claude Code renamed Task to Agent and accepts both names in rules.
func TestAgentAndTaskRulesMatchEitherName(t *testing.T) {
	input, _ := json.Marshal(map[string]string{"subagent_type": "Explore", "prompt": "p", "description": "d"})
	for _, rule := range []string{"Agent(Explore)", "Task(Explore)", "Agent", "Task"} {
		r, err := Parse(rule, "")
		if err != nil {
			t.Fatal(err)
		}
		for _, tool := range []string{"Agent", "Task"} {
			if _, ok := (Matcher{}).Restricts([]Rule{r}, NewCall(tool, input, "/")); !ok {
				t.Errorf("%s does not match a %s call", rule, tool)
			}
		}
	}
	r, _ := Parse("Agent(Plan)", "")
	if _, ok := (Matcher{}).Restricts([]Rule{r}, NewCall("Agent", input, "/")); ok {
		t.Error("Agent(Plan) matches an Explore subagent")
	}
}

func TestSplitRules(t *testing.T) {
	got := SplitRules("Bash(git add:*), Bash(git status:*) Read\tGrep")
	if want := []string{"Bash(git add:*)", "Bash(git status:*)", "Read", "Grep"}; !slices.Equal(got, want) {
		t.Errorf("SplitRules = %q, want %q", got, want)
	}
}

// Discover lists a project command's and skill's allowed-tools for trust.
func TestDiscoverListsAllowedTools(t *testing.T) {
	dir := t.TempDir()
	for rel, body := range map[string]string{
		".claude/commands/commit.md":  "---\nallowed-tools: Bash(git commit:*)\n---\nCommit.\n",
		".claude/skills/pdf/SKILL.md": "---\nallowed-tools:\n  - Read\n  - Bash(python3:*)\n---\nPDF.\n",
		".claude/commands/plain.md":   "No frontmatter.\n",
	} {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		os.WriteFile(p, []byte(body), 0o644)
	}
	var got []string
	for _, d := range testFiles.Discover(dir) {
		for _, h := range d.Hooks {
			rel, _ := filepath.Rel(dir, d.Path)
			got = append(got, rel+" "+h.Command)
		}
	}
	want := []string{".claude/commands/commit.md#allowed-tools Bash(git commit:*)", ".claude/skills/pdf/SKILL.md#allowed-tools Read", ".claude/skills/pdf/SKILL.md#allowed-tools Bash(python3:*)"}
	if !slices.Equal(got, want) {
		t.Errorf("Discover = %q, want %q", got, want)
	}
}
