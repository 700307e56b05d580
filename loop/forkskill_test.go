package loop_test

import (
	"encoding/json"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
)

// forkSetup lays out, as Claude Code keeps them, a custom subagent
// (checker: Read only) and a `context: fork` skill that runs in it on the
// haiku model.
func forkSetup(t *testing.T, cwd string) (skillDir string) {
	t.Helper()
	writeFile(t, filepath.Join(cwd, ".claude", "agents", "checker.md"), "---\nname: checker\ndescription: Checks code\ntools: Read\n---\nYou are the checker agent.\n")
	skillDir = filepath.Join(cwd, ".claude", "skills", "audit")
	writeFile(t, filepath.Join(skillDir, "SKILL.md"), "---\ndescription: Audits a file for problems.\ncontext: fork\nagent: checker\nmodel: haiku\n---\nAudit $ARGUMENTS and list its problems.\n")
	return skillDir
}

func withModels(c *loop.Config) { c.Models = []string{"claude-test", "claude-haiku-4-5"} }

// A `context: fork` skill the model invokes through the Skill tool runs in
// a subagent, as Claude Code runs it: the subagent is of the skill's agent
// type (its system prompt and tools) on the skill's model, its task is
// the skill's body with the arguments (not the conversation), its tool
// calls nest under the Skill call, and the Skill result is its report.
// Before, the body was loaded into the main conversation like any skill.
func TestForkedSkillRunsInASubagentThroughTheSkillTool(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()); withModels(c) }},
		looptest.ReplyText("noted"),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_skill", "Skill", map[string]any{"skill": "audit", "args": "main.go"})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_child", "Read", map[string]any{"file_path": "main.go"})),
		looptest.ReplyText("main.go: one unused import"),
		looptest.ReplyText("The audit found one unused import."))
	skillDir := forkSetup(t, h.Cwd)
	writeFile(t, filepath.Join(h.Cwd, "main.go"), "package main\n")
	sid := h.NewSession()
	h.Prompt(sid, "remember the word pelican")
	if stop := h.Prompt(sid, "audit main.go"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}

	reqs := h.Model.Requests()
	if len(reqs) != 5 {
		t.Fatalf("%d model requests, want 5 (main, main, child, child, main)", len(reqs))
	}
	child := reqs[2]
	body, _ := json.Marshal(child["messages"])
	system, _ := json.Marshal(child["system"])
	if !strings.Contains(string(system), "You are the checker agent.") {
		t.Errorf("the subagent is not the skill's agent type: %s", system)
	}
	if got := toolNames(child); !slices.Equal(got, []string{"Read"}) {
		t.Errorf("subagent tools = %v, want the checker's [Read]", got)
	}
	if child["model"] != "claude-haiku-4-5" {
		t.Errorf("subagent model = %v, want the skill's haiku", child["model"])
	}
	if task := "Base directory for this skill: " + skillDir + `\n\nAudit main.go and list its problems.`; !strings.Contains(string(body), task) {
		t.Errorf("the subagent's task is not the skill's body:\n%s", body)
	}
	if strings.Contains(string(body), "pelican") {
		t.Error("the forked skill saw the conversation")
	}
	text, isErr := looptest.ToolResult(t, reqs[4], "toolu_skill")
	if want := "Skill audit ran in a checker subagent, which reported:\n\nmain.go: one unused import"; isErr || text != want {
		t.Errorf("Skill result (error %v):\n%s\nwant:\n%s", isErr, text, want)
	}
	if reqs[4]["model"] != "claude-test" {
		t.Errorf("the main model after the fork = %v, want the session's", reqs[4]["model"])
	}
	calls, _ := callCards(h.Editor.Updates(sid), "toolu_child")
	if len(calls) != 1 || calls[0].Meta["parentToolCallId"] != "toolu_skill" {
		t.Errorf("the subagent's call is not nested under the Skill call: %s", jsonOf(calls))
	}
}

// A skill invoked from a subagent that may not nest another runs where it
// is (its conversation is already its own) instead of failing.
func TestForkedSkillLoadsInPlaceInADeepestSubagent(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()); withModels(c) }},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_task", "Agent", map[string]any{"description": "audit", "prompt": "Audit main.go"})),
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_skill", "Skill", map[string]any{"skill": "audit", "args": "main.go"})),
		looptest.ReplyText("no problems"),
		looptest.ReplyText("done"))
	forkSetup(t, h.Cwd)
	h.Prompt(h.NewSession(), "audit main.go")
	reqs := h.Model.Requests()
	if len(reqs) != 4 {
		t.Fatalf("%d model requests, want 4 (main, child, child, main)", len(reqs))
	}
	text, isErr := looptest.ToolResult(t, reqs[2], "toolu_skill")
	if isErr || !strings.HasPrefix(text, "Launching skill: audit") || !strings.Contains(text, "Audit main.go and list its problems.") {
		t.Errorf("Skill result in the subagent (error %v):\n%s", isErr, text)
	}
}

// A `context: fork` command's own model frontmatter is its subagent's:
// the subagent runs on it, and the main model's turn after the fork stays
// on the session's model. Before, the command's model went to the main
// turn and the subagent ran on the session's.
func TestForkedCommandRunsOnItsModel(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { withHome(c, t.TempDir()); withModels(c) }},
		looptest.ReplyText("two problems"),
		looptest.ReplyText("The review found two problems."))
	writeFile(t, filepath.Join(h.Cwd, ".claude", "commands", "review.md"), "---\ndescription: Review a file\ncontext: fork\nmodel: haiku\n---\nReview $ARGUMENTS.\n")
	h.Prompt(h.NewSession(), "/review main.go")
	reqs := h.Model.Requests()
	if len(reqs) != 2 {
		t.Fatalf("%d model requests, want 2 (subagent, main)", len(reqs))
	}
	if reqs[0]["model"] != "claude-haiku-4-5" || reqs[1]["model"] != "claude-test" {
		t.Errorf("models = %v (subagent), %v (main); want the command's haiku, then the session's", reqs[0]["model"], reqs[1]["model"])
	}
}
