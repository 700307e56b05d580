package tools

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"github.com/cordis-agent/cordis/internal/netproxy"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"time"
	"unicode/utf8"

	htmltomarkdown "github.com/JohannesKaufmann/html-to-markdown/v2"
	"github.com/JohannesKaufmann/html-to-markdown/v2/converter"
	"golang.org/x/net/html"
)

// WebFetchInput is the WebFetch tool's input (Claude Code's shape).
type WebFetchInput struct {
	URL    string `json:"url" jsonschema:"format=uri" jsonschema_description:"The http or https URL to fetch."`
	Prompt string `json:"prompt" jsonschema_description:"What you want to learn from the page."`
}

// WebOptions tune WebFetch. The zero value (or a nil *WebOptions) is the
// default: private, loopback and link-local addresses refused, a 30 s
// timeout, 10 redirects on the same host, 10 MiB read, 100000 characters
// returned, and the page returned as is (no small model applies the
// prompt).
type WebOptions struct {
	// AllowPrivate lets WebFetch reach loopback, private and link-local
	// addresses (a local documentation server, tests).
	AllowPrivate bool
	// AllowPrivateRanges lets WebFetch reach the private addresses in
	// these ranges only (a docs server at 127.0.0.1:8080, an intranet at
	// 10.1.0.0/16), the rest staying refused.
	AllowPrivateRanges []netip.Prefix
	Timeout            time.Duration
	MaxRedirects       int
	// MaxBytes caps how much of a response body is read.
	MaxBytes int64
	// MaxChars caps the text returned to the model.
	MaxChars int
	// SummaryModel is the model the loop asks to apply a call's prompt to
	// the page (Env.AskAboutPage); "" returns the page itself.
	SummaryModel string
}

// PageQuestion is what Env.AskAboutPage is given: a fetched page, already
// cut to WebOptions.MaxChars, and the call's prompt.
type PageQuestion struct {
	URL, Prompt, Content string
	// Cut is set when the page was longer than Content.
	Cut bool
}

const (
	webDefaultTimeout   = 30 * time.Second
	webDefaultRedirects = 10
	webDefaultMaxBytes  = 10 << 20
	webDefaultMaxChars  = 100000
)

func (o *WebOptions) withDefaults() WebOptions {
	var w WebOptions
	if o != nil {
		w = *o
	}
	if w.Timeout <= 0 {
		w.Timeout = webDefaultTimeout
	}
	if w.MaxRedirects <= 0 {
		w.MaxRedirects = webDefaultRedirects
	}
	if w.MaxBytes <= 0 {
		w.MaxBytes = webDefaultMaxBytes
	}
	if w.MaxChars <= 0 {
		w.MaxChars = webDefaultMaxChars
	}
	return w
}

var webFetchSpec = specFor[WebFetchInput]()

type webFetchTool struct{}

func (webFetchTool) Name() string { return "WebFetch" }

func (webFetchTool) Description() string {
	return `Fetches a web page and returns its content as Markdown, for the question in prompt.

- Use it to read documentation, an issue or an article at a URL the user gave or that you found; do not guess URLs.
- url must be a complete http or https URL; prompt says what you want to learn from the page.
- It reads public pages only: no cookies or credentials are sent, so pages behind a login will not work, and private, loopback and link-local addresses are refused unless the user's configuration allows them. If an MCP tool can fetch pages or reach the service in question (a wiki, an issue tracker), prefer it; for GitHub issues, pull requests and API data, use the gh command through Bash.
- HTML is turned into Markdown; plain text and JSON are returned as they are; other content types are refused.
- Long pages are cut, with a marker saying how much was left out.
- When the URL redirects to another host, the redirect is not followed: you are told where it leads, and can fetch that URL with a new call.
- It changes nothing on disk. The user may be asked before a host is fetched for the first time.`
}

func (webFetchTool) Schema() json.RawMessage { return webFetchSpec.schema() }
func (webFetchTool) Kind() Kind              { return KindFetch }

// ReadOnly is false: a fetch sends data out (in its URL), so the user is
// asked per host, as Claude Code does, and plan mode does not run it.
func (webFetchTool) ReadOnly() bool { return false }

func (webFetchTool) Describe(env *Env, input json.RawMessage) Description {
	var in WebFetchInput
	describeInput(input, &in)
	if in.URL == "" {
		return Description{Title: "WebFetch"}
	}
	d := Description{Title: "Fetch " + shorten(in.URL, 200)}
	if p := strings.TrimSpace(in.Prompt); p != "" {
		d.Detail = p
	}
	return d
}

