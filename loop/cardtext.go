package loop

import (
	"strings"

	"github.com/cordis-agent/cordis/acp"
	"github.com/cordis-agent/cordis/loop/tools"
)

// Zed renders the text of a tool call's content block as Markdown
// (acp_thread ContentBlock::create_markdown_block). What Read, Grep,
// Glob and command output cards hold is not Markdown: Read's
// "   100\tfunc …" lines stop being an indented code block once line
// numbers reach three digits and run together as a paragraph, a path
// like pkg/__init__.py turns "init" bold, a regex loses its backslashes.
// So the text of those cards goes to the editor fenced, and shows
// verbatim in a code block. The log keeps the text as the tool returned
// it (logged once, logonce.go); both the live card and a replay fence it
// here, so a session logged before this shows the same. Only what a
// call returned is fenced: a failed call's card is cordis's own prose
// ("The user rejected this Bash call.").

// verbatimKind reports whether a card of this kind shows its text as
// it is: the output of reading, searching and running things.
func verbatimKind(kind acp.ToolKind) bool {
	switch kind {
	case acp.ToolKindRead, acp.ToolKindSearch, acp.ToolKindExecute:
		return true
	}
	return false
}

// verbatimContent fences the text blocks of content (a copy; diffs and
// terminals are left as they are, and so is the one line that goes with
// an image Read returned).
func verbatimContent(content []acp.ToolCallContent) []acp.ToolCallContent {
	for _, c := range content {
		if c.Type == "content" && c.Content != nil && c.Content.Type == "image" {
			return content
		}
	}
	out := make([]acp.ToolCallContent, len(content))
	for i, c := range content {
		if c.Type == "content" && c.Content != nil && c.Content.Type == "text" && c.Content.Text != "" && !isFenced(c.Content.Text) {
			c = acp.ContentText(tools.Fenced(c.Content.Text, ""))
		}
		out[i] = c
	}
	return out
}

// isFenced reports whether text is already one code block (a released
// terminal's output, terminalOutputText).
func isFenced(text string) bool {
	return strings.HasPrefix(text, "```") && strings.HasSuffix(text, "```") && strings.Contains(text, "\n")
}

// fencedEncoded is tools.Fenced(text, "") and its JSON encoding, built
// from encoded (json.Marshal(text)) without encoding the text again: the
// fence is backticks and the newlines around the text encode as \n.
func fencedEncoded(text, encoded string) (string, string) {
	fenced := tools.Fenced(text, "")
	fence := fenced[:strings.IndexByte(fenced, '\n')]
	return fenced, `"` + fence + `\n` + encoded[1:len(encoded)-1] + `\n` + fence + `"`
}

// Zed renders a tool call's title as Markdown too, except for execute
// calls (plain text) and edit calls (escaped first): acp_thread
// ToolCall::from_acp. The titles of Read, Grep and Glob are a verb and
// then a path or a pattern, so when that part holds a character Markdown
// would act on, it goes out as inline code ("Read `pkg/__init__.py`"),
// which shows it as it is in Zed and reads naturally in a plain-text
// client (claude-agent-acp titles Glob calls the same way).

// markdownTitle is the title Zed shows as written for a call of kind.
func markdownTitle(kind acp.ToolKind, title string) string {
	if kind != acp.ToolKindRead && kind != acp.ToolKindSearch {
		return title
	}
	verb, rest, ok := strings.Cut(title, " ")
	if !ok || !strings.ContainsAny(rest, "\\`*_[]<>#~|&!") || strings.Contains(rest, "\n") {
		return title
	}
	return verb + " " + inlineCode(rest)
}

// inlineCode is s as a Markdown code span: delimited by one more backtick
// than its longest run of them, padded with a space where s starts or
// ends with one (CommonMark strips one space from each side).
func inlineCode(s string) string {
	longest, run := 0, 0
	for _, r := range s {
		if r == '`' {
			run++
			longest = max(longest, run)
		} else {
			run = 0
		}
	}
	fence := strings.Repeat("`", longest+1)
	if strings.HasPrefix(s, "`") || strings.HasSuffix(s, "`") {
		s = " " + s + " "
	}
	return fence + s + fence
}
