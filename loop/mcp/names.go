package mcp

import (
	"crypto/sha256"
	"encoding/hex"
	"strconv"
	"strings"
)

// MaxNameLen is the longest tool name the model APIs accept.
const MaxNameLen = 64

// Prefix starts every name cordis gives an MCP tool or prompt command, as
// in Claude Code: mcp__<server>__<tool>.
const Prefix = "mcp__"

// Normalize replaces every character outside [A-Za-z0-9_-] with '_', so a
// server or tool name can be part of a tool or command name.
func Normalize(s string) string {
	var b strings.Builder
	b.Grow(len(s))
	for _, r := range s {
		switch {
		case r >= 'a' && r <= 'z', r >= 'A' && r <= 'Z', r >= '0' && r <= '9', r == '_', r == '-':
			b.WriteRune(r)
		default:
			b.WriteByte('_')
		}
	}
	if b.Len() == 0 {
		return "_"
	}
	return b.String()
}

// QualifiedName is the name of a server's tool or prompt before length and
// collision handling: mcp__<server>__<name>, both parts normalized.
func QualifiedName(server, name string) string {
	return Prefix + Normalize(server) + "__" + Normalize(name)
}

// namer hands out unique names of at most max characters. A name that is
// too long or already taken is shortened and given a suffix derived from
// what it names (the server and the remote name), so the result does not
// depend on the order the servers answered in.
type namer struct {
	max   int
	taken map[string]bool
}

func newNamer(max int) *namer { return &namer{max: max, taken: map[string]bool{}} }

func (n *namer) assign(server, remote string) string {
	name := QualifiedName(server, remote)
	if len(name) <= n.max && !n.taken[name] {
		n.taken[name] = true
		return name
	}
	sum := sha256.Sum256([]byte(server + "\x00" + remote))
	suffix := "_" + hex.EncodeToString(sum[:4])
	for i := 1; ; i++ {
		s := suffix
		if i > 1 {
			s += "_" + strconv.Itoa(i)
		}
		cand := name
		if len(cand)+len(s) > n.max {
			cand = cand[:n.max-len(s)]
		}
		cand += s
		if !n.taken[cand] {
			n.taken[cand] = true
			return cand
		}
	}
}

// serverNames gives each configured server the name it is exposed under:
// its name, normalized; a repeated name gets _2, _3, ... in spec order.
func serverNames(names []string) []string {
	out := make([]string, len(names))
	seen := map[string]bool{}
	for i, n := range names {
		base := Normalize(n)
		cand := base
		for k := 2; seen[cand]; k++ {
			cand = base + "_" + strconv.Itoa(k)
		}
		seen[cand] = true
		out[i] = cand
	}
	return out
}
