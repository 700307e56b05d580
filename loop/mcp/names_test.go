package mcp

import (
	"strings"
	"testing"

	"github.com/google/go-cmp/cmp"
)

func TestNames(t *testing.T) {
	long := strings.Repeat("x", 70)
	n := newNamer(MaxNameLen)
	got := []string{
		n.assign("github", "create_issue"),
		n.assign("my server.v2", "search/code"),
		n.assign("a", "b.c"),
		n.assign("a", "b_c"), // collides with the one before
		n.assign("srv", long),
		n.assign("srv", long+"y"), // same 64-byte prefix
		n.assign("", "é"),
	}
	want := []string{
		"mcp__github__create_issue",
		"mcp__my_server_v2__search_code",
		"mcp__a__b_c",
		"mcp__a__b_c_" + hashOf("a", "b_c"),
		"mcp__srv__" + long[:MaxNameLen-len("mcp__srv__")-9] + "_" + hashOf("srv", long),
		"mcp__srv__" + long[:MaxNameLen-len("mcp__srv__")-9] + "_" + hashOf("srv", long+"y"),
		"mcp______",
	}
	if diff := cmp.Diff(want, got); diff != "" {
		t.Errorf("(-want +got):\n%s", diff)
	}
	for _, name := range got {
		if len(name) > MaxNameLen {
			t.Errorf("%s is longer than %d", name, MaxNameLen)
		}
	}
	// Deterministic: the same inputs give the same names.
	n2 := newNamer(MaxNameLen)
	for i, in := range [][2]string{{"github", "create_issue"}, {"my server.v2", "search/code"}, {"a", "b.c"}, {"a", "b_c"}} {
		if g := n2.assign(in[0], in[1]); g != got[i] {
			t.Errorf("second run: %s, first %s", g, got[i])
		}
	}
	if diff := cmp.Diff([]string{"git", "git_2", "git_3", "x_y"}, serverNames([]string{"git", "git", "git", "x y"})); diff != "" {
		t.Errorf("server names (-want +got):\n%s", diff)
	}
}

func hashOf(server, remote string) string {
	n := newNamer(MaxNameLen)
	n.taken[QualifiedName(server, remote)] = true
	name := n.assign(server, remote)
	return name[len(name)-8:]
}

func TestParseArguments(t *testing.T) {
	decl := []*PromptArgument{{Name: "repo", Required: true}, {Name: "pr", Required: true}, {Name: "message"}}
	tests := []struct {
		line    string
		want    map[string]string
		wantErr string
	}{
		{"acme/x 12", map[string]string{"repo": "acme/x", "pr": "12"}, ""},
		{"repo=acme/x pr=12", map[string]string{"repo": "acme/x", "pr": "12"}, ""},
		{"pr=12 acme/x", map[string]string{"repo": "acme/x", "pr": "12"}, ""},
		{"acme/x 12 fix the bug", map[string]string{"repo": "acme/x", "pr": "12", "message": "fix the bug"}, ""},
		{`acme/x 12 "a b"`, map[string]string{"repo": "acme/x", "pr": "12", "message": "a b"}, ""},
		{`acme/x pr=12 url=http://x?a=b`, map[string]string{"repo": "acme/x", "pr": "12", "message": "url=http://x?a=b"}, ""},
		{`message='' acme/x 12`, map[string]string{"repo": "acme/x", "pr": "12", "message": ""}, ""},
		{"acme/x", nil, "missing required argument pr"},
		{"", nil, "missing required argument repo, pr"},
		{`"open`, nil, `unterminated " quote`},
		{"repo=a pr=1 message=m extra", nil, `too many arguments: "extra" is left over`},
	}
	for _, tt := range tests {
		got, err := ParseArguments(decl, tt.line)
		if tt.wantErr != "" {
			if err == nil || err.Error() != tt.wantErr {
				t.Errorf("%q: err = %v, want %q", tt.line, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", tt.line, err)
			continue
		}
		if diff := cmp.Diff(tt.want, got); diff != "" {
			t.Errorf("%q (-want +got):\n%s", tt.line, diff)
		}
	}
	if _, err := ParseArguments(nil, "x"); err == nil || err.Error() != `the prompt takes no arguments, got "x"` {
		t.Errorf("no arguments: %v", err)
	}
	if got, err := ParseArguments(nil, ""); err != nil || len(got) != 0 {
		t.Errorf("empty: %v %v", got, err)
	}
}
