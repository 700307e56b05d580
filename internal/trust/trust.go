package trust

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"sync"
	"time"
)

// FileName is the store's file name inside the state directory.
const FileName = "trusted-hooks.json"

// Hook is one hook definition that a project file declares.
type Hook struct {
	// Dialect is "claude" or "codex"; the same command in the two
	// dialects is trusted separately.
	Dialect string
	// Source is the absolute path of the file that declares the hook.
	Source string
	// Event is the event key the hook is declared under (e.g. PreToolUse).
	Event string
	// Matcher is the group's matcher as written ("" when omitted).
	Matcher string
	// Type is the handler type as written ("command").
	Type string
	// Command is the command string as written.
	Command string
}

// Hash is the identity that trust is recorded under: a SHA-256 over the
// dialect, event, matcher, type and command, each length-prefixed so that
// no two different definitions share an encoding. Source is not part of
// it: the store keeps hashes per source.
func (h Hook) Hash() string {
	sum := sha256.New()
	for _, part := range []string{"cordis-hook-trust/v1", h.Dialect, h.Event, h.Matcher, h.Type, h.Command} {
		fmt.Fprintf(sum, "%d:%s;", len(part), part)
	}
	return "sha256:" + hex.EncodeToString(sum.Sum(nil))
}

// Describe is a one-line description of h for messages.
func (h Hook) Describe() string {
	s := h.Event
	if h.Matcher != "" {
		s += " [" + h.Matcher + "]"
	}
	return s + ": " + h.Command
}

// record is what the store keeps for one trusted hook: the hash is the key,
// the rest is for people reading the file.
type record struct {
	Event     string    `json:"event"`
	Matcher   string    `json:"matcher,omitempty"`
	Command   string    `json:"command"`
	TrustedAt time.Time `json:"trustedAt"`
}

type sourceRecord struct {
	Dialect string             `json:"dialect"`
	Hooks   map[string]*record `json:"hooks"`
}

type fileData struct {
	Version int                      `json:"version"`
	Sources map[string]*sourceRecord `json:"sources"`
}

const fileVersion = 1

// Store is the trust file of one state directory.
type Store struct {
	path string
	now  func() time.Time

	mu      sync.Mutex
	loaded  bool
	modTime time.Time
	size    int64
	data    *fileData
	err     error
}

// Open returns the store in stateDir. The file is read lazily and need not
// exist.
func Open(stateDir string) *Store {
	return &Store{path: filepath.Join(stateDir, FileName), now: time.Now}
}

// Path is the store's file.
func (s *Store) Path() string { return s.path }

// Status is the trust state of one hook.
type Status int

const (
	// Untrusted: the hook was never trusted.
	Untrusted Status = iota
	// Changed: other hooks of the same source and event were trusted, but
	// not this definition (typically: its command was edited).
	Changed
	// Trusted: this exact definition was trusted.
	Trusted
)

func (st Status) String() string {
	switch st {
	case Trusted:
		return "trusted"
	case Changed:
		return "changed since it was trusted"
	}
	return "not trusted"
}

// Check returns the trust status of h. An unreadable or corrupt store
// trusts nothing and returns the error (fail closed).
func (s *Store) Check(h Hook) (Status, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refreshLocked(); err != nil {
		return Untrusted, err
	}
	src := s.data.Sources[h.Source]
	if src == nil || src.Dialect != h.Dialect {
		return Untrusted, nil
	}
	if _, ok := src.Hooks[h.Hash()]; ok {
		return Trusted, nil
	}
	for _, r := range src.Hooks {
		if r.Event == h.Event {
			return Changed, nil
		}
	}
	return Untrusted, nil
}

// Trusted reports whether h is trusted; any error counts as untrusted.
func (s *Store) Trusted(h Hook) bool {
	st, _ := s.Check(h)
	return st == Trusted
}

// TrustSource records hooks as the trusted set of the project file source,
// replacing what was trusted for it before (so a definition that was
// removed or edited away is no longer trusted). Every hook must name
// source and the same dialect.
func (s *Store) TrustSource(dialect, source string, hooks []Hook) error {
	if !filepath.IsAbs(source) {
		return fmt.Errorf("trust: source %q is not an absolute path", source)
	}
	rec := &sourceRecord{Dialect: dialect, Hooks: map[string]*record{}}
	now := s.now().UTC().Truncate(time.Second)
	for _, h := range hooks {
		if h.Source != source || h.Dialect != dialect {
			return fmt.Errorf("trust: hook %q belongs to %s/%s, not %s/%s", h.Command, h.Dialect, h.Source, dialect, source)
		}
		rec.Hooks[h.Hash()] = &record{Event: h.Event, Matcher: h.Matcher, Command: h.Command, TrustedAt: now}
	}
	return s.update(func(d *fileData) {
		if len(rec.Hooks) == 0 {
			delete(d.Sources, source)
			return
		}
		d.Sources[source] = rec
	})
}

