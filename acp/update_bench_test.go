package acp

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
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

// TestReplyWritesWhatJSONRPCWrites: the server's one-encoding reply path
// writes the bytes jsonrpc2's Reply writes, for every shape of result and
// id, and nothing once the connection is closed.
func TestReplyWritesWhatJSONRPCWrites(t *testing.T) {
	results := []any{
		&InitializeResponse{ProtocolVersion: 1, AuthMethods: []AuthMethod{}, AgentInfo: &Implementation{Name: "cordis <&>", Version: "\u2028"}},
		&InitializeResponse{ProtocolVersion: 1, AgentCapabilities: AgentCapabilities{LoadSession: true, SessionCapabilities: SessionCapabilities{List: &Supported{}, Delete: &Supported{}}},
			AuthMethods: []AuthMethod{{ID: "env:X", Name: "Set X", Description: "cordis reads X"}}, AgentInfo: &Implementation{Name: "cordis", Title: "cordis", Version: "v1.2.3"}},
		InitializeResponse{},
		&NewSessionResponse{SessionID: "sess_1"},
		&PromptResponse{StopReason: StopEndTurn},
		struct{}{},
		nil,
		json.RawMessage("{ \"a\" : [1, 2,\n 3], \"b\": \"<x>\" }"),
		map[string]any{"z": 1, "a": "é"},
	}
	ids := []jsonrpc2.ID{{Num: 0}, {Num: 42}, {Str: "req-7", IsString: true}, {Str: "", IsString: true}}
	for _, result := range results {
		for _, id := range ids {
			var fast, slow bytes.Buffer
			r, w := io.Pipe()
			stream := newLineStream(r, &slow, r, slog.New(slog.DiscardHandler))
			conn := jsonrpc2.NewConn(context.Background(), stream, jsonrpc2.HandlerWithError(func(context.Context, *jsonrpc2.Conn, *jsonrpc2.Request) (any, error) {
				return nil, nil
			}))
			if err := conn.Reply(context.Background(), id, result); err != nil {
				t.Fatal(err)
			}
			stream.w = &fast
			if err := stream.reply(conn.DisconnectNotify(), id, result); err != nil {
				t.Fatal(err)
			}
			if fast.String() != slow.String() {
				t.Errorf("result %T, id %v:\nfast %s\nslow %s", result, id, fast.String(), slow.String())
			}
			w.Close()
			conn.Close()
			fast.Reset()
			if err := stream.reply(conn.DisconnectNotify(), id, result); err == nil || fast.Len() > 0 {
				t.Errorf("after close: err %v, wrote %q", err, fast.String())
			}
		}
	}
}

// streamClient is the server's client attached to conn, as Serve makes it.
func streamClient(conn *jsonrpc2.Conn, stream *lineStream) *Client {
	c := &Client{}
	c.attach(conn, stream)
	return c
}
