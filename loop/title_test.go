package loop

import (
	"fmt"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/sessionlog"
)

func TestTitleFromPrompt(t *testing.T) {
	tests := []struct {
		name   string
		blocks []acp.ContentBlock
		want   string
	}{
		{"first line, markers dropped", []acp.ContentBlock{acp.TextBlock("\n\n#  Add   a --json flag\nto the CLI")}, "Add a --json flag"},
		{"long, cut at a word", []acp.ContentBlock{acp.TextBlock("Please refactor the configuration loader so that every error names the file and line")},
			"Please refactor the configuration loader so that every…"},
		{"a file only", []acp.ContentBlock{{Type: "resource_link", Name: "main.go", URI: "file:///w/main.go"}}, "main.go"},
		{"nothing to say", []acp.ContentBlock{acp.TextBlock("  \n ")}, ""},
	}
	for _, tt := range tests {
		if got := titleFromPrompt(tt.blocks); got != tt.want {
			t.Errorf("%s: %q, want %q", tt.name, got, tt.want)
		}
	}
}

// session/list pages by cursor: every session exactly once, in List's
// order, and a cursor cordis did not give is refused.
func TestListPagesByCursor(t *testing.T) {
	base := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	var list []sessionlog.Summary
	for i := range 2*listPageSize + 7 {
		// Pairs share a time, so the id breaks the tie.
		list = append(list, sessionlog.Summary{SessionID: fmt.Sprintf("%032x", i), UpdatedAt: base.Add(-time.Duration(i/2) * time.Second)})
	}
	var seen []string
	cursor, pages := "", 0
	for {
		page, next, err := listPage(list, cursor)
		if err != nil {
			t.Fatal(err)
		}
		pages++
		for _, s := range page {
			seen = append(seen, s.SessionID)
		}
		if next == "" {
			break
		}
		cursor = next
	}
	if pages != 3 || len(seen) != len(list) {
		t.Fatalf("%d pages, %d sessions; want 3 pages, %d sessions", pages, len(seen), len(list))
	}
	for i, id := range seen {
		if id != list[i].SessionID {
			t.Fatalf("session %d is %s, want %s", i, id, list[i].SessionID)
		}
	}
	if _, _, err := listPage(list, "not-a-cursor"); err == nil {
		t.Fatal("a made-up cursor was accepted")
	}
}
