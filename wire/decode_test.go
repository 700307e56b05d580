package wire

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/llm/anthropic"
	"github.com/cordis-agent/cordis/llm/openai"
)

// servePiece is the size of the pieces a fixture is served in, each
// flushed on its own: small and odd, so that event and line boundaries,
// CRLF pairs and UTF-8 sequences fall across reads.
const servePiece = 13

// wireKey is the API key the loopback server is called with; it is no
// real key.
const wireKey = "wire-test-key"

// TestDecode runs every authored stream in streams/<provider>/*.sse through
// cordis's real provider (llm/anthropic or llm/openai) against a loopback
// server that serves the fixture's bytes, so the HTTP, SSE and decoder
// path is the one a live step takes. With $WIRE_DECODED set it writes each
// result there as <provider>/<name>.json, in the normalized shape
// accumulate.mjs compares with the official SDKs' accumulators; without,
// it checks that every stream decodes (or fails) without panicking and
// that what was streamed to the sink is what the final message holds.
func TestDecode(t *testing.T) {
	files, err := filepath.Glob("streams/*/*.sse")
	if err != nil {
		t.Fatal(err)
	}
	if len(files) == 0 {
		t.Fatal("no streams/*/*.sse found")
	}
	sort.Strings(files)
	out := os.Getenv("WIRE_DECODED")
	for _, f := range files {
		provider := filepath.Base(filepath.Dir(f))
		name := strings.TrimSuffix(filepath.Base(f), ".sse")
		t.Run(provider+"/"+name, func(t *testing.T) {
			data, err := os.ReadFile(f)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.HasPrefix(data, []byte(": recording: authored\n")) {
				t.Fatalf("%s: the first line must be the SSE comment \": recording: authored\"", f)
			}
			got := decodeFixture(t, provider, data)
			if out == "" {
				return
			}
			b, err := marshal(got)
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(out, provider)
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(dir, name+".json"), b, 0o644); err != nil {
				t.Fatal(err)
			}
		})
	}
}

// decoded is cordis's result for one stream, normalized for the
// comparison in accumulate.mjs.
type decoded struct {
	Error      *decodedError    `json:"error"`
	ID         string           `json:"id,omitempty"`
	Model      string           `json:"model,omitempty"`
	Content    []map[string]any `json:"content"`
	StopReason string           `json:"stop_reason,omitempty"`
	Usage      map[string]any   `json:"usage,omitempty"`
}

type decodedError struct {
	Kind    llm.ErrorKind `json:"kind"`
	Status  int           `json:"status,omitempty"`
	Message string        `json:"message"`
}

