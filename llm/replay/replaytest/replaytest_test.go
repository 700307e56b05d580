package replaytest

import (
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func writeFiles(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for name, content := range files {
		path := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, []byte(content), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

func TestLoadAuthored(t *testing.T) {
	const meta = "model: m\nmaxTokens: 1\n"
	for name, c := range map[string]struct {
		files map[string]string
		ok    bool
	}{
		"responses only":  {map[string]string{"fixture.yml": meta, "01-main/001.response.sse": "a", "01-main/002.response.sse": "b"}, true},
		"gap":             {map[string]string{"fixture.yml": meta, "01-main/001.response.sse": "a", "01-main/003.response.sse": "c"}, false},
		"stray file":      {map[string]string{"fixture.yml": meta, "01-main/001.response.sse": "a", "01-main/notes.txt": ""}, false},
		"no conversation": {map[string]string{"fixture.yml": meta}, false},
		"no meta":         {map[string]string{"01-main/001.response.sse": "a"}, false},
	} {
		t.Run(name, func(t *testing.T) {
			dir := filepath.Join(t.TempDir(), "demo")
			writeFiles(t, dir, c.files)
			fx, err := LoadAuthored(dir)
			if (err == nil) != c.ok {
				t.Fatalf("LoadAuthored: %v, want ok=%v", err, c.ok)
			}
			if c.ok && (len(fx.Conversations) != 1 || len(fx.Conversations[0].Calls) != 2 || string(fx.Conversations[0].Calls[1].Response) != "b") {
				t.Fatalf("fixture %+v", fx)
			}
		})
	}
}

// TestWireServer: the wire's shape is checked, conversations bind in
// first-call order, and calls nobody made are reported.
func TestWireServer(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "demo")
	writeFiles(t, dir, map[string]string{"fixture.yml": "model: m\nmaxTokens: 1\n",
		"01-main/001.response.sse": "main 1", "01-main/002.response.sse": "main 2", "02-subagent/001.response.sse": "sub 1"})
	fx, err := LoadAuthored(dir)
	if err != nil {
		t.Fatal(err)
	}
	ws := NewWireServer(fx)
	srv := httptest.NewServer(ws)
	defer srv.Close()
	post := func(key, body string) (int, string) {
		req, _ := http.NewRequest(http.MethodPost, srv.URL+"/v1/messages", strings.NewReader(body))
		if key != "" {
			req.Header.Set("X-Api-Key", key)
		}
		req.Header.Set("Anthropic-Version", "2023-06-01")
		resp, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		defer resp.Body.Close()
		data, _ := io.ReadAll(resp.Body)
		return resp.StatusCode, string(data)
	}
	main := `{"system":[{"type":"text","text":"main"}],"messages":[{"role":"user","content":"hi"}]}`
	sub := `{"system":[{"type":"text","text":"sub"}],"messages":[{"role":"user","content":"look"}]}`
	if code, _ := post("", main); code != http.StatusUnauthorized {
		t.Fatalf("without a key: %d", code)
	}
	for _, c := range []struct{ body, want string }{{main, "main 1"}, {sub, "sub 1"}, {main, "main 2"}} {
		if code, got := post("k", c.body); code != http.StatusOK || got != c.want {
			t.Fatalf("got %d %q, want %q", code, got, c.want)
		}
	}
	if code, got := post("k", sub); code != http.StatusBadRequest || !strings.Contains(got, "has no call 2") {
		t.Fatalf("beyond the recording: %d %s", code, got)
	}
	if u := ws.Unused(); u != "" {
		t.Fatalf("unused %q", u)
	}
	if keys := ws.APIKeys(); len(keys) != 5 || keys[1] != "k" {
		t.Fatalf("keys %q", keys)
	}
	if u := NewWireServer(fx).Unused(); !strings.Contains(u, "01-main: 0 of 2") || !strings.Contains(u, "02-subagent: 0 of 1") {
		t.Fatalf("unused of a fresh server: %q", u)
	}
}
