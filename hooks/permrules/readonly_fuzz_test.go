package permrules

import (
	"bytes"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
)

// FuzzReadOnlyCommand feeds arbitrary command lines to ReadOnlyCommand
// (which lets a Bash command run without asking) in a session tree with
// a symlink leading out, and checks every line it accepts against an
// oracle written apart from parseShell and the command table: a small
// lexer of its own and a scan that over-approximates danger. An accepted
// line must show none of: command or process substitution, parameter or
// arithmetic expansion, brace expansion, a here-document, output
// redirected to a file, a program outside the read-only utilities, an
// environment assignment other than the locale's, a writer's flag (find
// -exec / -delete / -fprint, sed -i / -f and w, r, e in its script, sort
// -o, git -c / --output / --ext-diff, printf -v, ...), a walk that
// follows symlinks, or a file it reads outside the session's directories
// (symlinks resolved).
func FuzzReadOnlyCommand(f *testing.F) {
	for _, s := range []string{
		"ls -la sub", "cat a.txt | wc -l", "git log --oneline -n 20", "grep -rn 'TODO' .", "find . -name '*.go' -type f",
		"sed -n '1,10p' a.txt", "sed -e 's|a|b|' -e '2q' a.txt", "echo 'a;b' && pwd", "LC_ALL=C sort -k2 a.txt | uniq -c",
		"cd sub && cat b.txt", "head -n 5 a.txt 2>/dev/null", "git -C sub status", "TZ=Europe/Paris date +%s",
		"cat escape/secret", "cat a.txt > b.txt", "find . -delete", "sed -i s/a/b/ a.txt", "echo $(id)", "echo `id`",
		"ls; rm -rf x", "git -c core.pager=sh log", "sort -o out a.txt", "cat <<EOF", "PATH=/tmp ls", "grep -f/etc/passwd a.txt",
		"date -f/tmp/x", "date -f escape/secret", "find -L . -name secret", "find . -follow", "ls -RL", "tree -l", "cat {a,b}.txt", "sed 's/x/y/w out' a.txt", "cat ~/x",
		"cat 'a.txt'\\;x", "echo \"$HOME\"", "printf -v PATH x", "git diff --output=x", "cat sub/../../x", "grep -f0/ a.txt", "ls escape/\x00", "grep -eA/0 a.txt", "tree -rL 2", "cat ,{}", "git log -O", "git grep -Ovi x", "sort -=o", "grep 0 -A -R", "grep 0 -!A -R", "cat {},0}", "cat {0},}", "find -H *0", `find . ""{},-delete}`, "find . -name {}", "find -D *", "find -O* .", "find -D 0 *0", `find . ""{}";",-delete}`, `find {}," "}`, `find . ""{},-delete" "}`, "date -d -d..", "date -r ../x", "ls /*/*/*/*",
		// Globs bash reads otherwise than Go's filepath.Match (issue 27).
		"find [!a]delete", "rg todo [!a]-pre=sh a.txt", "find [[:punct:]]delete", "find [[.-.]]delete", "find [[=-=]]delete",
		"cat '[x]'*/secret", "cat [x]/secret", "cat {*}/secret", "find [\\!-]delete", "cat [^a]-pre=sh",
		// .. after a symlink is the parent of its target (issue 27).
		"cat docs/l/../secret", "grep -r X docs/l/..", "cd -P docs/l/.. && cat secret", "cd docs && cat l/../secret", "git -C docs/l/.. log",
		// Options read otherwise than the programs read them (issue 27).
		"grep --regex=x escape/secret", "grep --rege=x escape/secret", "strings @escape/secret", "hexdump -fescape/secret a.txt",
		"file -mescape/secret a.txt", "grep -rfescape/secret a.txt", "sort --random-source=escape/secret a.txt", "grep x a.txt --file escape/secret", "tree -L /", "sort -to", "cat *'/'", "cd 0&cat 0*00", "date -df",
		// git operands and files read as paths (issue 27).
		"git diff escape/secret a.txt", "git diff a.txt ../x", "git blame --contents escape/secret a.txt", "git log -p -Oescape/secret",
		"git blame --ignore-revs-file=escape/secret a.txt", "git diff -- ':(top)'", "git log --format=%G?", "git cat-file --textconv HEAD:a.txt",
	} {
		f.Add(s)
	}
	dirs, outside := fuzzTree(f)
	f.Fuzz(func(t *testing.T, line string) {
		if len(line) > 400 {
			return // the tree walk of a long line is slow, and no longer finds more
		}
		if !ReadOnlyCommand(line, dirs) {
			return
		}
		if why := readOnlyOracle(line, dirs, outside); why != "" {
			t.Fatalf("ReadOnlyCommand(%q) = true, but %s", line, why)
		}
	})
}