func (t webFetchTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in WebFetchInput
	if err := webFetchSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	u, err := checkFetchURL(in.URL)
	if err != nil {
		return Errorf("WebFetch: %v", err)
	}
	opts := env.Web.withDefaults()
	page, err := fetch(ctx, u, opts)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("WebFetch: cancelled")
		}
		return Errorf("WebFetch: %v", err)
	}
	if page.redirect != "" {
		return Result{Text: fmt.Sprintf("The URL redirects to a different host: %s\nThe redirect was not followed. To read it, call WebFetch again with url %q and the same prompt.", page.redirect, page.redirect)}
	}
	content, cut := cutToChars(page.text, opts.MaxChars)
	partial := cut > 0 || page.truncated || page.elementsCut
	if partial {
		content += fmt.Sprintf("\n\n[content truncated: the page is longer than cordis returns (%s)]", truncationNote(cut, page, opts.MaxBytes))
	}
	if env.AskAboutPage != nil && strings.TrimSpace(in.Prompt) != "" {
		answer, err := env.AskAboutPage(ctx, PageQuestion{URL: page.url, Prompt: in.Prompt, Content: content, Cut: partial})
		if err == nil {
			return pageAnswer(page.url, answer, partial)
		}
		if ctx.Err() != nil {
			return Errorf("WebFetch: cancelled")
		}
		// The page itself still answers the call.
		content = "[the prompt could not be applied to the page by the small model (" + err.Error() + "); here is the page]\n\n" + content
	}
	return Result{Text: fmt.Sprintf("Content of %s (%s):\n\n%s", page.url, page.kind, content)}
}

// pageAnswer is what the model is told when a small model applied its
// prompt to the page: the answer, marked as one, so that the model
// knows to ask again with a narrower prompt rather than take the answer
// for the whole page.
func pageAnswer(url, answer string, cut bool) Result {
	answer = strings.TrimSpace(answer)
	if answer == "" {
		answer = "(the small model gave no answer)"
	}
	head := fmt.Sprintf("Answer to the prompt from %s (the page was read by a small model; call WebFetch again with a more specific prompt for details):\n\n", url)
	if cut {
		answer += "\n\n[the page was longer than cordis reads: the answer covers only its beginning]"
	}
	return Result{Text: head + answer}
}

func truncationNote(cutChars int, p *page, maxBytes int64) string {
	var parts []string
	if p.truncated {
		parts = append(parts, fmt.Sprintf("only the first %d bytes were read", maxBytes))
	}
	if p.elementsCut {
		parts = append(parts, fmt.Sprintf("only the first %d HTML elements were converted", maxHTMLElements))
	}
	if cutChars > 0 {
		parts = append(parts, fmt.Sprintf("%d more characters were left out", cutChars))
	}
	return strings.Join(parts, "; ")
}

// checkFetchURL accepts an absolute http or https URL with a host and no
// credentials (they would be sent in an Authorization header).
func checkFetchURL(raw string) (*url.URL, error) {
	raw = strings.TrimSpace(raw)
	if raw == "" {
		return nil, errors.New("url is required")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("url %q is not valid: %v", raw, err)
	}
	switch {
	case u.Scheme != "http" && u.Scheme != "https":
		return nil, fmt.Errorf("url %q: only http and https URLs are fetched", raw)
	case u.Hostname() == "":
		return nil, fmt.Errorf("url %q has no host", raw)
	case u.User != nil:
		return nil, fmt.Errorf("url %q carries credentials; cordis does not send them", raw)
	}
	u.Fragment = ""
	return u, nil
}

// page is a fetched response, turned into text.
type page struct {
	url, kind string
	text      string
	truncated bool
	// elementsCut is set when only the page's first maxHTMLElements
	// elements were converted.
	elementsCut bool
	// redirect is set, and nothing else, when the URL led to another host.
	redirect string
}

// fetch gets u with a client that sends no cookies or credentials, dials
// only public addresses (unless allowed), follows redirects on the same
// host only, and reads at most MaxBytes of the body.
func fetch(ctx context.Context, u *url.URL, opts WebOptions) (*page, error) {
	client := webClient(opts)
	ctx, cancel := context.WithTimeout(ctx, opts.Timeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, err
	}
	req.Header.Set("User-Agent", "cordis-WebFetch/1")
	req.Header.Set("Accept", "text/html, text/markdown, text/plain, application/json;q=0.9, */*;q=0.5")
	resp, err := client.Do(req)
	if err != nil {
		return nil, fetchError(err)
	}
	defer resp.Body.Close()
	final := resp.Request.URL
	if resp.StatusCode >= 300 && resp.StatusCode < 400 {
		loc, err := resp.Location()
		if err != nil {
			return nil, fmt.Errorf("%s answered %s without a usable Location", final, resp.Status)
		}
		return &page{redirect: loc.String()}, nil
	}
	if resp.StatusCode < 200 || resp.StatusCode > 299 {
		return nil, fmt.Errorf("%s answered %s", final, resp.Status)
	}
	body, err := io.ReadAll(io.LimitReader(resp.Body, opts.MaxBytes+1))
	if err != nil {
		return nil, fmt.Errorf("reading %s: %v", final, err)
	}
	p := &page{url: final.String()}
	if int64(len(body)) > opts.MaxBytes {
		body, p.truncated = body[:opts.MaxBytes], true
	}
	p.text, p.kind, p.elementsCut, err = pageText(body, resp.Header.Get("Content-Type"), final)
	if err != nil {
		return nil, fmt.Errorf("%s: %v", final, err)
	}
	return p, nil
}

