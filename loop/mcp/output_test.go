package mcp

import (
	"strings"
	"testing"
	"unicode/utf8"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"github.com/cordis-agent/cordis/loop/tools"
)

// capResult cuts the joined text of a result's blocks at the cap (bytes/4
// tokens), never inside a character, and says what was cut; a result at
// the cap is left alone, and the default applies when none is set.
func TestCapResult(t *testing.T) {
	blocks := []sdk.Content{&sdk.TextContent{Text: strings.Repeat("a", 30)}, &sdk.TextContent{Text: strings.Repeat("é", 30)}}
	r := capResult("mcp__s__t", resultOf(blocks, nil, false), 10)
	body, note, ok := strings.Cut(r.Text, "\n\n[cordis:")
	if !ok || !strings.Contains(note, "mcp__s__t was cut at 10 tokens of about 23") || !strings.Contains(note, "narrower") {
		t.Fatalf("note = %q", note)
	}
	if len(body) != 39 || !strings.HasPrefix(body, strings.Repeat("a", 30)+"\n") {
		t.Errorf("body = %q (%d bytes), want the first 39 bytes (40 would split an é)", body, len(body))
	}

	// The cut falls inside an é: it moves back to the character's start.
	r = capResult("x", tools.Result{Text: "ab" + strings.Repeat("é", 10)}, 1)
	body, _, _ = strings.Cut(r.Text, "\n\n[cordis:")
	if body != "abé" || !utf8.ValidString(r.Text) {
		t.Errorf("body = %q, want %q", body, "abé")
	}

	exact := tools.Result{Text: strings.Repeat("x", 40)}
	if got := capResult("x", exact, 10); got.Text != exact.Text {
		t.Errorf("a result at the cap changed: %q", got.Text)
	}
	big := tools.Result{Text: strings.Repeat("x", DefaultMaxOutputTokens*4+1)}
	if got := capResult("x", big, 0); !strings.Contains(got.Text, "cut at 25000 tokens") {
		t.Errorf("the default cap did not apply: ends %q", got.Text[len(got.Text)-200:])
	}
}
