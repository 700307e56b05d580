package acp_test

import (
	"context"
	"io"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/cordis-agent/cordis/acp"
)

// lockedBuffer is an io.Writer the test may read while Serve writes.
type lockedBuffer struct {
	mu sync.Mutex
	b  strings.Builder
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// serveAll runs Serve on input until it reaches EOF and returns stdout.
func serveAll(t *testing.T, input string, opts acp.Options) string {
	t.Helper()
	var out lockedBuffer
	if err := acp.Serve(ctxT(t), strings.NewReader(input), &out, newFake(endTurn), opts); err != nil {
		t.Fatalf("Serve: %v", err)
	}
	return out.String()
}

// TestFirstRequestAnswersLikeTheConnection: the first line is answered
// before the connection starts when it is an initialize request; whatever
// it is, the bytes written are those the connection writes for the same
// line. A leading blank line sends the same input through the connection.
func TestFirstRequestAnswersLikeTheConnection(t *testing.T) {
	const newSession = `{"jsonrpc":"2.0","id":9,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}`
	for name, first := range map[string]string{
		"initialize":            `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"terminal":true}}}`,
		"string id":             `{"jsonrpc":"2.0","id":"a-1","method":"initialize","params":{"protocolVersion":1}}`,
		"older version":         `{"jsonrpc":"2.0","id":2,"method":"initialize","params":{"protocolVersion":0}}`,
		"newer version":         `{"jsonrpc":"2.0","id":3,"method":"initialize","params":{"protocolVersion":7}}`,
		"no params":             `{"jsonrpc":"2.0","id":4,"method":"initialize"}`,
		"null params":           `{"jsonrpc":"2.0","id":5,"method":"initialize","params":null}`,
		"missing version":       `{"jsonrpc":"2.0","id":6,"method":"initialize","params":{"clientCapabilities":{}}}`,
		"wrong type":            `{"jsonrpc":"2.0","id":7,"method":"initialize","params":{"protocolVersion":"1"}}`,
		"params not an object":  `{"jsonrpc":"2.0","id":8,"method":"initialize","params":[1]}`,
		"no id (notification)":  `{"jsonrpc":"2.0","method":"initialize","params":{"protocolVersion":1}}`,
		"null id":               `{"jsonrpc":"2.0","id":null,"method":"initialize","params":{"protocolVersion":1}}`,
		"negative id":           `{"jsonrpc":"2.0","id":-1,"method":"initialize","params":{"protocolVersion":1}}`,
		"a response":            `{"jsonrpc":"2.0","id":1,"result":{}}`,
		"request and response":  `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1},"result":{}}`,
		"another method first":  newSession,
		"malformed":             `{"jsonrpc":"2.0","id":1,"method":"initialize",`,
		"a batch":               `[{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}]`,
		"not JSON":              `hello`,
		"CRLF":                  `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\r",
		"leading space":         ` {"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`,
		"zed":                   `{"jsonrpc":"2.0","id":0,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true,"writeTextFile":true},"terminal":true,"_meta":{"terminal_output":true,"terminal-auth":true}},"clientInfo":{"name":"zed","title":"Zed","version":"0.212.4"}}}`,
		"id beyond int64":       `{"jsonrpc":"2.0","id":18446744073709551615,"method":"initialize","params":{"protocolVersion":1}}`,
		"id minus zero":         `{"jsonrpc":"2.0","id":-0,"method":"initialize","params":{"protocolVersion":1}}`,
		"repeated struct key":   `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1,"clientCapabilities":{"fs":{"readTextFile":true},"fs":{"writeTextFile":true}}}}`,
		"case-folded key":       `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"ProtocolVersion":2}}`,
		"trailing value":        `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}} 5`,
		"duplicate method keys": `{"jsonrpc":"2.0","id":1,"method":"session/new","method":"initialize","params":{"protocolVersion":1}}`,
	} {
		t.Run(name, func(t *testing.T) {
			rest := "\n" + newSession + "\n"
			direct := serveAll(t, first+rest, acp.Options{})
			viaConn := serveAll(t, "\n"+first+rest, acp.Options{})
			if direct != viaConn {
				t.Fatalf("first line answered differently from the connection's answer:\nfirst: %s\nconn:  %s", direct, viaConn)
			}
			if direct == "" {
				t.Fatal("nothing written: session/new is always answered")
			}
		})
	}
	t.Run("without a newline at EOF", func(t *testing.T) {
		const init = `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}`
		if direct, viaConn := serveAll(t, init, acp.Options{}), serveAll(t, "\n"+init, acp.Options{}); direct != viaConn || !strings.Contains(direct, `"id":1`) {
			t.Fatalf("first: %q\nconn:  %q", direct, viaConn)
		}
	})
}

// TestStartedRunsAfterTheFirstAnswer: Options.Started sees the initialize
// answer already written, and requests after it are served.
func TestStartedRunsAfterTheFirstAnswer(t *testing.T) {
	var out lockedBuffer
	var atStart string
	in := `{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":1}}` + "\n" +
		`{"jsonrpc":"2.0","id":2,"method":"session/new","params":{"cwd":"/tmp","mcpServers":[]}}` + "\n"
	err := acp.Serve(ctxT(t), strings.NewReader(in), &out, newFake(endTurn), acp.Options{Started: func() { atStart = out.String() }})
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(atStart, `"id":1,"result":{"protocolVersion":1`) {
		t.Fatalf("Started saw %q, want the initialize answer", atStart)
	}
	if !strings.Contains(out.String(), `"id":2,"result":{"sessionId"`) {
		t.Fatalf("session/new not answered: %s", out.String())
	}
}

// TestServeEndsWhileWaitingForTheFirstLine: ending ctx before the editor
// has written anything ends Serve (the reader is closed).
func TestServeEndsWhileWaitingForTheFirstLine(t *testing.T) {
	inR, inW := io.Pipe()
	defer inW.Close()
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	started := make(chan struct{})
	go func() {
		done <- acp.Serve(ctx, inR, io.Discard, newFake(endTurn), acp.Options{Started: func() { close(started) }})
	}()
	time.Sleep(10 * time.Millisecond) // let Serve block on the first read (the test passes either way)
	cancel()
	select {
	case err := <-done:
		if err != nil {
			t.Fatalf("Serve: %v", err)
		}
	case <-time.After(10 * time.Second):
		t.Fatal("Serve still waiting for the first line after ctx ended")
	}
	select {
	case <-started:
	default:
		t.Fatal("Started not called")
	}
}
