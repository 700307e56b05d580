package toolids

import (
	"regexp"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

var nineAlnum = regexp.MustCompile(`^[a-zA-Z0-9]{9}$`)

// mistralRule is the strictest rule a backend has: nine letters or digits.
var mistralRule = Rule{
	Valid: nineAlnum.MatchString,
	Fresh: func(old string, n, attempt int) string { return Digest(Alphanumeric, 9, old, n, attempt) },
}

func use(id string) llm.Block { return llm.Block{Type: llm.BlockToolUse, ID: id, Name: "Bash"} }
func result(id string) llm.Block {
	return llm.Block{Type: llm.BlockToolResult, ToolUseID: id, Content: []llm.Block{llm.Text("ok")}}
}

// history is a session that began on Anthropic, went to a local server
// that reused an id and left one empty, then to Mistral.
func history() []llm.Message {
	return []llm.Message{
		{Role: llm.RoleUser, Content: []llm.Block{llm.Text("go")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use("toolu_01ABC"), use("toolu_02DEF")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("toolu_01ABC"), result("toolu_02DEF")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use("functions.Bash:0")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("functions.Bash:0")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use("functions.Bash:0"), use("")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("functions.Bash:0"), result(""), llm.Text("and then?")}},
		{Role: llm.RoleAssistant, Content: []llm.Block{use("aB3dE6gH9")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("aB3dE6gH9")}},
	}
}

func TestRewritePairsResultsAndKeepsValidIDs(t *testing.T) {
	in := history()
	out := Rewrite(in, mistralRule)
	seen := map[string]bool{}
	for i, m := range out {
		if m.Role != llm.RoleAssistant {
			continue
		}
		var ids []string
		for _, b := range m.Content {
			if !nineAlnum.MatchString(b.ID) {
				t.Errorf("message %d: id %q is not nine letters or digits", i, b.ID)
			}
			if seen[b.ID] {
				t.Errorf("message %d: id %q used twice", i, b.ID)
			}
			seen[b.ID] = true
			ids = append(ids, b.ID)
		}
		var answered []string
		for _, b := range out[i+1].Content {
			if b.Type == llm.BlockToolResult {
				answered = append(answered, b.ToolUseID)
			}
		}
		if len(ids) != len(answered) {
			t.Fatalf("message %d: calls %v, results %v", i, ids, answered)
		}
		for k := range ids {
			if ids[k] != answered[k] {
				t.Errorf("message %d: call %q answered by %q", i, ids[k], answered[k])
			}
		}
	}
	if got := out[7].Content[0].ID; got != "aB3dE6gH9" {
		t.Errorf("a valid unique id was renamed to %q", got)
	}
	if in[1].Content[0].ID != "toolu_01ABC" || in[6].Content[0].ToolUseID != "functions.Bash:0" {
		t.Error("Rewrite modified its argument")
	}
	if again := Rewrite(history(), mistralRule); again[3].Content[0].ID != out[3].Content[0].ID {
		t.Error("the same history got different ids: the prompt cache would miss")
	}
}

func TestRewriteReturnsValidHistoryUnchanged(t *testing.T) {
	in := []llm.Message{
		{Role: llm.RoleAssistant, Content: []llm.Block{use("aB3dE6gH9")}},
		{Role: llm.RoleUser, Content: []llm.Block{result("aB3dE6gH9")}},
	}
	if out := Rewrite(in, mistralRule); &out[0] != &in[0] {
		t.Error("a history with nothing to rename was copied")
	}
}

func TestSanitize(t *testing.T) {
	if got := Sanitize("functions.Bash:0", 0); got != "functions_Bash_0" {
		t.Errorf("Sanitize = %q", got)
	}
	if got := Sanitize("call_0123456789", 8); got != "call_012" {
		t.Errorf("Sanitize cut = %q", got)
	}
	if IsWordOrDash("", 0) || IsWordOrDash("a.b", 0) || IsWordOrDash("abc", 2) || !IsWordOrDash("toolu_01-x", 40) {
		t.Error("IsWordOrDash")
	}
}
