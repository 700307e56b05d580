package loop_test

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"regexp"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/loop"
	"github.com/cordis-agent/cordis/loop/looptest"
	"github.com/cordis-agent/cordis/sessionlog"
	"github.com/sourcegraph/jsonrpc2"
)

var (
	soakTurns   = flag.Int("cordis.soak", 50, "turns the soak test replays in one process (RELIABILITY.md reports 1000)")
	loadTurns   = flag.Int("cordis.load.turns", 3, "turns each concurrent session runs in the load test")
	loadClients = flag.Int("cordis.load.sessions", 20, "concurrent sessions in the load test")
)

// toolModel is a scripted Anthropic model that any number of sessions can
// talk to at once: it derives its answer from the request alone. A turn
// ("turn N" in the user's text) is four steps: Write notes-N.txt and Read
// it (two calls in one answer), Edit it, run Bash and Grep on it, then end
// with a text answer.
type toolModel struct {
	srv      *httptest.Server
	requests atomic.Int64
	ids      atomic.Int64
	t        testing.TB
}

func newToolModel(t testing.TB) *toolModel {
	m := &toolModel{t: t}
	m.srv = httptest.NewServer(http.HandlerFunc(m.serve))
	t.Cleanup(m.srv.Close)
	return m
}

var turnNumber = regexp.MustCompile(`turn (\d+)`)

func (m *toolModel) serve(w http.ResponseWriter, r *http.Request) {
	m.requests.Add(1)
	var req struct {
		Messages []struct {
			Role    string `json:"role"`
			Content []struct {
				Type string `json:"type"`
				Text string `json:"text"`
			} `json:"content"`
		} `json:"messages"`
	}
	if err := json.NewDecoder(r.Body).Decode(&req); err != nil {
		m.t.Errorf("tool model: bad request: %v", err)
		http.Error(w, "bad request", 400)
		return
	}
	// The step is the number of assistant answers since the user's text.
	step, turn := 0, ""
	for i := len(req.Messages) - 1; i >= 0; i-- {
		msg := req.Messages[i]
		if msg.Role == "assistant" {
			step++
			continue
		}
		text := ""
		for _, c := range msg.Content {
			if c.Type == "text" {
				text += c.Text
			}
		}
		if sm := turnNumber.FindStringSubmatch(text); sm != nil {
			turn = sm[1]
			break
		}
	}
	if turn == "" {
		m.t.Errorf("tool model: no turn number in the request")
		http.Error(w, "no turn", 400)
		return
	}
	file := "notes-" + turn + ".txt"
	id := func() string { return fmt.Sprintf("toolu_%d", m.ids.Add(1)) }
	switch step {
	case 0:
		looptest.StreamBlocks("tool_use", looptest.Text("Writing "+file+"."),
			looptest.ToolUse(id(), "Write", map[string]any{"file_path": file, "content": "draft for turn " + turn + "\n"}),
			looptest.ToolUse(id(), "Glob", map[string]any{"pattern": "*.txt"}))(w, r)
	case 1:
		looptest.StreamBlocks("tool_use", looptest.ToolUse(id(), "Edit", map[string]any{"file_path": file, "old_string": "draft", "new_string": "final"}))(w, r)
	case 2:
		looptest.StreamBlocks("tool_use",
			looptest.ToolUse(id(), "Bash", map[string]any{"command": "cat " + file + " && echo done-" + turn}),
			looptest.ToolUse(id(), "Read", map[string]any{"file_path": file}),
			looptest.ToolUse(id(), "Grep", map[string]any{"pattern": "final", "output_mode": "content"}))(w, r)
	default:
		looptest.ReplyText("Turn "+turn+" is done.")(w, r)
	}
}

// toolCallsPerTurn is how many tool calls the tool model makes per turn.
const toolCallsPerTurn = 6

func toolModelProvider(t testing.TB, m *toolModel) *anthropic.Provider {
	return looptest.AnthropicProvider(t, anthropic.Config{BaseURL: m.srv.URL, Model: "claude-test", MaxRetries: -1})
}

