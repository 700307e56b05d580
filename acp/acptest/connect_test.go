package acptest

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"reflect"
	"slices"
	"strings"
	"sync"
	"testing"
)

// scriptedAgent is the agent side of a Connect editor, written and read
// by the test line by line.
type scriptedAgent struct {
	t   *testing.T
	out *io.PipeWriter // what the agent writes (the editor reads)
	in  *bufio.Reader  // what the editor writes
}

func (a *scriptedAgent) write(line string) {
	a.t.Helper()
	if _, err := io.WriteString(a.out, line+"\n"); err != nil {
		a.t.Fatal(err)
	}
}

func (a *scriptedAgent) read() string {
	a.t.Helper()
	line, err := a.in.ReadString('\n')
	if err != nil {
		a.t.Fatalf("reading what the editor wrote: %v", err)
	}
	return strings.TrimSuffix(line, "\n")
}

// log is a concurrency-safe list of strings.
type log struct {
	mu    sync.Mutex
	lines []string
}

func (l *log) add(s string) {
	l.mu.Lock()
	defer l.mu.Unlock()
	l.lines = append(l.lines, s)
}

func (l *log) all() []string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return slices.Clone(l.lines)
}

func connectScripted(t *testing.T, serve func(*Request)) (*Editor, *scriptedAgent, *log, *log) {
	agentOut, editorIn := io.Pipe()
	editorOut, agentIn := io.Pipe()
	taps, problems := &log{}, &log{}
	e := Connect(agentOut, agentIn, Options{
		Name:    t.Name(),
		Problem: problems.add,
		Tap: func(f Frame) {
			from := "editor"
			if f.FromAgent {
				from = "agent"
			}
			taps.add(from + " " + string(f.Line))
		},
		Serve: serve,
	})
	t.Cleanup(func() {
		editorIn.Close()
		e.Close()
	})
	return e, &scriptedAgent{t: t, out: editorIn, in: bufio.NewReader(editorOut)}, taps, problems
}

// TestConnectServesInOrderAndHolds: requests reach Serve in arrival order
// after the tap saw them; a request held by Serve is answered later, after
// one that came behind it; every frame is tapped as written, in wire
// order.
func TestConnectServesInOrderAndHolds(t *testing.T) {
	// Its fake agent writes frames that are not ACP on purpose: keep them
	// out of the transcripts CI validates against the ACP schema.
	t.Setenv("CORDIS_ACP_TRANSCRIPT_DIR", "")
	held := make(chan *Request, 1)
	var taps *log
	var served []string // read goroutine only
	e, agent, taps, problems := connectScripted(t, func(r *Request) {
		seen := taps.all()
		served = append(served, r.Method+" after "+seen[len(seen)-1])
		if r.Method == "test/hold" {
			held <- r // answered by the test, later
			return
		}
		r.Reply(map[string]string{"answered": r.Method}, nil)
	})
	agent.write(`{"jsonrpc":"2.0","id":"a","method":"test/hold","params":{}}`)
	agent.write(`{"jsonrpc":"2.0","id":"b","method":"test/now","params":{}}`)
	answerB := agent.read()
	if !sameJSON(answerB, `{"jsonrpc":"2.0","id":"b","result":{"answered":"test/now"}}`) {
		t.Fatalf("first answer %s, want test/now's (test/hold is held)", answerB)
	}
	// The pipe is unbuffered: the test reads what the reply writes.
	go (<-held).Reply(nil, MethodNotFound("test/hold"))
	answerA := agent.read()
	if !sameJSON(answerA, `{"jsonrpc":"2.0","id":"a","error":{"code":-32601,"message":"Method not found: test/hold"}}`) {
		t.Fatalf("held answer %s", answerA)
	}

	// A call: its response is tapped before Call returns.
	done := make(chan error, 1)
	var result json.RawMessage
	go func() { done <- e.Call(context.Background(), "test/ask", map[string]int{"n": 1}, &result) }()
	req := agent.read()
	var id struct{ ID json.RawMessage }
	json.Unmarshal([]byte(req), &id)
	agent.write(`{"jsonrpc":"2.0","id":` + string(id.ID) + `,"result":{"ok":true}}`)
	if err := <-done; err != nil || string(result) != `{"ok":true}` {
		t.Fatalf("call: %s, %v", result, err)
	}
	agent.write(`warning: not a frame`)
	agent.write(`{"jsonrpc":"2.0","id":4242,"result":{}}`)
	agent.out.Close()
	<-e.Done()

	want := []string{
		`agent {"jsonrpc":"2.0","id":"a","method":"test/hold","params":{}}`,
		`agent {"jsonrpc":"2.0","id":"b","method":"test/now","params":{}}`,
		`editor ` + answerB,
		`editor ` + answerA,
		`editor ` + req,
		`agent {"jsonrpc":"2.0","id":` + string(id.ID) + `,"result":{"ok":true}}`,
		`agent {"jsonrpc":"2.0","id":4242,"result":{}}`,
	}
	if got := taps.all(); !slices.Equal(got, want) {
		t.Errorf("taps:\n%s\nwant:\n%s", strings.Join(got, "\n"), strings.Join(want, "\n"))
	}
	if want := []string{"test/hold after " + want[0], "test/now after " + want[1]}; !slices.Equal(served, want) {
		t.Errorf("served %q, want %q", served, want)
	}
	if got := problems.all(); len(got) != 2 || !strings.Contains(got[0], `non-JSON-RPC line to stdout: "warning: not a frame"`) || !strings.Contains(got[1], "did not make: id 4242") {
		t.Errorf("problems %q", got)
	}
	if len(e.Frames()) != 4 || e.Err() != nil {
		t.Errorf("frames %d (want the agent's 4 JSON-RPC ones), err %v", len(e.Frames()), e.Err())
	}
}

func sameJSON(a, b string) bool {
	var x, y any
	if json.Unmarshal([]byte(a), &x) != nil || json.Unmarshal([]byte(b), &y) != nil {
		return false
	}
	return reflect.DeepEqual(x, y)
}

// TestCloseWriteDropsLateReplies: after CloseWrite, a reply is neither
// written nor tapped.
func TestCloseWriteDropsLateReplies(t *testing.T) {
	// Its fake agent writes frames that are not ACP on purpose: keep them
	// out of the transcripts CI validates against the ACP schema.
	t.Setenv("CORDIS_ACP_TRANSCRIPT_DIR", "")
	held := make(chan *Request, 1)
	e, agent, taps, _ := connectScripted(t, func(r *Request) { held <- r })
	agent.write(`{"jsonrpc":"2.0","id":1,"method":"terminal/wait_for_exit","params":{}}`)
	r := <-held
	if err := e.CloseWrite(); err != nil {
		t.Fatal(err)
	}
	r.Reply(struct{}{}, nil)
	if _, err := agent.in.ReadString('\n'); err != io.EOF {
		t.Fatalf("the agent's input after CloseWrite: %v, want EOF", err)
	}
	for _, line := range taps.all() {
		if strings.HasPrefix(line, "editor") {
			t.Errorf("tapped after CloseWrite: %s", line)
		}
	}
}
