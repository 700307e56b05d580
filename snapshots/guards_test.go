package snapshots

import (
	"bytes"
	"encoding/json"
	"io"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/llm/replay"
	"github.com/cordis-agent/cordis/llm/replay/replaytest"
)

// The negative controls: each guard's bad case, shown to fail.

func TestNetBitesOnChangedModelText(t *testing.T) {
	root, sc := copyScenario(t, "text-turn")
	editFile(t, filepath.Join(sc.Fixture, "01-main", "001.response.sse"), "Nice to meet you.", "Nice to see you.")
	wantFailure(t, verify(sc, root), "expected/stdout.jsonl", `-{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session-1}}","update":{"content":{"text":"Nice to meet you."`, `+{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session-1}}","update":{"content":{"text":"Nice to see you."`)
}

func TestChangedRequestNeedsReRecording(t *testing.T) {
	root, sc := copyScenario(t, "text-turn")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "Say hello in one short sentence.", "Say hello in two sentences.")
	sc, _ = LoadScenario(root, sc.Name)
	wantFailure(t, verify(sc, root), "does not match fixtures/text-turn/01-main/001.request.json", "re-record", `+          "text": "Say hello in two sentences.",`)
}

func TestUnusedRecordingFails(t *testing.T) {
	root, sc := copyScenario(t, "text-turn")
	for _, f := range []string{"request.json", "response.sse"} {
		data, err := os.ReadFile(filepath.Join(sc.Fixture, "01-main", "001."+f))
		if err != nil {
			t.Fatal(err)
		}
		os.WriteFile(filepath.Join(sc.Fixture, "01-main", "002."+f), data, 0o644)
	}
	wantFailure(t, verify(sc, root), "unused recording", "002.response.sse")
}

func TestExtraRequestFails(t *testing.T) {
	root, sc := copyScenario(t, "tool-permission-approved")
	os.Remove(filepath.Join(sc.Fixture, "01-main", "002.request.json"))
	os.Remove(filepath.Join(sc.Fixture, "01-main", "002.response.sse"))
	wantFailure(t, verify(sc, root), "the agent made request 2 of conversation 01-main", "records only 1", "re-record")
}

func TestMissingExpectedAndOrphansFail(t *testing.T) {
	root, sc := copyScenario(t, "handshake")
	if err := os.RemoveAll(sc.ExpectedDir()); err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "has no expected files", "-update")
	os.MkdirAll(filepath.Join(root, "fixtures", "ghost"), 0o755)
	os.MkdirAll(filepath.Join(root, "snapshots", "stray"), 0o755)
	os.WriteFile(filepath.Join(root, "fixtures", "handshake", "leak.sse"), []byte("x-api-key: sk-ant-123"), 0o644)
	wantFailure(t, Guards(root), "snapshots/handshake has no expected files", "fixtures/ghost has no scenario", "snapshots/stray has no manifest.yml", "must never hold credentials", "unexpected leak.sse")
}

func TestObsoleteExpectedFileFails(t *testing.T) {
	root, sc := copyScenario(t, "handshake")
	os.WriteFile(filepath.Join(sc.ExpectedDir(), "session-2.jsonl"), []byte("{}\n"), 0o644)
	wantFailure(t, verify(sc, root), "expected/session-2.jsonl: the run did not produce it")
}