// fuzzTree makes a session directory with a file, a subdirectory, files
// named like flags (-delete, --pre=sh) and symlinks leading out (escape,
// [x], which a glob [x] does not match, and docs/l, into a directory of
// the outside one), an extra directory, a home and an outside directory
// with a file.
func fuzzTree(f *testing.F) (ReadOnlyDirs, string) {
	cwd, extra, outside, home := f.TempDir(), f.TempDir(), f.TempDir(), f.TempDir()
	for _, p := range []string{filepath.Join(cwd, "a.txt"), filepath.Join(cwd, "sub", "b.txt"), filepath.Join(outside, "secret"),
		filepath.Join(cwd, "-delete"), filepath.Join(cwd, "--pre=sh")} {
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			f.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			f.Fatal(err)
		}
	}
	for _, l := range []string{"escape", "[x]"} {
		if err := os.Symlink(outside, filepath.Join(cwd, l)); err != nil {
			f.Fatal(err)
		}
	}
	// docs/l/.. is outside, docs/l/../secret the outside file.
	if err := os.MkdirAll(filepath.Join(outside, "inner"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(cwd, "docs"), 0o755); err != nil {
		f.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(outside, "inner"), filepath.Join(cwd, "docs", "l")); err != nil {
		f.Fatal(err)
	}
	return ReadOnlyDirs{Cwd: cwd, Dirs: []string{extra}, Home: home}, outside
}

// oracleWord is a word as the oracle's lexer reads it.
type oracleWord struct {
	text         string
	quoted, glob bool
	tilde        bool
	// source is the word as written on the line, quotes included: what
	// bash expands.
	source string
}

type oracleCommand struct {
	words []oracleWord
	// reads are the files of input redirections.
	reads []oracleWord
}

// oracleLex cuts a line into simple commands; a non-empty danger is a
// reason the line is not read-only (or that the oracle cannot read it,
// which counts as danger too).
func oracleLex(s string) (cmds []oracleCommand, danger string) {
	var cur oracleCommand
	var w oracleWord
	var b strings.Builder
	in := false
	redir := ""   // the operator waiting for its target
	braceAt := -1 // where an unquoted { of the word is, in b
	pos, wordAt := 0, 0
	flush := func() {
		if !in {
			return
		}
		w.text, w.source, in = b.String(), s[wordAt:pos], false
		b.Reset()
		braceAt = -1
		switch {
		case redir == "":
			cur.words = append(cur.words, w)
		case redir == "<":
			cur.reads = append(cur.reads, w)
		case strings.HasSuffix(redir, "&") && (isAllDigits(w.text) || w.text == "-"):
		case w.text == "/dev/null" && !w.glob:
		case strings.Contains(redir, ">"):
			danger = "output goes to the file " + w.text
		}
		redir = ""
	}
	start := func() {
		if !in {
			in, w, wordAt = true, oracleWord{}, pos
		}
	}
	endCmd := func() {
		flush()
		if redir != "" && danger == "" {
			danger = "a redirection without a target"
		}
		if len(cur.words) > 0 || len(cur.reads) > 0 {
			cmds = append(cmds, cur)
		}
		cur = oracleCommand{}
	}
	expansion := func(next byte) bool {
		return next != 0 && (strings.IndexByte("{([@*#?$!-_'\"", next) >= 0 || next >= 'a' && next <= 'z' || next >= 'A' && next <= 'Z' || next >= '0' && next <= '9')
	}
	for i := 0; i < len(s) && danger == ""; i++ {
		c := s[i]
		pos = i
		var next byte
		if i+1 < len(s) {
			next = s[i+1]
		}
		switch {
		case c == '\\':
			if next == 0 {
				return nil, "a trailing backslash"
			}
			i++
			if next != '\n' {
				start()
				w.quoted = true
				b.WriteByte(next)
			}
		case c == '\'':
			start()
			w.quoted = true
			j := strings.IndexByte(s[i+1:], '\'')
			if j < 0 {
				return nil, "an unterminated quote"
			}
			b.WriteString(s[i+1 : i+1+j])
			i += j + 1
		case c == '"':
			start()
			w.quoted = true
			for i++; ; i++ {
				if i >= len(s) {
					return nil, "an unterminated quote"
				}
				d := s[i]
				if d == '"' {
					break
				}
				if d == '`' {
					return nil, "a command substitution in double quotes"
				}
				if d == '$' && i+1 < len(s) && expansion(s[i+1]) && s[i+1] != '"' {
					return nil, "an expansion in double quotes"
				}
				if d == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
					i++
					if s[i] != '\n' {
						b.WriteByte(s[i])
					}
					continue
				}
				b.WriteByte(d)
			}
		case c == '`':
			return nil, "a command substitution"
		case c == '$' && expansion(next):
			return nil, "an expansion ($" + string(next) + ")"
		case c == ' ' || c == '\t':
			flush()
		case c == '#' && !in:
			for i < len(s) && s[i] != '\n' {
				i++
			}
			i--
		case c == '\n' || c == ';' || c == '(' || c == ')':
			endCmd()
		case c == '|' || c == '&' && next != '>':
			if next == c || c == '|' && next == '&' {
				i++
			}
			endCmd()
		case c == '<' || c == '>' || c == '&':
			if next == '(' {
				return nil, "a process substitution"
			}
			if in && !w.quoted && isAllDigits(b.String()) {
				in = false // a descriptor number
				b.Reset()
			} else {
				flush()
			}
			op := string(c)
			for i+1 < len(s) && strings.IndexByte("<>&|", s[i+1]) >= 0 {
				op += string(s[i+1])
				i++
			}
			switch {
			case op == "<<" || op == "<<-" || strings.HasPrefix(op, "<<") && op != "<<<":
				return nil, "a here-document"
			case strings.Contains(op, "<>"):
				return nil, "a file opened for writing (<>)"
			case op == "<<<":
				op = "<<<"
			case strings.HasPrefix(op, "<"):
				op = "<"
			}
			if redir != "" {
				return nil, "two redirections in a row"
			}
			redir = op
			if op == "<<<" {
				redir = "<<<"
			}
		default:
			if !in && c == '~' {
				start()
				w.tilde = true
			}
			start()
			switch c {
			case '*', '?', '[':
				w.glob = true
			case '{':
				braceAt = b.Len()
			case '}':
				if inner := b.String()[max(braceAt, 0):]; braceAt >= 0 && (strings.Contains(inner, ",") || strings.Contains(inner, "..")) {
					return nil, "a brace expansion"
				}
			}
			b.WriteByte(c)
		}
	}
	if danger != "" {
		return nil, danger
	}
	pos = len(s)
	endCmd()
	return cmds, danger
}

