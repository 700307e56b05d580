package main

import (
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/google/go-cmp/cmp"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/cmd/cordis/config"
	"github.com/cordis-agent/cordis/internal/claudecode"
	"github.com/cordis-agent/cordis/loop"
)

// A hook bridge whose config file does not exist changes nothing: the ACP
// transcript and the session log are the same, byte for byte once the
// session id and hook timings are set aside, with and without the bridge
// entries.
func TestMissingHookFilesChangeNothing(t *testing.T) {
	t.Setenv("ANTHROPIC_API_KEY", "test-key")
	t.Setenv("HOME", t.TempDir())
	work := t.TempDir()
	missing := filepath.Join(t.TempDir(), "no-such-hooks.json")
	base := "- id: llm\n  name: llm/anthropic\n  config: {model: claude-sonnet-4-5, baseURL: \"%s\"}\n"
	bridges := "- id: claude-hooks\n  name: bridge/claude\n  config: {path: " + missing + "}\n" +
		"- id: codex-hooks\n  name: bridge/codex\n  config: {path: " + missing + "}\n"

	run := func(extra string) (frames, events []string) {
		model := newFakeModel(t, toolReply("toolu_1", "Bash", `{"command":"echo hi"}`), textReply("Done."))
		text := strings.Replace(base, "%s", model.srv.URL, 1) + extra
		cfg, err := config.Parse([]byte(text), "test.yml", newRegistry(), os.Getenv)
		if err != nil {
			t.Fatal(err)
		}
		state := t.TempDir()
		lc, err := assemble(cfg, state, slog.New(slog.NewTextHandler(io.Discard, nil)), nil, credentialFile{})
		if err != nil {
			t.Fatal(err)
		}
		lc.Now = func() time.Time { return time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC) }
		home := t.TempDir()
		lc.Home, lc.Sources = home, userSetup{home: home, claude: claudecode.Locate(home, nil)}.commandSources()
		ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
		defer cancel()
		e := acptest.Start(t, loop.New(*lc))
		e.OnPermission = func(context.Context, *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
			return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowOnce}}, nil
		}
		e.Initialize(ctx, acp.ClientCapabilities{})
		sid := e.NewSession(ctx, work).SessionID
		if stop, err := e.Prompt(ctx, sid, "say hi"); err != nil || stop != acp.StopEndTurn {
			t.Fatalf("prompt = %q, %v", stop, err)
		}
		e.Close()
		// Message ids are random per response.
		msgIDs := regexp.MustCompile(`"messageId":"msg_[A-Z0-9]+"`)
		for _, f := range e.Frames() {
			frames = append(frames, msgIDs.ReplaceAllString(strings.ReplaceAll(string(f), sid, "SID"), `"messageId":"MSG"`))
		}
		data, err := os.ReadFile(filepath.Join(state, "sessions", sid+".jsonl"))
		if err != nil {
			t.Fatal(err)
		}
		for _, line := range strings.Split(strings.TrimSpace(string(data)), "\n") {
			var ev map[string]any
			if err := json.Unmarshal([]byte(line), &ev); err != nil {
				t.Fatal(err)
			}
			if d, ok := ev["data"].(map[string]any); ok {
				delete(d, "durationMs")
			}
			b, _ := json.Marshal(ev)
			events = append(events, strings.ReplaceAll(string(b), sid, "SID"))
		}
		return frames, events
	}
	framesWithout, logWithout := run("")
	framesWith, logWith := run(bridges)
	if diff := cmp.Diff(framesWithout, framesWith); diff != "" {
		t.Errorf("ACP transcript differs with missing hook files (-without +with):\n%s", diff)
	}
	if diff := cmp.Diff(logWithout, logWith); diff != "" {
		t.Errorf("session log differs with missing hook files (-without +with):\n%s", diff)
	}
	if len(logWith) < 10 {
		t.Fatalf("suspiciously short session log: %d events", len(logWith))
	}
}

func TestAgentDurationsAreChecked(t *testing.T) {
	text := "- id: agent\n  name: agent\n  config: {mcpCallTimeout: soon}\n- id: llm\n  name: llm/anthropic\n  config: {model: m}\n"
	cfg, err := config.Parse([]byte(text), "test.yml", newRegistry(), os.Getenv)
	if err != nil {
		t.Fatal(err)
	}
	_, err = assemble(cfg, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, credentialFile{})
	if err == nil || !strings.Contains(err.Error(), `mcpCallTimeout: want a positive duration like 30s, got "soon"`) {
		t.Fatalf("err = %v", err)
	}
	text = strings.Replace(text, "soon", "45s", 1)
	cfg, _ = config.Parse([]byte(text), "test.yml", newRegistry(), os.Getenv)
	lc, err := assemble(cfg, t.TempDir(), slog.New(slog.NewTextHandler(io.Discard, nil)), nil, credentialFile{})
	if err != nil || lc.MCP.CallTimeout != 45*time.Second {
		t.Fatalf("assemble = %v, call timeout %v", err, lc.MCP.CallTimeout)
	}
}
