package trust

import (
	"errors"
	"fmt"
	"path/filepath"
	"strings"
	"sync"
)

// What the bridges share around the store: deciding that a project hook
// is skipped, wording the skip for the editor and for /doctor, and
// reporting each skip once per session.

// ErrNoStore is why a nil *Store trusts nothing: the bridge was given no
// state directory to keep trust in.
var ErrNoStore = errors.New("no state directory to keep trust in")

// Skip is a project hook that a bridge did not run because it is not
// trusted.
type Skip struct {
	Hook   Hook
	Status Status
	// Err is why the store could not vouch for the hook (nil when it
	// simply is not trusted).
	Err error
}

// Skipped reports whether h must be skipped, and why. A nil store skips
// every hook (with ErrNoStore), as does an unreadable one (fail closed).
func (s *Store) Skipped(h Hook) (Skip, bool) {
	if s == nil {
		return Skip{Hook: h, Status: Untrusted, Err: ErrNoStore}, true
	}
	st, err := s.Check(h)
	if st == Trusted {
		return Skip{}, false
	}
	return Skip{Hook: h, Status: st, Err: err}, true
}

// ProjectDir is the project directory of a project hook file found by
// discovery (<dir>/.claude/settings.json, <dir>/.codex/hooks.json): the
// directory to pass to `cordis hooks trust --cwd`.
func ProjectDir(source string) string { return filepath.Dir(filepath.Dir(source)) }

// Notice is the skip as the user sees it in the editor.
func (k Skip) Notice() string {
	why := k.Status.String()
	if k.Err != nil {
		why += " (" + k.Err.Error() + ")"
	}
	return fmt.Sprintf("cordis skipped a %s project hook that is %s: %s (%s). Review it, then run `cordis hooks trust --cwd %s` to let it run.",
		dialectTitle(k.Hook.Dialect), why, k.Hook.Describe(), k.Hook.Source, ProjectDir(k.Hook.Source))
}

// Problem is the skip as a bridge's Problems and /doctor list it.
func (k Skip) Problem() string {
	msg := fmt.Sprintf("%s: skipped, %s: %s (run `cordis hooks trust --cwd %s`)", k.Hook.Source, k.Status, k.Hook.Describe(), ProjectDir(k.Hook.Source))
	if k.Err != nil {
		msg += ": " + k.Err.Error()
	}
	return msg
}

func dialectTitle(d string) string {
	if d == "" {
		return "project"
	}
	return strings.ToUpper(d[:1]) + d[1:]
}

// Notices remembers which skipped hooks (and, see TakeProblems, which
// hook-file problems) each session was shown, so that a bridge reports
// each once per session (and again in another session). The zero value is
// ready to use; it is safe for concurrent use.
type Notices struct {
	mu   sync.Mutex
	seen map[string]map[string]bool // session id → shown notice keys
}

// noticeKey identifies a skipped hook: its file and its definition.
func noticeKey(h Hook) string { return h.Source + "\x00" + h.Hash() }

// Pending reports whether any of skips was not shown to session yet.
func (n *Notices) Pending(session string, skips []Skip) bool {
	keys := make([]string, len(skips))
	for i, k := range skips {
		keys[i] = noticeKey(k.Hook)
	}
	return n.pending(session, keys)
}

// Take returns the notices of the skips not shown to session yet, one per
// hook, and marks them shown.
func (n *Notices) Take(session string, skips []Skip) []string {
	keys := make([]string, len(skips))
	for i, k := range skips {
		keys[i] = noticeKey(k.Hook)
	}
	var out []string
	for _, i := range n.take(session, keys) {
		out = append(out, skips[i].Notice())
	}
	return out
}

// pending reports whether any of keys was not shown to session yet.
func (n *Notices) pending(session string, keys []string) bool {
	if len(keys) == 0 {
		return false
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	for _, k := range keys {
		if !n.seen[session][k] {
			return true
		}
	}
	return false
}

// take marks keys shown to session and returns the indexes of those that
// were not shown yet (a key repeated in keys counts once).
func (n *Notices) take(session string, keys []string) []int {
	if len(keys) == 0 {
		return nil
	}
	n.mu.Lock()
	defer n.mu.Unlock()
	var fresh []int
	for i, k := range keys {
		if n.seen[session][k] {
			continue
		}
		if n.seen == nil {
			n.seen = map[string]map[string]bool{}
		}
		if n.seen[session] == nil {
			n.seen[session] = map[string]bool{}
		}
		n.seen[session][k] = true
		fresh = append(fresh, i)
	}
	return fresh
}

// Has reports whether session was shown anything (and so has something
// to Forget).
func (n *Notices) Has(session string) bool {
	n.mu.Lock()
	defer n.mu.Unlock()
	return len(n.seen[session]) > 0
}

// Forget drops what session was shown (call it when the session ends).
func (n *Notices) Forget(session string) {
	n.mu.Lock()
	defer n.mu.Unlock()
	delete(n.seen, session)
}

// SamePath reports whether a and b name the same file, after cleaning
// and resolving symbolic links; a bridge uses it to tell a project file
// from the user-level file it is when the session's cwd is the home
// directory.
func SamePath(a, b string) bool {
	if a == "" || b == "" {
		return false
	}
	if filepath.Clean(a) == filepath.Clean(b) {
		return true
	}
	ra, err1 := filepath.EvalSymlinks(a)
	rb, err2 := filepath.EvalSymlinks(b)
	return err1 == nil && err2 == nil && ra == rb
}
