package config

import (
	"fmt"
	"strings"
	"unicode/utf8"
)

// choices renders the hint that follows an unknown name:
// `did you mean "model"? valid: maxTokens, model`. label names the list
// ("valid", "known").
func choices(got string, candidates []string, label string) string {
	if len(candidates) == 0 {
		return label + ": none"
	}
	list := label + ": " + strings.Join(candidates, ", ")
	if best, ok := closest(got, candidates); ok {
		return fmt.Sprintf("did you mean %q? %s", best, list)
	}
	return list
}

// maxSuggestLen bounds the quadratic distance computation for pathological input.
const maxSuggestLen = 200

// closest returns the candidate nearest to got when it is near enough to be a
// plausible typo: one edit for names of up to three characters, else two or
// one per three characters, whichever is more.
func closest(got string, candidates []string) (string, bool) {
	if got == "" || len(got) > maxSuggestLen {
		return "", false
	}
	best, bestDist := "", -1
	for _, c := range candidates {
		if len(c) > maxSuggestLen {
			continue
		}
		d := editDistance(strings.ToLower(got), strings.ToLower(c))
		if bestDist < 0 || d < bestDist {
			best, bestDist = c, d
		}
	}
	limit := 1
	if n := utf8.RuneCountInString(got); n > 3 {
		limit = max(2, n/3)
	}
	return best, bestDist >= 0 && bestDist <= limit
}

// editDistance is the optimal string alignment distance: Levenshtein plus
// transposition of adjacent characters, the commonest typo ("modle").
func editDistance(a, b string) int {
	ra, rb := []rune(a), []rune(b)
	// Three rolling rows: transposition looks two rows back.
	prev2 := make([]int, len(rb)+1)
	prev := make([]int, len(rb)+1)
	cur := make([]int, len(rb)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(ra); i++ {
		cur[0] = i
		for j := 1; j <= len(rb); j++ {
			cost := 1
			if ra[i-1] == rb[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
			if i > 1 && j > 1 && ra[i-1] == rb[j-2] && ra[i-2] == rb[j-1] {
				cur[j] = min(cur[j], prev2[j-2]+1)
			}
		}
		prev2, prev, cur = prev, cur, prev2
	}
	return prev[len(rb)]
}
