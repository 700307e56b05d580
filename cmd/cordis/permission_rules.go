package main

import (
	"github.com/cordis-agent/cordis/hooks/builtin"
	"github.com/cordis-agent/cordis/loop"
)

// wirePermissionRules gives the built-in permission-rules hook Claude
// Code's settings files to read rules from (the user's, trusted, and the
// project's, whose allow rules count once trusted in the state directory's
// trust store), and the loop the way to keep an "Always allow" answer: in
// the project's local settings file, trusted in the same store.
func wirePermissionRules(opts *builtin.Options, out *loop.Config, stateDir string, s userSetup) {
	rules := s.permissionTrust(stateDir)
	opts.Settings = s.claude.Settings
	opts.TrustedRule = rules.Trusted
	opts.Managed = s.managed
	opts.SettingsSyntaxErrorsTold = s.claudeHooksTell
	out.SavePermissionRule = rules.SaveAllow
}