func isAllDigits(s string) bool {
	return s != "" && strings.Trim(s, "0123456789") == ""
}

// oracleTextCommands print text and read no file named on their line.
var oracleTextCommands = []string{"echo", "printf", "pwd", "whoami", "id", "true", "false", "uname", "nproc", "arch", "groups", "basename", "dirname", "seq", "which", "type", "date"}

// oracleFileCommands read the files they are given.
var oracleFileCommands = []string{"ls", "cat", "head", "tail", "wc", "stat", "du", "df", "nl", "od", "hexdump", "strings", "tac", "rev", "fold", "expand",
	"unexpand", "fmt", "comm", "cmp", "readlink", "diff", "realpath", "cut", "paste", "column", "md5sum", "sha1sum", "sha256sum", "sha512sum", "cksum",
	"b2sum", "uniq", "xxd", "file", "tree", "sort", "grep", "egrep", "fgrep", "rg"}

// gitReaders are git subcommands that only read.
var gitReaders = []string{"status", "diff", "log", "show", "whatchanged", "diff-tree", "diff-index", "diff-files", "shortlog", "blame", "annotate",
	"rev-parse", "rev-list", "ls-files", "ls-tree", "cat-file", "describe", "merge-base", "name-rev", "show-ref", "for-each-ref", "show-branch",
	"count-objects", "check-ignore", "check-attr", "grep", "branch", "tag", "remote", "reflog", "stash", "worktree", "config", "version"}

// readOnlyOracle returns why line is not read-only ("" when the scan
// finds nothing).
func readOnlyOracle(line string, d ReadOnlyDirs, outside string) string {
	cmds, danger := oracleLex(line)
	if danger != "" {
		return danger
	}
	roots := []string{d.Cwd}
	roots = append(roots, d.Dirs...)
	bases := []string{d.Cwd}
	for _, c := range cmds {
		for _, r := range c.reads {
			if why := oracleOutside(r, bases, roots, d.Home, outside); why != "" {
				return why
			}
		}
		words := c.words
		for len(words) > 0 && !words[0].quoted && strings.Contains(words[0].text, "=") {
			name, _, _ := strings.Cut(words[0].text, "=")
			if name != "LANG" && name != "LANGUAGE" && !strings.HasPrefix(name, "LC_") && name != "TZ" && name != "NO_COLOR" && name != "COLUMNS" && name != "TERM" {
				return "it sets " + name
			}
			if strings.HasPrefix(words[0].text[len(name)+1:], "/") || strings.Contains(words[0].text, "..") {
				return "the locale or zone is read from a path"
			}
			words = words[1:]
		}
		if len(words) == 0 {
			return "an assignment alone sets a shell variable"
		}
		name, args := words[0].text, words[1:]
		if words[0].glob {
			return "the program's name is a glob"
		}
		var why string
		switch {
		case name == "cd":
			why = oracleCd(args, &bases, roots, d.Home, outside)
		case name == "git":
			why = oracleGit(args, bases, roots, d.Home, outside)
		case name == "find":
			why = oracleFind(args, bases, roots, d.Home, outside)
		case name == "sed":
			why = oracleSed(args, bases, roots, d.Home, outside)
		case slices.Contains(oracleTextCommands, name):
			why = oracleText(name, args, bases, roots, d.Home, outside)
		case slices.Contains(oracleFileCommands, name):
			why = oracleFiles(name, args, bases, roots, d.Home, outside)
		default:
			return "it runs " + name
		}
		if why != "" {
			return name + ": " + why
		}
	}
	return ""
}

