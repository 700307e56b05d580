package tools

import (
	"strings"
	"testing"
)

func TestStrictDecoding(t *testing.T) {
	env := newEnv(t)
	tests := []struct {
		name  string
		tool  string
		input string
		want  []string // substrings of the error text
	}{
		{"unknown field", "Read", `{"file_path":"/x","bogus":1}`,
			[]string{`Read: unknown input field "bogus"`, "accepted: file_path, offset, limit"}},
		{"two unknown fields sorted", "Bash", `{"command":"true","zz":1,"aa":true}`,
			[]string{`Bash: unknown input fields "aa", "zz"`}},
		{"case matters", "Write", `{"File_Path":"/x","content":""}`,
			[]string{`unknown input field "File_Path"`}},
		{"wrong type", "Read", `{"file_path":"/x","offset":"10"}`,
			[]string{"Read: invalid input:", "offset", "string"}},
		{"not an object", "Glob", `["**"]`,
			[]string{"Glob: invalid input: the input must be a JSON object"}},
		{"trailing garbage", "Glob", `{"pattern":"*"} x`,
			[]string{"Glob: invalid input"}},
		{"nested unknown field", "TodoWrite", `{"todos":[{"content":"a","status":"pending","owner":"me"}]}`,
			[]string{"TodoWrite: invalid input:", `"owner"`}},
		{"missing required", "Edit", `{}`,
			[]string{"Edit: file_path is required"}},
		{"null input", "Grep", `null`,
			[]string{"Grep: pattern is required"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			res := run(t, env, tt.tool, tt.input)
			if !res.IsError {
				t.Fatalf("IsError = false, text %q", res.Text)
			}
			for _, w := range tt.want {
				if !strings.Contains(res.Text, w) {
					t.Errorf("error %q does not contain %q", res.Text, w)
				}
			}
		})
	}
}

func TestDescribeToleratesInvalidInput(t *testing.T) {
	env := newEnv(t)
	for _, tool := range Builtin() {
		for _, in := range []string{``, `null`, `[]`, `{"file_path":3,"command":[]}`, `{`} {
			d := tool.Describe(env, raw(t, in))
			if d.Title == "" {
				t.Errorf("%s.Describe(%q): empty title", tool.Name(), in)
			}
		}
	}
}
