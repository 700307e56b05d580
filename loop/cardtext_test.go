package loop

import (
	"encoding/json"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// fencedEncoded's encoding is what json.Marshal writes for the fenced
// text, so a replayed card's frame is the live card's, byte for byte.
func TestFencedEncodedMatchesMarshal(t *testing.T) {
	for _, text := range []string{
		"     1\tpackage main",
		"a <b> & \"c\"\n\ttab\\ ``` inner fence ````",
		"unicode \u2028 ünï",
	} {
		encoded, _ := json.Marshal(text)
		fenced, got := fencedEncoded(text, string(encoded))
		want, _ := json.Marshal(fenced)
		if got != string(want) {
			t.Errorf("fencedEncoded(%q) = %s, want %s", text, got, want)
		}
	}
}

func TestMarkdownTitle(t *testing.T) {
	for _, c := range []struct {
		kind     acp.ToolKind
		in, want string
	}{
		{acp.ToolKindRead, "Read pkg/__init__.py (lines 1-5)", "Read `pkg/__init__.py (lines 1-5)`"},
		{acp.ToolKindRead, "Read main.go", "Read main.go"},
		{acp.ToolKindSearch, `Grep "a\*b" in src (*.go)`, "Grep `\"a\\*b\" in src (*.go)`"},
		{acp.ToolKindSearch, "Grep \"`x`\"", "Grep ``\"`x`\"``"},
		{acp.ToolKindEdit, "Edit pkg/__init__.py", "Edit pkg/__init__.py"},
		{acp.ToolKindExecute, "ls *_test.go", "ls *_test.go"},
	} {
		if got := markdownTitle(c.kind, c.in); got != c.want {
			t.Errorf("markdownTitle(%s, %q) = %q, want %q", c.kind, c.in, got, c.want)
		}
	}
	if got := inlineCode("`a"); got != "`` `a ``" {
		t.Errorf("inlineCode(`a) = %q", got)
	}
}
