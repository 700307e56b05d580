package trust

import (
	"errors"
	"os"
	"path/filepath"
	"sync"
	"testing"
)

func TestSkipped(t *testing.T) {
	h := hook("/p/.codex/hooks.json", "./check.sh")
	var none *Store
	if k, skipped := none.Skipped(h); !skipped || !errors.Is(k.Err, ErrNoStore) || k.Status != Untrusted {
		t.Errorf("nil store: %+v %v", k, skipped)
	}
	s := Open(t.TempDir())
	if k, skipped := s.Skipped(h); !skipped || k.Err != nil || k.Status != Untrusted || k.Hook != h {
		t.Errorf("untrusted: %+v %v", k, skipped)
	}
	if err := s.Trust(Discovered{Dialect: "codex", Path: h.Source, Hooks: []Hook{h}}); err != nil {
		t.Fatal(err)
	}
	if _, skipped := s.Skipped(h); skipped {
		t.Error("a trusted hook is skipped")
	}
	edited := hook(h.Source, "./check.sh --all")
	if k, skipped := s.Skipped(edited); !skipped || k.Status != Changed {
		t.Errorf("edited: %+v %v", k, skipped)
	}
	os.WriteFile(s.Path(), []byte("{"), 0o600)
	if k, skipped := s.Skipped(h); !skipped || k.Err == nil {
		t.Errorf("corrupt store: %+v %v", k, skipped)
	}
}

func TestSkipMessages(t *testing.T) {
	k := Skip{Hook: Hook{Dialect: "claude", Source: "/p/.claude/settings.json", Event: "PreToolUse", Matcher: "Bash", Type: "command", Command: "./x.sh"}, Status: Changed}
	if got, want := k.Notice(), "cordis skipped a Claude project hook that is changed since it was trusted: PreToolUse [Bash]: ./x.sh (/p/.claude/settings.json). Review it, then run `cordis hooks trust --cwd /p` to let it run."; got != want {
		t.Errorf("Notice:\n got %s\nwant %s", got, want)
	}
	if got, want := k.Problem(), "/p/.claude/settings.json: skipped, changed since it was trusted: PreToolUse [Bash]: ./x.sh (run `cordis hooks trust --cwd /p`)"; got != want {
		t.Errorf("Problem:\n got %s\nwant %s", got, want)
	}
	k.Err, k.Status = ErrNoStore, Untrusted
	if got, want := k.Problem(), "/p/.claude/settings.json: skipped, not trusted: PreToolUse [Bash]: ./x.sh (run `cordis hooks trust --cwd /p`): no state directory to keep trust in"; got != want {
		t.Errorf("Problem with an error:\n got %s\nwant %s", got, want)
	}
}

func TestNotices(t *testing.T) {
	a := Skip{Hook: hook("/p/.codex/hooks.json", "a")}
	b := Skip{Hook: hook("/p/.codex/hooks.json", "b")}
	var n Notices
	if n.Pending("s1", nil) || n.Take("s1", nil) != nil {
		t.Error("nothing to report")
	}
	if !n.Pending("s1", []Skip{a, b}) {
		t.Error("not pending")
	}
	if got := n.Take("s1", []Skip{a, a, b}); len(got) != 2 || got[0] != a.Notice() || got[1] != b.Notice() {
		t.Errorf("Take = %q", got)
	}
	if n.Pending("s1", []Skip{a, b}) || len(n.Take("s1", []Skip{a, b})) != 0 {
		t.Error("reported twice in one session")
	}
	if !n.Pending("s2", []Skip{a}) || len(n.Take("s2", []Skip{a})) != 1 {
		t.Error("another session was not told")
	}
	// The same hook in another file is another hook.
	if c := (Skip{Hook: hook("/q/.codex/hooks.json", "a")}); !n.Pending("s1", []Skip{c}) {
		t.Error("a hook of another file counted as shown")
	}
	n.Forget("s1")
	if !n.Pending("s1", []Skip{a}) {
		t.Error("Forget did not forget")
	}
	var wg sync.WaitGroup
	for range 8 {
		wg.Go(func() { n.Take("s3", []Skip{a, b}); n.Pending("s3", []Skip{a}); n.Forget("s4") })
	}
	wg.Wait()
}

func TestSamePath(t *testing.T) {
	dir := t.TempDir()
	link := filepath.Join(t.TempDir(), "link")
	if err := os.Symlink(dir, link); err != nil {
		t.Skip(err)
	}
	if !SamePath(dir, dir+"/") || !SamePath(dir, link) || SamePath(dir, t.TempDir()) || SamePath("", "") {
		t.Error("SamePath")
	}
}
