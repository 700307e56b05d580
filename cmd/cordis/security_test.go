package main

import (
	"bytes"
	"encoding/json"
	"io"
	"io/fs"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/cordis-agent/cordis/acp"
)

// fakeKey is a recognizable API key: it must never be written anywhere
// but the request headers that carry it to the model API.
const fakeKey = "sk-ant-test-cordis-0123456789abcdef-SECRET"

// keyScanEnv is what a hook and a Bash command find in their environment.
type keyScanEnv struct {
	hookEnvHasKey, bashEnvHasKey bool
}

// A session with a recognizable key runs through the binary with debug
// logging to a file, a Claude hook on every event that dumps its stdin and
// environment, a Bash tool call, and a model error that echoes the key.
// The key must not reach the state directory (session logs, transcripts),
// the log file, stderr, stdout (ACP frames) or any hook's stdin. Whether
// the key is in hook and tool environments is reported (see RELIABILITY.md
// and TestBugSubprocessEnvCarriesProviderKey).
func TestKeyNeverLeaks(t *testing.T) {
	ctx := testCtx(t)
	dumps := t.TempDir()
	events := []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PermissionRequest", "PostToolUse", "PostToolUseFailure", "Stop", "SubagentStart", "SubagentStop", "PreCompact", "SessionEnd", "Notification"}
	hookCmds := map[string]string{}
	for _, ev := range events {
		hookCmds[ev] = "cat > " + dumps + "/" + ev + ".$$.stdin; env > " + dumps + "/" + ev + ".$$.env"
	}
	hooks := writeHooks(t, t.TempDir(), 10, hookCmds)
	// A 401 whose body echoes the key, as some gateways do.
	unauthorized := `{"type":"error","error":{"type":"authentication_error","message":"invalid x-api-key ` + fakeKey + `"}}`
	model := newKeyModel(t, unauthorized,
		"401",
		toolReply("toolu_1", "Bash", `{"command":"env > bash.env; echo ran"}`),
		textReply("Done."))
	logFile := filepath.Join(t.TempDir(), "cordis.log")
	p := startProc(t, model.srv.URL, procOpts{
		config: bypassConfig(claudeHooksEntry(hooks)),
		env:    []string{"ANTHROPIC_API_KEY=" + fakeKey},
		args:   []string{"--log-file", logFile},
	})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	// The 401 answers the prompt as a JSON-RPC error (scanned with the
	// other stdout frames below).
	if _, err := p.e.Prompt(ctx, sid, "first"); err == nil || !strings.Contains(err.Error(), "invalid x-api-key") {
		t.Fatalf("prompt 1: %v, want the 401 as a JSON-RPC error", err)
	}
	if stop, err := p.e.Prompt(ctx, sid, "second"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt 2: %q, %v", stop, err)
	}
	p.e.Close()

	// The model did get the key (so the scan below is meaningful).
	if got := model.lastKey(); got != fakeKey {
		t.Fatalf("the model received key %q", got)
	}
	var scanned, stdinDumps int
	leak := func(where string, data []byte) {
		scanned++
		if bytes.Contains(data, []byte(fakeKey)) || bytes.Contains(data, []byte("0123456789abcdef-SECRET")) {
			t.Errorf("the key reached %s", where)
		}
	}
	filepath.WalkDir(p.state, func(path string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() {
			data, _ := os.ReadFile(path)
			leak("the state directory: "+path, data)
		}
		return nil
	})
	logData, err := os.ReadFile(logFile)
	if err != nil || len(logData) == 0 {
		t.Fatalf("log file: %v (%d bytes)", err, len(logData))
	}
	leak("the log file", logData)
	leak("stderr", []byte(p.stderr.String()))
	for _, f := range p.e.Frames() {
		leak("stdout", f)
	}
	var env keyScanEnv
	entries, _ := os.ReadDir(dumps)
	for _, e := range entries {
		data, _ := os.ReadFile(filepath.Join(dumps, e.Name()))
		switch {
		case strings.HasSuffix(e.Name(), ".stdin"):
			stdinDumps++
			leak("hook stdin ("+e.Name()+")", data)
		case strings.HasSuffix(e.Name(), ".env"):
			env.hookEnvHasKey = env.hookEnvHasKey || bytes.Contains(data, []byte(fakeKey))
		}
	}
	if stdinDumps < 6 {
		t.Errorf("only %d hook runs dumped their stdin; want every event of two turns", stdinDumps)
	}
	bashEnv, err := os.ReadFile(filepath.Join(p.work, "bash.env"))
	if err != nil {
		t.Fatalf("the Bash tool did not run: %v", err)
	}
	env.bashEnvHasKey = bytes.Contains(bashEnv, []byte(fakeKey))
	t.Logf("scanned %d files and frames (%d hook stdin dumps) for the key", scanned, stdinDumps)
	t.Logf("finding: the key is in the hook environment: %v; in the Bash tool environment: %v", env.hookEnvHasKey, env.bashEnvHasKey)
}

