package tools

import (
	"bytes"
	"context"
	"errors"
	"io/fs"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"slices"
	"sort"
	"strings"
	"testing"

	"github.com/cordis-agent/cordis/internal/confine"
)

// ignoreMatrix is a repository tree: every file, and the ignore files
// (which are files of the tree too).
var ignoreMatrix = struct {
	gitignores map[string]string // directory -> .gitignore content
	exclude    string            // .git/info/exclude
	global     string            // the global excludes file
	files      []string
	symlinks   map[string]string // path -> target
}{
	gitignores: map[string]string{
		"": "# a comment\n" +
			"*.log\n" +
			"!keep.log\n" +
			"build/\n" +
			"/rootonly\n" +
			"docs/**/gen\n" +
			"/out/**\n" +
			"!/out/keep.txt\n" +
			"trail   \n" +
			"sp\\ \n" +
			"tab\t\n" +
			"\\#hash\n" +
			"\\!bang\n" +
			"lit\\*\n" +
			"q?x\n" +
			"[abc]set.c\n" +
			"[!abc]neg.c\n" +
			"**/deep/leaf\n" +
			"a/**/z\n" +
			"foo**bar\n" +
			"dironly/\n" +
			"!special.bak\n" +
			"\\ lead\n" +
			"*.tmp\n" +
			"!*.tmp/\n",
		"cls": "[[:digit:]]d\n" +
			"[]a]r\n" +
			"[a-c]g\n" +
			"[\\]]e\n" +
			"***w\n" +
			"**v\n" +
			"m**/n\n" +
			"*.[ch]\n" +
			"[[:upper:]][[:space:]]u\n" +
			"[!]a]k\n" +
			"[a-]h\n" +
			"[[:foo]j\n" +
			"/qq**\n" +
			"s/t**\n" +
			"[[:alpha:]-[:digit:]]i\n",
		"sub": "!important.log\n" +
			"/anch\n" +
			"nested/*.tmp\n" +
			"*.md\n" +
			"!README.md\n" +
			"**/x/**/y\n",
		"sub/inner": "!*.md\n" +
			"*.txt\n" +
			"# no trailing newline\n" +
			"!keep.txt",
		"crlf": "win.txt\r\n!win.log\r\n",
	},
	exclude: "excluded_by_info\n*.bak\n!info_keeps.glob\nsub/inner/byinfo\n",
	global:  "*.glob\nglobonly/\n!sub/glob_kept.log\n",
	files: []string{
		"a.go", "x.log", "keep.log", "sub/x.log", "sub/important.log",
		"build/out.o", "sub/build/out.o", "src/build", "rootonly", "sub/rootonly",
		"docs/gen", "docs/a/gen", "docs/a/b/gen/f", "gen",
		"out/a.txt", "out/keep.txt", "out/sub/keep.txt",
		"trail", "trail   x", "sp ", "sp", "tab\t", "tab",
		"#hash", "!bang", "bang", "lit*", "litx", "qax", "q/x", "qaax",
		"aset.c", "dset.c", "aneg.c", "dneg.c",
		"deep/leaf", "p/deep/leaf", "p/q/deep/leaf/f", "deep/other",
		"a/z", "a/b/z", "a/b/c/z", "b/a/z", "foobar", "fooXbar", "foo/bar",
		"dironly/f", "sub/dironly/f", "file/dironly",
		"x.bak", "special.bak", "sub/y.bak",
		" lead", "lead",
		"t.tmp", "dir.tmp/f",
		"sub/anch", "sub/deeper/anch", "anch",
		"sub/nested/a.tmp", "sub/nested/deeper/a.tmp",
		"sub/doc.md", "sub/README.md", "doc.md", "sub/inner/doc.md",
		"sub/inner/a.txt", "sub/inner/keep.txt", "a.txt",
		"sub/x/y", "sub/x/1/2/y", "x/y",
		"excluded_by_info", "sub/excluded_by_info", "sub/inner/byinfo",
		"a.glob", "info_keeps.glob", "globonly/f", "sub/glob_kept.log",
		"cls/1d", "cls/xd", "cls/]r", "cls/ar", "cls/br", "cls/bg", "cls/dg", "cls/]e", "cls/\\e",
		"cls/aw", "cls/p/w", "cls/zv", "cls/m1/n", "cls/m1/2/n", "cls/f.c", "cls/f.h", "cls/f.o",
		"cls/A u", "cls/a u", "cls/]k", "cls/ak", "cls/bk", "cls/-h", "cls/ah", "cls/bh",
		"cls/[j", "cls/:j", "cls/fj", "cls/qq/r", "cls/qqx", "cls/q", "cls/s/tx/y", "cls/s/u/t",
		"cls/-i", "cls/ai", "cls/5i", "cls/.i",
		"crlf/win.txt", "crlf/win.log", "crlf/other.txt",
	},
	symlinks: map[string]string{
		"linkdir":  "build", // a symlink is a file to git: build/ does not apply
		"link.log": "a.go",
	},
}

