package e2e_test

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/bridge/claude"
	"github.com/cordis-agent/cordis/hooks"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/google/go-cmp/cmp"
)

// PreToolUse matchers written for Claude Code's tools fire on cordis's
// tools of the same names, and the hook reads Claude Code's tool_input
// shape. Each hook saves its input and blocks the call (exit 2), so the
// result also proves the tool did not run.
func TestClaudeHookMatchersFireOnTheNewTools(t *testing.T) {
	dir := t.TempDir()
	calls := []struct {
		matcher, tool string
		input         map[string]any
	}{
		{"WebFetch", "WebFetch", map[string]any{"url": "https://example.com/docs", "prompt": "How to install?"}},
		{"NotebookEdit", "NotebookEdit", map[string]any{"notebook_path": "/p/a.ipynb", "cell_id": "c1", "new_source": "x = 1", "cell_type": "code", "edit_mode": "replace"}},
		{"Bash", "Bash", map[string]any{"command": "npm run dev", "run_in_background": true}},
		{"TaskOutput", "TaskOutput", map[string]any{"task_id": "bash_1", "block": false, "timeout": 1000}},
		{"TaskStop|KillShell", "TaskStop", map[string]any{"task_id": "bash_1"}},
		{"TaskStop|KillShell", "KillShell", map[string]any{"shell_id": "bash_1"}},
		{"AskUserQuestion", "AskUserQuestion", map[string]any{"questions": []any{map[string]any{
			"question": "Which?", "header": "Pick", "multiSelect": false,
			"options": []any{map[string]any{"label": "A", "description": "a"}, map[string]any{"label": "B", "description": "b"}}}}}},
	}
	var entries []any
	seen := map[string]bool{}
	for _, c := range calls {
		if seen[c.matcher] {
			continue
		}
		seen[c.matcher] = true
		entries = append(entries, map[string]any{"matcher": c.matcher, "hooks": []any{map[string]any{
			"type":    "command",
			"command": `cat > "$(mktemp "` + dir + `/input.XXXXXX")"; echo "blocked by the ` + c.matcher + ` hook" >&2; exit 2`,
		}}})
	}
	b, _ := json.Marshal(map[string]any{"hooks": map[string]any{"PreToolUse": entries}})
	path := filepath.Join(t.TempDir(), "settings.json")
	if err := os.WriteFile(path, b, 0o644); err != nil {
		t.Fatal(err)
	}
	p := hooks.NewPipeline()
	claude.New(claude.Config{Path: path}, claude.Options{Grace: 200 * time.Millisecond}).Register(p)

	var uses []looptest.Block
	for i, c := range calls {
		uses = append(uses, looptest.ToolUse("toolu_"+string(rune('a'+i)), c.tool, c.input))
	}
	h := looptest.NewHarness(t, looptest.Options{Hooks: p, Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", uses...), looptest.ReplyText("ok"))
	h.Prompt(h.NewSession(), "go")

	req := h.Model.Requests()[1]
	for i, c := range calls {
		text, isErr := looptest.ToolResult(t, req, "toolu_"+string(rune('a'+i)))
		if !isErr || !strings.Contains(text, "blocked by the "+c.matcher+" hook") {
			t.Errorf("%s: result %q (error %v), want the %s hook's block", c.tool, text, isErr, c.matcher)
		}
	}
	saved, _ := filepath.Glob(filepath.Join(dir, "input.*"))
	if len(saved) != len(calls) {
		t.Fatalf("the hooks ran %d times, want %d", len(saved), len(calls))
	}
	got := map[string]map[string]any{}
	for _, f := range saved {
		var in struct {
			ToolName  string         `json:"tool_name"`
			ToolInput map[string]any `json:"tool_input"`
		}
		data, _ := os.ReadFile(f)
		if err := json.Unmarshal(data, &in); err != nil {
			t.Fatalf("hook input %s: %v", data, err)
		}
		got[in.ToolName] = in.ToolInput
	}
	for _, c := range calls {
		want, _ := json.Marshal(c.input)
		var wantMap map[string]any
		_ = json.Unmarshal(want, &wantMap)
		if diff := cmp.Diff(wantMap, got[c.tool]); diff != "" {
			t.Errorf("%s tool_input (-want +got):\n%s", c.tool, diff)
		}
	}
}