// keyModel answers with scripted SSE bodies; the body "401" answers 401
// with msg. It keeps the last API key it was sent.
type keyModel struct {
	srv    *httptest.Server
	mu     sync.Mutex
	bodies []string
	key    string
}

func newKeyModel(t *testing.T, msg string, bodies ...string) *keyModel {
	m := &keyModel{bodies: bodies}
	m.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		io.Copy(io.Discard, r.Body)
		m.mu.Lock()
		m.key = r.Header.Get("X-Api-Key")
		body := "401"
		if len(m.bodies) > 0 {
			body, m.bodies = m.bodies[0], m.bodies[1:]
		}
		m.mu.Unlock()
		if body == "401" {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusUnauthorized)
			io.WriteString(w, msg)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		io.WriteString(w, body)
	}))
	t.Cleanup(m.srv.Close)
	return m
}

func (m *keyModel) lastKey() string {
	m.mu.Lock()
	defer m.mu.Unlock()
	return m.key
}

// Committed fixtures and snapshot data (everything but Go source, which
// names the headers it scrubs) hold no key-shaped strings and no credential
// or request-id headers.
func TestRepositoryHoldsNoKeys(t *testing.T) {
	patterns := []*regexp.Regexp{
		regexp.MustCompile(`sk-ant-[A-Za-z0-9_-]{16,}`),
		regexp.MustCompile(`\bsk-(proj-)?[A-Za-z0-9]{32,}`),
		regexp.MustCompile(`(?i)"?\b(x-api-key|authorization|anthropic-organization-id|openai-organization|request-id|x-request-id|cf-ray)"?\s*[:=]\s*"?[A-Za-z0-9]`),
		regexp.MustCompile(`\breq_[A-Za-z0-9]{20,}`),
		regexp.MustCompile(`(?i)bearer\s+[A-Za-z0-9._-]{20,}`),
	}
	files := 0
	for _, dir := range []string{"../../fixtures", "../../snapshots", "../../interop"} {
		filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if d.IsDir() {
				if d.Name() == "node_modules" {
					return filepath.SkipDir
				}
				return nil
			}
			if strings.HasSuffix(path, ".go") {
				return nil
			}
			data, err := os.ReadFile(path)
			if err != nil {
				return nil
			}
			files++
			for _, re := range patterns {
				if loc := re.FindIndex(data); loc != nil {
					t.Errorf("%s holds a credential-shaped string: %q", path, data[loc[0]:loc[1]])
				}
			}
			return nil
		})
	}
	t.Logf("scanned %d committed files", files)
}

// Hook and tool subprocesses cannot write to the protocol stream: a hook
// and a Bash command that write to /dev/stdout, fd 1, /proc/self/fd/1 and
// stderr leave stdout holding JSON-RPC frames only (acptest fails the test
// on any other line).
func TestSubprocessesCannotWriteToStdout(t *testing.T) {
	ctx := testCtx(t)
	noisy := "echo NOISE-devstdout > /dev/stdout; echo NOISE-fd1 >&1; echo NOISE-procfd1 > /proc/self/fd/1; echo NOISE-stderr >&2; printf 'NOISE-noeol'"
	hookCmds := map[string]string{}
	for _, ev := range []string{"SessionStart", "UserPromptSubmit", "PreToolUse", "PostToolUse", "Stop"} {
		hookCmds[ev] = noisy
	}
	hooks := writeHooks(t, t.TempDir(), 10, hookCmds)
	model := newFakeModel(t,
		toolReply("toolu_1", "Bash", `{"command":`+strconv.Quote(noisy+"; (sleep 0.2; echo NOISE-late) &")+`}`),
		textReply("Done."))
	p := startProc(t, model.srv.URL, procOpts{config: bypassConfig(claudeHooksEntry(hooks))})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if stop, err := p.e.Prompt(ctx, sid, "make noise"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt: %q, %v", stop, err)
	}
	p.e.Close()
	// The noise went where it belongs: the Bash output reached the model.
	reqs := model.Requests()
	if len(reqs) != 2 || !strings.Contains(reqs[1], "NOISE-devstdout") || !strings.Contains(reqs[1], "NOISE-procfd1") {
		t.Fatalf("the Bash output did not reach the model: %v", reqs)
	}
	for _, f := range p.e.Frames() {
		var m map[string]json.RawMessage
		if json.Unmarshal(f, &m) != nil || string(m["jsonrpc"]) != `"2.0"` {
			t.Errorf("a non-JSON-RPC line on stdout: %q", f)
		}
	}
	t.Logf("%d stdout frames, all JSON-RPC", len(p.e.Frames()))
}