// TestIgnoreMatrixAgreesWithGit builds a repository, asks git which of
// its files are ignored, and compares with what the walker visits, from
// the repository's top and from a subdirectory.
func TestIgnoreMatrixAgreesWithGit(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the ignore matrix needs it as the reference")
	}
	m := ignoreMatrix
	env := newEnv(t)
	home := filepath.Join(filepath.Dir(env.Cwd), filepath.Base(env.Cwd)+"-home")
	t.Cleanup(func() { os.RemoveAll(home) })
	// The global excludes file is named by core.excludesFile in the XDG
	// config, with "~" for home; it lies outside the session's directories.
	writeFile(t, filepath.Join(home, ".config", "git", "config"),
		"[user]\n\tname = x\n[core]\n\t# the global one\n\texcludesFile = \"~/global ignore\" ; comment\n")
	writeFile(t, filepath.Join(home, "global ignore"), m.global)
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	t.Setenv("GIT_CONFIG_GLOBAL", "")
	os.Unsetenv("GIT_CONFIG_GLOBAL") // restored by Setenv's cleanup
	t.Setenv("GIT_DIR", "")
	os.Unsetenv("GIT_DIR")

	repo := filepath.Join(env.Cwd, "repo")
	git := func(dir string, args ...string) ([]byte, error) {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		var stderr bytes.Buffer
		cmd.Stderr = &stderr
		out, err := cmd.Output()
		if err != nil {
			var ee *exec.ExitError
			if !errors.As(err, &ee) || ee.ExitCode() != 1 {
				t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, stderr.String())
			}
		}
		return out, err
	}
	if err := os.MkdirAll(repo, 0o755); err != nil {
		t.Fatal(err)
	}
	git(repo, "init", "-q")
	if out, _ := git(repo, "config", "--get", "core.excludesFile"); strings.TrimSpace(string(out)) != "~/global ignore" {
		t.Fatalf("git does not see the test's global config: core.excludesFile = %q", out)
	}
	writeFile(t, filepath.Join(repo, ".git", "info", "exclude"), m.exclude)
	for dir, content := range m.gitignores {
		writeFile(t, filepath.Join(repo, dir, ".gitignore"), content)
	}
	for _, f := range m.files {
		writeFile(t, filepath.Join(repo, f), "x\n")
	}
	for link, target := range m.symlinks {
		if err := os.Symlink(target, filepath.Join(repo, link)); err != nil {
			t.Fatal(err)
		}
	}
	all := slices.Clone(m.files)
	for dir := range m.gitignores {
		all = append(all, filepath.ToSlash(filepath.Join(dir, ".gitignore")))
	}
	for link := range m.symlinks {
		all = append(all, link)
	}
	sort.Strings(all)
	if len(all) < 40 {
		t.Fatalf("the matrix has %d paths, want at least 40", len(all))
	}

	// git's answer, per path, and as the list of files not ignored.
	gitIgnored := map[string]bool{}
	for _, p := range all {
		_, err := git(repo, "check-ignore", "--no-index", "-q", "--", p)
		gitIgnored[p] = err == nil
	}
	out, _ := git(repo, "ls-files", "--others", "--exclude-standard", "-z")
	listed := map[string]bool{}
	for _, p := range strings.Split(strings.TrimSuffix(string(out), "\x00"), "\x00") {
		listed[p] = true
	}
	for _, p := range all {
		if listed[p] == gitIgnored[p] {
			t.Errorf("git disagrees with itself on %q: check-ignore ignored=%v, ls-files lists=%v", p, gitIgnored[p], listed[p])
		}
	}

	for _, start := range []string{"", "sub"} {
		visited := walkMatrix(t, env, filepath.Join(repo, start))
		var bad []string
		n := 0
		for _, p := range all {
			rel, ok := strings.CutPrefix(p, start)
			if start != "" {
				if !ok || !strings.HasPrefix(rel, "/") {
					continue
				}
				rel = rel[1:]
			}
			n++
			if visited[rel] == gitIgnored[p] {
				verdict, _ := git(repo, "check-ignore", "--no-index", "-v", "-n", "--", p)
				bad = append(bad, "  "+strconvQuote(p)+": git ignored="+boolWord(gitIgnored[p])+
					", cordis ignored="+boolWord(!visited[rel])+" (git: "+strings.TrimSpace(string(verdict))+")")
			}
		}
		t.Logf("walk from %q: %d paths compared", "/"+start, n)
		if len(bad) > 0 {
			t.Errorf("walk from %q: %d of %d paths decided unlike git:\n%s", "/"+start, len(bad), n, strings.Join(bad, "\n"))
		}
	}
}

