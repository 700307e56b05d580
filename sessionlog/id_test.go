package sessionlog

import (
	"path/filepath"
	"strings"
	"testing"
)

func TestValidID(t *testing.T) {
	tests := []struct {
		id   string
		want bool
	}{
		{"sess_abcdefghijklmnopqrstuvwxyz", true},
		{"agent-1", true},
		{"ABC_123", true},
		{strings.Repeat("a", MaxIDLen), true},
		{strings.Repeat("a", MaxIDLen+1), false},
		{"", false},
		{".", false},
		{"..", false},
		{"../x", false},
		{"a/b", false},
		{`a\b`, false},
		{"/abs", false},
		{"a.jsonl", false},
		{"a b", false},
		{"a\x00b", false},
		{"a\nb", false},
		{"sess_é", false},
		{"C:x", false},
	}
	for _, tt := range tests {
		if got := ValidID(tt.id); got != tt.want {
			t.Errorf("ValidID(%q) = %v, want %v", tt.id, got, tt.want)
		}
	}
}

func TestNewID(t *testing.T) {
	seen := map[string]bool{}
	for range 1000 {
		id := NewID()
		if !strings.HasPrefix(id, "sess_") || len(id) != 31 || !ValidID(id) {
			t.Fatalf("NewID() = %q, want sess_ + 26 base32 chars", id)
		}
		if strings.Trim(id[5:], "abcdefghijklmnopqrstuvwxyz234567") != "" {
			t.Fatalf("NewID() = %q has characters outside lower-case base32", id)
		}
		if seen[id] {
			t.Fatalf("NewID() repeated %q", id)
		}
		seen[id] = true
	}
}

func TestPaths(t *testing.T) {
	state := filepath.FromSlash("/state")
	tests := []struct {
		name string
		got  string
		want string
	}{
		{"session", Path(state, "sess_a"), "/state/sessions/sess_a.jsonl"},
		{"subagent", SubagentPath(state, "sess_a", "agent-toolu_01"), "/state/sessions/sess_a/subagents/agent-toolu_01.jsonl"},
		// Invalid ids are hashed, never joined as given.
		{"escape", Path(state, "../x"), "/state/sessions/~224wvf6ri7nkvze6xb5fzj57xq.jsonl"},
		{"empty", Path(state, ""), "/state/sessions/~4oymiquy7qobjgx36tejs35zeq.jsonl"},
		{"bad parent", SubagentPath(state, "..", "a"), "/state/sessions/~l3a7pzya6n6d2czjqhieqvp4gq/subagents/a.jsonl"},
		{"bad agent", SubagentPath(state, "sess_a", "a/b"), "/state/sessions/sess_a/subagents/~yfgn3qbt6zfz32ua5jtvz4uaua.jsonl"},
	}
	for _, tt := range tests {
		if tt.got != filepath.FromSlash(tt.want) {
			t.Errorf("%s: got %q, want %q", tt.name, tt.got, tt.want)
		}
	}
	if Path(state, "../x") != Path(state, "../x") || Path(state, "../x") == Path(state, "../y") {
		t.Error("hashed file names must be deterministic and distinct")
	}
}
