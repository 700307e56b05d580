package loop

import (
	"context"
	"errors"
	"io/fs"
	"os"
	"strings"
	"unicode"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/commands"
	"github.com/cordis-agent/cordis/sessionlog"
)

// A thread's title is a deterministic summary of its first prompt, made
// when that first turn ends. A model call would word it better, but it
// would cost a request (and a key, and latency) per session, and it
// would add a recorded request to every replayed scenario; the first line
// of what the user typed is what Zed showed anyway, only cleaner and
// shorter. /rename sets any title.

// titleMaxRunes bounds a generated title (Zed's thread list shows about
// this much).
const titleMaxRunes = 60

// titleFromPrompt summarizes a prompt for a title: its first line of
// text (or the first resource's name), Markdown markers dropped, cut at
// a word boundary. "" when there is nothing to say.
func titleFromPrompt(blocks []acp.ContentBlock) string {
	line := ""
	for _, b := range blocks {
		switch b.Type {
		case "text":
			line = firstLine(b.Text)
		case "resource_link":
			line = b.Name
		}
		if line != "" {
			break
		}
	}
	line = strings.TrimLeft(line, "#>*-+ \t")
	line = strings.Join(strings.Fields(line), " ")
	return cutAtWord(line, titleMaxRunes)
}

func firstLine(text string) string {
	for l := range strings.SplitSeq(text, "\n") {
		if strings.TrimSpace(l) != "" {
			return l
		}
	}
	return ""
}

// cutAtWord shortens s to at most n runes, at the last space when there
// is one in the second half, with a visible "…".
func cutAtWord(s string, n int) string {
	r := []rune(s)
	if len(r) <= n {
		return s
	}
	cut := r[:n-1]
	for i := len(cut) - 1; i > n/2; i-- {
		if unicode.IsSpace(cut[i]) {
			cut = cut[:i]
			break
		}
	}
	return strings.TrimRightFunc(string(cut), func(c rune) bool { return unicode.IsSpace(c) || unicode.IsPunct(c) }) + "…"
}

// titleAfterFirstTurn titles the session from the prompt of its first
// turn that was not a slash command.
func (s *Session) titleAfterFirstTurn(ctx context.Context, prompt []acp.ContentBlock) {
	if _, _, isCommand := commandIn(prompt); isCommand {
		return
	}
	s.mu.Lock()
	done := s.titled
	s.titled = true
	s.mu.Unlock()
	if done {
		return
	}
	if t := titleFromPrompt(prompt); t != "" {
		s.setTitle(ctx, t)
	}
}

// setTitle records the title, keeps its copy for session/list and tells
// the editor.
func (s *Session) setTitle(ctx context.Context, title string) {
	s.mu.Lock()
	s.title, s.titled = title, true
	s.mu.Unlock()
	s.record(titleEvent{Title: title})
	s.agent.saveTitle(s.id, title)
	s.notify(ctx, acp.SessionInfoUpdate{Title: &title})
}

// cmdRename is /rename TITLE.
func cmdRename(ctx context.Context, s *Session, args string) commands.Intent {
	title := strings.Join(strings.Fields(args), " ")
	if title == "" {
		s.mu.Lock()
		cur := s.title
		s.mu.Unlock()
		if cur == "" {
			return commands.ShowText{Text: "This thread has no title yet. Give it one with /rename TITLE."}
		}
		return commands.ShowText{Text: "Title: " + cur + "\nChange it with /rename TITLE."}
	}
	title = cutAtWord(title, 200)
	s.setTitle(ctx, title)
	return commands.ShowText{Text: "Renamed to " + title + "."}
}

// titlePath is the session's latest title, beside its log. The log's
// session/title events are the truth (load restores the title from
// them); this copy lets session/list show a rename made anywhere in a
// long log without reading the whole log.
func titlePath(stateDir, id string) string {
	return strings.TrimSuffix(sessionlog.Path(stateDir, id), ".jsonl") + ".title"
}

// saveTitle writes the title copy; a failure only costs session/list the
// newer title, so it is logged.
func (a *Agent) saveTitle(id, title string) {
	path := titlePath(a.cfg.StateDir, id)
	tmp := path + ".tmp"
	err := os.WriteFile(tmp, []byte(title), 0o600)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		a.log.Warn("saving the session title", "session", id, "error", err)
	}
}

// savedTitle is the title copy of a session, "" without one.
func (a *Agent) savedTitle(id string) string {
	b, err := os.ReadFile(titlePath(a.cfg.StateDir, id))
	if err != nil && !errors.Is(err, fs.ErrNotExist) {
		a.log.Warn("reading the session title", "session", id, "error", err)
	}
	return string(b)
}

// restoreTitle follows a session's title through its log: the latest
// session/title event, and whether a first prompt already went by (a
// log from before titles keeps the title session/list derives).
func (rs *restorer) restoreTitle(ev sessionlog.Event) {
	switch ev.Type {
	case sessionlog.TypeSessionTitle:
		if t, ok := decodeEvent[titleEvent](ev); ok {
			rs.s.title, rs.s.titled = t.Title, true
		}
	case sessionlog.TypeTurnStart:
		if t, ok := decodeEvent[turnStartEvent](ev); ok && !strings.HasPrefix(strings.TrimSpace(t.Prompt), "/") {
			rs.s.titled = true
		}
	}
}
