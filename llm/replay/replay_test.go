package replay_test

import (
	"context"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/replay"
	"github.com/cordis-agent/cordis/llm/replay/replaytest"
)

func sseText(id, text string) string {
	return `event: message_start
data: {"type":"message_start","message":{"id":"` + id + `","type":"message","role":"assistant","model":"m","content":[],"stop_reason":null,"stop_sequence":null,"usage":{"input_tokens":10,"output_tokens":1}}}

event: content_block_start
data: {"type":"content_block_start","index":0,"content_block":{"type":"text","text":""}}

event: content_block_delta
data: {"type":"content_block_delta","index":0,"delta":{"type":"text_delta","text":"` + text + `"}}

event: content_block_stop
data: {"type":"content_block_stop","index":0}

event: message_delta
data: {"type":"message_delta","delta":{"stop_reason":"end_turn","stop_sequence":null},"usage":{"output_tokens":3}}

event: message_stop
data: {"type":"message_stop"}

`
}

func writeFile(t *testing.T, path, content string) {
	t.Helper()
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
		t.Fatal(err)
	}
}

// env is a getenv over a fixed map that fails the test when replay asks
// for a key.
func env(t *testing.T, vars map[string]string, forbidKey bool) func(string) string {
	return func(name string) string {
		if forbidKey && strings.Contains(name, "API_KEY") {
			t.Errorf("replay read %s", name)
		}
		return vars[name]
	}
}

func request(cwd, prompt string, history ...llm.Message) *llm.Request {
	msgs := append([]llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.Text(prompt)}}}, history...)
	return &llm.Request{
		System:   []string{"You are a test agent.", "Working directory: " + cwd},
		Messages: msgs,
		Tools:    []llm.ToolSpec{{Name: "Read", Description: "Reads a file.", InputSchema: []byte(`{"type":"object"}`)}},
	}
}

func streamText(t *testing.T, p *replay.Provider, req *llm.Request) (string, error) {
	t.Helper()
	var b strings.Builder
	_, err := p.Stream(context.Background(), req, func(d llm.Delta) {
		if d.Kind == llm.DeltaText {
			b.WriteString(d.Text)
		}
	})
	return b.String(), err
}

