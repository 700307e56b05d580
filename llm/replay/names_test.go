package replay

import (
	"regexp"
	"testing"
)

// TestFixtureNames checks the hand-written name checks against the
// regular expressions they stand for.
func TestFixtureNames(t *testing.T) {
	conversation := regexp.MustCompile(`^[0-9]{2}-[a-z][a-z0-9-]*$`)
	call := regexp.MustCompile(`^([0-9]{3})\.(request\.json|response\.sse)$`)
	names := []string{
		"", "01", "01-", "01-a", "01-main", "01-sub-agent2", "1-main", "001-main", "01-Main", "01-9a",
		"01_main", "01-ma in", "ab-main", "01-main/", "99-z-", "01-é",
		"000.request.json", "001.response.sse", "01.request.json", "0001.request.json", "001.request.jsonx",
		"001.response.SSE", "001request.json", "abc.request.json", "001.", "001.meta.yml", "١٢٣.request.json",
	}
	for _, name := range names {
		if got, want := IsConversationName(name), conversation.MatchString(name); got != want {
			t.Errorf("IsConversationName(%q) = %v, want %v", name, got, want)
		}
		n, kind, ok := ParseCallFile(name)
		m := call.FindStringSubmatch(name)
		if ok != (m != nil) {
			t.Errorf("ParseCallFile(%q) ok = %v, want %v", name, ok, m != nil)
			continue
		}
		if ok && (kind != m[2] || n != atoi(t, m[1])) {
			t.Errorf("ParseCallFile(%q) = %d, %q; want %s, %q", name, n, kind, m[1], m[2])
		}
	}
}

func atoi(t *testing.T, s string) int {
	t.Helper()
	n := 0
	for _, c := range s {
		n = n*10 + int(c-'0')
	}
	return n
}