// Revoke forgets every trusted hook of source.
func (s *Store) Revoke(source string) error {
	return s.update(func(d *fileData) { delete(d.Sources, source) })
}

// Sources lists the files that have trusted hooks, sorted.
func (s *Store) Sources() ([]string, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if err := s.refreshLocked(); err != nil {
		return nil, err
	}
	out := make([]string, 0, len(s.data.Sources))
	for src := range s.data.Sources {
		out = append(out, src)
	}
	slices.Sort(out)
	return out, nil
}

// update applies f to the current contents and writes the result.
func (s *Store) update(f func(*fileData)) error {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.loaded = false // always start from what is on disk
	if err := s.refreshLocked(); err != nil {
		return fmt.Errorf("%w (fix or delete %s, then trust again)", err, s.path)
	}
	f(s.data)
	data, err := json.MarshalIndent(s.data, "", "  ")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(s.path), 0o700); err != nil {
		return fmt.Errorf("trust: %v", err)
	}
	tmp, err := os.CreateTemp(filepath.Dir(s.path), FileName+".*.tmp")
	if err != nil {
		return fmt.Errorf("trust: %v", err)
	}
	_, werr := tmp.Write(append(data, '\n'))
	cerr := tmp.Close()
	if werr == nil {
		werr = cerr
	}
	if werr == nil {
		werr = os.Rename(tmp.Name(), s.path)
	}
	if werr != nil {
		os.Remove(tmp.Name())
		return fmt.Errorf("trust: writing %s: %v", s.path, werr)
	}
	s.loaded = false
	return nil
}

// refreshLocked (re)reads the file when it changed since the last read.
func (s *Store) refreshLocked() error {
	fi, err := os.Stat(s.path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		s.loaded, s.err, s.modTime, s.size = true, nil, time.Time{}, -1
		s.data = &fileData{Version: fileVersion, Sources: map[string]*sourceRecord{}}
		return nil
	case err != nil:
		s.loaded, s.err = false, fmt.Errorf("trust: %v", err)
		s.data = &fileData{Version: fileVersion, Sources: map[string]*sourceRecord{}}
		return s.err
	}
	if s.loaded && fi.ModTime().Equal(s.modTime) && fi.Size() == s.size {
		return s.err
	}
	s.loaded, s.modTime, s.size = true, fi.ModTime(), fi.Size()
	s.data = &fileData{Version: fileVersion, Sources: map[string]*sourceRecord{}}
	raw, err := os.ReadFile(s.path)
	if err != nil {
		s.err = fmt.Errorf("trust: %v", err)
		return s.err
	}
	var d fileData
	if err := json.Unmarshal(raw, &d); err != nil {
		s.err = fmt.Errorf("trust: %s is corrupt: %v", s.path, err)
		return s.err
	}
	if d.Version != fileVersion {
		s.err = fmt.Errorf("trust: %s has version %d, want %d", s.path, d.Version, fileVersion)
		return s.err
	}
	if d.Sources == nil {
		d.Sources = map[string]*sourceRecord{}
	}
	for _, src := range d.Sources {
		if src != nil && src.Hooks == nil {
			src.Hooks = map[string]*record{}
		}
	}
	for k, src := range d.Sources {
		if src == nil {
			delete(d.Sources, k)
		}
	}
	s.data, s.err = &d, nil
	return nil
}

// Discovered is a project hooks file found for a directory, with the
// hooks in it that run only once trusted. Each bridge discovers its own
// files (see codex.Discover); `cordis hooks trust` trusts them all.
type Discovered struct {
	Dialect string
	// Path is the file's absolute path (the Source of its hooks).
	Path  string
	Hooks []Hook
	// Problems are what the bridge found wrong with the file.
	Problems []string
}

// Trust records every hook of d as trusted (replacing what was trusted for
// d.Path before).
func (s *Store) Trust(d Discovered) error {
	return s.TrustSource(d.Dialect, d.Path, d.Hooks)
}