// webClient is an HTTP client for one fetch: no cookie jar, no proxy (a
// proxy would resolve names itself, past the address check), the address
// checked after resolution at dial time (so a name that resolves to a
// public address for a check and a private one for the connection, DNS
// rebinding, is still refused), and redirects followed only on the same
// host, without a downgrade from https.
func webClient(opts WebOptions) *http.Client {
	dialer := &net.Dialer{Timeout: opts.Timeout}
	if !opts.AllowPrivate {
		dialer.Control = refusePrivate(opts.AllowPrivateRanges)
	}
	transport := &http.Transport{
		Proxy:               nil,
		DialContext:         dialer.DialContext,
		TLSHandshakeTimeout: opts.Timeout,
		ForceAttemptHTTP2:   true,
	}
	return &http.Client{
		Transport: transport,
		CheckRedirect: func(req *http.Request, via []*http.Request) error {
			if len(via) > opts.MaxRedirects {
				return fmt.Errorf("stopped after %d redirects", opts.MaxRedirects)
			}
			prev := via[len(via)-1].URL
			if !strings.EqualFold(req.URL.Hostname(), prev.Hostname()) || (prev.Scheme == "https" && req.URL.Scheme != "https") {
				return http.ErrUseLastResponse // reported to the model
			}
			return nil
		},
	}
}

// refusePrivate is the dial check WebFetch and the sandbox's proxy share.
var refusePrivate = netproxy.RefusePrivate

// privateAddr is the address check WebFetch and the sandbox's proxy share.
func privateAddr(ip netip.Addr) bool { return netproxy.PrivateAddr(ip) }

func fetchError(err error) error {
	if perr, ok := errors.AsType[netproxy.PrivateAddressError](err); ok {
		return fmt.Errorf("refused: the host resolves to a loopback, private or link-local address (%s); such addresses are not fetched", perr.IP)
	}
	var uerr *url.Error
	if errors.As(err, &uerr) {
		return fmt.Errorf("%s: %v", uerr.URL, uerr.Err)
	}
	return err
}

// maxHTMLElements caps the elements of a page that are converted: a
// parsed element costs a few hundred bytes, so a 10 MiB page of a
// million table cells would take over 700 MB to convert, and far fewer
// elements already give more text than MaxChars.
const maxHTMLElements = 100000

// pageText turns a body into text for the model by its content type: HTML
// into Markdown (links made absolute; only its first maxHTMLElements
// elements, elementsCut says when there were more), text and JSON as
// they are.
func pageText(body []byte, contentType string, base *url.URL) (text, kind string, elementsCut bool, err error) {
	mediaType, _, _ := mime.ParseMediaType(contentType)
	if mediaType == "" {
		mediaType = http.DetectContentType(body)
		mediaType, _, _ = mime.ParseMediaType(mediaType)
	}
	s := strings.ToValidUTF8(string(body), "\uFFFD")
	switch {
	case mediaType == "text/html" || mediaType == "application/xhtml+xml":
		s, elementsCut = cutHTMLElements(s, maxHTMLElements)
		md, err := htmltomarkdown.ConvertString(s, converter.WithDomain(base.Scheme+"://"+base.Host))
		if err != nil {
			return "", "", false, fmt.Errorf("cannot convert the HTML: %v", err)
		}
		return md, "HTML converted to Markdown", elementsCut, nil
	case strings.HasPrefix(mediaType, "text/"), mediaType == "application/json", strings.HasSuffix(mediaType, "+json"),
		mediaType == "application/xml", strings.HasSuffix(mediaType, "+xml"), mediaType == "application/javascript":
		return s, mediaType, false, nil
	}
	return "", "", false, fmt.Errorf("the content type %s is not text; WebFetch returns only text pages", mediaType)
}

// cutHTMLElements returns page cut before its (limit+1)th start tag, and
// whether it was cut. The tokenizer only scans (it keeps no tree), and it
// reads script and style contents as text, so a "<div" inside a script
// counts for nothing.
func cutHTMLElements(page string, limit int) (string, bool) {
	z := html.NewTokenizer(strings.NewReader(page))
	offset, elements := 0, 0
	for {
		switch z.Next() {
		case html.ErrorToken:
			return page, false
		case html.StartTagToken, html.SelfClosingTagToken:
			if elements++; elements > limit {
				return page[:offset], true
			}
		}
		offset += len(z.Raw())
	}
}

// cutToChars cuts s to at most n characters and says how many it left
// out.
func cutToChars(s string, n int) (string, int) {
	if utf8.RuneCountInString(s) <= n {
		return s, 0
	}
	r := []rune(s)
	return string(r[:n]), len(r) - n
}