// recordedFixture records a two-call conversation through a WireServer
// serving hand-written bodies, and returns the fixture folder holding the
// recording and the sidecars the run observed.
func recordedFixture(t *testing.T, cwd string) (fixture, sidecars string) {
	t.Helper()
	authored := filepath.Join(t.TempDir(), "demo")
	writeFile(t, filepath.Join(authored, replay.MetaFile), "model: m\nmaxTokens: 100\n")
	writeFile(t, filepath.Join(authored, "01-main", "001.response.sse"), sseText("msg_1", "first answer in {{cwd}}"))
	writeFile(t, filepath.Join(authored, "01-main", "002.response.sse"), sseText("msg_2", "second answer"))
	fx, err := replaytest.LoadAuthored(authored)
	if err != nil {
		t.Fatal(err)
	}
	ws := replaytest.NewWireServer(fx)
	srv := httptest.NewServer(ws)
	defer srv.Close()

	run := t.TempDir()
	paths := []replay.PathVar{{Placeholder: "{{cwd}}", Path: cwd}}
	if err := replay.WriteRun(run, replay.Run{Mode: replay.ModeRecord, Paths: paths}); err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(replay.Config{Fixture: authored}, replay.WithGetenv(env(t, map[string]string{
		replay.RunDirEnv: run, "ANTHROPIC_API_KEY": "test-key-123", "ANTHROPIC_BASE_URL": srv.URL,
	}, false)))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckCredentials(); err != nil {
		t.Fatalf("record mode with a key: %v", err)
	}
	first, err := streamText(t, p, request(cwd, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "first answer in " + cwd; first != want {
		t.Fatalf("record mode gave the agent %q, want %q (placeholders expanded)", first, want)
	}
	history := []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(first)}}, {Role: llm.RoleUser, Content: []llm.Block{llm.Text("again")}}}
	if _, err := streamText(t, p, request(cwd, "hello", history...)); err != nil {
		t.Fatal(err)
	}
	if keys := ws.APIKeys(); len(keys) != 2 || keys[0] != "test-key-123" {
		t.Fatalf("the server saw keys %q", keys)
	}
	if u := ws.Unused(); u != "" {
		t.Fatalf("unused: %s", u)
	}
	// The recording: requests normalized, responses as served, no key.
	fixture = filepath.Join(t.TempDir(), "demo")
	writeFile(t, filepath.Join(fixture, replay.MetaFile), "model: m\nmaxTokens: 100\n")
	for _, name := range []string{"001.request.json", "001.response.sse", "002.request.json", "002.response.sse"} {
		data, err := os.ReadFile(filepath.Join(run, replay.RecordDir, "01-main", name))
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(data), "test-key-123") || strings.Contains(string(data), cwd) {
			t.Fatalf("%s holds the key or a raw path:\n%s", name, data)
		}
		writeFile(t, filepath.Join(fixture, "01-main", name), string(data))
	}
	req, _ := os.ReadFile(filepath.Join(fixture, "01-main", "001.request.json"))
	for _, want := range []string{`"system": "{{system}}"`, `"tools": "{{tools}}"`, `"model": "m"`, `"max_tokens": 100`} {
		if !strings.Contains(string(req), want) {
			t.Fatalf("recorded request lacks %s:\n%s", want, req)
		}
	}
	resp, _ := os.ReadFile(filepath.Join(fixture, "01-main", "001.response.sse"))
	if string(resp) != sseText("msg_1", "first answer in {{cwd}}") {
		t.Fatalf("recorded response differs from what was served:\n%s", resp)
	}
	sys, _ := os.ReadFile(filepath.Join(run, replay.ObservedDir, "01-main.system.md"))
	if !strings.Contains(string(sys), "Working directory: {{cwd}}") {
		t.Fatalf("observed system sidecar:\n%s", sys)
	}
	return fixture, filepath.Join(run, replay.ObservedDir)
}

func replayProvider(t *testing.T, fixture, sidecars, cwd string) (*replay.Provider, string) {
	t.Helper()
	run := t.TempDir()
	if err := replay.WriteRun(run, replay.Run{Paths: []replay.PathVar{{Placeholder: "{{cwd}}", Path: cwd}}, Expected: sidecars}); err != nil {
		t.Fatal(err)
	}
	p, err := replay.New(replay.Config{Fixture: fixture}, replay.WithGetenv(env(t, map[string]string{replay.RunDirEnv: run}, true)))
	if err != nil {
		t.Fatal(err)
	}
	if err := p.CheckCredentials(); err != nil {
		t.Fatalf("replay needs no key: %v", err)
	}
	return p, run
}

func TestRecordThenReplay(t *testing.T) {
	cwd := t.TempDir()
	fixture, sidecars := recordedFixture(t, cwd)
	p, run := replayProvider(t, fixture, sidecars, cwd)
	first, err := streamText(t, p, request(cwd, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	if want := "first answer in " + cwd; first != want {
		t.Fatalf("replayed %q, want %q", first, want)
	}
	history := []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(first)}}, {Role: llm.RoleUser, Content: []llm.Block{llm.Text("again")}}}
	if got, err := streamText(t, p, request(cwd, "hello", history...)); err != nil || got != "second answer" {
		t.Fatalf("second call: %q, %v", got, err)
	}
	l, err := replay.ReadLedger(run)
	if err != nil {
		t.Fatal(err)
	}
	if len(l.Failures) != 0 || l.Used("01-main") != 2 {
		t.Fatalf("ledger: %+v", l)
	}
	// A call beyond the recording fails loudly.
	_, err = streamText(t, p, request(cwd, "hello", append(history, llm.Message{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text("second answer")}}, llm.Message{Role: llm.RoleUser, Content: []llm.Block{llm.Text("more")}})...))
	if err == nil || !strings.Contains(err.Error(), "records only 2") || !strings.Contains(err.Error(), "re-record") {
		t.Fatalf("extra call: %v", err)
	}
}

