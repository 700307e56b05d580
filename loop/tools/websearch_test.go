package tools

import (
	"context"
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

func TestWebSearchInputs(t *testing.T) {
	found := SearchResult{
		Hits:   []SearchHit{{Title: "Go [1.26]", URL: "https://go.dev/doc/go1.26"}, {URL: "https://go.dev/blog/"}},
		Answer: "Go 1.26 is out.",
	}
	tests := []struct {
		name    string
		input   string
		search  func(context.Context, WebSearchInput) (SearchResult, error)
		want    []string
		wantErr bool
	}{
		{name: "results", input: `{"query":"go 1.26"}`,
			want: []string{`Web search results for "go 1.26":`, `- [Go \[1.26\]](https://go.dev/doc/go1.26)`, "- [https://go.dev/blog/](https://go.dev/blog/)", "Go 1.26 is out."}},
		{name: "query too short", input: `{"query":" a "}`, want: []string{"at least 2 characters"}, wantErr: true},
		{name: "both domain lists", input: `{"query":"go","allowed_domains":["go.dev"],"blocked_domains":["x.com"]}`, want: []string{"not both"}, wantErr: true},
		{name: "a URL for a domain", input: `{"query":"go","allowed_domains":["https://go.dev/"]}`, want: []string{"is not a domain"}, wantErr: true},
		{name: "unknown field", input: `{"query":"go","count":3}`, wantErr: true},
		{name: "no provider search", input: `{"query":"go"}`, search: nil, want: []string{"not available"}, wantErr: true},
		{name: "search failed", input: `{"query":"go"}`, search: func(context.Context, WebSearchInput) (SearchResult, error) {
			return SearchResult{}, errors.New("overloaded")
		}, want: []string{"WebSearch failed: overloaded"}, wantErr: true},
		{name: "service error", input: `{"query":"go"}`, search: func(context.Context, WebSearchInput) (SearchResult, error) {
			return SearchResult{Failure: "max_uses_exceeded"}, nil
		}, want: []string{"max_uses_exceeded"}, wantErr: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			env := newEnv(t)
			env.WebSearch = func(context.Context, WebSearchInput) (SearchResult, error) { return found, nil }
			if tt.search != nil || tt.name == "no provider search" {
				env.WebSearch = tt.search
			}
			res := WebSearch().Run(context.Background(), env, json.RawMessage(tt.input))
			if res.IsError != tt.wantErr {
				t.Errorf("IsError = %v, want %v: %s", res.IsError, tt.wantErr, res.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("result lacks %q:\n%s", w, res.Text)
				}
			}
		})
	}
}

func TestWebSearchDescribe(t *testing.T) {
	d := WebSearch().Describe(nil, json.RawMessage(`{"query":"zed acp","blocked_domains":["x.com"]}`))
	if d.Title != "Search the web: zed acp" || d.Detail != "Not on: x.com" {
		t.Errorf("description = %+v", d)
	}
	if d := WebSearch().Describe(nil, json.RawMessage(`{`)); d.Title != "WebSearch" {
		t.Errorf("broken input: title %q", d.Title)
	}
}