// decodeFixture serves data on a loopback server and streams one step from
// it through the provider's public entry point.
func decodeFixture(t *testing.T, provider string, data []byte) decoded {
	t.Helper()
	wantPath := map[string]string{"anthropic": "/v1/messages", "openai": "/chat/completions"}[provider]
	if wantPath == "" {
		t.Fatalf("unknown provider folder %q", provider)
	}
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		_, _ = io.Copy(io.Discard, r.Body)
		if r.URL.Path != wantPath {
			http.Error(w, "unexpected path "+r.URL.Path, http.StatusNotFound)
			return
		}
		w.Header().Set("Content-Type", "text/event-stream")
		w.WriteHeader(http.StatusOK)
		flusher, _ := w.(http.Flusher)
		for rest := data; len(rest) > 0; {
			n := min(servePiece, len(rest))
			if _, err := w.Write(rest[:n]); err != nil {
				return
			}
			if flusher != nil {
				flusher.Flush()
			}
			rest = rest[n:]
		}
	}))
	defer srv.Close()

	getenv := func(k string) string {
		if k == anthropic.DefaultAPIKeyEnv || k == openai.DefaultAPIKeyEnv {
			return wireKey
		}
		return ""
	}
	var p llm.Provider
	var err error
	switch provider {
	case "anthropic":
		p, err = anthropic.New(anthropic.Config{BaseURL: srv.URL, Model: "claude-sonnet-4-5", MaxRetries: -1},
			anthropic.WithGetenv(getenv), anthropic.WithHTTPClient(srv.Client()))
	case "openai":
		p, err = openai.New(openai.Config{BaseURL: srv.URL, Model: "gpt-4.1", MaxRetries: -1},
			openai.WithGetenv(getenv), openai.WithHTTPClient(srv.Client()))
	}
	if err != nil {
		t.Fatal(err)
	}

	var streamedText, streamedThinking strings.Builder
	sink := func(d llm.Delta) {
		switch d.Kind {
		case llm.DeltaText:
			streamedText.WriteString(d.Text)
		case llm.DeltaThinking:
			streamedThinking.WriteString(d.Text)
		}
	}
	req := &llm.Request{Messages: []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.Text("Go.")}}}}
	resp, err := p.Stream(context.Background(), req, sink)

	var got decoded
	if err != nil {
		var e *llm.Error
		if !errors.As(err, &e) {
			t.Fatalf("Stream failed with %T %v, not an *llm.Error", err, err)
		}
		got.Error = &decodedError{Kind: e.Kind, Status: e.StatusCode, Message: e.Message}
		if strings.Contains(e.Error(), wireKey) {
			t.Errorf("the error carries the API key: %v", e)
		}
		return got // the SDKs keep no partial message: nothing more to compare
	}
	if resp == nil {
		t.Fatal("Stream returned neither a response nor an error")
	}
	got.ID, got.Model, got.StopReason = resp.ID, resp.Model, string(resp.StopReason)
	got.Usage = normalizedUsage(t, resp.Usage)
	got.Content = make([]map[string]any, 0, len(resp.Content))
	var finalText, finalThinking strings.Builder
	for _, b := range resp.Content {
		got.Content = append(got.Content, normalizedBlock(t, b))
		if b.Type == llm.BlockText {
			finalText.WriteString(b.Text)
		}
		finalThinking.WriteString(b.Thinking)
	}
	if streamedText.String() != finalText.String() {
		t.Errorf("text streamed to the sink %q differs from the final message's text %q", streamedText.String(), finalText.String())
	}
	if streamedThinking.String() != finalThinking.String() {
		t.Errorf("thinking streamed to the sink %q differs from the final message's %q", streamedThinking.String(), finalThinking.String())
	}
	return got
}

// normalizedUsage is llm.Usage as JSON, with the four token counters always
// present (the struct omits the cache counters when zero) and any counter
// added later passed through for the comparison to see.
func normalizedUsage(t *testing.T, u llm.Usage) map[string]any {
	m := toMap(t, u)
	for _, k := range []string{"input_tokens", "output_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"} {
		if _, ok := m[k]; !ok {
			m[k] = json.Number("0")
		}
	}
	return m
}

// normalizedBlock is one content block in the SDK's field names: the
// fields that belong to its type, tool input parsed. Block types this code
// does not know (server-tool blocks, once llm.Block carries them) pass
// through as llm.Block's own JSON.
func normalizedBlock(t *testing.T, b llm.Block) map[string]any {
	switch b.Type {
	case llm.BlockText:
		// Through llm.Block's JSON, so that fields added to text blocks
		// (citations) reach the comparison.
		m := toMap(t, b)
		m["text"] = b.Text
		return m
	case llm.BlockThinking:
		return map[string]any{"type": "thinking", "thinking": b.Thinking, "signature": b.Signature}
	case llm.BlockRedactedThinking:
		return map[string]any{"type": "redacted_thinking", "data": b.Data}
	case llm.BlockToolUse:
		m := map[string]any{"type": "tool_use", "id": b.ID, "name": b.Name, "input": nil}
		if b.Input != nil {
			v, err := decodeJSON(b.Input)
			if err != nil {
				t.Fatalf("tool_use %s: input %s is not JSON: %v", b.ID, b.Input, err)
			}
			m["input"] = v
		} else {
			m["raw_input"] = b.Text // not runnable: the fragments as streamed
		}
		if b.Raw != nil {
			// An OpenAI-compatible server's extras of the call (Gemini's
			// extra_content), kept to be sent back.
			v, err := decodeJSON(b.Raw)
			if err != nil {
				t.Fatalf("tool_use %s: extras %s are not JSON: %v", b.ID, b.Raw, err)
			}
			m["extra_content"] = v
		}
		return m
	}
	return toMap(t, b)
}

func toMap(t *testing.T, v any) map[string]any {
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	d := json.NewDecoder(bytes.NewReader(b))
	d.UseNumber()
	var m map[string]any
	if err := d.Decode(&m); err != nil {
		t.Fatal(err)
	}
	return m
}