func TestReplayMismatchFailsWithDiff(t *testing.T) {
	cwd := t.TempDir()
	fixture, sidecars := recordedFixture(t, cwd)

	p, run := replayProvider(t, fixture, sidecars, cwd)
	_, err := streamText(t, p, request(cwd, "hello, changed"))
	if err == nil {
		t.Fatal("a changed request replayed")
	}
	msg := err.Error()
	for _, want := range []string{"does not match fixtures/demo/01-main/001.request.json", "re-record", `-          "text": "hello",`, `+          "text": "hello, changed",`} {
		if !strings.Contains(msg, want) {
			t.Fatalf("error lacks %q:\n%s", want, msg)
		}
	}
	if l, _ := replay.ReadLedger(run); len(l.Failures) != 1 {
		t.Fatalf("ledger failures: %+v", l.Failures)
	}

	p, _ = replayProvider(t, fixture, sidecars, cwd)
	req := request(cwd, "hello")
	req.System[0] = "You are a changed agent."
	_, err = streamText(t, p, req)
	if err == nil || !strings.Contains(err.Error(), "differs from the expected sidecar 01-main.system.md") || !strings.Contains(err.Error(), "-update") {
		t.Fatalf("system change: %v", err)
	}

	p, _ = replayProvider(t, fixture, sidecars, cwd)
	if _, err := streamText(t, p, request(cwd, "hello")); err != nil {
		t.Fatal(err)
	}
	_, err = streamText(t, p, request(cwd, "a second conversation"))
	if err == nil || !strings.Contains(err.Error(), "started conversation 2") {
		t.Fatalf("unrecorded conversation: %v", err)
	}
}

func TestReplayLedgerSurvivesRestart(t *testing.T) {
	cwd := t.TempDir()
	fixture, sidecars := recordedFixture(t, cwd)
	p, run := replayProvider(t, fixture, sidecars, cwd)
	first, err := streamText(t, p, request(cwd, "hello"))
	if err != nil {
		t.Fatal(err)
	}
	// A new provider on the same run directory continues the recording.
	p2, err := replay.New(replay.Config{Fixture: fixture}, replay.WithGetenv(env(t, map[string]string{replay.RunDirEnv: run}, true)))
	if err != nil {
		t.Fatal(err)
	}
	history := []llm.Message{{Role: llm.RoleAssistant, Content: []llm.Block{llm.Text(first)}}, {Role: llm.RoleUser, Content: []llm.Block{llm.Text("again")}}}
	if got, err := streamText(t, p2, request(cwd, "hello", history...)); err != nil || got != "second answer" {
		t.Fatalf("after restart: %q, %v", got, err)
	}
}

func TestNewErrors(t *testing.T) {
	if _, err := replay.New(replay.Config{}); err == nil || !strings.Contains(err.Error(), "CORDIS_FIXTURE") {
		t.Fatalf("empty fixture: %v", err)
	}
	_, err := replay.New(replay.Config{Fixture: filepath.Join(t.TempDir(), "nope")}, replay.WithGetenv(func(string) string { return "" }))
	if err == nil || !strings.Contains(err.Error(), "not found") || !strings.Contains(err.Error(), "-record") {
		t.Fatalf("missing fixture: %v", err)
	}
}

