package toolids

import (
	"crypto/sha256"
	"encoding/binary"
	"strconv"

	"github.com/cordis-agent/cordis/llm"
)

// Rule is what an API accepts as a tool call id.
type Rule struct {
	// Valid reports whether the API accepts id (uniqueness is checked
	// apart).
	Valid func(id string) bool
	// Fresh returns an id the API accepts for the tool call at position
	// n of the conversation (0-based) whose id was old; attempt counts
	// up from 0 when an earlier choice was taken.
	Fresh func(old string, n, attempt int) string
}

// Rewrite returns msgs with every tool_use id that r rejects, or that an
// earlier tool_use of the conversation already carries, replaced by a
// fresh one, and the tool_result blocks that answer it (in the user
// messages up to the next assistant message) renamed alike; results for
// one id that two calls of a message shared are matched in order. msgs
// itself is returned when nothing needs renaming; it is never modified.
func Rewrite(msgs []llm.Message, r Rule) []llm.Message {
	if !needsRewrite(msgs, r) {
		return msgs
	}
	used := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type == llm.BlockToolUse && r.Valid(b.ID) {
				used[b.ID] = true // ids kept as they are must not be handed out
			}
		}
	}
	taken := map[string]bool{}
	out := make([]llm.Message, len(msgs))
	var pending map[string][]string // old id -> new ids, of the latest assistant message
	n := 0
	for i, m := range msgs {
		out[i] = m
		switch m.Role {
		case llm.RoleAssistant:
			pending = map[string][]string{}
			var content []llm.Block
			for j, b := range m.Content {
				if b.Type != llm.BlockToolUse {
					continue
				}
				id := b.ID
				if !r.Valid(id) || taken[id] {
					for attempt := 0; ; attempt++ {
						id = r.Fresh(b.ID, n, attempt)
						if r.Valid(id) && !taken[id] && !used[id] {
							break
						}
					}
					if content == nil {
						content = append([]llm.Block(nil), m.Content...)
					}
					content[j].ID = id
				}
				taken[id] = true
				pending[b.ID] = append(pending[b.ID], id)
				n++
			}
			if content != nil {
				out[i].Content = content
			}
		default:
			var content []llm.Block
			for j, b := range m.Content {
				if b.Type != llm.BlockToolResult {
					continue
				}
				q := pending[b.ToolUseID]
				if len(q) == 0 {
					continue // answers nothing of the message before: left to the encoder
				}
				pending[b.ToolUseID] = q[1:]
				if q[0] == b.ToolUseID {
					continue
				}
				if content == nil {
					content = append([]llm.Block(nil), m.Content...)
				}
				content[j].ToolUseID = q[0]
			}
			if content != nil {
				out[i].Content = content
			}
		}
	}
	return out
}

// needsRewrite reports whether some tool_use id is rejected or repeated.
func needsRewrite(msgs []llm.Message, r Rule) bool {
	seen := map[string]bool{}
	for _, m := range msgs {
		for _, b := range m.Content {
			if b.Type != llm.BlockToolUse {
				continue
			}
			if seen[b.ID] || !r.Valid(b.ID) {
				return true
			}
			seen[b.ID] = true
		}
	}
	return false
}

// Digest returns n characters from alphabet, derived from old, the
// position and the attempt: the same arguments give the same id.
func Digest(alphabet string, n int, old string, pos, attempt int) string {
	var seed [16]byte
	binary.BigEndian.PutUint64(seed[:8], uint64(pos))
	binary.BigEndian.PutUint64(seed[8:], uint64(attempt))
	out := make([]byte, 0, n)
	for block := 0; len(out) < n; block++ {
		sum := sha256.Sum256([]byte(old + "\x00" + string(seed[:]) + strconv.Itoa(block)))
		for _, c := range sum {
			if len(out) == n {
				break
			}
			out = append(out, alphabet[int(c)%len(alphabet)])
		}
	}
	return string(out)
}

// Alphanumeric is the alphabet of ids that allow only letters and digits.
const Alphanumeric = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"

// Sanitize replaces every character of id outside [A-Za-z0-9_-] with "_"
// and cuts it to max bytes (max <= 0: no limit).
func Sanitize(id string, max int) string {
	b := []byte(id)
	for i, c := range b {
		if !isWordOrDash(c) {
			b[i] = '_'
		}
	}
	if max > 0 && len(b) > max {
		b = b[:max]
	}
	return string(b)
}

// IsWordOrDash reports whether id is non-empty, at most max bytes (max <=
// 0: no limit) and only [A-Za-z0-9_-].
func IsWordOrDash(id string, max int) bool {
	if id == "" || (max > 0 && len(id) > max) {
		return false
	}
	for i := 0; i < len(id); i++ {
		if !isWordOrDash(id[i]) {
			return false
		}
	}
	return true
}

func isWordOrDash(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_' || c == '-'
}