// shortFlags are the letters of a short flag cluster (-abc), up to the
// first character that is no letter or digit (getopt refuses it), ""
// for a long flag or an operand.
func shortFlags(w oracleWord) string {
	if len(w.text) < 2 || w.text[0] != '-' || w.text[1] == '-' {
		return ""
	}
	end := 1
	for end < len(w.text) && (w.text[end] >= 'a' && w.text[end] <= 'z' || w.text[end] >= 'A' && w.text[end] <= 'Z' || w.text[end] >= '0' && w.text[end] <= '9') {
		end++
	}
	return w.text[1:end]
}

// clusterFlags are the flags of a cluster up to the first that takes a
// value: the rest is that value (sort -to: the separator o).
func clusterFlags(program string, w oracleWord) string {
	short := shortFlags(w)
	if k := strings.IndexAny(short, oracleValueLetters[program]); k >= 0 && oracleValueLetters[program] != "" {
		short = short[:k+1]
	}
	return short
}

// longPrefixOf reports whether w is an abbreviation (or the whole) of
// the long flag long, with or without =value.
func longPrefixOf(w oracleWord, long string) bool {
	name, _, _ := strings.Cut(w.text, "=")
	return len(name) > 2 && strings.HasPrefix(name, "--") && strings.HasPrefix(long, name)
}

// oracleValueLetters are, by program, the short flags that take a value
// (GNU's and ripgrep's manuals): in a cluster the rest is the value.
var oracleValueLetters = map[string]string{"grep": "efmABCdD", "egrep": "efmABCdD", "fgrep": "efmABCdD", "rg": "efgtTmABCMjE",
	"head": "nc", "tail": "nc", "stat": "c", "date": "dr", "sort": "ktSTo", "cut": "bcdf", "od": "AjNtw", "du": "BdtX",
	"file": "mfFeP", "hexdump": "efns", "strings": "nteT", "tree": "LPIHTo"}

// oraclePathLetters are those among them whose value is a file the
// program reads (or writes to), and oracleLongPaths the long options
// that take one (abbreviations count: GNU accepts them).
var oraclePathLetters = map[string]string{"grep": "f", "egrep": "f", "fgrep": "f", "rg": "f", "date": "r", "sort": "To",
	"du": "X", "file": "mf", "hexdump": "f", "tree": "o"}

var oracleLongPaths = []string{"--file", "--reference", "--from-file", "--to-file", "--files0-from", "--exclude-from", "--random-source",
	"--relative-to", "--relative-base", "--magic-file", "--files-from", "--fromfile", "--temporary-directory", "--ignore-file", "--output"}

// attachedPath is the value glued to a flag of program (-f/etc/x,
// --file=../x), "" when none.
func attachedPath(program string, w oracleWord) string {
	if !strings.HasPrefix(w.text, "-") {
		return ""
	}
	if strings.HasPrefix(w.text, "--") {
		_, v, ok := strings.Cut(w.text, "=")
		if ok && slices.ContainsFunc(oracleLongPaths, func(l string) bool { return longPrefixOf(w, l) }) {
			return v
		}
		return ""
	}
	if i := strings.IndexAny(w.text[1:], oracleValueLetters[program]); i >= 0 && oracleValueLetters[program] != "" &&
		strings.IndexByte(oraclePathLetters[program], w.text[1+i]) >= 0 {
		return w.text[2+i:]
	}
	return ""
}

func oracleText(name string, args []oracleWord, bases, roots []string, home, outside string) string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a.glob {
			return "a glob the shell expands against files"
		}
		// date -d STRING and -r FILE take the next word whole (date -d -d..
		// is the date string "-d.."); a value that looks like a path is
		// checked as one.
		if name == "date" && i+1 < len(args) && (a.text == "--date" || a.text == "--reference" ||
			!strings.HasPrefix(a.text, "--") && len(a.text) > 1 && strings.IndexAny(a.text[1:], "dr") == len(a.text)-2) {
			i++
			v := args[i]
			if v.glob {
				return "a glob the shell expands against files"
			}
			if strings.HasPrefix(v.text, "/") || v.tilde || strings.HasPrefix(v.text, "..") {
				if why := oracleOutside(v, bases, roots, home, outside); why != "" {
					return why
				}
			}
			continue
		}
		switch {
		case name == "printf" && strings.Contains(shortFlags(a), "v"):
			return "printf -v sets a variable"
		case name == "date" && (strings.ContainsAny(clusterFlags(name, a), "sf") || longPrefixOf(a, "--set") || longPrefixOf(a, "--file")):
			return "date sets the clock or reads a file of dates"
		}
		if name == "date" {
			if p := attachedPath(name, a); p != "" && (strings.HasPrefix(p, "/") || strings.HasPrefix(p, "~") || strings.HasPrefix(p, "..")) {
				if why := oracleOutside(oracleWord{text: p, tilde: strings.HasPrefix(p, "~")}, bases, roots, home, outside); why != "" {
					return why
				}
			}
		}
	}
	return ""
}

