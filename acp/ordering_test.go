package acp_test

import (
	"bufio"
	"context"
	"encoding/json"
	"io"
	"strings"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/acp/acptest"
)

// Tests of the server's one ordering design (queue.go): intake never
// waits for a handler, requests are answered in wire order, cancels
// preempt.

// held is a fakeAgent whose LoadSession holds the request goroutine until
// the test releases it, and whose SetSessionMode asks the editor for a
// permission before it returns.
type held struct {
	*fakeAgent
	loading chan struct{} // closed when LoadSession starts
	release chan struct{} // LoadSession returns once it is closed
}

func startHeld(t *testing.T, prompt func(context.Context, *acp.Client, *acp.PromptRequest) (*acp.PromptResponse, error)) (*acptest.Editor, *held) {
	h := &held{loading: make(chan struct{}), release: make(chan struct{})}
	e := acptest.Start(t, func(c *acp.Client) acp.Agent { h.fakeAgent = newFake(prompt)(c).(*fakeAgent); return h })
	t.Cleanup(func() {
		select {
		case <-h.release:
		default:
			close(h.release)
		}
	})
	return e, h
}

func (h *held) LoadSession(ctx context.Context, req *acp.LoadSessionRequest) (*acp.LoadSessionResponse, error) {
	close(h.loading)
	<-h.release
	return &acp.LoadSessionResponse{}, nil
}

func (h *held) SetSessionMode(ctx context.Context, req *acp.SetSessionModeRequest) error {
	_, err := h.client.RequestPermission(ctx, &acp.RequestPermissionRequest{
		SessionID: req.SessionID,
		ToolCall:  acp.ToolCallUpdate{ToolCallID: "mode", Title: "Switch mode"},
		Options:   []acp.PermissionOption{{OptionID: "allow", Name: "Allow", Kind: acp.PermAllowOnce}},
	})
	return err
}

// untilCancelled is a turn that runs until it is cancelled, after closing
// started (when not nil).
func untilCancelled(started chan<- struct{}) func(context.Context, *acp.Client, *acp.PromptRequest) (*acp.PromptResponse, error) {
	return func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
		if started != nil {
			close(started)
		}
		<-ctx.Done()
		return &acp.PromptResponse{StopReason: acp.StopCancelled}, nil
	}
}

func promptLine(id, sessionID, text string) string {
	return `{"jsonrpc":"2.0","id":"` + id + `","method":"session/prompt","params":{"sessionId":"` + sessionID + `","prompt":[{"type":"text","text":"` + text + `"}]}}`
}

func cancelLine(sessionID string) string {
	return `{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"` + sessionID + `"}}`
}

const loadLine = `{"jsonrpc":"2.0","id":"load","method":"session/load","params":{"sessionId":"s0","cwd":"/tmp","mcpServers":[]}}`

// writeWhileHeld writes lines while the agent holds the request goroutine
// and returns once the server has taken them all in: it then writes a
// probe (a session/list with id "probe"), and a write to the pipe
// completes only when the server reads again, after every line before it.
func writeWhileHeld(ctx context.Context, t *testing.T, e *acptest.Editor, lines ...string) {
	t.Helper()
	read := make(chan struct{})
	go func() {
		e.WriteRaw(strings.Join(lines, "\n"))
		e.WriteRaw(`{"jsonrpc":"2.0","id":"probe","method":"session/list","params":{}}`)
		close(read)
	}()
	select {
	case <-read:
	case <-ctx.Done():
		t.Fatal("the server stopped reading while a request was being handled")
	}
}

func answered(t *testing.T, e *acptest.Editor, id string) map[string]any {
	t.Helper()
	return waitFrame(t, e, func(m map[string]any) bool { return m["id"] == id && (m["result"] != nil || m["error"] != nil) })
}

func stopReason(m map[string]any) any {
	res, _ := m["result"].(map[string]any)
	return res["stopReason"]
}

// TestCancelIsNotHeldUpByARunningRequest: session/cancel takes effect
// while a request before it on the wire is still being handled.
func TestCancelIsNotHeldUpByARunningRequest(t *testing.T) {
	ctx := ctxT(t)
	started := make(chan struct{})
	e, h := startHeld(t, untilCancelled(started))
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	e.WriteRaw(promptLine("p1", sess.SessionID, "x"))
	<-started
	e.WriteRaw(loadLine)
	<-h.loading
	writeWhileHeld(ctx, t, e, cancelLine(sess.SessionID))
	if got := answered(t, e, "p1"); stopReason(got) != "cancelled" {
		t.Fatalf("prompt answered %v, want stopReason cancelled", got)
	}
	for _, f := range e.Frames() {
		if strings.Contains(string(f), `"id":"load"`) {
			t.Fatalf("session/load answered before it was released: %s", f)
		}
	}
	close(h.release)
	answered(t, e, "load")
}

