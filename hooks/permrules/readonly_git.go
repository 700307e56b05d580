package permrules

import (
	"slices"
	"strings"
)

// git's options, in readOnlySpec's notation ("%" a format, checked by
// gitFormat). None writes a file (--output), runs a program the
// repository or the user configured (--ext-diff, --textconv,
// --show-signature and the %G formats run gpg, git grep -O a pager), or
// reads outside the repository (--no-index, --contents, -O and the
// other files are checked as paths).
const (
	gitDiffOpts = "-p -u -s -z -m -c -r -t -M? -C? -B? -D -R -U: -S: -G: -O/ -W -w -b -l: --patch --no-patch --stat? --numstat " +
		"--shortstat --dirstat? --summary --patch-with-stat --patch-with-raw --raw --name-only --name-status --check --full-index " +
		"--binary --unified: --minimal --patience --histogram --diff-algorithm: --color? --no-color --color-moved? --color-words? " +
		"--word-diff? --word-diff-regex: --find-renames? --find-copies? --find-copies-harder --no-renames --diff-filter: --pickaxe-all " +
		"--pickaxe-regex --relative? --no-relative --text --ignore-space-at-eol --ignore-space-change --ignore-all-space " +
		"--ignore-blank-lines --ignore-cr-at-eol --function-context --exit-code --quiet --no-ext-diff --no-textconv --src-prefix: " +
		"--dst-prefix: --no-prefix --default-prefix --inter-hunk-context: --output-indicator-new: --output-indicator-old: " +
		"--output-indicator-context: --cc --combined-all-paths --diff-merges: --no-diff-merges --ignore-submodules? --line-prefix: " +
		"--stat-width: --stat-name-width: --stat-count: --compact-summary --irreversible-delete --abbrev? --no-abbrev "
	gitLogOpts = gitDiffOpts + "-# -n: -i -E -F -P -g --max-count: --skip: --since: --after: --until: --before: --author: " +
		"--committer: --grep: --all-match --invert-grep --regexp-ignore-case --basic-regexp --extended-regexp --fixed-strings " +
		"--perl-regexp --merges --no-merges --min-parents: --max-parents: --first-parent --all --branches? --tags? --remotes? --glob: " +
		"--exclude: --reflog --walk-reflogs --merge --boundary --left-right --left-only --right-only --cherry-pick --cherry-mark --cherry " +
		"--ancestry-path --simplify-by-decoration --full-history --dense --sparse --simplify-merges --topo-order --date-order " +
		"--author-date-order --reverse --no-walk? --do-walk --follow --oneline --pretty?% --format% --abbrev-commit " +
		"--no-abbrev-commit --encoding: --expand-tabs? --no-expand-tabs --notes? --no-notes --relative-date --date: --parents " +
		"--children --graph --decorate? --no-decorate --source --mailmap --use-mailmap --no-mailmap --log-size"
)