func oracleFiles(name string, args []oracleWord, bases, roots []string, home, outside string) string {
	var operands []oracleWord
	endOfFlags := false
	recursive, follow := false, false
	patternFlag := false // -e, -f or --regexp gave the pattern: no operand is
	for i := 0; i < len(args); i++ {
		a := args[i]
		if endOfFlags || !strings.HasPrefix(a.text, "-") || a.text == "-" {
			operands = append(operands, a)
			continue
		}
		if longPrefixOf(a, "--regexp") || longPrefixOf(a, "--file") || name == "rg" && (longPrefixOf(a, "--files") || longPrefixOf(a, "--type-list")) {
			patternFlag = true
		}
		if k := strings.IndexAny(a.text[1:], oracleValueLetters[name]); !strings.HasPrefix(a.text, "--") && k >= 0 && strings.IndexByte("ef", a.text[1+k]) >= 0 {
			patternFlag = true
		}
		if a.text == "--" {
			endOfFlags = true
			continue
		}
		short := clusterFlags(name, a)
		if letters := oracleValueLetters[name]; !strings.HasPrefix(a.text, "--") && letters != "" &&
			strings.IndexAny(a.text[1:], letters) == len(a.text)-2 && i+1 < len(args) {
			// The next word is the flag's value (grep -A 3, grep -f FILE).
			i++
			if strings.IndexByte(oraclePathLetters[name], a.text[len(a.text)-1]) >= 0 {
				if why := oracleOutside(args[i], bases, roots, home, outside); why != "" {
					return "a flag's value: " + why
				}
			}
		}
		switch name {
		case "sort":
			if strings.Contains(short, "o") || longPrefixOf(a, "--output") || longPrefixOf(a, "--compress-program") {
				return "sort writes its output to a file or runs a compressor"
			}
		case "tree":
			if strings.ContainsAny(short, "oR") || longPrefixOf(a, "--output") {
				return "tree writes files"
			}
			if strings.Contains(short, "l") {
				recursive, follow = true, true
			}
		case "file":
			if strings.Contains(short, "C") || longPrefixOf(a, "--compile") {
				return "file -C writes a magic file"
			}
		case "rg":
			if n, _, _ := strings.Cut(a.text, "="); n == "--pre" {
				return "rg --pre runs a program"
			}
		}
		// A walk that follows the symlinks it meets leaves the tree.
		switch name {
		case "ls":
			recursive = recursive || strings.Contains(short, "R") || longPrefixOf(a, "--recursive")
			follow = follow || strings.Contains(short, "L") || longPrefixOf(a, "--dereference")
		case "du", "rg":
			recursive = true
			follow = follow || strings.Contains(short, "L") || longPrefixOf(a, "--dereference") || longPrefixOf(a, "--follow")
		case "tree":
			recursive, follow = true, follow || strings.Contains(short, "l")
		case "grep", "egrep", "fgrep":
			if strings.Contains(short, "R") || longPrefixOf(a, "--dereference-recursive") {
				recursive, follow = true, true
			}
		case "diff":
			if strings.Contains(short, "r") || longPrefixOf(a, "--recursive") {
				recursive, follow = true, true
			}
		}
		if p := attachedPath(name, a); p != "" {
			if why := oracleOutside(oracleWord{text: p, tilde: strings.HasPrefix(p, "~")}, bases, roots, home, outside); why != "" {
				return "a flag's value: " + why
			}
		}
	}
	if recursive && follow {
		return "a walk that follows symlinks out"
	}
	if name == "uniq" || name == "xxd" {
		if len(operands) > 1 {
			return "its second operand is a file it writes"
		}
	}
	if name == "grep" || name == "egrep" || name == "fgrep" || name == "rg" {
		if len(operands) > 0 && !patternFlag {
			operands = operands[1:] // the pattern: not a path
		}
	}
	for _, o := range operands {
		// binutils read more arguments from @FILE.
		if at, ok := strings.CutPrefix(o.text, "@"); ok && at != "" && name == "strings" {
			if why := oracleOutside(oracleWord{text: at}, bases, roots, home, outside); why != "" {
				return "a response file: " + why
			}
		}
		if why := oracleOutside(o, bases, roots, home, outside); why != "" {
			return why
		}
	}
	return ""
}

