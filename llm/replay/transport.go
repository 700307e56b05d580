package replay

import (
	"bufio"
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"

	"github.com/cordis-agent/cordis/internal/udiff"
)

// state is what the replay and record transports share: the fixture, the
// run directory and the ledger. One mutex serialises the bookkeeping;
// sessions may call concurrently.
type state struct {
	mu     sync.Mutex
	fx     *Fixture // nil in record mode
	runDir string   // "" without CORDIS_REPLAY_RUN
	run    Run
	paths  *PathReplacer
	ledger *Ledger
	logger *slog.Logger
	// scenario names the fixture in messages ("text-turn").
	scenario string
}

// bind returns the index in the ledger of the conversation body belongs
// to, binding a new one to the next fixture folder in first-call order.
func (s *state) bind(body map[string]any) (int, error) {
	key, sys := routeKeys(body)
	for i := range s.ledger.Conversations {
		if s.ledger.Conversations[i].Key == key {
			return i, nil
		}
	}
	k := len(s.ledger.Conversations) + 1
	var name string
	if s.fx != nil {
		if k > len(s.fx.Conversations) {
			return -1, fmt.Errorf("the agent started conversation %d, but fixture %s records %d (%s); a new subagent or session needs a new recording",
				k, s.fixtureRef(""), len(s.fx.Conversations), s.conversationNames())
		}
		name = s.fx.Conversations[k-1].Name
	} else {
		label := "main"
		if k > 1 {
			label = "subagent"
			if sys == s.ledger.Conversations[0].System {
				label = "session"
			}
		}
		name = ConversationName(k, label)
	}
	s.ledger.Conversations = append(s.ledger.Conversations, LedgerConversation{Key: key, System: sys, Name: name})
	return k - 1, nil
}

func (s *state) conversationNames() string {
	var names []string
	for _, c := range s.fx.Conversations {
		names = append(names, c.Name)
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, ", ")
}

// fixtureRef names a file of the fixture relative to the repository, for
// messages that must not carry machine-specific paths.
func (s *state) fixtureRef(rel string) string {
	ref := "fixtures/" + s.scenario
	if rel != "" {
		ref += "/" + rel
	}
	return ref
}

func (s *state) hint(kind string) string {
	run := fmt.Sprintf("go test ./snapshots -run 'TestSnapshots/%s$'", s.scenario)
	if kind == "update" {
		return fmt.Sprintf("If the change is intended, refresh the expected files (%s -update); if the model would now answer differently, re-record (%s -record).", run, run)
	}
	return fmt.Sprintf("If the change is intended, re-record the scenario (%s -record, or -author for a fixture written by hand).", run)
}

// fail records a failure in the ledger and returns the error response the
// agent sees as a model error.
func (s *state) fail(req *http.Request, msg string) *http.Response {
	msg = "replay: " + msg
	s.ledger.Failures = append(s.ledger.Failures, msg)
	s.persist()
	s.logger.Error("replay mismatch", "error", msg)
	body, _ := json.Marshal(map[string]any{
		"type":  "error",
		"error": map[string]string{"type": "invalid_request_error", "message": msg},
	})
	return response(req, http.StatusBadRequest, "application/json", body)
}

func (s *state) persist() {
	if err := s.ledger.write(s.runDir); err != nil {
		s.logger.Error("replay: writing the ledger", "error", err)
	}
}

// observe writes the sidecars of request n of a conversation into the
// run directory and returns the name of the tool-list sidecar that holds
// this request's tools. The system prompt must stay one per
// conversation. The tool list may change within it (ExitPlanMode leaves
// plan mode, and so offers other tools): the first list is
// <conversation>.tools.json, and a request whose list differs from the
// one before it writes <conversation>.tools.<n>.json, checked like the
// first, so an unexpected change still fails the comparison.
func (s *state) observe(name string, n int, split Split) (string, error) {
	toolsFile := name + ".tools.json"
	if s.runDir == "" {
		return toolsFile, nil
	}
	dir := filepath.Join(s.runDir, ObservedDir)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return "", err
	}
	if split.System != "" {
		path := filepath.Join(dir, name+".system.md")
		if old, err := os.ReadFile(path); err == nil {
			if string(old) != split.System {
				return "", fmt.Errorf("the system prompt changed within conversation %s; a conversation must keep one:\n%s",
					name, udiff.Unified("first request", "this request", string(old), split.System))
			}
		} else if err := os.WriteFile(path, []byte(split.System), 0o644); err != nil {
			return "", err
		}
	}
	if split.Tools == "" {
		return toolsFile, nil
	}
	last, lastFile, err := latestTools(dir, name)
	if err != nil {
		return "", err
	}
	switch {
	case lastFile == "":
	case last == split.Tools:
		return lastFile, nil
	default:
		toolsFile = fmt.Sprintf("%s.tools.%d.json", name, n)
	}
	return toolsFile, os.WriteFile(filepath.Join(dir, toolsFile), []byte(split.Tools), 0o644)
}