// gitReadOnly are git's subcommands that only read, with their options;
// their operands (revisions and paths) are checked as paths (see git).
var gitReadOnly = map[string]string{
	"status": "-s -b -v -z -u? --short --branch --porcelain? --long --verbose --untracked-files? --ignored? --ignore-submodules? " +
		"--column? --no-column --ahead-behind --no-ahead-behind --renames --no-renames --find-renames? --show-stash --null",
	"diff":        gitDiffOpts + "--cached --staged --merge-base",
	"log":         gitLogOpts,
	"show":        gitLogOpts,
	"whatchanged": gitLogOpts,
	"shortlog":    gitLogOpts + " -e -w? --summary --numbered --email --committer",
	"diff-tree":   gitLogOpts + " --root --stdin --no-commit-id --always --merge-base",
	"diff-index":  gitDiffOpts + "--cached --merge-base",
	"diff-files":  gitDiffOpts + "-q -0 -1 -2 -3 --base --ours --theirs",
	"blame": "-b -c -e -f -l -n -p -s -t -w -M? -C? -L: -S/ --root --show-stats --porcelain --line-porcelain --incremental " +
		"--show-name --show-number --show-email --abbrev? --date: --contents/ --reverse --first-parent --ignore-rev: " +
		"--ignore-revs-file/ --color-lines --color-by-age --progress --no-progress --minimal --encoding:",
	"rev-parse": "-q --verify --quiet --short? --abbrev-ref? --symbolic --symbolic-full-name --show-toplevel --show-prefix " +
		"--show-cdup --git-dir --git-common-dir --absolute-git-dir --is-inside-git-dir --is-inside-work-tree --is-bare-repository " +
		"--is-shallow-repository --show-superproject-working-tree --show-object-format? --all --branches? --tags? --remotes? --glob: " +
		"--exclude: --local-env-vars --path-format: --sq --not --default: --revs-only --no-revs --flags --no-flags --disambiguate: " +
		"--since: --after: --until: --before:",
	"rev-list": gitLogOpts + " --count --objects --timestamp --header --max-age: --min-age: --in-commit-order --no-object-names",
	"ls-files": "-c -d -m -o -i -s -u -k -z -t -v -f --cached --deleted --modified --others --ignored --stage --unmerged --killed " +
		"--directory --no-empty-directory --exclude-standard --error-unmatch --full-name --eol --deduplicate --sparse --abbrev? " +
		"--debug --recurse-submodules -x: --exclude: -X/ --exclude-from/ --format%",
	"ls-tree":       "-d -r -t -l -z --long --name-only --name-status --object-only --full-name --full-tree --abbrev? --format%",
	"cat-file":      "-t -s -e -p -Z --batch? --batch-check? --batch-all-objects --buffer --unordered --follow-symlinks --allow-unknown-type",
	"describe":      "--tags --all --long --abbrev? --always --dirty? --broken? --contains --exact-match --candidates: --match: --exclude: --first-parent",
	"merge-base":    "-a --all --octopus --is-ancestor --independent --fork-point",
	"name-rev":      "--tags --refs: --exclude: --all --name-only --no-undefined --always --annotate-stdin",
	"show-ref":      "-d -s -q --head --heads --tags --branches --dereference --hash? --verify --abbrev? --quiet --exists",
	"for-each-ref":  "-s -p --shell --perl --python --tcl --count: --sort: --format% --color? --points-at: --merged? --no-merged? --contains? --no-contains? --ignore-case --omit-empty --exclude:",
	"show-branch":   "-a -r --all --remotes --current --topo-order --date-order --sparse --more: --list --independent --merge-base --no-name --sha1-name --topics --color? --no-color",
	"count-objects": "-v -H --verbose --human-readable",
	"check-ignore":  "-q -v -n -z --quiet --verbose --non-matching --stdin",
	"check-attr":    "-a -z --all --cached --stdin --source:",
	"grep": "-# -i -I -v -w -a -n -l -L -c -h -H -o -q -z -E -F -G -P -p -W -r -e:! -f/! -A: -B: -C: -m: --ignore-case " +
		"--invert-match --word-regexp --text --line-number --column --files-with-matches --name-only --files-without-match --count " +
		"--no-filename --full-name --only-matching --quiet --null --extended-regexp --fixed-strings --basic-regexp --perl-regexp " +
		"--show-function --function-context --recursive --no-recursive --cached --untracked --no-exclude-standard --exclude-standard " +
		"--heading --break --and --or --not --all-match --no-textconv --color? --no-color --max-depth: --max-count: --threads: " +
		"--context: --after-context: --before-context:",
	"version": "--build-options",
}

// gitFormat refuses a format that verifies signatures (%G?, %GS, ...,
// for-each-ref's %(signature)): git runs the configured gpg program.
func gitFormat(v string) bool {
	return !strings.Contains(v, "%G") && !strings.Contains(v, "%(signature")
}

// git checks git's own options (--no-pager, -P, --no-optional-locks,
// pathspec switches, -C inside the session's directories; -c, --git-dir,
// --work-tree, --exec-path, -p and the others are refused) and then the
// subcommand: its options, and its operands as paths, from the working
// directory and from -C's (git diff makes an implicit --no-index diff
// of two files when one is outside the repository). Pathspec magic
// (:(top), :/, :!) is refused: it reaches the repository's top, which
// may be above the session's directory. An alias is an unknown
// subcommand: it could stand for anything.
func (ck *readOnlyCheck) git(args []shellWord) bool {
	saved := ck.bases
	defer func() { ck.bases = saved }()
	for len(args) > 0 {
		a := args[0]
		switch {
		case slices.Contains([]string{"--no-pager", "-P", "--no-optional-locks", "--literal-pathspecs", "--noglob-pathspecs", "--icase-pathspecs"}, a.text):
			args = args[1:]
		case a.text == "-C":
			if len(args) < 2 || !ck.path(args[1]) {
				return false
			}
			ck.cdInto(args[1])
			args = args[2:]
		case a.text == "--version" && len(args) == 1:
			return true
		case strings.HasPrefix(a.text, "-") || a.glob:
			return false
		default:
			return ck.gitSubcommand(a.text, args[1:])
		}
	}
	return false
}