func oracleCd(args []oracleWord, bases *[]string, roots []string, home, outside string) string {
	var target *oracleWord
	for i := range args {
		if !strings.HasPrefix(args[i].text, "-") {
			target = &args[i]
			break
		}
	}
	if target == nil {
		return "cd without a directory"
	}
	if why := oracleOutside(*target, *bases, roots, home, outside); why != "" {
		return why
	}
	for _, b := range slices.Clone(*bases) {
		p := target.text
		if target.tilde {
			p = filepath.Join(home, strings.TrimPrefix(p, "~"))
		}
		if !filepath.IsAbs(p) {
			p = b + "/" + p
		}
		*bases = append(*bases, filepath.Clean(p), oracleResolve(p))
	}
	return ""
}

func oracleGit(args []oracleWord, bases, roots []string, home, outside string) string {
	for len(args) > 0 && strings.HasPrefix(args[0].text, "-") {
		a := args[0]
		switch {
		case a.text == "-C":
			if len(args) < 2 {
				return "-C without a directory"
			}
			if why := oracleOutside(args[1], bases, roots, home, outside); why != "" {
				return why
			}
			args = args[1:]
		case a.text == "-c" || longPrefixOf(a, "--config-env") || longPrefixOf(a, "--exec-path") || longPrefixOf(a, "--git-dir") || longPrefixOf(a, "--work-tree"):
			return "git " + a.text + " changes what git runs or reads"
		}
		args = args[1:]
	}
	if len(args) == 0 {
		return ""
	}
	sub, rest := args[0].text, args[1:]
	if !slices.Contains(gitReaders, sub) {
		return "git " + sub + " is not a reader"
	}
	if why := oracleGitPaths(sub, rest, bases, roots, home, outside); why != "" {
		return why
	}
	names := 0
	listing := false
	for i, a := range rest {
		if a.glob {
			return "a glob"
		}
		if longPrefixOf(a, "--output") || longPrefixOf(a, "--ext-diff") || longPrefixOf(a, "--no-index") || sub == "grep" && (strings.HasPrefix(a.text, "-O") || longPrefixOf(a, "--open-files-in-pager")) {
			return a.text + " writes, runs a program or reads outside the repository"
		}
		switch sub {
		case "branch", "tag":
			switch {
			case a.text == "--list" || a.text == "-l":
				listing = true
			case !strings.HasPrefix(a.text, "-") && (i == 0 || !strings.HasPrefix(rest[i-1].text, "--") || strings.Contains(rest[i-1].text, "=")):
				names++
			case slices.Contains([]string{"-d", "-D", "-m", "-M", "-c", "-C", "-f", "-u", "-a", "-s", "-e"}, a.text) && (sub == "tag" || a.text != "-a"):
				return "git " + sub + " " + a.text + " changes refs"
			case longPrefixOf(a, "--delete") || longPrefixOf(a, "--move") || longPrefixOf(a, "--copy") || longPrefixOf(a, "--force") || longPrefixOf(a, "--set-upstream-to") || longPrefixOf(a, "--edit-description"):
				return "git " + sub + " " + a.text + " changes refs"
			}
		case "stash", "worktree":
			if i == 0 && a.text != "list" && a.text != "show" {
				return "git " + sub + " " + a.text + " is not a listing"
			}
		case "remote":
			if i == 0 && a.text != "get-url" && !strings.HasPrefix(a.text, "-") {
				return "git remote " + a.text + " changes remotes"
			}
		case "reflog":
			if slices.Contains([]string{"expire", "delete", "drop", "write"}, a.text) {
				return "git reflog " + a.text + " writes"
			}
		case "config":
			if slices.Contains([]string{"--add", "--unset", "--unset-all", "--replace-all", "--rename-section", "--remove-section", "-e", "--edit", "--file", "-f", "--blob"}, a.text) {
				return "git config " + a.text
			}
		}
	}
	if sub == "config" && len(rest) == 0 {
		return ""
	}
	if sub == "config" {
		reads := false
		for i, a := range rest {
			if i == 0 && (a.text == "get" || a.text == "list") || slices.Contains([]string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"}, a.text) {
				reads = true
			}
		}
		if !reads {
			return "git config that does not read"
		}
	}
	if (sub == "stash" || sub == "worktree") && len(rest) == 0 {
		return "git " + sub + " alone changes the tree"
	}
	if (sub == "branch" || sub == "tag") && names > 0 && !listing {
		return "git " + sub + " with a name makes one"
	}
	return ""
}

