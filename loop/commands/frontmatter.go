package commands

import (
	"strings"

	"gopkg.in/yaml.v3"
)

// frontmatterKey starts a top-level "key: value" line of a frontmatter.
var frontmatterKey = lazyRegexp(`^([A-Za-z_][A-Za-z0-9_-]*):(?:\s+(.*)|$)`)

// lenientFrontmatter rebuilds a frontmatter that is not valid YAML the
// way Claude Code still reads it: real plugins ship agents whose
// description is an unquoted paragraph full of ": " and "<example>"
// lines, which strict YAML rejects. Each line that starts with "key:"
// opens a field; the lines after it, up to the next such line, continue
// its value. A value that is valid YAML on its own (a flow list
// `["Read", "Grep"]`, true, a quoted string) keeps its type; any other
// becomes the text as written. It returns the header as valid YAML.
func lenientFrontmatter(head []byte) ([]byte, error) {
	type field struct {
		key   string
		lines []string
	}
	var fields []*field
	for _, line := range strings.Split(string(head), "\n") {
		if m := frontmatterKey().FindStringSubmatch(line); m != nil {
			fields = append(fields, &field{key: m[1], lines: []string{m[2]}})
			continue
		}
		if len(fields) > 0 {
			last := fields[len(fields)-1]
			last.lines = append(last.lines, line)
		}
	}
	doc := &yaml.Node{Kind: yaml.MappingNode}
	seen := map[string]bool{}
	for _, f := range fields {
		if seen[f.key] {
			continue // the first wins, as a strict parser would refuse the rest
		}
		seen[f.key] = true
		text := strings.TrimSpace(strings.Join(f.lines, "\n"))
		value := &yaml.Node{Kind: yaml.ScalarNode, Tag: "!!str", Value: text}
		var typed yaml.Node
		if yaml.Unmarshal([]byte(text), &typed) == nil && len(typed.Content) == 1 {
			if n := typed.Content[0]; n.Kind == yaml.ScalarNode || n.Kind == yaml.SequenceNode && n.Style == yaml.FlowStyle || text == "" {
				value = n
			}
		}
		doc.Content = append(doc.Content, &yaml.Node{Kind: yaml.ScalarNode, Value: f.key}, value)
	}
	return yaml.Marshal(doc)
}

// hasNoFields reports whether a frontmatter has no "key:" line at all,
// which no leniency can read.
func hasNoFields(head []byte) bool {
	for _, line := range strings.Split(string(head), "\n") {
		if frontmatterKey().MatchString(line) {
			return false
		}
	}
	return true
}
