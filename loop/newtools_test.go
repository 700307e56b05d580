package loop_test

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/loop/tools"
)

// A background shell outlives its turn, is listed by /status and is
// killed, with its whole process group, when the session closes.
func TestBackgroundShellKilledOnSessionClose(t *testing.T) {
	h := looptest.NewHarness(t, looptest.Options{Mode: loop.ModeBypass},
		looptest.StreamBlocks("tool_use", looptest.ToolUse("toolu_bg", "Bash", map[string]any{
			"command": "sleep 1000 & echo up; wait", "run_in_background": true})),
		looptest.ReplyText("started"))
	sid := h.NewSession()
	if stop := h.Prompt(sid, "start the server"); stop != acp.StopEndTurn {
		t.Fatalf("stop = %q", stop)
	}
	text, isErr := looptest.ToolResult(t, h.Model.Requests()[1], "toolu_bg")
	if isErr || !strings.HasPrefix(text, "Command running in background with ID: bash_1.") {
		t.Fatalf("tool result = %q", text)
	}
	h.Prompt(sid, "/status")
	status := looptest.AgentText(h.Editor.Updates(sid))
	m := regexp.MustCompile(`background task bash_1 \(running, pid (\d+)\): sleep 1000 & echo up; wait`).FindStringSubmatch(status)
	if m == nil {
		t.Fatalf("/status does not list the task:\n%s", status)
	}
	pgid, _ := strconv.Atoi(m[1])
	if err := h.Editor.Call(h.Ctx, acp.MethodSessionClose, map[string]any{"sessionId": sid}, nil); err != nil {
		t.Fatal(err)
	}
	if err := syscall.Kill(-pgid, 0); !errors.Is(err, syscall.ESRCH) {
		t.Errorf("the task's process group %d is still there after session/close (kill: %v)", pgid, err)
	}
}

// WebFetch asks per host: "Always allow" names the host, and a second
// fetch from it is not asked again. The fetch reaches the loopback site
// only because the config allows private addresses.
func TestWebFetchAsksPerHost(t *testing.T) {
	site := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<h2>Docs</h2><p>Use <em>it</em>.</p>"))
	}))
	defer site.Close()
	fetch := func(id, path string) looptest.Block {
		return looptest.ToolUse(id, "WebFetch", map[string]any{"url": site.URL + path, "prompt": "summary"})
	}
	h := looptest.NewHarness(t, looptest.Options{Config: func(c *loop.Config) { c.Web = &tools.WebOptions{AllowPrivate: true} }},
		looptest.StreamBlocks("tool_use", fetch("toolu_1", "/a")),
		looptest.StreamBlocks("tool_use", fetch("toolu_2", "/b")),
		looptest.ReplyText("ok"))
	var asked []string
	h.Editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		for _, o := range p.Options {
			asked = append(asked, o.Name)
		}
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: acp.PermAllowAlways}}, nil
	}
	h.Prompt(h.NewSession(), "read the docs")
	if want := "Always allow fetches from `127.0.0.1` in this session"; !slices.Contains(asked, want) || len(asked) != 4 {
		t.Errorf("options asked = %q, want one request offering %q", asked, want)
	}
	for i, id := range []string{"toolu_1", "toolu_2"} {
		text, isErr := looptest.ToolResult(t, h.Model.Requests()[i+1], id)
		if isErr || !strings.Contains(text, "## Docs\n\nUse *it*.") {
			t.Errorf("%s = %q", id, text)
		}
	}
}