// oracleGitPaths checks what a git subcommand reads from the file system
// and what makes it run a program: an operand is a revision or a path
// (git diff with a file outside the repository is an implicit --no-index
// diff), the values of --contents, -O, --ignore-revs-file, -X and grep's
// -f are files, pathspec magic (:/, :(top)) reaches the repository's
// top, and --textconv, --show-signature and the %G formats run
// programs. A word right after an option without = may be its value
// and is not taken for an operand.
func oracleGitPaths(sub string, rest []oracleWord, bases, roots []string, home, outside string) string {
	switch sub {
	case "branch", "tag", "remote", "config", "stash", "worktree", "reflog":
		return "" // names, not paths
	}
	pathOpts := []string{"--contents", "--ignore-revs-file", "--exclude-from", "-O", "-X", "-f", "--file"}
	if sub == "blame" || sub == "annotate" {
		pathOpts = append(pathOpts, "-S")
	}
	afterDD, pattern := false, sub != "grep"
	for i, a := range rest {
		if !afterDD && strings.HasPrefix(a.text, "-") && a.text != "-" {
			switch {
			case a.text == "--":
				afterDD = true
			case longPrefixOf(a, "--textconv") || longPrefixOf(a, "--show-signature") || longPrefixOf(a, "--ext-diff") || longPrefixOf(a, "--filters"):
				return a.text + " runs a configured program"
			case strings.Contains(a.text, "%G") || strings.Contains(a.text, "%(signature"):
				return a.text + " verifies signatures with gpg"
			}
			if a.text == "-e" || a.text == "-f" || longPrefixOf(a, "--regexp") || longPrefixOf(a, "--file") {
				pattern = true
			}
			for _, o := range pathOpts {
				if v, ok := strings.CutPrefix(a.text, o); ok && v != "" && (strings.HasPrefix(o, "--") && strings.HasPrefix(v, "=") || !strings.HasPrefix(o, "--")) {
					if why := oracleOutside(oracleWord{text: strings.TrimPrefix(v, "=")}, bases, roots, home, outside); why != "" {
						return "a file option's value: " + why
					}
				}
			}
			continue
		}
		if strings.Contains(a.text, "%G") || strings.Contains(a.text, "%(signature") {
			return a.text + " verifies signatures with gpg"
		}
		prev := oracleWord{}
		if i > 0 {
			prev = rest[i-1]
		}
		if !afterDD && strings.HasPrefix(prev.text, "-") && !strings.Contains(prev.text, "=") && prev.text != "--" {
			if slices.Contains(pathOpts, prev.text) {
				if why := oracleOutside(a, bases, roots, home, outside); why != "" {
					return "a file option's value: " + why
				}
			}
			continue // maybe the option's value
		}
		if !pattern {
			pattern = true // git grep's pattern
			continue
		}
		if strings.HasPrefix(a.text, ":") && len(a.text) > 1 && strings.IndexByte("(/!^", a.text[1]) >= 0 {
			return "the pathspec " + a.text + " reaches the repository's top"
		}
		if why := oracleOutside(a, bases, roots, home, outside); why != "" {
			return "an operand: " + why
		}
	}
	return ""
}

func oracleFind(args []oracleWord, bases, roots []string, home, outside string) string {
	startingPoints := true
options: // before the starting points
	for len(args) > 0 {
		switch {
		case args[0].text == "-H" || args[0].text == "-P" || strings.HasPrefix(args[0].text, "-O"):
			args = args[1:]
		case args[0].text == "-D" && len(args) > 1:
			args = args[2:] // -D takes the debug options' names
		default:
			break options
		}
	}
	for _, a := range args {
		switch a.text {
		case "-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls":
			return a.text + " runs or writes"
		case "-L", "-follow":
			return a.text + " follows symlinks out"
		}
		if strings.HasPrefix(a.text, "-") || a.text == "(" || a.text == "!" || a.text == ")" {
			startingPoints = false
		}
		if a.glob && !startingPoints {
			return "a glob in the expression"
		}
		if startingPoints && !strings.HasPrefix(a.text, "-") {
			if why := oracleOutside(a, bases, roots, home, outside); why != "" {
				return why
			}
		}
	}
	return ""
}

// sedSandbox runs GNU sed's own parser on a script with e, r and w
// refused (--sandbox): it reports whether sed says the script uses them.
// Nothing is read (no input) and nothing runs (a refused script stops
// before its first cycle). ok is false without GNU sed.
var sedSandbox = sync.OnceValue(func() bool {
	out, err := exec.Command("sed", "--sandbox", "-n", "-e", "w /dev/null").CombinedOutput()
	return err != nil && bytes.Contains(out, []byte("sandbox"))
})

func sedScriptWrites(script string) bool {
	cmd := exec.Command("sed", "--sandbox", "-n", "-e", script)
	cmd.Dir = os.TempDir()
	out, err := cmd.CombinedOutput()
	var exit *exec.ExitError
	return errors.As(err, &exit) && bytes.Contains(out, []byte("sandbox"))
}

