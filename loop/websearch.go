package loop

import (
	"cmp"
	"context"
	"encoding/json"
	"slices"
	"strings"

	"github.com/cordis-agent/cordis/llm"
	"github.com/cordis-agent/cordis/loop/tools"
)

// WebSearch is a client tool, as in Claude Code: the model calls
// WebSearch {query, allowed_domains?, blocked_domains?}, which goes
// through the permission flow and the PreToolUse hooks like any other
// call (so the user is asked first, a deny rule or a hook can stop it,
// and plan mode does not run it). Running it is one side call to the
// provider that offers only the API's own web search tool; its results
// (titles, URLs) and what the searching model wrote, citing them, become
// the tool result. The side call is billed like any other model call,
// and the API's searches at their own price (price.go).
//
// A provider that cannot search (llm.WebSearcher) is never offered the
// tool, and nothing in the prompt mentions it.

const (
	// webSearchMaxUses caps the searches of one WebSearch call, as
	// Claude Code does.
	webSearchMaxUses = 8
	// webSearchMaxRounds caps how often a paused search is continued.
	webSearchMaxRounds = 4
	webSearchSystem    = "You search the web for the user's query and report what the results say, briefly and factually, citing the pages you draw on."
)

// servesWebSearch reports whether the session's provider can run a web
// search itself.
func (s *Session) servesWebSearch() bool {
	ws, ok := s.agent.cfg.Provider.(llm.WebSearcher)
	return ok && ws.ServesWebSearch()
}

// webSearch runs one WebSearch call as a side call with the provider's
// search tool. A response that pauses (stop reason pause_turn: the API
// stopped a long search turn) is sent back as it came, server tool
// blocks and all, so that the API resumes it.
func (r *runner) webSearch(ctx context.Context, in tools.WebSearchInput) (tools.SearchResult, error) {
	s := r.s
	s.mu.Lock()
	model := cmp.Or(r.model, s.model)
	s.mu.Unlock()
	msgs := []llm.Message{{Role: llm.RoleUser, Content: []llm.Block{llm.Text("Search the web for: " + in.Query)}}}
	var found searchFindings
	for round := 0; round < webSearchMaxRounds; round++ {
		req := &llm.Request{
			Model:     model,
			MaxTokens: s.agent.cfg.MaxTokens,
			System:    []string{webSearchSystem},
			Messages:  msgs,
			WebSearch: &llm.WebSearch{MaxUses: webSearchMaxUses, AllowedDomains: in.AllowedDomains, BlockedDomains: in.BlockedDomains},
		}
		s.record(sideCallRequestEvent{Model: model, Messages: len(msgs), Purpose: sideCallWebSearch})
		resp, err := s.agent.cfg.Provider.Stream(ctx, req, nil)
		if resp != nil {
			used := cmp.Or(resp.Model, model)
			s.record(sideCallResponseEvent{StopReason: resp.StopReason, Usage: resp.Usage, Model: used, Purpose: sideCallWebSearch})
			s.billSideCall(ctx, resp.Usage, used)
			found.add(resp.Content)
		}
		if err != nil {
			return tools.SearchResult{}, err
		}
		if resp.StopReason != llm.StopPauseTurn {
			break
		}
		msgs = append(msgs, llm.Message{Role: llm.RoleAssistant, Content: resp.Content})
	}
	return found.result(), nil
}

// billSideCall counts a side call's usage like any other call's and
// sends usage_update, without changing the context the conversation
// uses: the side call is not part of it.
func (s *Session) billSideCall(ctx context.Context, u llm.Usage, model string) {
	totals := s.usage.add(u, model)
	_, used := s.usage.read()
	s.notify(ctx, s.usageUpdate(totals, used))
}

// searchFindings gathers what the responses of one web search hold.
type searchFindings struct {
	hits    []tools.SearchHit
	seen    map[string]bool
	failure string
	answer  strings.Builder
	// searched is set once a search result arrived: text before it is
	// the model announcing the search, not an answer.
	searched bool
}

func (f *searchFindings) add(content []llm.Block) {
	var pending strings.Builder
	for _, b := range content {
		switch b.Type {
		case llm.BlockServerToolResult:
			f.searched = true
			pending.Reset()
			f.addResult(b.Raw)
		case llm.BlockText:
			pending.WriteString(citedText(b))
		}
	}
	if f.searched {
		f.answer.WriteString(pending.String())
	}
}

// addResult takes the pages (or the error) of one web_search_tool_result.
func (f *searchFindings) addResult(raw json.RawMessage) {
	var block struct {
		Content json.RawMessage `json:"content"`
	}
	if json.Unmarshal(raw, &block) != nil {
		return
	}
	var pages []struct {
		Type  string `json:"type"`
		Title string `json:"title"`
		URL   string `json:"url"`
	}
	if json.Unmarshal(block.Content, &pages) == nil {
		for _, p := range pages {
			if p.URL == "" || f.seen[p.URL] {
				continue
			}
			if f.seen == nil {
				f.seen = map[string]bool{}
			}
			f.seen[p.URL] = true
			f.hits = append(f.hits, tools.SearchHit{Title: p.Title, URL: p.URL})
		}
		return
	}
	var failed struct {
		ErrorCode string `json:"error_code"`
	}
	if json.Unmarshal(block.Content, &failed) == nil && failed.ErrorCode != "" {
		f.failure = failed.ErrorCode
	}
}

func (f *searchFindings) result() tools.SearchResult {
	return tools.SearchResult{Hits: f.hits, Answer: strings.TrimSpace(f.answer.String()), Failure: f.failure}
}

// citedText is a text block with the pages its citations point to added
// as links after it.
func citedText(b llm.Block) string {
	var cites []struct {
		URL   string `json:"url"`
		Title string `json:"title"`
	}
	if len(b.Citations) == 0 || json.Unmarshal(b.Citations, &cites) != nil {
		return b.Text
	}
	var links []string
	for _, c := range cites {
		if c.URL == "" {
			continue
		}
		link := "<" + c.URL + ">"
		if !slices.Contains(links, link) {
			links = append(links, link)
		}
	}
	if len(links) == 0 {
		return b.Text
	}
	return b.Text + " (" + strings.Join(links, ", ") + ")"
}
