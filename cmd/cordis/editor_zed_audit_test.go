package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// The tests here check cordis's frames against what Zed's own rendering
// code does with them (acp_thread and agent_ui), beyond the numbered items
// of issue 20 in editor_zed_test.go.

// lastCardText is the text of the last content block sent for call id.
func lastCardText(t *testing.T, updates []acp.SessionUpdate, id string) string {
	t.Helper()
	_, ups := cardsOf(updates, id)
	for i := len(ups) - 1; i >= 0; i-- {
		for _, c := range ups[i].Content {
			if c.Type == "content" && c.Content != nil && c.Content.Type == "text" {
				return c.Content.Text
			}
		}
	}
	t.Fatalf("no text card for %s", id)
	return ""
}

// Zed renders a content block's text as Markdown. Read's numbered lines
// stop being an indented code block at line 100 (three digits leave three
// spaces of indent), grep hits and paths are not Markdown either
// (__init__.py turns bold, a regex loses its backslashes): the cards of
// Read, Grep, Glob and a command's output are one fenced code block, live
// and when a new process replays the session, and a Read title's path is
// inline code.
func TestZedReadSearchCardsAreVerbatim(t *testing.T) {
	ctx := testCtx(t)
	model := newZedModel(t)
	a := newZedAgent(t, model.srv.URL)
	pkg := filepath.Join(a.work, "pkg")
	os.MkdirAll(pkg, 0o755)
	var src strings.Builder
	for i := 1; i <= 150; i++ {
		src.WriteString("x = a_b * c_d  # __init__ line\n")
	}
	os.WriteFile(filepath.Join(pkg, "__init__.py"), []byte(src.String()), 0o644)
	model.steps = replies(
		toolReply("toolu_r", "Read", `{"file_path":`+quoteJSON(filepath.Join(pkg, "__init__.py"))+`}`),
		toolReply("toolu_g", "Grep", `{"pattern":"a_b \\* c_d","output_mode":"content","head_limit":3}`),
		toolReply("toolu_f", "Glob", `{"pattern":"**/*.py"}`),
		textReply("done"))
	e := a.start()
	sid := e.NewSession(ctx, a.work).SessionID
	setMode(t, e, sid, "bypassPermissions")
	if stop, err := e.Prompt(ctx, sid, "look"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}
	if calls, _ := cardsOf(e.Updates(sid), "toolu_r"); len(calls) != 1 || calls[0].Title != "Read `pkg/__init__.py`" {
		t.Errorf("Read card = %s, want the path as inline code (Zed renders the title as Markdown)", toJSON(calls))
	}
	live := map[string]string{}
	for id, want := range map[string]string{
		"toolu_r": "   120\tx = a_b * c_d  # __init__ line",
		"toolu_g": "a_b * c_d",
		"toolu_f": "__init__.py",
	} {
		text := lastCardText(t, e.Updates(sid), id)
		live[id] = text
		if !strings.HasPrefix(text, "```\n") || !strings.HasSuffix(text, "\n```") || strings.Count(text, "```") != 2 || !strings.Contains(text, want) {
			t.Errorf("%s card = %q, want one fenced block holding %q", id, text, want)
		}
	}
	e.Kill()

	e = a.start()
	a.load(e, sid)
	for id, text := range live {
		if got := lastCardText(t, e.Updates(sid), id); got != text {
			t.Errorf("reloaded %s card = %q, want the live card %q", id, got, text)
		}
	}
}
