package acptest

import "github.com/cordis-agent/cordis/acp"

// Cancelled is the permission answer of an editor whose user dismissed
// the request.
var Cancelled = &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "cancelled"}}

// SelectKind answers a permission request as a user picking the option of
// the given kind (acp.PermAllowOnce, ...); "cancelled" answers Cancelled.
// ok is false when the request offers no option of that kind.
func SelectKind(req *acp.RequestPermissionRequest, kind string) (resp *acp.RequestPermissionResponse, ok bool) {
	if kind == "cancelled" {
		return Cancelled, true
	}
	for _, o := range req.Options {
		if o.Kind == kind {
			return &acp.RequestPermissionResponse{Outcome: acp.PermissionOutcome{Outcome: "selected", OptionID: o.OptionID}}, true
		}
	}
	return nil, false
}