func TestManifestIsStrict(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"unknown field":        "description: d\nrecording: authored\nsteps:\n  - initialize: {}\n  - prompt: {promt: hi}\n",
		"two actions":          "description: d\nrecording: authored\nsteps:\n  - {initialize: {}, newSession: {}}\n",
		"bad recording":        "description: d\nrecording: guessed\nsteps:\n  - initialize: {}\n",
		"bad permission":       "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, permissions: [yes]}\n",
		"no session":           "description: d\nrecording: live\nsteps:\n  - prompt: {text: hi}\n",
		"during without when":  "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, during: {steps: [{prompt: {text: /status}}]}}\n",
		"during without steps": "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, during: {when: {method: session/request_permission}}}\n",
		"during restart":       "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, during: {when: {method: session/request_permission}, steps: [{restart: {}}]}}\n",
		"during permissions":   "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, during: {when: {method: session/request_permission}, steps: [{prompt: {text: go, permissions: [allow_once]}}]}}\n",
		"waitFile outside":     "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, during: {when: {method: session/request_permission}, steps: [{waitFile: ../x}]}}\n",
		"waitFile absolute":    "description: d\nrecording: live\nsteps:\n  - waitFile: /etc/passwd\n",
		"mcp without command":  "description: d\nrecording: live\nsteps:\n  - newSession: {mcpServers: [{name: x}]}\n",
		"mcp without name":     "description: d\nrecording: live\nsteps:\n  - newSession: {mcpServers: [{command: x}]}\n",
		"mcp twice":            "description: d\nrecording: live\nsteps:\n  - newSession: {mcpServers: [{name: x, command: a}, {name: x, command: b}]}\n",
		"mcp http command":     "description: d\nrecording: live\nsteps:\n  - newSession: {mcpServers: [{type: http, name: x, command: a}]}\n",
		"mcp bad type":         "description: d\nrecording: live\nsteps:\n  - newSession: {mcpServers: [{type: ws, name: x, url: u}]}\n",
		"mcp load env typo":    "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - loadSession: {session: 1, mcpServers: [{name: x, command: a, env: [{key: A, value: b}]}]}\n",
		"cordis empty":         "description: d\nrecording: live\nsteps:\n  - cordis: []\n",
		"cordis flag first":    "description: d\nrecording: live\nsteps:\n  - cordis: [--cwd, x, trust]\n",
		"cordis acp":           "description: d\nrecording: live\nsteps:\n  - cordis: [acp]\n",
		"cordis and prompt":    "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - {cordis: [trust], prompt: {text: hi}}\n",
		"cordis during":        "description: d\nrecording: live\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, during: {when: {method: session/request_permission}, steps: [{cordis: [trust]}]}}\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yml")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := LoadManifest(path); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// TestDuringMustHoldARequest: a during whose request never comes, or
// that matches a notification (which cannot hold the turn), fails.
func TestDuringMustHoldARequest(t *testing.T) {
	for _, c := range []struct{ when, want string }{
		{"{method: terminal/create}", "the turn ended before the agent sent a request matching during.when"},
		{"{method: session/update, update: tool_call}", "during.when matched a frame that is not a request of the agent"},
	} {
		root, sc := copyScenario(t, "command-during-turn")
		editFile(t, filepath.Join(sc.Dir, ManifestFile), "when: {method: session/request_permission}", "when: "+c.when)
		sc, err := LoadScenario(root, sc.Name)
		if err != nil {
			t.Fatal(err)
		}
		wantFailure(t, verify(sc, root), c.want)
	}
}

// TestNetBitesOnMCPServer: the MCP scenario really talks to the server
// the editor passes; another server name changes the tools cordis offers.
func TestNetBitesOnMCPServer(t *testing.T) {
	root, sc := copyScenario(t, "mcp-tool-call")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "- name: notes", "- name: memo")
	sc, err := LoadScenario(root, sc.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "the tool list of conversation 01-main differs from the expected sidecar", `+    "name": "mcp__memo__write_note"`)
}

// TestNetBitesOnCordisStep: the project MCP scenario depends on its
// `cordis trust` step: without it the server stays unapproved, its tools
// are not offered to the second session.
func TestNetBitesOnCordisStep(t *testing.T) {
	root, sc := copyScenario(t, "mcp-json-project")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "  - cordis: [trust, --cwd, \"{{cwd}}\", --state-dir, \"{{state}}\"]\n", "")
	sc, err := LoadScenario(root, sc.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "the tool list of conversation 02-session differs from the expected sidecar", `-    "name": "mcp__notes__write_note"`)
}

// TestNetBitesOnSkillTrust: the skill's Bash(ls:*) pre-approves the call
// only because the scenario trusts the project first; without that the
// call asks, and the unanswered request fails the run.
func TestNetBitesOnSkillTrust(t *testing.T) {
	root, sc := copyScenario(t, "skill-tool")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "  - cordis: [trust, --cwd, \"{{cwd}}\", --state-dir, \"{{state}}\"]\n", "")
	sc, err := LoadScenario(root, sc.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "the agent asked for permission and the manifest has no answer left")
}

// TestCordisStepFailureFails: a cordis step that exits non-zero fails
// the run with its output.
func TestCordisStepFailureFails(t *testing.T) {
	root, sc := copyScenario(t, "mcp-json-project")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "cordis: [trust, --cwd,", "cordis: [trust, --no-such-flag, --cwd,")
	sc, err := LoadScenario(root, sc.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "step 4: cordis trust --no-such-flag", "exit status")
}