func TestLoadIsStrict(t *testing.T) {
	cases := map[string]map[string]string{
		"stray file":       {replay.MetaFile: "model: m\nmaxTokens: 1\n", "notes.txt": "x"},
		"missing response": {replay.MetaFile: "model: m\nmaxTokens: 1\n", "01-main/001.request.json": "{}"},
		"gap":              {replay.MetaFile: "model: m\nmaxTokens: 1\n", "01-main/002.request.json": "{}", "01-main/002.response.sse": ""},
		"numbering":        {replay.MetaFile: "model: m\nmaxTokens: 1\n", "02-main/001.request.json": "{}", "02-main/001.response.sse": ""},
		"unknown meta":     {replay.MetaFile: "model: m\nmaxTokens: 1\nmodle: x\n"},
		"no meta":          {"01-main/001.request.json": "{}", "01-main/001.response.sse": ""},
	}
	for name, files := range cases {
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			for p, c := range files {
				writeFile(t, filepath.Join(dir, p), c)
			}
			if _, err := replay.Load(dir); err == nil {
				t.Fatal("loaded")
			}
		})
	}
}

func TestPathReplacer(t *testing.T) {
	root := t.TempDir()
	ws := filepath.Join(root, "ws")
	os.Mkdir(ws, 0o755)
	link := filepath.Join(root, "link")
	if err := os.Symlink(ws, link); err != nil {
		t.Skip(err)
	}
	r := replay.NewPathReplacer([]replay.PathVar{{Placeholder: "{{cwd}}", Path: link}, {Placeholder: "{{root}}", Path: root}})
	for in, want := range map[string]string{
		link + "/a.txt":         "{{cwd}}/a.txt",
		ws + "/a.txt":           "{{cwd}}/a.txt", // the resolved spelling
		link:                    "{{cwd}}",
		link + "2/x":            "{{root}}/link2/x", // not a boundary
		"/x" + link:             "/x" + link,
		"file://" + link + "/b": "file://{{cwd}}/b",
		`"` + root + `/other"`:  `"{{root}}/other"`,
		"see " + link + ".":     "see {{cwd}}.",
		"see " + link + ".txt ": "see {{root}}/link.txt ",
	} {
		if got := r.Replace(in); got != want {
			t.Errorf("Replace(%q) = %q, want %q", in, got, want)
		}
	}
	if got := r.Expand("{{cwd}}/a and {{root}}"); got != link+"/a and "+root {
		t.Errorf("Expand = %q", got)
	}
}

func TestCanonicalAndSplit(t *testing.T) {
	a, err := replay.Canonical([]byte(`{"b":1,"a":{"y":"<x>","x":2.50}}`))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := replay.Canonical([]byte("{\n \"a\" : {\"x\":2.50, \"y\":\"<x>\"}, \"b\":1}"))
	if string(a) != string(b) || !strings.Contains(string(a), `"<x>"`) || !strings.Contains(string(a), "2.50") {
		t.Fatalf("canonical forms differ or escape:\n%s\n%s", a, b)
	}
	s, err := replay.SplitRequest([]byte(`{"model":"m","system":[{"type":"text","text":"one"},{"type":"text","text":"two /w/x"}],"tools":[{"name":"T"}],"messages":[]}`),
		replay.NewPathReplacer([]replay.PathVar{{Placeholder: "{{cwd}}", Path: "/w/x"}}))
	if err != nil {
		t.Fatal(err)
	}
	if s.System != "<!-- system[0] -->\none\n\n<!-- system[1] -->\ntwo {{cwd}}\n" {
		t.Fatalf("system sidecar %q", s.System)
	}
	if !strings.Contains(s.Tools, `"name": "T"`) || !strings.Contains(string(s.Rest), `"system": "{{system}}"`) {
		t.Fatalf("split: %+v", s)
	}
	// A system prompt with cache_control stays inline.
	s, _ = replay.SplitRequest([]byte(`{"system":[{"type":"text","text":"x","cache_control":{"type":"ephemeral"}}]}`), nil)
	if s.System != "" || !strings.Contains(string(s.Rest), "cache_control") {
		t.Fatalf("non-plain system: %+v", s)
	}
}
