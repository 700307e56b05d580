package replay

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"gopkg.in/yaml.v3"
)

// MetaFile is the fixture's settings file.
const MetaFile = "fixture.yml"

// Meta is fixture.yml: the model settings the fixture was recorded with.
// Replay offers exactly this model, so the transcript does not depend on
// cordis.yml.
type Meta struct {
	Model     string `yaml:"model"`
	MaxTokens int    `yaml:"maxTokens"`
	// WebSearch: the fixture was recorded with the provider's web search
	// offered (the WebSearch tool); replay offers it only then, so the
	// tool lists of every other recording stay as they were.
	WebSearch bool `yaml:"webSearch,omitempty"`
}

// Fixture is one scenario's recorded model exchanges:
//
//	fixtures/<name>/fixture.yml
//	fixtures/<name>/01-main/001.request.json
//	fixtures/<name>/01-main/001.response.sse
//	fixtures/<name>/02-subagent/001.request.json ...
//
// Conversations (one per agent: the session, each subagent) are bound to
// the agent's conversations in the order they make their first request.
type Fixture struct {
	Dir           string
	Name          string
	Meta          Meta
	Conversations []*Conversation
}

// Conversation is the calls of one agent, in order.
type Conversation struct {
	Name  string // "01-main"
	Calls []Call
}

// Call is one recorded request and the raw SSE body that answered it.
type Call struct {
	Request  []byte // NNN.request.json
	Response []byte // NNN.response.sse
}

// IsConversationName reports whether name is NN-label, the name of a
// conversation folder: two digits, a dash, then a lower-case letter
// followed by [a-z0-9-] (the inverse of ConversationName).
func IsConversationName(name string) bool {
	if len(name) < 4 || !isDigits(name[:2]) || name[2] != '-' || !('a' <= name[3] && name[3] <= 'z') {
		return false
	}
	for _, c := range []byte(name[4:]) {
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '-') {
			return false
		}
	}
	return true
}

// ParseCallFile splits NNN.request.json or NNN.response.sse into the call
// number and the kind (the file's suffix); ok is false for any other name
// (the inverse of CallFile).
func ParseCallFile(name string) (n int, kind string, ok bool) {
	if len(name) < 4 || !isDigits(name[:3]) || name[3] != '.' {
		return 0, "", false
	}
	switch kind = name[4:]; kind {
	case "request.json", "response.sse":
		n, _ = strconv.Atoi(name[:3])
		return n, kind, true
	}
	return 0, "", false
}

func isDigits(s string) bool {
	for _, c := range []byte(s) {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// CallFile names call n (1-based) of a conversation.
func CallFile(n int, kind string) string {
	if kind == "request" {
		return fmt.Sprintf("%03d.request.json", n)
	}
	return fmt.Sprintf("%03d.response.sse", n)
}

// ConversationName names the k-th (1-based) conversation.
func ConversationName(k int, label string) string { return fmt.Sprintf("%02d-%s", k, label) }

// Load reads and checks a fixture folder. Anything unexpected in it is an
// error: a fixture is reviewed by people, and a stray file is a mistake.
func Load(dir string) (*Fixture, error) {
	fx := &Fixture{Dir: dir, Name: filepath.Base(dir)}
	meta, err := LoadMeta(dir)
	if err != nil {
		return nil, err
	}
	fx.Meta = meta
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	for _, e := range entries { // ReadDir sorts by name: binding order
		switch {
		case e.Name() == MetaFile:
		case e.IsDir() && IsConversationName(e.Name()):
			c, err := loadConversation(filepath.Join(dir, e.Name()))
			if err != nil {
				return nil, err
			}
			want := len(fx.Conversations) + 1
			if got, _ := strconv.Atoi(e.Name()[:2]); got != want {
				return nil, fmt.Errorf("replay: %s: conversation folders must be numbered 01, 02, ... in order; want %02d here", filepath.Join(dir, e.Name()), want)
			}
			fx.Conversations = append(fx.Conversations, c)
		default:
			return nil, fmt.Errorf("replay: unexpected %s in fixture %s (want %s and conversation folders NN-label)", e.Name(), dir, MetaFile)
		}
	}
	return fx, nil
}

// LoadMeta reads and checks dir/fixture.yml.
func LoadMeta(dir string) (Meta, error) {
	var m Meta
	name := filepath.Base(dir)
	data, err := os.ReadFile(filepath.Join(dir, MetaFile))
	if errors.Is(err, fs.ErrNotExist) {
		if _, serr := os.Stat(dir); serr != nil {
			return m, fmt.Errorf("replay: fixture %s not found: record it (go test ./snapshots -run 'TestSnapshots/%s$' -record) or author it (README \"Snapshot tests\")", dir, name)
		}
		return m, fmt.Errorf("replay: fixture %s has no %s (it names the model the fixture was recorded with)", dir, MetaFile)
	}
	if err != nil {
		return m, fmt.Errorf("replay: %w", err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(data))
	dec.KnownFields(true)
	if err := dec.Decode(&m); err != nil {
		return m, fmt.Errorf("replay: %s: %v", filepath.Join(dir, MetaFile), err)
	}
	if m.Model == "" || m.MaxTokens <= 0 {
		return m, fmt.Errorf("replay: %s: model and maxTokens are required", filepath.Join(dir, MetaFile))
	}
	return m, nil
}

func loadConversation(dir string) (*Conversation, error) {
	c := &Conversation{Name: filepath.Base(dir)}
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("replay: %w", err)
	}
	seen := map[int]map[string][]byte{}
	maxN := 0
	for _, e := range entries {
		n, kind, ok := ParseCallFile(e.Name())
		if !ok || e.IsDir() {
			return nil, fmt.Errorf("replay: unexpected %s in %s (want NNN.request.json and NNN.response.sse)", e.Name(), dir)
		}
		data, err := os.ReadFile(filepath.Join(dir, e.Name()))
		if err != nil {
			return nil, fmt.Errorf("replay: %w", err)
		}
		if seen[n] == nil {
			seen[n] = map[string][]byte{}
		}
		seen[n][kind] = data
		maxN = max(maxN, n)
	}
	for n := 1; n <= maxN; n++ {
		files := seen[n]
		req, okReq := files["request.json"]
		resp, okResp := files["response.sse"]
		if !okResp || !okReq {
			return nil, fmt.Errorf("replay: %s: call %03d needs both %s and %s", dir, n, CallFile(n, "request"), CallFile(n, "response"))
		}
		c.Calls = append(c.Calls, Call{Request: req, Response: resp})
	}
	if len(c.Calls) == 0 {
		return nil, fmt.Errorf("replay: %s holds no calls", dir)
	}
	return c, nil
}

// WriteMeta writes fixture.yml.
func WriteMeta(dir string, m Meta) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	var b strings.Builder
	b.WriteString("# The model settings this fixture was recorded with; replay offers exactly these.\n")
	fmt.Fprintf(&b, "model: %s\nmaxTokens: %d\n", m.Model, m.MaxTokens)
	return os.WriteFile(filepath.Join(dir, MetaFile), []byte(b.String()), 0o644)
}