// latestTools is the newest tool-list sidecar of a conversation in dir
// (the one for the highest request number), and its file name; "" when
// there is none. It reads the directory, not memory, because a restarted
// agent process goes on with the same conversations.
func latestTools(dir, name string) (text, file string, err error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return "", "", err
	}
	best := -1
	for _, e := range entries {
		rest, ok := strings.CutPrefix(e.Name(), name+".tools.")
		if !ok {
			continue
		}
		k := 0
		if rest != "json" {
			num, ok := strings.CutSuffix(rest, ".json")
			if !ok {
				continue
			}
			if k, err = strconv.Atoi(num); err != nil || k <= 0 {
				continue
			}
		}
		if k > best {
			best, file = k, e.Name()
		}
	}
	if file == "" {
		return "", "", nil
	}
	data, err := os.ReadFile(filepath.Join(dir, file))
	return string(data), file, err
}

// checkSidecars compares the system prompt and tools with the expected
// sidecars when the run names them; toolsFile is the tool-list sidecar
// observe named for this request.
func (s *state) checkSidecars(name, toolsFile string, split Split) error {
	if s.run.Expected == "" {
		return nil
	}
	for _, f := range []struct{ file, text, what string }{
		{name + ".system.md", split.System, "system prompt"},
		{toolsFile, split.Tools, "tool list"},
	} {
		path := filepath.Join(s.run.Expected, f.file)
		want, err := os.ReadFile(path)
		if err != nil {
			if f.text == "" {
				continue
			}
			return fmt.Errorf("there is no expected sidecar %s for the %s of conversation %s. %s",
				f.file, f.what, name, s.hint("update"))
		}
		if string(want) != f.text {
			return fmt.Errorf("the %s of conversation %s differs from the expected sidecar %s. %s\n%s",
				f.what, name, f.file, s.hint("update"),
				udiff.Unified("expected/"+f.file, "agent", string(want), f.text))
		}
	}
	return nil
}

// replayTransport answers every request from the fixture.
type replayTransport struct{ s *state }

func (t replayTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	s := t.s
	s.mu.Lock()
	defer s.mu.Unlock()
	obj, err := decodeObject(body)
	if err != nil {
		return s.fail(req, err.Error()), nil
	}
	idx, err := s.bind(obj)
	if err != nil {
		return s.fail(req, err.Error()+". "+s.hint("record")), nil
	}
	conv := &s.ledger.Conversations[idx]
	recorded := s.fx.Conversations[idx]
	n := conv.Used + 1
	if n > len(recorded.Calls) {
		conv.Used = n
		return s.fail(req, fmt.Sprintf("the agent made request %d of conversation %s, but %s records only %d. %s",
			n, conv.Name, s.fixtureRef(conv.Name), len(recorded.Calls), s.hint("record"))), nil
	}
	conv.Used = n
	split, err := SplitRequest(body, s.paths)
	if err != nil {
		return s.fail(req, err.Error()), nil
	}
	toolsFile, err := s.observe(conv.Name, n, split)
	if err != nil {
		return s.fail(req, err.Error()), nil
	}
	if err := s.checkSidecars(conv.Name, toolsFile, split); err != nil {
		return s.fail(req, err.Error()), nil
	}
	ref := s.fixtureRef(conv.Name + "/" + CallFile(n, "request"))
	want, err := Canonical(recorded.Calls[n-1].Request)
	if err != nil {
		return s.fail(req, fmt.Sprintf("%s is not JSON: %v", ref, err)), nil
	}
	if !bytes.Equal(want, split.Rest) {
		return s.fail(req, fmt.Sprintf("request %d of conversation %s does not match %s. %s\n%s",
			n, conv.Name, ref, s.hint("record"), udiff.Unified(ref, "agent", string(want), string(split.Rest)))), nil
	}
	s.persist()
	sse := []byte(s.paths.Expand(string(recorded.Calls[n-1].Response)))
	return response(req, http.StatusOK, "text/event-stream", sse), nil
}

