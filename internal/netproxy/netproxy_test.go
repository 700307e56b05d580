package netproxy

import (
	"bufio"
	"context"
	"io"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"testing"
)

// decider allows the hosts in allow and records every question.
type decider struct {
	mu    sync.Mutex
	allow map[string]bool
	asked []string
}

func (d *decider) decide(_ context.Context, host string, port int) bool {
	d.mu.Lock()
	defer d.mu.Unlock()
	d.asked = append(d.asked, host)
	return d.allow[host]
}

func startProxy(t *testing.T, d *decider, private ...string) *Proxy {
	t.Helper()
	p, err := Start(d.decide, Options{AllowPrivate: func(h string) bool {
		for _, x := range private {
			if x == h {
				return true
			}
		}
		return false
	}})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(p.Close)
	return p
}

func client(p *Proxy) *http.Client {
	u, _ := url.Parse(p.URL())
	return &http.Client{Transport: &http.Transport{Proxy: http.ProxyURL(u)}}
}

func TestPlainHTTPThroughTheProxy(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		b, _ := io.ReadAll(r.Body)
		io.WriteString(w, "hello "+r.URL.Path+" "+string(b[:min(len(b), 5)])+" "+r.Header.Get("Proxy-Authorization"))
	}))
	defer srv.Close()
	d := &decider{allow: map[string]bool{"127.0.0.1": true}}
	p := startProxy(t, d, "127.0.0.1")
	// A body larger than the head's cap goes through whole.
	body := strings.Repeat("x", 200<<10)
	resp, err := client(p).Post(srv.URL+"/a", "text/plain", strings.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if resp.StatusCode != 200 || string(b) != "hello /a xxxxx " {
		t.Fatalf("%d %q", resp.StatusCode, b)
	}
}

func TestConnectTunnel(t *testing.T) {
	srv := httptest.NewTLSServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "secure") }))
	defer srv.Close()
	d := &decider{allow: map[string]bool{"127.0.0.1": true}}
	p := startProxy(t, d, "127.0.0.1")
	c := srv.Client()
	u, _ := url.Parse(p.URL())
	c.Transport.(*http.Transport).Proxy = http.ProxyURL(u)
	resp, err := c.Get(srv.URL)
	if err != nil {
		t.Fatal(err)
	}
	b, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	if string(b) != "secure" {
		t.Fatalf("%q", b)
	}
}

func TestRefusals(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { io.WriteString(w, "upstream-was-reached") }))
	defer srv.Close()
	for _, c := range []struct {
		name    string
		allow   map[string]bool
		private []string
		status  int
	}{
		{"not allowed", nil, []string{"127.0.0.1"}, http.StatusForbidden},
		{"allowed but private", map[string]bool{"127.0.0.1": true}, nil, http.StatusForbidden},
	} {
		t.Run(c.name, func(t *testing.T) {
			d := &decider{allow: c.allow}
			p := startProxy(t, d, c.private...)
			resp, err := client(p).Get(srv.URL)
			if err != nil {
				t.Fatal(err)
			}
			b, _ := io.ReadAll(resp.Body)
			resp.Body.Close()
			if resp.StatusCode != c.status || strings.Contains(string(b), "upstream-was-reached") {
				t.Fatalf("%d %q", resp.StatusCode, b)
			}
		})
	}
	// A request in origin form is no proxy request.
	p := startProxy(t, &decider{})
	conn, err := net.Dial("tcp", p.ln.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	io.WriteString(conn, "GET / HTTP/1.1\r\nHost: example.com\r\n\r\n")
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil || resp.StatusCode != http.StatusBadRequest {
		t.Fatalf("%v %v", resp, err)
	}
}

func TestMatchDomain(t *testing.T) {
	for _, c := range []struct {
		pattern, host string
		port          int
		want          bool
	}{
		{"example.com", "example.com", 443, true},
		{"Example.com.", "example.com", 443, true},
		{"example.com", "api.example.com", 443, false},
		{"*.example.com", "api.example.com", 443, true},
		{"*.example.com", "example.com", 443, false},
		{"*.example.com", "evilexample.com", 443, false},
		{"example.com:8443", "example.com", 8443, true},
		{"example.com:8443", "example.com", 443, false},
		{"example.com:8443", "example.com", 0, true},
		{"", "example.com", 443, false},
	} {
		if got := MatchDomain(c.pattern, c.host, c.port); got != c.want {
			t.Errorf("MatchDomain(%q, %q, %d) = %v", c.pattern, c.host, c.port, got)
		}
	}
}
