package main

import (
	"encoding/json"
	"os"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/sessionlog"
)

// splitKeyReply streams thinking and then text, each carrying the key in
// three deltas; the text's deltas are padded past the log's 4 KiB batch,
// so that each half of the key would be written in a stream/text event of
// its own.
func splitKeyReply(thinking, text []string) string {
	events := []string{
		ev("message_start", `{"type":"message_start","message":{"id":"msg_1","type":"message","role":"assistant","model":"claude-sonnet-4-5","content":[],"usage":{"input_tokens":10,"output_tokens":1}}}`),
		ev("content_block_start", `{"type":"content_block_start","index":0,"content_block":{"type":"thinking","thinking":""}}`),
	}
	delta := func(index, kind, field, value string) string {
		q, _ := json.Marshal(value)
		return ev("content_block_delta", `{"type":"content_block_delta","index":`+index+`,"delta":{"type":"`+kind+`","`+field+`":`+string(q)+`}}`)
	}
	for _, piece := range thinking {
		events = append(events, delta("0", "thinking_delta", "thinking", piece))
	}
	events = append(events,
		delta("0", "signature_delta", "signature", "sig"),
		ev("content_block_stop", `{"type":"content_block_stop","index":0}`),
		ev("content_block_start", `{"type":"content_block_start","index":1,"content_block":{"type":"text","text":""}}`))
	for _, piece := range text {
		events = append(events, delta("1", "text_delta", "text", piece))
	}
	return sse(append(events,
		ev("content_block_stop", `{"type":"content_block_stop","index":1}`),
		ev("message_delta", `{"type":"message_delta","delta":{"stop_reason":"end_turn"},"usage":{"output_tokens":5}}`),
		ev("message_stop", `{"type":"message_stop"}`))...)
}

// Issue 27, finding 10: the model streams the provider key split over
// three deltas, in its thinking and in its text. Each frame and log line
// used to be scrubbed alone, so the editor, joining the chunks, had the
// key whole, and so did the log's stream/text batches joined (what a
// reload after a crash shows). Now neither does, and the text around the
// key arrives intact, in order.
func TestKeySplitOverChunksIsScrubbed(t *testing.T) {
	ctx := testCtx(t)
	const redacted = "[REDACTED:ANTHROPIC_API_KEY]"
	pad := strings.Repeat("lorem ipsum ", 350) // 4,200 bytes
	k1, k2, k3 := fakeKey[:9], fakeKey[9:31], fakeKey[31:]
	thinking := []string{"thinking about " + k1, k2, k3 + " done"}
	text := []string{"Start. " + pad + k1, k2, k3 + pad + "End."}
	model := newFakeModel(t, splitKeyReply(thinking, text))
	p := startProc(t, model.srv.URL, procOpts{env: []string{"ANTHROPIC_API_KEY=" + fakeKey}})
	p.e.Initialize(ctx, acp.ClientCapabilities{})
	sid := p.e.NewSession(ctx, p.work).SessionID
	if stop, err := p.e.Prompt(ctx, sid, "say it"); err != nil || stop != acp.StopEndTurn {
		t.Fatalf("prompt = %q, %v", stop, err)
	}

	var shown, thought strings.Builder
	chunks := 0
	for _, u := range p.e.Updates(sid) {
		switch c := u.(type) {
		case *acp.AgentMessageChunk:
			shown.WriteString(c.Content.Text)
			chunks++
		case *acp.AgentThoughtChunk:
			thought.WriteString(c.Content.Text)
		}
	}
	if chunks < 2 {
		t.Fatalf("the text came in %d chunks; the test needs it streamed", chunks)
	}
	if want := "Start. " + pad + redacted + pad + "End."; shown.String() != want {
		t.Errorf("the editor's joined chunks are not the text with the key redacted:\n got %.200q…\nwant %.200q…", shown.String(), want)
	}
	if want := "thinking about " + redacted + " done"; thought.String() != want {
		t.Errorf("the editor's joined thought chunks = %q, want %q", thought.String(), want)
	}

	data, err := os.ReadFile(sessionlog.Path(p.state, sid))
	if err != nil {
		t.Fatal(err)
	}
	if strings.Contains(string(data), fakeKey) {
		t.Errorf("the session log holds the key")
	}
	events, _, err := sessionlog.Read(sessionlog.Path(p.state, sid))
	if err != nil {
		t.Fatal(err)
	}
	var streamed strings.Builder
	batches := 0
	for _, e := range events {
		if e.Type == sessionlog.TypeStreamText {
			var st struct{ Text string }
			json.Unmarshal(e.Data, &st)
			streamed.WriteString(st.Text)
			batches++
		}
	}
	if batches < 2 {
		t.Fatalf("%d stream/text batches in the log; the test needs the key to straddle two", batches)
	}
	if strings.Contains(streamed.String(), fakeKey) || strings.Contains(streamed.String(), k1+k2) || strings.Contains(streamed.String(), k2+k3) {
		t.Errorf("the log's stream/text batches, joined, hold the key (or most of it)")
	}
	if !strings.HasPrefix(shown.String(), streamed.String()) {
		t.Errorf("the log's batches are not the start of what the editor was shown")
	}
}