// 20 sessions of one agent, on one connection, run turns with tool calls
// at the same time (under -race in CI): half in bypass mode, half asking
// the editor for every edit and command. Every turn completes every tool
// call, and every session log reads back consistent.
func TestConcurrentSessionsWithTools(t *testing.T) {
	model := newToolModel(t)
	state := t.TempDir()
	ctx, cancel := context.WithTimeout(context.Background(), 120*time.Second)
	defer cancel()
	editor := acptest.Start(t, loop.New(loop.Config{Provider: toolModelProvider(t, model), Model: "claude-test", StateDir: state}))
	var asked atomic.Int64
	editor.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		asked.Add(1)
		return looptest.Allow(acp.PermAllowOnce)(ctx, p)
	}
	editor.Initialize(ctx, acp.ClientCapabilities{})

	n, turns := *loadClients, *loadTurns
	type sess struct{ id, cwd string }
	sessions := make([]sess, n)
	for i := range sessions {
		cwd, _ := filepath.EvalSymlinks(t.TempDir())
		sessions[i] = sess{editor.NewSession(ctx, cwd).SessionID, cwd}
		if i%2 == 0 {
			if err := editor.Call(ctx, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sessions[i].id, ModeID: loop.ModeBypass}, nil); err != nil {
				t.Fatal(err)
			}
		}
	}
	start := time.Now()
	var wg sync.WaitGroup
	for _, s := range sessions {
		wg.Go(func() {
			for k := range turns {
				stop, err := editor.Prompt(ctx, s.id, fmt.Sprintf("Please do turn %d", k))
				if err != nil || stop != acp.StopEndTurn {
					t.Errorf("session %s turn %d: %q, %v", s.id, k, stop, err)
					return
				}
			}
		})
	}
	wg.Wait()
	elapsed := time.Since(start)
	t.Logf("%d sessions x %d turns (%d model requests, %d tool calls, %d permission requests) in %s",
		n, turns, model.requests.Load(), n*turns*toolCallsPerTurn, asked.Load(), elapsed.Round(time.Millisecond))
	if t.Failed() {
		return
	}
	if want := int64(n / 2 * turns * 3); asked.Load() != want {
		t.Errorf("%d permission requests, want %d (Write, Edit and Bash in the asking sessions)", asked.Load(), want)
	}
	for _, s := range sessions {
		completed := 0
		for _, u := range editor.Updates(s.id) {
			if c, ok := u.(*acp.ToolCallUpdate); ok && c.Status == acp.ToolStatusCompleted {
				completed++
			}
		}
		if completed != turns*toolCallsPerTurn {
			t.Errorf("session %s: %d tool calls completed, want %d", s.id, completed, turns*toolCallsPerTurn)
		}
		for k := range turns {
			data, err := os.ReadFile(filepath.Join(s.cwd, fmt.Sprintf("notes-%d.txt", k)))
			if err != nil || string(data) != fmt.Sprintf("final for turn %d\n", k) {
				t.Errorf("session %s turn %d: file = %q, %v", s.id, k, data, err)
			}
		}
		events := checkLog(t, state, s.id, turns)
		for _, r := range logData(events, sessionlog.TypeToolResult) {
			if r["isError"] == true {
				t.Errorf("session %s: a tool failed: %v", s.id, r)
			}
		}
	}
}

// A soak of many turns with tools in one process: the goroutine count
// returns to its baseline once the editor disconnects, and the heap does
// not grow with the number of turns. Sessions are closed every 10 turns,
// as an editor closing tabs would. Run with -cordis.soak=1000 for the
// figure in RELIABILITY.md.
func TestSoakTurnsInOneProcess(t *testing.T) {
	if testing.Short() && *soakTurns > 50 {
		t.Skip("long soak in -short mode")
	}
	soak(t, *soakTurns)
}

// BenchmarkSoakHeap runs 200 turns in one process (as the soak test does)
// and reports the heap it keeps: after the whole soak against before it,
// and its growth between the warm-up and the last turn. Memory is measured
// here, not bounded in a test (docs/design.md: no timed or sized
// assertions on a shared machine).
func BenchmarkSoakHeap(b *testing.B) {
	for b.Loop() {
		h := soak(b, 200)
		b.ReportMetric(mib(h.final)-mib(h.base), "MiB-kept")
		b.ReportMetric(mib(h.end)-mib(h.warm), "MiB-growth-after-warmup")
	}
}

// soakHeap is the heap a soak saw: before it, after the warm-up, at the
// last turn and after the editor disconnected.
type soakHeap struct{ base, warm, end, final uint64 }