func (ck *readOnlyCheck) gitSubcommand(sub string, args []shellWord) bool {
	for _, a := range args {
		if a.glob {
			return false // git does its own globbing; the shell's is unchecked here
		}
	}
	switch sub {
	case "branch":
		return gitListing(args, "--list", "-l", "-a", "--all", "-r", "--remotes", "-v", "-vv", "--verbose", "--show-current", "-i", "--ignore-case", "--color", "--no-color", "--column", "--no-column", "--abbrev", "--no-abbrev", "--omit-empty")
	case "tag":
		return gitListing(args, "--list", "-l", "-i", "--ignore-case", "--color", "--no-color", "--column", "--no-column", "--omit-empty")
	case "remote":
		return gitRemote(args)
	case "config":
		return gitConfig(args)
	case "reflog", "stash", "worktree":
		// Only their listing subcommands: reflog [show], stash list /
		// show, worktree list.
		allowed := map[string][]string{"reflog": {"show"}, "stash": {"list", "show"}, "worktree": {"list"}}[sub]
		switch {
		case len(args) > 0 && slices.Contains(allowed, args[0].text):
			args = args[1:]
		case sub != "reflog" || len(args) > 0 && !strings.HasPrefix(args[0].text, "-") && slices.Contains([]string{"expire", "delete", "drop", "write", "exists"}, args[0].text):
			return false
		}
		sub = map[string]string{"reflog": "log", "stash": "show", "worktree": "count-objects"}[sub]
		if sub == "count-objects" {
			return len(args) == 0 || len(args) == 1 && slices.Contains([]string{"-v", "--verbose", "--porcelain", "-z"}, args[0].text)
		}
	}
	opts, ok := gitReadOnly[sub]
	if !ok {
		return false
	}
	operands, patternGiven, ok := ck.options(opts, false, args)
	if !ok {
		return false
	}
	if sub == "grep" && !patternGiven {
		if len(operands) == 0 {
			return false
		}
		operands = operands[1:]
	}
	for _, o := range operands {
		if strings.HasPrefix(o.text, ":") || !ck.path(o) {
			return false
		}
	}
	return true
}

// gitValueFlags are the listing flags of git branch and tag that take a
// value (as --flag=value or the next word).
var gitValueFlags = []string{"--contains", "--no-contains", "--merged", "--no-merged", "--points-at", "--sort", "--format"}

// gitListing allows git branch / tag only when they list: the listed
// flags, -n<lines> for tag, and names (patterns) only after --list.
func gitListing(args []shellWord, flags ...string) bool {
	listing, names := false, 0
	for i := 0; i < len(args); i++ {
		a := args[i].text
		name, value, hasValue := strings.Cut(a, "=")
		switch {
		case a == "--list" || a == "-l":
			listing = true
		case slices.Contains(flags, a):
		case slices.Contains(gitValueFlags, name):
			if !hasValue {
				if i++; i >= len(args) {
					return false
				}
				value = args[i].text
			}
			if !gitFormat(value) {
				return false
			}
		case strings.HasPrefix(a, "-n") && isDigits(strings.TrimPrefix(a, "-n")) || a == "-n":
		case len(a) > 2 && a[0] == '-' && a[1] != '-' && shortCluster(a, flags):
		case strings.HasPrefix(a, "-"):
			return false
		default:
			names++
		}
	}
	return names == 0 || listing
}

// shortCluster reports whether every letter of a cluster (-av) is one of
// the listed short flags.
func shortCluster(cluster string, flags []string) bool {
	for _, c := range cluster[1:] {
		if !slices.Contains(flags, "-"+string(c)) {
			return false
		}
	}
	return true
}

func gitRemote(args []shellWord) bool {
	for i, a := range args {
		switch {
		case a.text == "-v" || a.text == "--verbose":
		case a.text == "get-url" && i == 0:
			for _, b := range args[1:] {
				if strings.HasPrefix(b.text, "-") && b.text != "--push" && b.text != "--all" {
					return false
				}
			}
			return true
		default:
			return false
		}
	}
	return true
}

// gitConfig allows reading settings: --get, --get-all, --get-regexp,
// --list (or git config get / list), from the usual files only.
func gitConfig(args []shellWord) bool {
	reads := false
	for i, a := range args {
		switch {
		case i == 0 && (a.text == "get" || a.text == "list"):
			reads = true
		case slices.Contains([]string{"--get", "--get-all", "--get-regexp", "--get-urlmatch", "--list", "-l"}, a.text):
			reads = true
		case slices.Contains([]string{"--global", "--system", "--local", "--worktree", "--show-origin", "--show-scope", "--name-only", "-z", "--null", "--bool", "--int", "--path", "--all", "--includes", "--no-includes"}, a.text):
		case strings.HasPrefix(a.text, "--type=") || strings.HasPrefix(a.text, "--default="):
		case strings.HasPrefix(a.text, "-"):
			return false // --file, --blob, --unset, --add, --edit ...
		}
	}
	return reads
}
