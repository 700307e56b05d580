package replay

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"slices"
	"strings"
)

// Placeholders that stand for the parts of a request kept in sidecars.
const (
	SystemPlaceholder = "{{system}}"
	ToolsPlaceholder  = "{{tools}}"
)

// PathReplacer replaces every spelling of a set of directories (as given,
// cleaned, and with symlinks resolved, such as macOS's /private/var for
// /var) by placeholders. Longer paths are replaced first, and only at path
// boundaries, so /tmp/x never matches inside /tmp/xy or /a/tmp/x.
type PathReplacer struct {
	pairs []pathPair
	// expand maps each placeholder back to its path as given.
	expand []pathPair
}

type pathPair struct{ spelling, placeholder string }

// NewPathReplacer builds a replacer for vars.
func NewPathReplacer(vars []PathVar) *PathReplacer {
	r := &PathReplacer{}
	seen := map[string]bool{}
	add := func(spelling, placeholder string) {
		if spelling == "" || spelling == "/" || spelling == "." || seen[spelling] {
			return
		}
		seen[spelling] = true
		r.pairs = append(r.pairs, pathPair{spelling, placeholder})
	}
	for _, v := range vars {
		if v.Path != "" {
			r.expand = append(r.expand, pathPair{v.Path, v.Placeholder})
		}
		add(v.Path, v.Placeholder)
		add(filepath.Clean(v.Path), v.Placeholder)
		if real, err := filepath.EvalSymlinks(v.Path); err == nil {
			add(real, v.Placeholder)
		}
		if abs, err := filepath.Abs(v.Path); err == nil {
			add(abs, v.Placeholder)
		}
	}
	slices.SortStableFunc(r.pairs, func(a, b pathPair) int { return len(b.spelling) - len(a.spelling) })
	return r
}

// Replace returns s with every spelling replaced.
func (r *PathReplacer) Replace(s string) string {
	if r == nil {
		return s
	}
	for _, p := range r.pairs {
		if strings.Contains(s, p.spelling) {
			s = replaceAtBoundaries(s, p.spelling, p.placeholder)
		}
	}
	return s
}

// Expand replaces every placeholder with its path: what a recorded
// response carries back into the run that replays it.
func (r *PathReplacer) Expand(s string) string {
	if r == nil {
		return s
	}
	for _, p := range r.expand {
		s = strings.ReplaceAll(s, p.placeholder, p.spelling)
	}
	return s
}

func replaceAtBoundaries(s, old, repl string) string {
	var b strings.Builder
	for {
		i := strings.Index(s, old)
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		end := i + len(old)
		if startBoundary(s, i) && endBoundary(s, end) {
			b.WriteString(s[:i])
			b.WriteString(repl)
		} else {
			b.WriteString(s[:end])
		}
		s = s[end:]
	}
}

func isNameByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '.' || c == '_' || c == '-'
}

func startBoundary(s string, i int) bool {
	if i == 0 {
		return true
	}
	if strings.HasSuffix(s[:i], "file://") {
		return true
	}
	c := s[i-1]
	return !isNameByte(c) && c != '/' && c != '\\'
}

// endBoundary: the path ends at end, or is followed by a character that
// cannot continue a file name, or by a full stop that ends a sentence.
func endBoundary(s string, end int) bool {
	if end == len(s) || !isNameByte(s[end]) {
		return true
	}
	return s[end] == '.' && (end+1 == len(s) || !isNameByte(s[end+1]))
}

// Canonical re-encodes JSON with sorted object keys, two-space indent, no
// HTML escaping and numbers as written, so that equal values give equal
// bytes whatever the key order and whitespace of the input.
func Canonical(data []byte) ([]byte, error) {
	v, err := decode(data)
	if err != nil {
		return nil, err
	}
	return encodeIndent(v)
}

func decode(data []byte) (any, error) {
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil {
		return nil, err
	}
	if dec.More() {
		return nil, fmt.Errorf("trailing data after the JSON value")
	}
	return v, nil
}

func encodeIndent(v any) ([]byte, error) {
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	enc.SetIndent("", "  ")
	if err := enc.Encode(v); err != nil {
		return nil, err
	}
	return b.Bytes(), nil
}

// mapStrings returns v with f applied to every string value (keys are left
// alone).
func mapStrings(v any, f func(string) string) any {
	switch x := v.(type) {
	case string:
		return f(x)
	case []any:
		for i := range x {
			x[i] = mapStrings(x[i], f)
		}
		return x
	case map[string]any:
		for k := range x {
			x[k] = mapStrings(x[k], f)
		}
		return x
	}
	return v
}

// Split is a Messages API request body taken apart for comparison: the
// system prompt and the tool list go to their sidecars, the rest stays.
type Split struct {
	// Rest is the canonical body with "system" and "tools" replaced by
	// SystemPlaceholder and ToolsPlaceholder (when present).
	Rest []byte
	// System is the system prompt as the .system.md sidecar holds it ("" if
	// the request has none).
	System string
	// Tools is the tool list as the .tools.json sidecar holds it ("" if the
	// request has none).
	Tools string
}

// SplitRequest normalizes a request body: paths become placeholders, then
// the system prompt and tools move out. A system prompt that is not a list
// of plain text blocks stays in Rest.
func SplitRequest(body []byte, paths *PathReplacer) (Split, error) {
	var s Split
	v, err := decode(body)
	if err != nil {
		return s, fmt.Errorf("request body is not JSON: %v", err)
	}
	obj, ok := v.(map[string]any)
	if !ok {
		return s, fmt.Errorf("request body is not a JSON object")
	}
	mapStrings(obj, paths.Replace)
	if sys, ok := renderSystem(obj["system"]); ok {
		s.System = sys
		obj["system"] = SystemPlaceholder
	}
	if tools, ok := obj["tools"]; ok {
		data, err := encodeIndent(tools)
		if err != nil {
			return s, err
		}
		s.Tools = string(data)
		obj["tools"] = ToolsPlaceholder
	}
	if s.Rest, err = encodeIndent(obj); err != nil {
		return s, err
	}
	return s, nil
}

// renderSystem renders [{type:text,text}...] as the sidecar text: each
// block under a "<!-- system[i] -->" line.
func renderSystem(v any) (string, bool) {
	blocks, ok := v.([]any)
	if !ok || len(blocks) == 0 {
		return "", false
	}
	var b strings.Builder
	for i, raw := range blocks {
		block, ok := raw.(map[string]any)
		if !ok || len(block) != 2 || block["type"] != "text" {
			return "", false
		}
		text, ok := block["text"].(string)
		if !ok {
			return "", false
		}
		if i > 0 {
			b.WriteString("\n")
		}
		fmt.Fprintf(&b, "<!-- system[%d] -->\n%s\n", i, text)
	}
	return b.String(), true
}
