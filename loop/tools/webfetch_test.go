package tools

import (
	"context"
	"errors"
	"net/http"
	"net/http/httptest"
	"net/netip"
	"strings"
	"sync"
	"testing"
)

// webServer is a loopback site: an HTML page, plain text, JSON, an image,
// a large page, redirects on and off the host, and an error. It records
// the headers of every request.
type webServer struct {
	*httptest.Server
	mu      sync.Mutex
	headers []http.Header
}

func newWebServer(t *testing.T) *webServer {
	t.Helper()
	w := &webServer{}
	mux := http.NewServeMux()
	mux.HandleFunc("/page", func(rw http.ResponseWriter, r *http.Request) {
		http.SetCookie(rw, &http.Cookie{Name: "session", Value: "secret-cookie"})
		rw.Header().Set("Content-Type", "text/html; charset=utf-8")
		rw.Write([]byte(`<html><head><title>T</title><script>var x = "script text";</script></head>
<body><h1>Install</h1><p>Run <code>go get</code>, then see <a href="/docs/next">the next page</a>.</p><ul><li>one</li></ul></body></html>`))
	})
	mux.HandleFunc("/text", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/plain")
		rw.Write([]byte("plain <b>text</b>"))
	})
	mux.HandleFunc("/image", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "image/png")
		rw.Write([]byte("\x89PNG\r\n"))
	})
	mux.HandleFunc("/large", func(rw http.ResponseWriter, r *http.Request) {
		rw.Header().Set("Content-Type", "text/plain")
		rw.Write([]byte(strings.Repeat("0123456789", 10000)))
	})
	mux.HandleFunc("/moved", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "/text", http.StatusFound)
	})
	mux.HandleFunc("/away", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "https://docs.example.org/elsewhere", http.StatusMovedPermanently)
	})
	mux.HandleFunc("/loop", func(rw http.ResponseWriter, r *http.Request) {
		http.Redirect(rw, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/missing", http.NotFound)
	w.Server = httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		w.mu.Lock()
		w.headers = append(w.headers, r.Header.Clone())
		w.mu.Unlock()
		mux.ServeHTTP(rw, r)
	}))
	t.Cleanup(w.Close)
	return w
}

func fetchEnv(t *testing.T, opts WebOptions) *Env {
	env := newEnv(t)
	env.Web = &opts
	return env
}

func TestWebFetch(t *testing.T) {
	srv := newWebServer(t)
	env := fetchEnv(t, WebOptions{AllowPrivate: true, MaxChars: 5000})
	for _, tt := range []struct {
		path      string
		want      []string
		notWanted []string
	}{
		{"/page", []string{"# Install", "Run `go get`, then see [the next page](" + srv.URL + "/docs/next).", "- one", "HTML converted to Markdown"}, []string{"<p>", "script text"}},
		{"/text", []string{"plain <b>text</b>", "(text/plain)"}, nil},
		{"/moved", []string{"Content of " + srv.URL + "/text", "plain <b>text</b>"}, nil},
		{"/large", []string{"[content truncated:", "95000 more characters were left out"}, nil},
		{"/away", []string{"redirects to a different host: https://docs.example.org/elsewhere", "was not followed"}, []string{"Content of"}},
	} {
		res := run(t, env, "WebFetch", map[string]any{"url": srv.URL + tt.path, "prompt": "what?"})
		if res.IsError {
			t.Errorf("%s: %s", tt.path, res.Text)
			continue
		}
		for _, w := range tt.want {
			if !strings.Contains(res.Text, w) {
				t.Errorf("%s: result lacks %q:\n%s", tt.path, w, res.Text)
			}
		}
		for _, w := range tt.notWanted {
			if strings.Contains(res.Text, w) {
				t.Errorf("%s: result has %q:\n%s", tt.path, w, res.Text)
			}
		}
	}
	// No cookie (the first page set one) and no credentials are sent.
	srv.mu.Lock()
	defer srv.mu.Unlock()
	for _, h := range srv.headers {
		if h.Get("Cookie") != "" || h.Get("Authorization") != "" || h.Get("X-Api-Key") != "" {
			t.Errorf("a request carried credentials: %v", h)
		}
	}
}

func TestWebFetchErrors(t *testing.T) {
	srv := newWebServer(t)
	allowed := fetchEnv(t, WebOptions{AllowPrivate: true, MaxRedirects: 3})
	for _, tt := range []struct {
		env  *Env
		url  string
		want string
	}{
		// The default refuses the loopback server, after resolution.
		{fetchEnv(t, WebOptions{}), srv.URL + "/page", "refused: the host resolves to a loopback, private or link-local address (127.0.0.1)"},
		{fetchEnv(t, WebOptions{}), strings.Replace(srv.URL, "127.0.0.1", "localhost", 1) + "/page", "refused"},
		// An allowed range opens only itself.
		{fetchEnv(t, WebOptions{AllowPrivateRanges: []netip.Prefix{netip.MustParsePrefix("10.0.0.0/8"), netip.MustParsePrefix("::1/128")}}), srv.URL + "/page", "refused"},
		{allowed, srv.URL + "/image", "the content type image/png is not text"},
		{allowed, srv.URL + "/missing", "answered 404 Not Found"},
		{allowed, srv.URL + "/loop", "stopped after 3 redirects"},
		{allowed, "file:///etc/passwd", "only http and https URLs are fetched"},
		{allowed, "http://user:pw@" + strings.TrimPrefix(srv.URL, "http://"), "carries credentials"},
		{allowed, "https:///nohost", "has no host"},
		{allowed, "", "url is required"},
	} {
		res := run(t, tt.env, "WebFetch", map[string]any{"url": tt.url, "prompt": "p"})
		if !res.IsError || !strings.Contains(res.Text, tt.want) {
			t.Errorf("%s: %q, want %q", tt.url, res.Text, tt.want)
		}
	}
}

