// Package version says which build of gochunk is running, for
// `gochunk version` and the server's logs and health answer.
package version

import (
	"fmt"
	"runtime/debug"
)

// version is set at build time with -ldflags
// "-X github.com/gochunk/gochunk/internal/version.version=..."; else the
// build information says it (go install ...@v1.2.3), else "dev".
var version = ""

// String names the module, its version and, for builds from a
// checkout, the commit and whether the tree was modified.
func String() string {
	v, extra := version, ""
	if info, ok := debug.ReadBuildInfo(); ok {
		if v == "" && info.Main.Version != "" && info.Main.Version != "(devel)" {
			v = info.Main.Version
		}
		var rev, modified string
		for _, s := range info.Settings {
			switch s.Key {
			case "vcs.revision":
				rev = s.Value
			case "vcs.modified":
				if s.Value == "true" {
					modified = ", modified"
				}
			}
		}
		if rev != "" {
			extra = fmt.Sprintf(" (commit %.12s%s)", rev, modified)
		}
		extra += " " + info.GoVersion
	}
	if v == "" {
		v = "dev"
	}
	return "github.com/gochunk/gochunk " + v + extra
}
