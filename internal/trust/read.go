package trust

import (
	"os"

	"github.com/cordis-agent/cordis/internal/confine"
)

// MaxHookFile caps a hook settings file the bridges read: a settings file
// is small, and a project's could be a huge or endless file.
const MaxHookFile = 4 << 20

// ReadHookFile reads a hook settings file. A project file (found by
// discovery under ProjectDir) is read through the project directory: a
// symlink out of the project, a FIFO or a device is refused, never followed
// or waited on. A user-level file, or one the user named in cordis.yml, is
// the user's own and may be a link anywhere (a dotfiles checkout).
func ReadHookFile(path string, project bool) ([]byte, error) {
	if !project {
		return os.ReadFile(path)
	}
	dirs := confine.New(ProjectDir(path))
	defer dirs.Close()
	return dirs.ReadFile(path, MaxHookFile)
}
