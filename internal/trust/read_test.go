package trust

import (
	"os"
	"path/filepath"
	"syscall"
	"testing"
)

// A project hook file that links out of the project, or is a FIFO, is not
// read (nor waited on); a link inside the project and a user file linked
// anywhere are.
func TestReadHookFile(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "id_ed25519")
	os.WriteFile(outside, []byte("PRIVATE KEY"), 0o600)
	project := t.TempDir()
	claude := filepath.Join(project, ".claude")
	os.MkdirAll(claude, 0o755)

	out := filepath.Join(claude, "settings.json")
	os.Symlink(outside, out)
	if data, err := ReadHookFile(out, true); err == nil {
		t.Errorf("a project file linked out of the project was read: %q", data)
	}
	if data, err := ReadHookFile(out, false); err != nil || string(data) != "PRIVATE KEY" {
		t.Errorf("a user file linked elsewhere: %q, %v", data, err)
	}

	os.WriteFile(filepath.Join(project, "shared.json"), []byte(`{"hooks":{}}`), 0o644)
	in := filepath.Join(claude, "settings.local.json")
	os.Symlink("../shared.json", in)
	if data, err := ReadHookFile(in, true); err != nil || string(data) != `{"hooks":{}}` {
		t.Errorf("an in-project link: %q, %v", data, err)
	}

	fifo := filepath.Join(project, ".codex", "hooks.json")
	os.MkdirAll(filepath.Dir(fifo), 0o755)
	if err := syscall.Mkfifo(fifo, 0o644); err != nil {
		t.Skip("mkfifo:", err)
	}
	if _, err := ReadHookFile(fifo, true); err == nil {
		t.Error("a FIFO was read")
	}
}
