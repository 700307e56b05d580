//go:build linux && !amd64 && !arm64

package sandbox

// No filter is built for this architecture; Check reports the sandbox as
// unavailable, so nothing runs confined only in part.
const auditArch = 0

const x32Bit = 0

var metadataSyscalls []uintptr
