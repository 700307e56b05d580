package commands

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/internal/setup"
)

func TestExpandSavedPrompt(t *testing.T) {
	for _, tc := range []struct{ body, args, want, err string }{
		{"Review PR #$1 with priority $2 and $3.", `456 "very high"`, "Review PR #456 with priority very high and .", ""},
		{"Fix issue #$ARGUMENTS now", "123 high-priority", "Fix issue #123 high-priority now", ""},
		{"Cost: $$5, $ and $ARGUMENTS", "", "Cost: $$5, $ and ", ""},
		{"Review $USER changes on $BRANCH ($1, $ARGUMENTS, $$USER)", `USER="Alice Smith" BRANCH=main`, "Review Alice Smith changes on main ($1, $ARGUMENTS, $$USER)", ""},
		{"Review $USER changes on $BRANCH", "USER=Alice", "", "missing required arguments: BRANCH"},
		{"Review $USER", "USER=Alice stray", "", `expected KEY=value but found "stray"`},
		{"Review $USER", "=x", "", "expected a name before '='"},
		{"No placeholders at all", "ignored words", "No placeholders at all", ""},
	} {
		got, err := ExpandSavedPrompt(tc.body, tc.args)
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%q %q: err %v, want %q", tc.body, tc.args, err, tc.err)
			}
			continue
		}
		if err != nil || got != tc.want {
			t.Errorf("%q %q = %q, %v; want %q", tc.body, tc.args, got, err, tc.want)
		}
	}
}

// TestSavedPromptsLoad: <folder>/<name>.md becomes /prompts:<name> with
// its frontmatter's description and hint (named placeholders make one);
// files below the folder are not read; the first folder wins a name.
func TestSavedPromptsLoad(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	write := func(dir, rel, body string) {
		p := filepath.Join(dir, rel)
		os.MkdirAll(filepath.Dir(p), 0o755)
		if err := os.WriteFile(p, []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	write(a, "review-pr.md", "---\ndescription: \"Review a PR with context\"\nargument-hint: \"[pr-number] [priority]\"\n---\nPlease review pull request #$1 with priority $2.\n")
	write(a, "ticket.md", "# Draft a ticket\nFor $USER about $TOPIC.\n")
	write(a, "nested/deep.md", "not read\n")
	write(b, "ticket.md", "the other one\n")
	r := NewRegistry(nil, Sources{SavedPrompts: []setup.Source{setup.User(a), setup.User(b)}})
	set := r.Load(t.TempDir())
	if len(set.Errors) > 0 {
		t.Fatalf("errors: %v", set.Errors)
	}
	c, ok := set.Lookup("prompts:review-pr")
	if !ok {
		t.Fatal("no /prompts:review-pr")
	}
	if sp := SpecOf(c); sp.Description != "Review a PR with context" || sp.ArgumentHint != "[pr-number] [priority]" {
		t.Errorf("spec %+v", sp)
	}
	intent := c.(*Local).Run(context.Background(), &Invocation{Args: "42 high"})
	if sub, ok := intent.(SubmitPrompt); !ok || sub.Text != "Please review pull request #42 with priority high.\n" {
		t.Errorf("intent %#v", intent)
	}
	ticket, _ := set.Lookup("prompts:ticket")
	if sp := SpecOf(ticket); sp.Description != "Draft a ticket" || sp.ArgumentHint != "USER=… TOPIC=…" {
		t.Errorf("ticket spec %+v", sp)
	}
	if e, ok := ticket.(*Local).Run(context.Background(), &Invocation{Args: "USER=me"}).(ShowError); !ok || !strings.Contains(e.Message, "/prompts:ticket: missing required arguments: TOPIC") {
		t.Errorf("missing TOPIC: %#v", e)
	}
	if _, ok := set.Lookup("prompts:nested:deep"); ok {
		t.Error("a prompt below the folder was read")
	}
}
