package trust

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func hook(src, cmd string) Hook {
	return Hook{Dialect: "codex", Source: src, Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: cmd}
}

func TestHashCoversTheDefinition(t *testing.T) {
	h := hook("/p/.codex/hooks.json", "./check.sh")
	if !strings.HasPrefix(h.Hash(), "sha256:") || h.Hash() != hook("/p/.codex/hooks.json", "./check.sh").Hash() {
		t.Fatal("the hash is not stable")
	}
	variants := []Hook{h, h, h, h, h}
	variants[0].Dialect = "claude"
	variants[1].Event = "PostToolUse"
	variants[2].Matcher = "Bash|Edit"
	variants[3].Type = "prompt"
	variants[4].Command = "./check.sh "
	for i, v := range variants {
		if v.Hash() == h.Hash() {
			t.Errorf("variant %d has the same hash", i)
		}
	}
	// Length-prefixing: moving text between fields changes the hash.
	a := Hook{Event: "ab", Matcher: "c"}
	b := Hook{Event: "a", Matcher: "bc"}
	if a.Hash() == b.Hash() {
		t.Error("field boundaries are ambiguous")
	}
	if s := h.Source; hook("/other", "./check.sh").Hash() != h.Hash() {
		t.Errorf("the source (%s) must not be part of the hash", s)
	}
}

func TestTrustCheckRevoke(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	src := "/p/.codex/hooks.json"
	h := hook(src, "./check.sh")
	if st, err := s.Check(h); st != Untrusted || err != nil {
		t.Fatalf("fresh store: %v %v", st, err)
	}
	if err := s.Trust(Discovered{Dialect: "codex", Path: src, Hooks: []Hook{h}}); err != nil {
		t.Fatal(err)
	}
	if !s.Trusted(h) {
		t.Fatal("not trusted after Trust")
	}
	// Another dialect or another file is not trusted by this.
	c := h
	c.Dialect = "claude"
	if s.Trusted(c) || s.Trusted(hook("/q/.codex/hooks.json", "./check.sh")) {
		t.Error("trust leaked across dialect or source")
	}
	// An edited command is "changed".
	if st, _ := s.Check(hook(src, "./check.sh --force")); st != Changed {
		t.Errorf("edited hook: %v", st)
	}
	// A new hook on another event is plainly untrusted.
	other := hook(src, "./log.sh")
	other.Event = "Stop"
	if st, _ := s.Check(other); st != Untrusted {
		t.Errorf("new hook: %v", st)
	}
	// Another process (another Store) sees it; trusting again replaces the set.
	s2 := Open(dir)
	if !s2.Trusted(h) {
		t.Error("a second store does not see the trust")
	}
	if err := s2.TrustSource("codex", src, []Hook{other}); err != nil {
		t.Fatal(err)
	}
	if s.Trusted(h) || !s.Trusted(other) {
		t.Error("re-trusting did not replace the set (or was not seen)")
	}
	if srcs, err := s.Sources(); err != nil || len(srcs) != 1 || srcs[0] != src {
		t.Errorf("Sources() = %v %v", srcs, err)
	}
	if err := s.Revoke(src); err != nil || s.Trusted(other) {
		t.Errorf("Revoke: %v", err)
	}
	if err := s.TrustSource("codex", "relative/hooks.json", nil); err == nil {
		t.Error("a relative source was accepted")
	}
	if err := s.TrustSource("codex", src, []Hook{hook("/elsewhere", "x")}); err == nil {
		t.Error("a hook of another source was accepted")
	}
	fi, err := os.Stat(filepath.Join(dir, FileName))
	if err != nil || fi.Mode().Perm()&0o077 != 0 {
		t.Errorf("store file: %v, mode %v (want private)", err, fi.Mode())
	}
}

func TestCorruptStoreFailsClosed(t *testing.T) {
	dir := t.TempDir()
	s := Open(dir)
	src := "/p/.codex/hooks.json"
	h := hook(src, "./check.sh")
	if err := s.TrustSource("codex", src, []Hook{h}); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte("{torn"), 0o600); err != nil {
		t.Fatal(err)
	}
	if st, err := s.Check(h); st != Untrusted || err == nil || !strings.Contains(err.Error(), "corrupt") {
		t.Errorf("corrupt store: %v %v", st, err)
	}
	if err := s.TrustSource("codex", src, []Hook{h}); err == nil {
		t.Error("trusting over a corrupt store succeeded")
	}
	if err := os.WriteFile(filepath.Join(dir, FileName), []byte(`{"version": 9, "sources": {}}`), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := s.Check(h); err == nil || !strings.Contains(err.Error(), "version") {
		t.Errorf("future version: %v", err)
	}
}

func TestConcurrentUse(t *testing.T) {
	s := Open(t.TempDir())
	var wg sync.WaitGroup
	for i := range 8 {
		src := filepath.Join("/p", string(rune('a'+i)), "hooks.json")
		wg.Go(func() {
			h := hook(src, "x")
			if err := s.TrustSource("codex", src, []Hook{h}); err != nil {
				t.Error(err)
			}
			for range 20 {
				if !s.Trusted(h) {
					t.Error("lost trust")
					return
				}
			}
		})
	}
	wg.Wait()
	if srcs, _ := s.Sources(); len(srcs) != 8 {
		t.Errorf("%d sources, want 8", len(srcs))
	}
}