// A private range the configuration allows is fetched; the rest of the
// private space stays refused (TestWebFetchErrors).
func TestWebFetchAllowedPrivateRange(t *testing.T) {
	srv := newWebServer(t)
	env := fetchEnv(t, WebOptions{AllowPrivateRanges: []netip.Prefix{netip.MustParsePrefix("127.0.0.1/32")}})
	if res := run(t, env, "WebFetch", map[string]any{"url": srv.URL + "/text", "prompt": "p"}); res.IsError || !strings.Contains(res.Text, "plain <b>text</b>") {
		t.Errorf("allowed range: %+v", res)
	}
}

// With a small model configured (Env.AskAboutPage), the model gets its
// answer, marked as one, and the small model gets the page as the tool
// would have returned it: cut to MaxChars, with the marker. A failing
// side call falls back to the page; an empty prompt asks nothing.
func TestWebFetchAskAboutPage(t *testing.T) {
	srv := newWebServer(t)
	var got []PageQuestion
	env := fetchEnv(t, WebOptions{AllowPrivate: true, MaxChars: 1000})
	env.AskAboutPage = func(ctx context.Context, q PageQuestion) (string, error) {
		got = append(got, q)
		return " It says plain text. ", nil
	}
	res := run(t, env, "WebFetch", map[string]any{"url": srv.URL + "/text", "prompt": "What does it say?"})
	want := "Answer to the prompt from " + srv.URL + "/text (the page was read by a small model; call WebFetch again with a more specific prompt for details):\n\nIt says plain text."
	if res.IsError || res.Text != want {
		t.Errorf("result %q, want %q", res.Text, want)
	}
	if len(got) != 1 || got[0].Prompt != "What does it say?" || got[0].Content != "plain <b>text</b>" || got[0].URL != srv.URL+"/text" || got[0].Cut {
		t.Errorf("the small model was asked %+v", got)
	}

	got = nil
	res = run(t, env, "WebFetch", map[string]any{"url": srv.URL + "/large", "prompt": "Digits?"})
	if len(got) != 1 || !got[0].Cut || !strings.HasPrefix(got[0].Content, strings.Repeat("0123456789", 100)+"\n\n[content truncated") || len([]rune(got[0].Content)) > 1200 {
		t.Errorf("a large page reached the small model as %d characters (cut %v)", len(got[0].Content), got[0].Cut)
	}
	if !strings.HasSuffix(res.Text, "[the page was longer than cordis reads: the answer covers only its beginning]") {
		t.Errorf("a cut page's answer does not say so: %q", res.Text)
	}

	got = nil
	if res := run(t, env, "WebFetch", map[string]any{"url": srv.URL + "/text", "prompt": "  "}); len(got) != 0 || !strings.Contains(res.Text, "plain <b>text</b>") {
		t.Errorf("an empty prompt: asked %+v, result %q", got, res.Text)
	}

	env.AskAboutPage = func(context.Context, PageQuestion) (string, error) { return "", errors.New("no model") }
	res = run(t, env, "WebFetch", map[string]any{"url": srv.URL + "/text", "prompt": "What?"})
	if res.IsError || !strings.Contains(res.Text, "could not be applied to the page by the small model (no model)") || !strings.Contains(res.Text, "plain <b>text</b>") {
		t.Errorf("with a failing small model: %+v", res)
	}

	ctx, cancel := context.WithCancel(context.Background())
	env.AskAboutPage = func(ctx context.Context, _ PageQuestion) (string, error) {
		cancel()
		return "", ctx.Err()
	}
	if res := runCtx(t, ctx, env, "WebFetch", map[string]any{"url": srv.URL + "/text", "prompt": "What?"}); !res.IsError || res.Text != "WebFetch: cancelled" {
		t.Errorf("cancelled while the small model reads: %+v", res)
	}
}

func TestPrivateAddr(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "10.1.2.3": true, "172.16.0.1": true, "192.168.1.1": true, "169.254.169.254": true,
		"100.64.0.1": true, "0.0.0.0": true, "::1": true, "fe80::1": true, "fc00::1": true, "::ffff:127.0.0.1": true,
		"224.0.0.1": true, "93.184.216.34": false, "2606:2800:220:1::": false, "8.8.8.8": false,
	} {
		if got := privateAddr(netip.MustParseAddr(addr)); got != want {
			t.Errorf("privateAddr(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestWebFetchCancelled(t *testing.T) {
	block := make(chan struct{})
	srv := httptest.NewServer(http.HandlerFunc(func(rw http.ResponseWriter, r *http.Request) {
		select {
		case <-block:
		case <-r.Context().Done():
		}
	}))
	defer srv.Close()
	defer close(block)
	env := fetchEnv(t, WebOptions{AllowPrivate: true})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan Result)
	go func() { done <- runCtx(t, ctx, env, "WebFetch", map[string]any{"url": srv.URL, "prompt": "p"}) }()
	cancel()
	if res := <-done; !res.IsError || res.Text != "WebFetch: cancelled" {
		t.Errorf("cancelled fetch: %+v", res)
	}
}
