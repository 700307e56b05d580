package toolids

import (
	"reflect"
	"regexp"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/llm"
)

// fuzzRules are the shapes of the providers' rules: Mistral's nine
// letters or digits, Anthropic's [A-Za-z0-9_-]+ (sanitized first), and
// OpenAI's with a 40-byte cap.
var fuzzRules = []struct {
	name  string
	valid *regexp.Regexp
	rule  Rule
}{
	{"mistral", nineAlnum, mistralRule},
	{"anthropic", regexp.MustCompile(`^[A-Za-z0-9_-]+$`), Rule{
		Valid: func(id string) bool { return IsWordOrDash(id, 0) },
		Fresh: func(old string, n, attempt int) string {
			if s := Sanitize(old, 0); attempt == 0 && s != "" {
				return s
			}
			return "toolu_" + Digest(Alphanumeric, 24, old, n, attempt)
		},
	}},
	{"openai", regexp.MustCompile(`^[A-Za-z0-9_-]{1,40}$`), Rule{
		Valid: func(id string) bool { return IsWordOrDash(id, 40) },
		Fresh: func(old string, n, attempt int) string {
			if s := Sanitize(old, 40); attempt == 0 && s != "" {
				return s
			}
			return "call_" + Digest(Alphanumeric, 24, old, n, attempt)
		},
	}},
}

// FuzzRewrite renames the tool call ids of conversations built from
// arbitrary bytes (ids from a small pool, so that they repeat and
// collide with the fresh ones' shapes): every tool_use id of the result
// matches the rule and is unique; an id that was valid and first is
// kept; each result still answers the call it answered (repeated ids
// matched in order); results answering nothing are left alone; nothing
// but ids changes; the input is not modified; the same input gives the
// same output; and the output needs no second rewrite.
func FuzzRewrite(f *testing.F) {
	f.Add([]byte("\x01\x02\x00\x01\x02\x00\x03\x05\x04\x05"), "toolu_01ABC")
	f.Add([]byte("\x01\x06\x06\x07\x02\x06\x06\x07"), "functions.Bash:0")
	f.Add([]byte("\x01\x08\x02\x08\x01\x08\x02\x08"), "aB3dE6gH9")
	f.Add([]byte("\x01\x09\x09\x02\x09\x09\x09"), strings.Repeat("x", 41))
	f.Fuzz(func(t *testing.T, script []byte, extra string) {
		pool := []string{"", "toolu_01ABC", "functions.Bash:0", "aB3dE6gH9", "call_1", "x y", extra, strings.Repeat("a", 41), "toolu_" + Digest(Alphanumeric, 24, "", 0, 0), Digest(Alphanumeric, 9, "", 0, 0)}
		msgs := buildConversation(script, pool)
		before := cloneMessages(msgs)
		for _, r := range fuzzRules {
			out := Rewrite(msgs, r.rule)
			if !reflect.DeepEqual(msgs, before) {
				t.Fatalf("%s: Rewrite modified its input", r.name)
			}
			if again := Rewrite(cloneMessages(msgs), r.rule); !reflect.DeepEqual(again, out) {
				t.Fatalf("%s: two rewrites differ", r.name)
			}
			if second := Rewrite(out, r.rule); !reflect.DeepEqual(second, out) {
				t.Fatalf("%s: the output needed a second rewrite", r.name)
			}
			checkRewrite(t, r.name, r.valid, msgs, out)
		}
	})
}

// buildConversation turns bytes into messages: 1 starts an assistant
// message, 2 a user message, 3 adds text; any other byte adds a tool_use
// (to an assistant message) or a tool_result (to a user message) with
// the id pool[b % len(pool)].
func buildConversation(script []byte, pool []string) []llm.Message {
	var msgs []llm.Message
	for _, b := range script {
		switch {
		case b == 1:
			msgs = append(msgs, llm.Message{Role: llm.RoleAssistant})
		case b == 2 || len(msgs) == 0:
			msgs = append(msgs, llm.Message{Role: llm.RoleUser})
			if b == 2 {
				continue
			}
			fallthrough
		case b == 3:
			msgs[len(msgs)-1].Content = append(msgs[len(msgs)-1].Content, llm.Text("t"))
		default:
			m := &msgs[len(msgs)-1]
			id := pool[int(b)%len(pool)]
			if m.Role == llm.RoleAssistant {
				m.Content = append(m.Content, llm.Block{Type: llm.BlockToolUse, ID: id, Name: "Bash"})
			} else {
				m.Content = append(m.Content, llm.Block{Type: llm.BlockToolResult, ToolUseID: id})
			}
		}
	}
	return msgs
}

func cloneMessages(msgs []llm.Message) []llm.Message {
	if msgs == nil {
		return nil
	}
	out := make([]llm.Message, len(msgs))
	for i, m := range msgs {
		out[i] = m
		out[i].Content = append([]llm.Block(nil), m.Content...)
	}
	return out
}

func checkRewrite(t *testing.T, rule string, valid *regexp.Regexp, in, out []llm.Message) {
	t.Helper()
	if len(in) != len(out) {
		t.Fatalf("%s: %d messages became %d", rule, len(in), len(out))
	}
	seen := map[string]bool{}
	firstValid := map[string]bool{} // valid ids at their first use in the input
	var calls map[string][]string   // old id -> new ids, of the latest assistant message
	for i := range in {
		if len(in[i].Content) != len(out[i].Content) || in[i].Role != out[i].Role {
			t.Fatalf("%s: message %d changed shape", rule, i)
		}
		if in[i].Role == llm.RoleAssistant {
			calls = map[string][]string{}
		}
		for j, b := range in[i].Content {
			o := out[i].Content[j]
			cmp := o
			cmp.ID, cmp.ToolUseID = b.ID, b.ToolUseID
			if !reflect.DeepEqual(cmp, b) {
				t.Fatalf("%s: message %d block %d changed beyond its ids", rule, i, j)
			}
			switch {
			case b.Type == llm.BlockToolUse:
				if !valid.MatchString(o.ID) || seen[o.ID] {
					t.Fatalf("%s: message %d: id %q invalid or used twice", rule, i, o.ID)
				}
				if valid.MatchString(b.ID) && !firstValid[b.ID] && !seen[b.ID] && o.ID != b.ID {
					t.Fatalf("%s: message %d: the valid id %q was renamed %q", rule, i, b.ID, o.ID)
				}
				firstValid[b.ID] = true
				seen[o.ID] = true
				calls[b.ID] = append(calls[b.ID], o.ID)
			case b.Type == llm.BlockToolResult:
				want := b.ToolUseID
				if q := calls[b.ToolUseID]; in[i].Role != llm.RoleAssistant && len(q) > 0 {
					want, calls[b.ToolUseID] = q[0], q[1:]
				}
				if o.ToolUseID != want {
					t.Fatalf("%s: message %d: the result for %q now answers %q, want %q", rule, i, b.ToolUseID, o.ToolUseID, want)
				}
			}
		}
	}
}
