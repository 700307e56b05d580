package permrules

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// readOnlyTree makes a session directory with a file, a subdirectory, a
// symlink leading out, and a folder holding a file named like a flag; an
// extra directory of the session; and a directory outside the session.
func readOnlyTree(t *testing.T) (ReadOnlyDirs, string) {
	t.Helper()
	cwd, extra, outside, home := t.TempDir(), t.TempDir(), t.TempDir(), t.TempDir()
	for _, f := range []string{"a.txt", "sub/b.txt", "dash/-rf", filepath.Join(outside, "secret")} {
		p := f
		if !filepath.IsAbs(p) {
			p = filepath.Join(cwd, f)
		}
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte("x\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	if err := os.Symlink(outside, filepath.Join(cwd, "escape")); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(cwd, "sub"), filepath.Join(cwd, "alias")); err != nil {
		t.Fatal(err)
	}
	return ReadOnlyDirs{Cwd: cwd, Dirs: []string{extra}, Home: home}, outside
}

func TestReadOnlyCommand(t *testing.T) {
	dirs, outside := readOnlyTree(t)
	extra := dirs.Dirs[0]
	allowed := []string{
		"ls",
		"ls -la",
		"ls -la sub",
		"ls --color=never -R .",
		"pwd",
		"git status",
		"git status --porcelain -b",
		"git diff",
		"git diff --stat HEAD~1",
		"git diff --cached -- a.txt",
		"git log",
		"git log --oneline -n 20",
		"git log --format='%H %s' --since=2.weeks",
		"git log @{u}..HEAD",
		"git show HEAD:a.txt",
		"git show --output-indicator-new=+ HEAD",
		"git blame a.txt",
		"git branch",
		"git branch -a -vv",
		"git branch -av",
		"TZ=Europe/Paris date",
		"LC_ALL=en_US.UTF-8 ls",
		"git branch --show-current",
		"git branch --list 'feat/*'",
		"git branch --contains HEAD",
		"git tag",
		"git tag -l 'v1.*'",
		"git remote -v",
		"git remote get-url origin",
		"git rev-parse --abbrev-ref HEAD",
		"git rev-parse --show-toplevel",
		"git ls-files",
		"git config --get user.name",
		"git config --list --show-origin",
		"git stash list",
		"git reflog -n 5",
		"git --no-pager log -1",
		"git -C sub status",
		"git merge-base HEAD main",
		"git describe --tags",
		"git grep -n TODO",
		"git worktree list",
		"git --version",
		"cat a.txt",
		"cat a.txt sub/b.txt",
		"cat ./sub/../a.txt",
		"cat " + filepath.Join(extra, "notes.md"),
		"head -n 20 a.txt",
		"head -5 a.txt",
		"tail -n +3 a.txt",
		"wc -l a.txt sub/b.txt",
		"wc -l *.txt",
		"ls sub/*",
		"stat a.txt",
		"du -sh .",
		"df -h",
		"file a.txt",
		"diff a.txt sub/b.txt",
		"grep -rn 'TODO' .",
		"grep -A3 foo a.txt",
		"grep -nA 3 foo a.txt",
		"grep -e foo -e bar a.txt",
		"grep -E '^(a|b)$' a.txt",
		"grep \"foo$\" a.txt",
		"rg -n 'func main' sub",
		"rg --files",
		"find . -name '*.go'",
		"find sub -type f -newer a.txt",
		"find . -maxdepth 2 -type d -print",
		"sort a.txt",
		"sort -k2 -t, a.txt | uniq -c",
		"uniq a.txt",
		"cut -d' ' -f1 a.txt",
		"sed -n '1,10p' a.txt",
		"sed -n '/start/,/end/p' a.txt",
		"sed 's/foo/bar/g' a.txt",
		"sed -e 's|a|b|' -e '2q' a.txt",
		"echo hi",
		"echo 'hello world' | wc -c",
		"printf '%s\\n' a b",
		"which go",
		"whoami",
		"uname -a",
		"date +%Y-%m-%d",
		"date",
		"true",
		"cd sub && ls",
		"cd sub && git status",
		"ls && pwd; echo done",
		"git status || echo 'not a repo'",
		"(cd sub; ls)",
		"ls 2>/dev/null",
		"git diff 2>&1 | head -50",
		"ls >/dev/null 2>&1",
		"cat < a.txt",
		"wc -c <<< 'text'",
		"LANG=C ls",
		"LC_ALL=C sort a.txt",
		"ls # a comment; rm -rf /",
		"ls -la \\\n  sub",
		"cat alias/b.txt",
		"basename " + outside,
		"ls -- -",
		"md5sum a.txt",
		"realpath a.txt",
		"tree -L 2",
		"git log --oneline | head -20 && git status -s",
		"\"ls\" -la",
	}
	asked := []string{
		"",
		"git diff > out.txt",
		"git diff >> out.txt",
		"echo hi > f",
		"ls &> out.txt",
		"ls; rm -rf x",
		"ls && rm -rf x",
		"ls | xargs rm",
		"xargs rm",
		"find . | xargs grep foo",
		"cat $(echo /etc/passwd)",
		"cat `echo /etc/passwd`",
		"cat \"$(echo /etc/passwd)\"",
		"cat <(echo hi)",
		"diff <(ls) <(ls sub)",
		"echo $HOME",
		"echo \"$HOME\"",
		"cat ${FILE}",
		"echo $'a'",
		"echo $((1+1))",
		"git log --output=x",
		"git log --output x",
		"git log --out=x",
		"git diff --ext-diff",
		"git diff --no-index /etc/passwd a.txt",
		"git -c core.pager=sh log",
		"git -c alias.x=!sh x",
		"git --git-dir=/tmp/x log",
		"git -p log",
		"git st",
		"git commit -m x",
		"git add .",
		"git push",
		"git fetch",
		"git pull",
		"git checkout main",
		"git reset --hard",
		"git stash",
		"git stash pop",
		"git branch -D main",
		"git branch new-branch",
		"git branch -m old new",
		"git tag v1.0",
		"git tag -d v1.0",
		"git remote add origin x",
		"git config user.name x",
		"git config --file /etc/x --list",
		"git reflog expire --all",
		"git worktree add ../x",
		"git grep -O vim foo",
		"git -C /tmp status",
		"find . -delete",
		"find . -name x -exec rm {} \\;",
		"find . -execdir cat {} +",
		"find . -ok rm {} \\;",
		"find . -fprint out.txt",
		// Brace expansion bash does and a word-by-word reading misses:
		// the first is find . "};" -delete.
		`find . ""{}";",-delete}`,
		`find . ""{},-delete" "}`,
		`find . ""{},-delete}`,
		"find /",
		"find . -name *.txt",
		"FOO=1 ls",
		"GIT_DIR=/tmp/x git log",
		"PAGER=sh git log",
		"LD_PRELOAD=x.so ls",
		"FOO=1",
		"sort -o out a.txt",
		"sort --output=out a.txt",
		"sort --out=out a.txt",
		"sort -no out a.txt",
		"sort --compress-program=sh a.txt",
		"sed -i 's/a/b/' a.txt",
		"sed -ni 's/a/b/p' a.txt",
		"sed --in-place 's/a/b/' a.txt",
		"sed 's/a/b/w out' a.txt",
		"sed 'w out' a.txt",
		"sed '1e rm -rf x' a.txt",
		"sed 'r /etc/passwd' a.txt",
		"sed -f script.sed a.txt",
		"tee out.txt",
		"ls | tee out.txt",
		"cat /etc/passwd",
		"cat ../secret",
		"cat " + filepath.Join(outside, "secret"),
		"cat escape/secret",
		"ls escape",
		"cat ~/.ssh/id_rsa",
		"cat ~root/x",
		"ls ~/",
		"cat .*/secret",
		"ls /",
		"cd /tmp && ls",
		"cd .. && ls",
		"cd",
		"cd -",
		"cd sub && cat ../../x",
		"ls dash/*",
		"cat {a.txt,/etc/passwd}",
		"cat a.{txt,md}",
		"cat < /etc/passwd",
		"cat <<EOF\nhi\nEOF",
		"ls <> a.txt",
		"uniq a.txt out.txt",
		"tree -o out.html",
		"date -s '2020-01-01'",
		"date 010100002020",
		"rm -rf x",
		"touch a",
		"mkdir x",
		"npm publish",
		"curl https://example.com",
		"env",
		"env rm -rf x",
		"awk '{print}' a.txt",
		"bash -c ls",
		"sh -c 'ls'",
		"python3 -c 'print(1)'",
		"/bin/ls",
		"./script.sh",
		"eval ls",
		"exec ls",
		"source x.sh",
		"ls 'unterminated",
		"wc --files0-from=/etc/list",
		"grep foo /etc/passwd",
		"grep -r foo ..",
		"rg --pre sh foo",
		"file -C -m x",
		"xxd a.txt out.bin",
		"time ls",
		"nohup ls",
		"if true; then ls; fi",
		"for f in *; do cat $f; done",
		"{ ls; }",
		"ls > /dev/null; cat /etc/passwd",
		"git status; git commit -am x",
		"ls\nrm -rf x",
		"ls & rm -rf x",
		"ls |& tee log",
		"printf -v PATH . ; ls",
		"sort --files0-from=list.txt",
		"wc --files0-from=list.txt",
		"file -f names.txt",
		"sha256sum -c sums.txt",
		"grep -R foo .",
		"rg -L foo",
		"diff -r sub .",
		"du -L .",
		"LC_ALL=/tmp/evil ls",
		"TZ=:/etc/shadow date",
		"TZ=../../x date",
		"diff --from-file=escape/secret a.txt",
		"grep -f escape/secret a.txt",
		"git branch -avD x",
	}
	for _, c := range allowed {
		if !ReadOnlyCommand(c, dirs) {
			t.Errorf("read-only command asked about: %q", c)
		}
	}
	for _, c := range asked {
		if ReadOnlyCommand(c, dirs) {
			t.Errorf("allowed without asking: %q", c)
		}
	}
	if n := len(allowed) + len(asked); n < 200 {
		t.Errorf("only %d commands in the table", n)
	}
}

// A glob is listed only from inside the session, and only so far: one
// starting outside is asked about before anything is read, and one that
// would read more directory entries than the budget is asked about
// rather than walked to its end.
func TestReadOnlyGlobsAreBounded(t *testing.T) {
	dirs, _ := readOnlyTree(t)
	for i := range 3 {
		for j := range 40 {
			p := filepath.Join(dirs.Cwd, "many", fmt.Sprint(i), fmt.Sprintf("f%d.txt", j))
			if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(p, nil, 0o644); err != nil {
				t.Fatal(err)
			}
		}
	}
	if !ReadOnlyCommand("cat many/*/*.txt", dirs) {
		t.Fatal("a glob over 123 entries inside the session was asked about")
	}
	saved := globBudget
	globBudget = 100
	t.Cleanup(func() { globBudget = saved })
	if ReadOnlyCommand("cat many/*/*.txt", dirs) {
		t.Error("a glob reading 123 directory entries ran unasked with a budget of 100")
	}
	if ReadOnlyCommand("ls /*/*/*/*", dirs) || ReadOnlyCommand("ls ../*", dirs) {
		t.Error("a glob starting outside the session ran unasked")
	}
}

// Without a working directory no relative path can be placed, so only
// commands that name no file pass.
func TestReadOnlyCommandWithoutCwd(t *testing.T) {
	if !ReadOnlyCommand("git status", ReadOnlyDirs{}) || !ReadOnlyCommand("echo hi", ReadOnlyDirs{}) {
		t.Error("commands naming no file were asked about")
	}
	if ReadOnlyCommand("cat a.txt", ReadOnlyDirs{}) {
		t.Error("a relative path was placed without a working directory")
	}
}

// A rule naming a program matches the program written in quotes, as the
// model and plugins write paths with ${CLAUDE_PLUGIN_ROOT} expanded.
func TestQuotedProgramMatchesRule(t *testing.T) {
	allow, _ := Parse("Bash(/root/x/run.sh:*)", "")
	deny, _ := Parse("Bash(/root/x/danger.sh:*)", "")
	m := Matcher{}
	call := func(cmd string) Call { return NewCall("Bash", []byte(`{"command":`+quoteJSON(cmd)+`}`), "/w") }
	for _, cmd := range []string{`"/root/x/run.sh" --fast`, `'/root/x/run.sh' a b`, `"/root/x/run.sh"`, `cd /w && "/root/x/run.sh" x`} {
		if _, ok := m.Permits([]Rule{allow, {Text: "Bash(cd:*)", tools: []string{"Bash"}, kind: specCommand, spec: "cd:*"}}, call(cmd)); !ok {
			t.Errorf("Bash(/root/x/run.sh:*) did not allow %s", cmd)
		}
	}
	for _, cmd := range []string{`"/root/x/run.sh"x`, `"/root/x/run sh" a`, `"$HOME/run.sh" a`, `"/root/x/run.sh*" a`} {
		if _, ok := m.Permits([]Rule{allow}, call(cmd)); ok {
			t.Errorf("Bash(/root/x/run.sh:*) allowed %s", cmd)
		}
	}
	if _, ok := m.Restricts([]Rule{deny}, call(`echo && "/root/x/danger.sh" now`)); !ok {
		t.Error("a deny rule missed the quoted program")
	}
	if _, ok := m.Restricts([]Rule{deny}, call(`"/root/x/danger.sh"`)); !ok {
		t.Error("a deny rule missed the quoted program alone")
	}
}

func quoteJSON(s string) string {
	b := []byte{'"'}
	for _, r := range s {
		switch r {
		case '"', '\\':
			b = append(b, '\\', byte(r))
		case '\n':
			b = append(b, '\\', 'n')
		default:
			b = append(b, string(r)...)
		}
	}
	return string(append(b, '"'))
}

// BenchmarkReadOnlyCommand measures the check the rules hook runs for a
// Bash call no rule decided (a pipeline with paths, resolved on disk).
func BenchmarkReadOnlyCommand(b *testing.B) {
	cwd := b.TempDir()
	os.WriteFile(filepath.Join(cwd, "a.txt"), []byte("x"), 0o644)
	d := ReadOnlyDirs{Cwd: cwd}
	for b.Loop() {
		if !ReadOnlyCommand("git log --oneline -n 20 | head -5 && cat a.txt | grep -n x", d) {
			b.Fatal("not read-only")
		}
	}
}

// Globs are matched as bash matches them (issue 27, finding 3): with
// files named -delete and --pre=sh, [!a]delete is -delete to bash (Go's
// filepath.Match read [!a] as the set {!, a}), and so are POSIX classes
// and collating symbols; a bracket expression bash's answer to which
// depends on the locale or is unknown is asked about; a quoted wildcard
// is a plain character; and a glob that matches nothing is checked as
// the word bash then passes unchanged.
func TestReadOnlyGlobsMatchAsBash(t *testing.T) {
	dirs, outside := readOnlyTree(t)
	cwd := dirs.Cwd
	for _, f := range []string{"-delete", "--pre=sh", "notes.txt", "bx.txt"} {
		if err := os.WriteFile(filepath.Join(cwd, f), []byte("todo\n"), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, l := range []string{"[x]", "[y]", "{z}"} {
		if err := os.Symlink(outside, filepath.Join(cwd, l)); err != nil {
			t.Fatal(err)
		}
	}
	for _, c := range []string{
		"find [!a]delete",
		"find [^a]delete",
		"rg todo [!a]-pre=sh notes.txt",
		"find [[:punct:]]delete",
		"find [[.-.]]delete",
		"find [[=-=]]delete",
		"find [[:punct:][:alpha:]]delete",
		"find [\\!-]delete",
		"cat ?-pre=sh",
		"find [[.hyphen.]]delete", // a named collating element
		"find [[:nonsense:]]delete",
		"find [+--]delete", // a range of punctuation: the locale's order
		"find [[:alpha:]-z]delete",
		"cat '[x]'*/secret", // the quoted [x] names the symlink, not x
		"cat [y]/secret",    // no y: bash passes [y]/secret, the symlink
		"cat {*}/secret",    // {z}
		"ls -- -[d]elete",
		"cat *'/'", // a quoted / still ends a directory: [x]/
	} {
		if ReadOnlyCommand(c, dirs) {
			t.Errorf("allowed without asking: %q", c)
		}
	}
	for _, c := range []string{
		"cat [!n]x.txt",
		"cat [[:lower:]][[:alpha:]].txt",
		"cat [^-]*.txt",
		"wc -l sub/** [s]ub/*",
		"cat \\[x\\].txt", // no such file, and no glob
		"ls [a-c]x.txt",
	} {
		if !ReadOnlyCommand(c, dirs) {
			t.Errorf("read-only command asked about: %q", c)
		}
	}
}

// bashGlobMatch agrees with bash where bash's answer does not depend on
// the locale, and matches at least what bash matches where it does.
func TestBashGlobMatchAgreesWithBash(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash")
	}
	dir := t.TempDir()
	names := []string{"-delete", "--pre=sh", ".hidden", "a", "b", "B", "ab", "a]", "]", "!", "^x", "[x]", "x*y", "é", "_", "a-b", "\\"}
	for _, n := range names {
		if err := os.WriteFile(filepath.Join(dir, n), nil, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	for _, p := range []string{"*", "?", "??", "[!a]*", "[^a]*", "[]]", "[!]]", "[]a]", "[a-]*", "[-a]*", "[[:punct:]]*",
		"[[:alpha:]]", "[[:upper:]]", "[[.-.]]*", "[[=a=]]*", "\\[x\\]", "[\\]]", "[\\!]", "x\\*y", "x[*]y", ".*", "[.]hidden", "?hidden",
		"\\.hidden", "**", "*[!b]", "[a", "a]", "[[:alpha:][:digit:]_]", "[\\\\]", "[a-b]*", "[!a-b]*"} {
		out, err := exec.Command(bash, "--noprofile", "--norc", "-c", `cd "$1" && for f in `+p+`; do [ -e "$f" ] && printf '%s\n' "$f"; done; true`, "bash", dir).Output()
		if err != nil {
			t.Fatalf("bash: %v", err)
		}
		want := strings.Fields(string(out))
		var got []string
		// Where the locale decides, matching more than bash is safe.
		loose := strings.Contains(p, "-b]") || strings.Contains(p, "[=")
		for _, n := range names {
			if n == "é" {
				continue
			}
			m, ok := bashGlobMatch(p, n)
			if !ok {
				t.Errorf("%s: undecided for %q", p, n)
			}
			if m {
				got = append(got, n)
			}
		}
		want = slices.DeleteFunc(want, func(n string) bool { return n == "é" })
		if loose {
			want = slices.DeleteFunc(want, func(n string) bool { return slices.Contains(got, n) })
			got = nil
		}
		slices.Sort(want)
		slices.Sort(got)
		if !slices.Equal(got, want) {
			t.Errorf("%s: matched %q, bash %q", p, got, want)
		}
	}
}

// The kernel resolves a symlink before the .. that follows it (issue
// 27, finding 5): with docs/l leading to a directory outside, docs/l/..
// is that directory's parent, not docs. Operands, input redirections,
// cd (-L and -P) and git -C are read that way, and must be inside read
// as text as well.
func TestReadOnlyDotDotAfterSymlinks(t *testing.T) {
	dirs, _ := readOnlyTree(t)
	away := t.TempDir()
	if err := os.MkdirAll(filepath.Join(away, "inner"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(away, "secret.txt"), []byte("s\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.MkdirAll(filepath.Join(dirs.Cwd, "docs"), 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Symlink(filepath.Join(away, "inner"), filepath.Join(dirs.Cwd, "docs", "l")); err != nil {
		t.Fatal(err)
	}
	for _, c := range []string{
		"cat docs/l/../secret.txt",
		"grep -r X docs/l/..",
		"cd -P docs/l/.. && cat secret.txt",
		"cd docs/l/.. && cat secret.txt",
		"cd docs && cat l/../secret.txt",
		"cat < docs/l/../secret.txt",
		"git -C docs/l/.. status",
		"ls docs/l/../*",
		"ls docs/[l]/../secret.txt",
		"cat " + dirs.Cwd + "/docs/l/../secret.txt",
	} {
		if ReadOnlyCommand(c, dirs) {
			t.Errorf("allowed without asking: %q", c)
		}
	}
	for _, c := range []string{"cat sub/../a.txt", "cd sub && cat b.txt", "cat alias/../a.txt", "cd alias && cat b.txt", "ls docs/.."} {
		if !ReadOnlyCommand(c, dirs) {
			t.Errorf("read-only command asked about: %q", c)
		}
	}
}

// Options are read as the programs read them (issue 27, finding 6):
// getopt's long-option abbreviations (--rege= is --regexp=), values
// glued to short options (-mFILE) and in clusters (-rfFILE), options
// after operands, and response files (@FILE). Only options a command's
// list names pass; a value that is a path is checked as one.
func TestReadOnlyOptionsAsTheProgramsReadThem(t *testing.T) {
	dirs, outside := readOnlyTree(t)
	secret := filepath.Join(outside, "secret")
	for _, c := range []string{
		"grep --regex=x " + secret,
		"grep --rege=x " + secret,
		"grep --regexp=x " + secret,
		"grep --file=" + secret + " a.txt",
		"grep -rf" + secret + " a.txt",
		"grep -f " + secret + " a.txt",
		"grep x a.txt -f" + secret,
		"grep -e x a.txt --file " + secret,
		"strings @" + secret,
		"strings a.txt",
		"hexdump -f" + secret + " a.txt",
		"xxd -ps " + secret,
		"file -m" + secret + " a.txt",
		"file -m " + secret + " a.txt",
		"file -z a.txt",
		"file -f names.txt",
		"sort --random-source=" + secret + " a.txt",
		"sort --compress=sh a.txt",
		"sort --comp=sh a.txt",
		"sort -T /tmp a.txt",
		"du -X" + secret,
		"du --exclude-from=" + secret,
		"wc --files0=list",
		"diff --from-file=" + secret + " a.txt",
		"diff --to-file " + secret + " a.txt",
		"rg -z x",
		"rg --pre=sh x",
		"rg --pre-glob=* x",
		"tree --fromfile " + secret,
		"date --dat=now",
		"date -f" + secret,
		"date -r" + secret,
		"date --reference " + secret,
		"cat a.txt -n/../../../../../../etc/passwd",
		"ls --dereference -R",
		"tail -f a.txt",
		"realpath --relative-to=" + outside + " a.txt",
		"cat --show-all=x a.txt",
		"printf -v x y",
		"head -n",
	} {
		if ReadOnlyCommand(c, dirs) {
			t.Errorf("allowed without asking: %q", c)
		}
	}
	for _, c := range []string{
		"grep --regexp=x a.txt",
		"grep -e /api/ a.txt",
		"grep -2 -rn x sub",
		"grep x a.txt -n",
		"head --lines 5 a.txt",
		"head --lines=5 -q a.txt sub/b.txt",
		"tail -n5 a.txt",
		"ls a.txt -l --color",
		"cksum -a sha256 a.txt",
		"od -w16 -An -tx1 a.txt",
		"date -u +%s",
		"date -r a.txt",
		"file -b --mime-type a.txt",
		"diff -u a.txt sub/b.txt",
		"rg --files sub",
		"rg -f a.txt sub",
	} {
		if !ReadOnlyCommand(c, dirs) {
			t.Errorf("read-only command asked about: %q", c)
		}
	}
}

// find's expression may only hold primaries known to read, and a file
// one takes is checked as a path.
func TestReadOnlyFindPrimaries(t *testing.T) {
	dirs, outside := readOnlyTree(t)
	for _, c := range []string{"find . -newer " + outside + "/secret", "find . -files0-from " + outside + "/secret", "find . -fls x",
		"find . -fprintf x %p", "find . -execdir ls \\;", "find . -someday-new-action", "find . -name", "find . -newermm " + outside} {
		if ReadOnlyCommand(c, dirs) {
			t.Errorf("allowed without asking: %q", c)
		}
	}
	for _, c := range []string{"find . -newer a.txt -name '*.txt'", "find sub -type f -printf '%p\\n'", "find . \\( -name a -o -name b \\) -print",
		"find . -newermt 2024-01-01", "find . ! -path './sub/*' -maxdepth 2"} {
		if !ReadOnlyCommand(c, dirs) {
			t.Errorf("read-only command asked about: %q", c)
		}
	}
}

// git's operands and path-valued options are paths too (issue 27,
// finding 7): git diff with a file outside the repository makes an
// implicit --no-index diff and prints it, git blame --contents prints
// the file it is given. Every operand and option value that names a
// file is checked, pathspec magic reaching the repository's top is
// refused, unknown options are asked about, and forms that run a
// program (--ext-diff, --textconv, signature checks, difftool, -c,
// --exec-path) are refused.
func TestReadOnlyGitPaths(t *testing.T) {
	dirs, outside := readOnlyTree(t)
	secret := filepath.Join(outside, "secret")
	for _, c := range []string{
		"git diff " + secret + " a.txt",
		"git diff a.txt " + secret,
		"git diff a.txt escape/secret",
		"git blame --contents " + secret + " a.txt",
		"git blame --contents=" + secret + " a.txt",
		"git blame --ignore-revs-file " + secret + " a.txt",
		"git blame -S " + secret + " a.txt",
		"git log -p -O" + secret,
		"git diff -O " + secret,
		"git diff --no-index a.txt sub/b.txt",
		"git log -- " + outside,
		"git log -- ../x",
		"git diff -- ':(top)'",
		"git ls-files ':/'",
		"git grep x -- ':(top)*.go'",
		"git ls-files -X " + secret,
		"git grep -f " + secret,
		"git -C sub diff ../../x",
		"git log --ext-diff -p",
		"git diff --textconv",
		"git show --show-signature",
		"git log --format=%G?",
		"git log --pretty=format:%GS",
		"git log --format %GG",
		"git for-each-ref --format='%(signature)'",
		"git branch --format=%GK",
		"git cat-file --textconv HEAD:a.txt",
		"git cat-file --filters HEAD:a.txt",
		"git difftool",
		"git -c diff.external=sh diff",
		"git --exec-path=/tmp status",
		"git --work-tree=/ status",
		"git log --some-unknown-option",
		"git log --outp=x",
		"git grep --open-files-in-pager x",
		"git show --output=x HEAD",
		"git status --porcelain=v1 " + secret,
	} {
		if ReadOnlyCommand(c, dirs) {
			t.Errorf("allowed without asking: %q", c)
		}
	}
	for _, c := range []string{
		"git diff HEAD~1 -- a.txt",
		"git blame --contents a.txt a.txt",
		"git log -p -O a.txt",
		"git log --format=%H%n%an -5 --stat",
		"git log -n5 --oneline main..HEAD",
		"git show HEAD:a.txt",
		"git grep -n TODO -- sub",
		"git grep -e TODO HEAD",
		"git diff --stat=100 --cached",
		"git status -uno",
		"git -C sub log -1",
		"git reflog show -n 3",
		"git stash show -p",
		"git for-each-ref --format='%(refname)' refs/heads",
	} {
		if !ReadOnlyCommand(c, dirs) {
			t.Errorf("read-only command asked about: %q", c)
		}
	}
}