// walkMatrix returns the files the walker visits below dir, relative.
func walkMatrix(t *testing.T, env *Env, dir string) map[string]bool {
	t.Helper()
	dirs := env.confined()
	defer dirs.Close()
	at, err := dirs.Locate(dir)
	if err != nil {
		t.Fatal(err)
	}
	visited := map[string]bool{}
	w := walker{ctx: context.Background(), visit: func(_, rel string, _ fs.DirEntry, _ *confine.Dir) error {
		visited[rel] = true
		return nil
	}}
	if err := w.walk(at, dir, ancestorIgnores(env, dirs, dir, at)); err != nil {
		t.Fatal(err)
	}
	return visited
}

func boolWord(b bool) string {
	if b {
		return "yes"
	}
	return "no"
}

func strconvQuote(s string) string { return "\"" + strings.ReplaceAll(s, "\t", `\t`) + "\"" }

// TestIgnoreNestedRepoAndDefaultGlobal checks a repository inside
// another (the outer one's ignore files stop at its top, its own
// info/exclude applies) and the default global excludes file,
// $XDG_CONFIG_HOME/git/ignore, against git run in the inner repository.
func TestIgnoreNestedRepoAndDefaultGlobal(t *testing.T) {
	gitBin, err := exec.LookPath("git")
	if err != nil {
		t.Skip("git is not installed: the ignore matrix needs it as the reference")
	}
	env := newEnv(t)
	home := filepath.Join(filepath.Dir(env.Cwd), filepath.Base(env.Cwd)+"-home")
	t.Cleanup(func() { os.RemoveAll(home) })
	xdg := filepath.Join(home, "xdg")
	writeFile(t, filepath.Join(xdg, "git", "ignore"), "*.g\n!keep.g\n")
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", xdg)
	t.Setenv("GIT_CONFIG_NOSYSTEM", "1")
	for _, v := range []string{"GIT_CONFIG_GLOBAL", "GIT_DIR"} {
		t.Setenv(v, "")
		os.Unsetenv(v)
	}
	git := func(dir string, args ...string) error {
		cmd := exec.Command(gitBin, args...)
		cmd.Dir = dir
		out, err := cmd.CombinedOutput()
		var ee *exec.ExitError
		if err != nil && (!errors.As(err, &ee) || ee.ExitCode() != 1) {
			t.Fatalf("git %s: %v: %s", strings.Join(args, " "), err, out)
		}
		return err
	}
	outer := filepath.Join(env.Cwd, "outer")
	inner := filepath.Join(outer, "inner")
	for _, d := range []string{outer, inner} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
		git(d, "init", "-q")
	}
	writeFile(t, filepath.Join(outer, ".gitignore"), "*.txt\nsecret\n")
	writeFile(t, filepath.Join(inner, ".git", "info", "exclude"), "ex\n*.o\n")
	writeFile(t, filepath.Join(inner, ".gitignore"), "!keep.o\n")
	writeFile(t, filepath.Join(inner, "sub", ".gitignore"), "!b.g\nex2\n")
	files := []string{"a.txt", "secret", "ex", "sub/ex", "a.o", "keep.o", "sub/a.o",
		"a.g", "keep.g", "sub/a.g", "sub/b.g", "sub/ex2", "ex2", "main.go", "sub/c.go"}
	for _, f := range files {
		writeFile(t, filepath.Join(inner, f), "x\n")
	}
	files = append(files, ".gitignore", "sub/.gitignore")
	for _, start := range []string{outer, inner, filepath.Join(inner, "sub")} {
		visited := walkMatrix(t, env, start)
		prefix, _ := filepath.Rel(start, inner)
		for _, f := range files {
			rel := path.Join(filepath.ToSlash(prefix), f)
			if strings.HasPrefix(rel, "../") {
				continue
			}
			gitIgn := git(inner, "check-ignore", "--no-index", "-q", "--", f) == nil
			if visited[rel] == gitIgn {
				t.Errorf("walk from %s: %q: git ignored=%s, cordis ignored=%s", start, f, boolWord(gitIgn), boolWord(!visited[rel]))
			}
		}
	}
}

func TestGlobalExcludesFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	t.Setenv("XDG_CONFIG_HOME", "")
	if got, want := globalExcludesFile(), filepath.Join(home, ".config", "git", "ignore"); got != want {
		t.Errorf("default: %q, want %q", got, want)
	}
	writeFile(t, filepath.Join(home, ".config", "git", "config"), "[core]\n\texcludesfile = /from/xdg\n")
	if got := globalExcludesFile(); got != "/from/xdg" {
		t.Errorf("XDG config: %q", got)
	}
	// ~/.gitconfig is read after the XDG config and wins.
	writeFile(t, filepath.Join(home, ".gitconfig"), "[Core \"x\"]\nexcludesFile = /not/this\n[CORE]\n  ExcludesFile=\"~/my ignore\" # note\n")
	if got, want := globalExcludesFile(), filepath.Join(home, "my ignore"); got != want {
		t.Errorf("~/.gitconfig: %q, want %q", got, want)
	}
	writeFile(t, filepath.Join(home, ".gitconfig"), "[core]\nexcludesFile =\n")
	if got := globalExcludesFile(); got != "" {
		t.Errorf("empty excludesFile: %q, want none", got)
	}
}