func oracleSed(args []oracleWord, bases, roots []string, home, outside string) string {
	var scripts []string
	var operands []oracleWord
	endOfFlags := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case endOfFlags || !strings.HasPrefix(a.text, "-") || a.text == "-":
			operands = append(operands, a)
		case a.text == "--":
			endOfFlags = true
		case longPrefixOf(a, "--in-place") || longPrefixOf(a, "--file") || longPrefixOf(a, "--follow-symlinks"):
			return a.text + " writes or reads a script from a file"
		case strings.HasPrefix(a.text, "--expression="):
			scripts = append(scripts, strings.TrimPrefix(a.text, "--expression="))
		case a.text == "--expression" && i+1 < len(args):
			i++
			scripts = append(scripts, args[i].text)
		case !strings.HasPrefix(a.text, "--"):
			short := a.text[1:]
			for j := 0; j < len(short); j++ {
				if short[j] == 'i' || short[j] == 'f' {
					return "-" + short[j:j+1] + " edits in place or reads a script from a file"
				}
				if short[j] == 'e' {
					if j+1 < len(short) {
						scripts = append(scripts, short[j+1:])
					} else if i+1 < len(args) {
						i++
						scripts = append(scripts, args[i].text)
					}
					break
				}
			}
		}
	}
	if len(scripts) == 0 && len(operands) > 0 {
		scripts, operands = append(scripts, operands[0].text), operands[1:]
	}
	if sedSandbox() {
		for _, s := range scripts {
			if sedScriptWrites(s) {
				return "GNU sed --sandbox refuses the script " + s
			}
		}
	}
	for _, o := range operands {
		if why := oracleOutside(o, bases, roots, home, outside); why != "" {
			return why
		}
	}
	return ""
}

// oracleOutside returns why a word a command reads as a file is not
// inside the roots from every base (symlinks resolved, globs expanded),
// "" when it is.
func oracleOutside(w oracleWord, bases, roots []string, home, outside string) string {
	p := w.text
	if w.tilde {
		if p != "~" && !strings.HasPrefix(p, "~/") {
			return "another user's home"
		}
		p = home + strings.TrimPrefix(p, "~")
	}
	// Joined as written: the kernel resolves l in l/.. first.
	var cands []string
	if filepath.IsAbs(p) {
		cands = []string{p}
	} else {
		for _, b := range bases {
			cands = append(cands, b+"/"+p)
		}
	}
	for i, c := range cands {
		names := []string{c}
		if w.glob {
			// bash itself says what the glob becomes; a word it
			// makes that starts with - is a flag to the command.
			base := "/"
			if len(bases) > 0 {
				base = bases[min(i, len(bases)-1)]
			}
			words, ok := bashExpand(w.source, base, home)
			if _, err := os.Stat(base); err != nil {
				words, ok = []string{w.text}, true // nothing matches in no directory
			}
			if !ok {
				return "bash could not expand " + w.source
			}
			names = names[:0]
			for _, x := range words {
				if strings.HasPrefix(x, "-") {
					return "the glob " + w.source + " is the flag " + x + " to bash"
				}
				if !filepath.IsAbs(x) {
					x = base + "/" + x
				}
				names = append(names, x)
			}
		}
		for _, n := range names {
			r := oracleResolve(n)
			if strings.HasPrefix(r+"/", outside+"/") {
				return "it reads " + n + " in the outside directory"
			}
			in := false
			for _, root := range roots {
				root = oracleResolve(root)
				if r == root || strings.HasPrefix(r, root+"/") {
					in = true
				}
			}
			if !in {
				return "it reads " + n + ", outside the session"
			}
		}
	}
	return ""
}

// bashExpand is what bash makes of a word (no expansion but globs and ~
// reaches here: the lexer refuses the rest) in the directory dir.
func bashExpand(source, dir, home string) ([]string, bool) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		return nil, false
	}
	cmd := exec.Command(bash, "--noprofile", "--norc", "-c", `cd -- "$1" || exit 1; for w in `+source+`; do printf '%s\0' "$w"; done`, "bash", dir)
	cmd.Env = []string{"HOME=" + home, "PATH=/usr/bin:/bin", "LC_ALL=C.UTF-8"}
	out, err := cmd.Output()
	if err != nil {
		return nil, false
	}
	return strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00"), true
}

// oracleResolve is where the kernel lands for p (Go's EvalSymlinks
// replaces a symlink by its target before the .. after it), for the part
// of p that exists.
func oracleResolve(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	i := strings.LastIndex(p, "/")
	if i <= 0 {
		return filepath.Clean(p)
	}
	return filepath.Join(oracleResolve(p[:i]), p[i+1:])
}