func TestNonJSONStdoutFails(t *testing.T) {
	p := &player{sc: &Scenario{Name: "non-json"}}
	a := &agentProc{n: 1, p: p}
	stdout := strings.NewReader(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{"sessionUpdate":"agent_message_chunk","content":{"type":"text","text":"hi"}}}}` + "\nwarning: something\n")
	a.ed = acptest.Connect(stdout, nopWriteCloser{io.Discard}, acptest.Options{Problem: func(msg string) { p.problem("%s", msg) }, Tap: a.tap, Serve: a.serve})
	<-a.ed.Done()
	if len(p.frames) != 1 || len(p.problems) != 1 || !strings.Contains(p.problems[0], `non-JSON-RPC line to stdout: "warning: something"`) {
		t.Fatalf("frames %d, problems %q", len(p.frames), p.problems)
	}
}

type nopWriteCloser struct{ io.Writer }

func (nopWriteCloser) Close() error { return nil }

func TestRecordRefusedOnCI(t *testing.T) {
	for _, ci := range []string{"true", "1", "yes"} {
		if err := recordAllowed(func(string) string { return ci }); err == nil {
			t.Errorf("CI=%s allowed", ci)
		}
	}
	for _, ci := range []string{"", "false", "0"} {
		if err := recordAllowed(func(string) string { return ci }); err != nil {
			t.Errorf("CI=%q refused: %v", ci, err)
		}
	}
}

// TestRecordPathAgainstLocalServer records the subagent scenario (two
// conversations, tools, fs) against a local server that speaks the
// Anthropic wire and serves the committed responses: the rewritten fixture
// must equal the committed one byte for byte, hold no key, and replay
// green.
func TestRecordPathAgainstLocalServer(t *testing.T) {
	root, sc := copyScenario(t, "subagent")
	committed, err := readTree(sc.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	fx, err := replay.Load(sc.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	ws := replaytest.NewWireServer(fx)
	srv := httptest.NewServer(ws)
	defer srv.Close()
	// Make the recording visibly new: clear the conversations first.
	os.RemoveAll(filepath.Join(sc.Fixture, "01-main"))
	os.RemoveAll(filepath.Join(sc.Fixture, "02-subagent"))
	key := "sk-test-record-path"
	err = RecordFixture(sc, Options{Binary: binary, Repo: root, Env: append(raceEnv(), "ANTHROPIC_API_KEY="+key, "ANTHROPIC_BASE_URL="+srv.URL)})
	if err != nil {
		t.Fatal(err)
	}
	recorded, err := readTree(sc.Fixture)
	if err != nil {
		t.Fatal(err)
	}
	if d := Diff(Outputs(committed), Outputs(recorded)); len(d) > 0 {
		t.Fatalf("the recording differs from the committed fixture:\n%s", strings.Join(d, "\n"))
	}
	for name, data := range recorded {
		if bytes.Contains(data, []byte(key)) {
			t.Fatalf("%s holds the key", name)
		}
	}
	if keys := ws.APIKeys(); len(keys) != 4 || keys[0] != key {
		t.Fatalf("the server saw keys %q, want the key on all 4 calls", keys)
	}
	if u := ws.Unused(); u != "" {
		t.Fatalf("unused: %s", u)
	}
	if f := verify(sc, root); len(f) > 0 {
		t.Fatalf("the re-recorded scenario does not replay green:\n%s", strings.Join(f, "\n"))
	}
}

func TestNormalize(t *testing.T) {
	ws := t.TempDir()
	frame := func(s string) Frame { return Frame{Process: 1, Line: []byte(s)} }
	res := &Result{
		Paths: []replay.PathVar{{Placeholder: "{{cwd}}", Path: ws}},
		Frames: []Frame{
			frame(`{"jsonrpc":"2.0","id":7,"result":{"sessionId":"sess_b","agentInfo":{"name":"cordis","version":"v9"}}}`),
			frame(`{"jsonrpc":"2.0","id":"cordis-4","method":"fs/read_text_file","params":{"sessionId":"sess_b","path":"` + ws + `/a.txt"}}`),
			frame(`{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":"cordis-4"}}`),
			frame(`{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"sess_b","update":{"toolCallId":"toolu_x1","title":"agent-toolu_x1 <b>&","durationMs":12}}}`),
		},
		Logs: []Log{{SessionID: "sess_b", Data: []byte(`{"v":1,"seq":1,"time":"2026-01-01T00:00:00.123Z","type":"tool/call","data":{"toolCallId":"toolu_x1","path":"` + ws + `/b","sessionIdLike":"sess_bb"}}` + "\n")}},
		// A hook's trace in the workspace: ids and paths, as in the logs.
		Workspace: map[string][]byte{"hook.json": []byte(`{"session_id":"sess_b","cwd":"` + ws + `","tool_use_id":"toolu_x1"}`)},
	}
	out, err := Normalize(res)
	if err != nil {
		t.Fatal(err)
	}
	want := `{"id":1,"jsonrpc":"2.0","result":{"agentInfo":{"name":"cordis","version":"{{version}}"},"sessionId":"{{session-1}}"}}
{"id":1,"jsonrpc":"2.0","method":"fs/read_text_file","params":{"path":"{{cwd}}/a.txt","sessionId":"{{session-1}}"}}
{"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":1}}
{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"{{session-1}}","update":{"title":"agent-{{toolCall-1}} <b>&","toolCallId":"{{toolCall-1}}"}}}
`
	if got := string(out[StdoutFile]); got != want {
		t.Fatalf("stdout:\n%s\nwant:\n%s", got, want)
	}
	var ev map[string]any
	json.Unmarshal(out["session-1.jsonl"], &ev)
	data := ev["data"].(map[string]any)
	if ev["time"].(float64) != 0 || data["path"] != "{{cwd}}/b" || data["sessionIdLike"] != "sess_bb" || data["toolCallId"] != "{{toolCall-1}}" {
		t.Fatalf("log: %s", out["session-1.jsonl"])
	}
	if got, want := string(out["workspace/hook.json"]), `{"session_id":"{{session-1}}","cwd":"{{cwd}}","tool_use_id":"{{toolCall-1}}"}`; got != want {
		t.Fatalf("workspace file:\n%s\nwant:\n%s", got, want)
	}
}