// soak runs total turns in one process, ten per session, and checks that
// every turn ends and no goroutine outlives the editor.
func soak(t testing.TB, total int) soakHeap {
	model := newToolModel(t)
	state := t.TempDir()
	cfg := loop.Config{Provider: toolModelProvider(t, model), Model: "claude-test", StateDir: state, DefaultMode: loop.ModeBypass}

	settle()
	baseG, baseHeap := runtime.NumGoroutine(), heapAlloc()

	c := startSoakClient(t, cfg)
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Minute)
	defer cancel()
	if err := c.conn.Call(ctx, acp.MethodInitialize, acp.InitializeRequest{ProtocolVersion: acp.ProtocolVersion}, nil); err != nil {
		t.Fatal(err)
	}
	const perSession = 10
	var (
		sid     string
		samples []string
		warmG   int
		warmH   uint64
	)
	start := time.Now()
	for i := range total {
		if i%perSession == 0 {
			if sid != "" {
				if err := c.conn.Call(ctx, acp.MethodSessionClose, acp.CloseSessionRequest{SessionID: sid}, nil); err != nil {
					t.Fatal(err)
				}
			}
			var resp acp.NewSessionResponse
			if err := c.conn.Call(ctx, acp.MethodSessionNew, acp.NewSessionRequest{Cwd: t.TempDir(), MCPServers: []acp.MCPServer{}}, &resp); err != nil {
				t.Fatal(err)
			}
			sid = resp.SessionID
		}
		var resp acp.PromptResponse
		err := c.conn.Call(ctx, acp.MethodSessionPrompt, acp.PromptRequest{SessionID: sid, Prompt: []acp.ContentBlock{acp.TextBlock("Please do turn " + strconv.Itoa(i))}}, &resp)
		if err != nil || resp.StopReason != acp.StopEndTurn {
			t.Fatalf("turn %d: %q, %v", i, resp.StopReason, err)
		}
		// Samples at session boundaries, once the warm-up (the first
		// fifth, at least one session) is over.
		if (i+1)%perSession == 0 {
			settle()
			g, hp := runtime.NumGoroutine(), heapAlloc()
			samples = append(samples, fmt.Sprintf("%d:%dg/%.1fMiB", i+1, g, mib(hp)))
			if warmG == 0 && i+1 >= max(total/5, perSession) {
				warmG, warmH = g, hp
			}
			if warmG != 0 && g > warmG+5 {
				t.Errorf("after %d turns: %d goroutines, %d after the warm-up", i+1, g, warmG)
			}
		}
	}
	elapsed := time.Since(start)
	endG, endHeap := runtime.NumGoroutine(), heapAlloc()
	c.close(t)
	model.srv.Close()
	deadline := time.Now().Add(10 * time.Second)
	for settle(); runtime.NumGoroutine() > baseG; settle() {
		if time.Now().After(deadline) {
			buf := make([]byte, 1<<20)
			t.Fatalf("%d goroutines before the soak, %d after:\n%s", baseG, runtime.NumGoroutine(), filterStacks(string(buf[:runtime.Stack(buf, true)])))
		}
		time.Sleep(20 * time.Millisecond)
	}
	finalG, finalHeap := runtime.NumGoroutine(), heapAlloc()
	t.Logf("soak: %d turns (%d model requests, %d tool calls, %d updates) in %s", total, model.requests.Load(), total*toolCallsPerTurn, c.updates.Load(), elapsed.Round(time.Millisecond))
	t.Logf("soak goroutines: %d before, %d at the end (editor connected), %d after disconnect", baseG, endG, finalG)
	t.Logf("soak heap: %.1f MiB before, %.1f MiB after warm-up, %.1f MiB at the end, %.1f MiB after disconnect", mib(baseHeap), mib(warmH), mib(endHeap), mib(finalHeap))
	t.Logf("soak samples (turns:goroutines/heap): %s", strings.Join(samples, " "))
	return soakHeap{base: baseHeap, warm: warmH, end: endHeap, final: finalHeap}
}

func settle() {
	runtime.GC()
	runtime.GC()
	time.Sleep(10 * time.Millisecond)
}

func heapAlloc() uint64 {
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	return ms.HeapAlloc
}

func mib(b uint64) float64 { return float64(b) / (1 << 20) }

// soakClient is a minimal editor that keeps nothing (acptest.Editor
// records every frame, which would dominate a heap measurement).
type soakClient struct {
	conn    *jsonrpc2.Conn
	out     io.Closer
	served  chan error
	updates atomic.Int64
}

type pipeRWC struct {
	io.Reader
	io.WriteCloser
}

func startSoakClient(t testing.TB, cfg loop.Config) *soakClient {
	agentIn, clientOut := io.Pipe()
	clientIn, agentOut := io.Pipe()
	c := &soakClient{out: clientOut, served: make(chan error, 1)}
	go func() {
		c.served <- acp.Serve(context.Background(), agentIn, agentOut, loop.New(cfg), acp.Options{})
		agentOut.Close()
	}()
	c.conn = jsonrpc2.NewConn(context.Background(), jsonrpc2.NewPlainObjectStream(pipeRWC{clientIn, clientOut}),
		jsonrpc2.HandlerWithError(func(ctx context.Context, conn *jsonrpc2.Conn, req *jsonrpc2.Request) (any, error) {
			if req.Notif {
				c.updates.Add(1)
				return nil, nil
			}
			return nil, &jsonrpc2.Error{Code: acp.CodeMethodNotFound, Message: "soak client: " + req.Method}
		}))
	return c
}

func (c *soakClient) close(t testing.TB) {
	c.out.Close()
	select {
	case err := <-c.served:
		if err != nil {
			t.Errorf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Error("the agent did not stop after the editor disconnected")
	}
	c.conn.Close()
	<-c.conn.DisconnectNotify()
}
