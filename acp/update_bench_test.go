package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"strings"
	"sync"
	"testing"

	"github.com/sourcegraph/jsonrpc2"
)

// BenchmarkSessionUpdate measures the agent's cost of one streamed text
// delta on the wire: Client.SessionUpdate of an agent_message_chunk to a
// line stream whose writer keeps nothing, as Serve wires it ("stream")
// and through jsonrpc2's Notify ("jsonrpc2", the path before the stream
// wrote updates itself).
func BenchmarkSessionUpdate(b *testing.B) {
	for _, path := range []string{"stream", "jsonrpc2"} {
		b.Run("path="+path, func(b *testing.B) {
			r, w := io.Pipe()
			b.Cleanup(func() { w.Close() })
			stream := newLineStream(r, io.Discard, r, slog.New(slog.DiscardHandler))
			conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
				return nil, nil
			}))
			b.Cleanup(func() { conn.Close() })
			c := streamClient(conn, stream)
			if path == "jsonrpc2" {
				c = NewClient(conn)
			}
			ctx := context.Background()
			u := AgentMessageChunk{Content: TextBlock("d000123 lorem   ")}
			b.ReportAllocs()
			for b.Loop() {
				if err := c.SessionUpdate(ctx, "sess_lpz4mhj7cqwg7skyryvbsngpfy", u); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

// TestNotifyWritesWhatJSONRPCWrites pins the fast session/update path to
// the bytes jsonrpc2's Notify writes for the same notification.
func TestNotifyWritesWhatJSONRPCWrites(t *testing.T) {
	updates := []SessionUpdate{
		AgentMessageChunk{Content: TextBlock("d000123 lorem  ")},
		AgentMessageChunk{Content: TextBlock("")},
		AgentThoughtChunk{Content: TextBlock("<b> & \"quoted\" \u2028 \U0001F600\n\ttab")},
		ToolCall{ToolCallID: "toolu_1", Title: "Read a <file>", Kind: ToolKindRead, Status: ToolStatusPending,
			RawInput: json.RawMessage("{ \"file_path\" : \"/tmp/a&b\",\n \"limit\": 3 }")},
		PlanUpdate{Entries: []PlanEntry{{Content: "step", Priority: "high", Status: "pending"}}},
		UsageUpdate{Used: 10, Size: 200000, Cost: &Cost{Amount: 0.25, Currency: "USD"}},
	}
	for _, u := range updates {
		var fast, slow bytes.Buffer
		r, w := io.Pipe()
		stream := newLineStream(r, &slow, r, slog.New(slog.DiscardHandler))
		conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
			return nil, nil
		}))
		n := SessionNotification{SessionID: "sess_1", Update: u}
		if err := conn.Notify(context.Background(), MethodSessionUpdate, n); err != nil {
			t.Fatal(err)
		}
		stream.w = &fast
		if err := streamClient(conn, stream).SessionUpdate(context.Background(), "sess_1", u); err != nil {
			t.Fatal(err)
		}
		if fast.String() != slow.String() {
			t.Errorf("%s:\nfast %s\nslow %s", u.UpdateKind(), fast.String(), slow.String())
		}
		w.Close()
		conn.Close()
		fast.Reset()
		if err := streamClient(conn, stream).SessionUpdate(context.Background(), "sess_1", u); err == nil || fast.Len() > 0 {
			t.Errorf("after close: err %v, wrote %q", err, fast.String())
		}
	}
}

// streamClient is the server's client attached to conn, as Serve makes it.
func streamClient(conn *jsonrpc2.Conn, stream *lineStream) *Client {
	c := &Client{}
	c.attach(conn, stream)
	return c
}

// countingWriter records each Write as one chunk.
type countingWriter struct {
	mu     sync.Mutex
	chunks []string
}

func (w *countingWriter) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.chunks = append(w.chunks, string(p))
	return len(p), nil
}

func (w *countingWriter) take() []string {
	w.mu.Lock()
	defer w.mu.Unlock()
	c := w.chunks
	w.chunks = nil
	return c
}

// TestBatchUpdatesWritesTheSameFrames: under BatchUpdates the frames are
// those SessionUpdate writes one by one, in order, written only by flush or
// once 64 KiB are queued, always as whole frames; a context batched for
// another client does not batch.
func TestBatchUpdatesWritesTheSameFrames(t *testing.T) {
	r, w := io.Pipe()
	defer w.Close()
	out := &countingWriter{}
	stream := newLineStream(r, out, r, slog.New(slog.DiscardHandler))
	conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
		return nil, nil
	}))
	defer conn.Close()
	c := streamClient(conn, stream)
	ctx := context.Background()
	var updates []SessionUpdate
	for i := range 300 {
		updates = append(updates, AgentMessageChunk{Content: TextBlock(strings.Repeat("x", i*7) + " <&>")})
	}
	send := func(ctx context.Context, us []SessionUpdate) {
		for _, u := range us {
			if err := c.SessionUpdate(ctx, "sess_1", u); err != nil {
				t.Fatal(err)
			}
		}
	}

	send(ctx, updates)
	one := out.take()
	if len(one) != len(updates) {
		t.Fatalf("unbatched: %d writes for %d updates", len(one), len(updates))
	}
	want := strings.Join(one, "")

	batched, flush := c.BatchUpdates(ctx)
	send(batched, updates[:5])
	if got := out.take(); len(got) != 0 {
		t.Fatalf("a small batch wrote before flush: %q", got)
	}
	send(batched, updates[5:])
	early := out.take()
	if len(early) == 0 {
		t.Fatalf("%d bytes queued and nothing written before flush", len(want))
	}
	if err := flush(); err != nil {
		t.Fatal(err)
	}
	all := append(early, out.take()...)
	for i, chunk := range all {
		if !strings.HasSuffix(chunk, "}\n") {
			t.Fatalf("write %d does not end with a whole frame: ...%q", i, chunk[max(0, len(chunk)-20):])
		}
	}
	if got := strings.Join(all, ""); got != want {
		t.Fatalf("batched frames differ from the unbatched ones (%d vs %d bytes)", len(got), len(want))
	}
	if len(all) >= len(updates)/10 {
		t.Fatalf("%d writes for %d updates: not batched", len(all), len(updates))
	}

	other := streamClient(conn, stream)
	foreign, _ := other.BatchUpdates(ctx)
	send(foreign, updates[:3])
	if got := out.take(); len(got) != 3 {
		t.Fatalf("another client's batch context batched this client's updates: %d writes", len(got))
	}
}
