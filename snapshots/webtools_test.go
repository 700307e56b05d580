package snapshots

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestManifestElicitations: elicitation answers need an editor that
// offers elicitation, a known action, and content only with accept.
func TestManifestElicitations(t *testing.T) {
	dir := t.TempDir()
	for name, body := range map[string]string{
		"no capability":      "description: d\nrecording: authored\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, elicitations: [{action: accept}]}\n",
		"bad action":         "description: d\nrecording: authored\nclient: {elicitation: true}\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, elicitations: [{action: submit}]}\n",
		"content on decline": "description: d\nrecording: authored\nclient: {elicitation: true}\nsteps:\n  - newSession: {}\n  - prompt: {text: hi, elicitations: [{action: decline, content: {q1: a}}]}\n",
	} {
		path := filepath.Join(dir, strings.ReplaceAll(name, " ", "-")+".yml")
		os.WriteFile(path, []byte(body), 0o644)
		if _, err := LoadManifest(path); err == nil {
			t.Errorf("%s: loaded", name)
		}
	}
}

// TestNetBitesOnWebPage: the WebFetch scenario really fetches the page
// the harness serves from its web/ folder; another page text changes the
// request cordis sends the model.
func TestNetBitesOnWebPage(t *testing.T) {
	root, sc := copyScenario(t, "webfetch-permission")
	editFile(t, filepath.Join(sc.Dir, WebDir, "install.html"), "Go 1.24 or later", "Go 1.25 or later")
	wantFailure(t, verify(sc, root), "request 2 of conversation 01-main does not match", "Go 1.25 or later")
}

// TestNetBitesOnElicitation: the form's answers reach the model, and a
// form the manifest does not answer fails the scenario.
func TestNetBitesOnElicitation(t *testing.T) {
	root, sc := copyScenario(t, "askuser-elicitation")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "q1: SQLite", "q1: Postgres")
	sc, err := LoadScenario(root, sc.Name)
	if err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "request 2 of conversation 01-main does not match", `= \"Postgres\"`)

	root, sc = copyScenario(t, "askuser-elicitation")
	editFile(t, filepath.Join(sc.Dir, ManifestFile), "      elicitations:\n        - action: accept\n          content:\n            q1: SQLite\n            q2: [Unit, Integration]\n            q2_other: keep them under a second\n", "")
	if sc, err = LoadScenario(root, sc.Name); err != nil {
		t.Fatal(err)
	}
	wantFailure(t, verify(sc, root), "the manifest has no answer left (answered cancel)")
}
