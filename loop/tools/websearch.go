package tools

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
)

// WebSearchInput is the WebSearch tool's input (Claude Code's shape).
type WebSearchInput struct {
	Query          string   `json:"query" jsonschema:"minLength=2" jsonschema_description:"The search query."`
	AllowedDomains []string `json:"allowed_domains,omitempty" jsonschema_description:"Only return results from these domains (example.com). Not with blocked_domains."`
	BlockedDomains []string `json:"blocked_domains,omitempty" jsonschema_description:"Never return results from these domains. Not with allowed_domains."`
}

// SearchHit is one page a web search found.
type SearchHit struct {
	Title string `json:"title"`
	URL   string `json:"url"`
}

// SearchResult is what Env.WebSearch found: the pages, and what the
// searching model wrote about them, its sources cited as links.
type SearchResult struct {
	Hits   []SearchHit
	Answer string
	// Failure is the search service's reason when a search failed
	// (max_uses_exceeded, too_many_requests, ...); "" when none did.
	Failure string
}

var webSearchSpec = specFor[WebSearchInput]()

type webSearchTool struct{}

// WebSearch is Claude Code's WebSearch tool. It runs only through
// Env.WebSearch, which the loop provides when the model's provider can
// search the web itself (Anthropic's server-side web search tool); with
// any other provider the loop does not offer it.
func WebSearch() Tool { return webSearchTool{} }

func (webSearchTool) Name() string { return "WebSearch" }

func (webSearchTool) Description() string {
	return `Searches the web and returns the pages found (titles and links) with a short summary of what they say.

- Use it for what may have changed since your training: recent releases, current documentation, news, error messages others have met.
- One focused query per call; refine and search again rather than stuffing several questions into one query.
- allowed_domains limits the results to some sites (for example a project's documentation site); blocked_domains leaves sites out. Give one or the other, not both.
- Each call may run a few searches; results come back as titles and URLs. Read a page in full with WebFetch.
- When you use what you found in your answer, cite the pages as Markdown links, in a Sources list at the end.
- The user may be asked before a search is run.`
}

func (webSearchTool) Schema() json.RawMessage { return webSearchSpec.schema() }
func (webSearchTool) Kind() Kind              { return KindFetch }

// ReadOnly is false, as for WebFetch: the query leaves the machine (to a
// search service), so the user is asked unless a rule allows WebSearch,
// and plan mode does not run it.
func (webSearchTool) ReadOnly() bool { return false }

func (webSearchTool) Describe(env *Env, input json.RawMessage) Description {
	var in WebSearchInput
	describeInput(input, &in)
	q := strings.TrimSpace(in.Query)
	if q == "" {
		return Description{Title: "WebSearch"}
	}
	d := Description{Title: "Search the web: " + shorten(q, 200)}
	switch {
	case len(in.AllowedDomains) > 0:
		d.Detail = "Only on: " + strings.Join(in.AllowedDomains, ", ")
	case len(in.BlockedDomains) > 0:
		d.Detail = "Not on: " + strings.Join(in.BlockedDomains, ", ")
	}
	return d
}

func (t webSearchTool) Run(ctx context.Context, env *Env, input json.RawMessage) Result {
	var in WebSearchInput
	if err := webSearchSpec.decode(t.Name(), input, &in); err != nil {
		return Errorf("%v", err)
	}
	in.Query = strings.TrimSpace(in.Query)
	if len([]rune(in.Query)) < 2 {
		return Errorf("WebSearch: query must be at least 2 characters")
	}
	if len(in.AllowedDomains) > 0 && len(in.BlockedDomains) > 0 {
		return Errorf("WebSearch: give allowed_domains or blocked_domains, not both")
	}
	for _, d := range append(append([]string(nil), in.AllowedDomains...), in.BlockedDomains...) {
		if strings.TrimSpace(d) == "" || strings.ContainsAny(d, " \t\n/") {
			return Errorf("WebSearch: %q is not a domain (write example.com, without a scheme or path)", d)
		}
	}
	if env.WebSearch == nil {
		return Errorf("WebSearch is not available with this model provider")
	}
	res, err := env.WebSearch(ctx, in)
	if err != nil {
		if ctx.Err() != nil {
			return Errorf("WebSearch was cancelled")
		}
		return Errorf("WebSearch failed: %v", err)
	}
	return searchResult(in.Query, res)
}

// searchResult is what the model and the editor are shown: the answer,
// then every page found, as links.
func searchResult(query string, res SearchResult) Result {
	var b strings.Builder
	fmt.Fprintf(&b, "Web search results for %q:\n", query)
	if res.Failure != "" {
		fmt.Fprintf(&b, "\nThe search service reported an error: %s.\n", res.Failure)
	}
	if len(res.Hits) == 0 && res.Failure == "" {
		b.WriteString("\nNo pages found.\n")
	}
	if len(res.Hits) > 0 {
		b.WriteString("\n")
		for _, h := range res.Hits {
			fmt.Fprintf(&b, "- [%s](%s)\n", markdownLinkText(h.Title, h.URL), h.URL)
		}
	}
	if a := strings.TrimSpace(res.Answer); a != "" {
		b.WriteString("\n" + a + "\n")
	}
	out := strings.TrimRight(b.String(), "\n")
	return Result{Text: out, IsError: res.Failure != "" && len(res.Hits) == 0}
}

// markdownLinkText is a page title safe inside [...]: the URL stands in
// for an empty one.
func markdownLinkText(title, url string) string {
	title = strings.Join(strings.Fields(title), " ")
	if title == "" {
		return url
	}
	return strings.NewReplacer("[", `\[`, "]", `\]`).Replace(title)
}