// TestCancelFindsAPromptWaitingInTheQueue: a prompt read while an earlier
// request is handled waits its turn in wire order, and a cancel read after
// it still cancels it.
func TestCancelFindsAPromptWaitingInTheQueue(t *testing.T) {
	ctx := ctxT(t)
	var h *held
	var ranEarly bool
	var e *acptest.Editor
	e, h = startHeld(t, func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
		select {
		case <-h.release:
		default:
			ranEarly = true
		}
		return untilCancelled(nil)(ctx, c, req)
	})
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	e.WriteRaw(loadLine)
	<-h.loading
	writeWhileHeld(ctx, t, e, promptLine("p1", sess.SessionID, "x"), cancelLine(sess.SessionID))
	close(h.release)
	if got := answered(t, e, "p1"); stopReason(got) != "cancelled" {
		t.Fatalf("prompt answered %v, want stopReason cancelled", got)
	}
	answered(t, e, "probe")
	if ranEarly {
		t.Fatal("the prompt's turn started before the session/load read before it returned")
	}
}

// TestCloseCancelsOnlyTurnsReadBeforeIt: session/close cancels the running
// turn, but not a prompt read after the close while it waited in the queue.
func TestCloseCancelsOnlyTurnsReadBeforeIt(t *testing.T) {
	ctx := ctxT(t)
	started := make(chan struct{})
	e, h := startHeld(t, func(ctx context.Context, c *acp.Client, req *acp.PromptRequest) (*acp.PromptResponse, error) {
		if req.Prompt[0].Text == "long" {
			return untilCancelled(started)(ctx, c, req)
		}
		return endTurn(ctx, c, req)
	})
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	e.WriteRaw(promptLine("long", sess.SessionID, "long"))
	<-started
	e.WriteRaw(loadLine)
	<-h.loading
	writeWhileHeld(ctx, t, e,
		`{"jsonrpc":"2.0","id":"close","method":"session/close","params":{"sessionId":"`+sess.SessionID+`"}}`,
		promptLine("short", sess.SessionID, "short"))
	close(h.release)
	if got := answered(t, e, "long"); stopReason(got) != "cancelled" {
		t.Fatalf("running turn answered %v, want cancelled by session/close", got)
	}
	if got := answered(t, e, "short"); stopReason(got) != "end_turn" {
		t.Fatalf("prompt read after session/close answered %v, want end_turn", got)
	}
}

// TestReverseCallFromAnOrderedMethod: a method other than Prompt may call
// the editor and wait: the answer is read while the method runs.
func TestReverseCallFromAnOrderedMethod(t *testing.T) {
	ctx := ctxT(t)
	e, _ := startHeld(t, endTurn)
	e.OnPermission = func(ctx context.Context, p *acp.RequestPermissionRequest) (*acp.RequestPermissionResponse, error) {
		return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: "allow"}}, nil
	}
	e.Initialize(ctx, acp.ClientCapabilities{})
	sess := e.NewSession(ctx, "/tmp")
	if err := e.Call(ctx, acp.MethodSessionSetMode, acp.SetSessionModeRequest{SessionID: sess.SessionID, ModeID: "plan"}, &json.RawMessage{}); err != nil {
		t.Fatal(err)
	}
}

// TestInputEndsWhileAMethodWaitsForTheEditor: a method waiting for an
// answer the editor can no longer send (its input has ended) is released,
// and Serve returns.
func TestInputEndsWhileAMethodWaitsForTheEditor(t *testing.T) {
	ctx := ctxT(t)
	inR, inW := io.Pipe()
	outR, outW := io.Pipe()
	h := &held{loading: make(chan struct{}), release: make(chan struct{})}
	newAgent := func(c *acp.Client) acp.Agent { h.fakeAgent = newFake(endTurn)(c).(*fakeAgent); return h }
	done := make(chan error, 1)
	go func() {
		done <- acp.Serve(ctx, inR, outW, newAgent, acp.Options{ShutdownGrace: 50 * time.Millisecond})
		outW.Close()
	}()
	go io.WriteString(inW, `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`+"\n"+
		`{"jsonrpc":"2.0","id":2,"method":"session/set_mode","params":{"sessionId":"s0","modeId":"plan"}}`+"\n")
	out := bufio.NewScanner(outR)
	for out.Scan() && !strings.Contains(out.Text(), acp.MethodSessionRequestPermission) {
	}
	inW.Close()
	go io.Copy(io.Discard, outR)
	select {
	case err := <-done:
		if err != nil {
			t.Fatal(err)
		}
	case <-ctx.Done():
		t.Fatal("Serve did not return: session/set_mode still waits for the editor")
	}
}