// recordTransport forwards to the live API and keeps every successful
// exchange in the run directory's record folder.
type recordTransport struct {
	s    *state
	base http.RoundTripper
}

func (t recordTransport) RoundTrip(req *http.Request) (*http.Response, error) {
	body, err := readBody(req)
	if err != nil {
		return nil, err
	}
	s := t.s
	obj, err := decodeObject(body)
	if err != nil {
		return nil, err
	}
	s.mu.Lock()
	idx, err := s.bind(obj)
	var name string
	var n int
	if err == nil {
		name, n = s.ledger.Conversations[idx].Name, s.ledger.Conversations[idx].Used+1
		s.persist()
	}
	s.mu.Unlock()
	if err != nil {
		return nil, err
	}
	split, err := SplitRequest(body, s.paths)
	if err != nil {
		return nil, err
	}
	out := req.Clone(req.Context())
	out.Body = io.NopCloser(bytes.NewReader(body))
	out.ContentLength = int64(len(body))
	resp, err := t.base.RoundTrip(out)
	if err != nil || resp.StatusCode != http.StatusOK {
		return resp, err // not recorded: the provider retries or fails
	}
	resp.Body = &recordingBody{src: bufio.NewReader(resp.Body), rc: resp.Body, paths: s.paths, done: func(raw []byte) {
		s.mu.Lock()
		defer s.mu.Unlock()
		if err := s.commit(idx, name, n, split, raw); err != nil {
			s.ledger.Failures = append(s.ledger.Failures, "record: "+err.Error())
			s.persist()
		}
	}}
	return resp, nil
}

// commit writes call n of a conversation into the run's record folder.
func (s *state) commit(idx int, name string, n int, split Split, raw []byte) error {
	if s.runDir == "" {
		return fmt.Errorf("record mode needs %s", RunDirEnv)
	}
	dir := filepath.Join(s.runDir, RecordDir, name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, CallFile(n, "request")), split.Rest, 0o644); err != nil {
		return err
	}
	if err := os.WriteFile(filepath.Join(dir, CallFile(n, "response")), raw, 0o644); err != nil {
		return err
	}
	if _, err := s.observe(name, n, split); err != nil {
		return err
	}
	s.ledger.Conversations[idx].Used = max(s.ledger.Conversations[idx].Used, n)
	s.persist()
	return nil
}

// recordingBody passes the live stream to the provider line by line. The
// recording gets each line with the run's paths replaced by placeholders;
// the provider gets that line with the placeholders expanded again, so a
// hand-written body served by a local server (which holds placeholders)
// reaches the agent exactly as replay will serve it. At Close, what the
// provider left unread is recorded too, and done gets the whole body once.
type recordingBody struct {
	src     *bufio.Reader
	rc      io.ReadCloser
	paths   *PathReplacer
	pending []byte
	err     error
	rec     bytes.Buffer
	once    sync.Once
	done    func([]byte)
}

func (b *recordingBody) next() {
	line, err := b.src.ReadBytes('\n')
	if len(line) > 0 {
		norm := b.paths.Replace(string(line))
		b.rec.WriteString(norm)
		b.pending = []byte(b.paths.Expand(norm))
	}
	b.err = err
}

func (b *recordingBody) Read(p []byte) (int, error) {
	for len(b.pending) == 0 {
		if b.err != nil {
			return 0, b.err
		}
		b.next()
	}
	n := copy(p, b.pending)
	b.pending = b.pending[n:]
	return n, nil
}

func (b *recordingBody) Close() error {
	b.once.Do(func() {
		for b.err == nil && b.rec.Len() < 64<<20 {
			b.next()
		}
		b.done(b.rec.Bytes())
	})
	return b.rc.Close()
}

func readBody(req *http.Request) ([]byte, error) {
	if req.Body == nil {
		return nil, fmt.Errorf("replay: request without a body")
	}
	defer req.Body.Close()
	return io.ReadAll(req.Body)
}

func decodeObject(body []byte) (map[string]any, error) {
	v, err := decode(body)
	if err != nil {
		return nil, fmt.Errorf("the request body is not JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return nil, fmt.Errorf("the request body is not a JSON object")
	}
	return obj, nil
}

func response(req *http.Request, status int, contentType string, body []byte) *http.Response {
	return &http.Response{
		StatusCode:    status,
		Status:        fmt.Sprintf("%d %s", status, http.StatusText(status)),
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        http.Header{"Content-Type": []string{contentType}},
		Body:          io.NopCloser(bytes.NewReader(body)),
		ContentLength: int64(len(body)),
		Request:       req,
	}
}