// TestNetBitesOnChangedHookOutput is the proof that the hook scenarios
// guard the real hook -> bridge -> seam -> loop path: the hook processes
// really run during replay, so changing a hook's fixed output turns its
// scenario red.
func TestNetBitesOnChangedHookOutput(t *testing.T) {
	for _, c := range []struct{ scenario, script, old, new string }{
		{"hook-cc-pretool-deny", "home/.claude/hooks/deny-network.sh", "Network commands are not allowed in this repository.", "Network commands are fine today."},
		{"hook-codex-stop-continue", "home/.codex/hooks/one-more.sh", "name the first file you would change", "name the last file you would change"},
	} {
		t.Run(c.scenario, func(t *testing.T) {
			root, sc := copyScenario(t, c.scenario)
			editFile(t, filepath.Join(sc.Dir, filepath.FromSlash(c.script)), c.old, c.new)
			wantFailure(t, verify(sc, root), c.new)
		})
	}
}

// TestReplayTool runs what `go run ./snapshots/cmd/replay` runs (Watch,
// key-free) on scenarios named as the tool is given them, and checks that
// the conversation is printed readably.
func TestReplayTool(t *testing.T) {
	for _, c := range []struct {
		scenario string
		want     []string
	}{
		{"subagent", []string{
			"▶ you: Use a subagent to find out what notes.txt says.",
			"⤷ subagent general-purpose started (Read notes.txt)",
			"◆ Read notes.txt [read]",
			"⇄ fs/read_text_file",
			"cordis: According to the subagent, notes.txt says the deploy key rotates on Fridays.",
			"■ turn ended: end_turn",
			"✔ matches snapshots/subagent/expected",
		}},
		{"command-during-turn", []string{
			`? cordis asks permission for "Write todo.txt"`,
			"▶ you: /status",
			"▶ you: /clear",
			"  cordis: /clear changes the conversation, so it cannot run while a turn is in progress.",
			"? the editor answers: allow_once",
			"✔ matches snapshots/command-during-turn/expected",
		}},
		{"mcp-tool-call", []string{
			`◆ notes: write_note (note="The release moves to Thursday.") [destructive] [other]`,
			"✓ notes: write_note",
			"✔ matches snapshots/mcp-tool-call/expected",
		}},
		{"hook-cc-pretool-deny", []string{
			`⚑ hook PreToolUse claude-hooks: {"permission":"deny","reason":"Network commands are not allowed in this repository."}`,
			"⚖ denied by hook Denied by a PreToolUse hook: Network commands are not allowed in this repository.",
			"✗ curl -s https://example.com failed", // a Bash call is titled with its command
		}},
	} {
		arg := c.scenario // a bare name, as people type it
		if c.scenario == "subagent" {
			arg = filepath.Join(repo, "snapshots", c.scenario) // or a path
		}
		sc, err := FindScenario(repo, arg)
		if err != nil {
			t.Fatal(err)
		}
		var out bytes.Buffer
		if err := Watch(&out, sc, Options{Binary: binary, MCPTestServer: mcpServer, Env: raceEnv()}); err != nil {
			t.Fatalf("replay %s: %v\n%s", c.scenario, err, out.String())
		}
		for _, w := range c.want {
			if !strings.Contains(out.String(), w) {
				t.Errorf("replay %s: output lacks %q:\n%s", c.scenario, w, out.String())
			}
		}
	}
}
