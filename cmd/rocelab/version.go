package main

import (
	"fmt"
	"runtime/debug"
)

// version describes the binary from its build information: the module
// version, the VCS revision and whether the tree had local changes, and
// the Go version.
func version() string {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return "unknown (no build information)"
	}
	return describeBuild(bi)
}

func describeBuild(bi *debug.BuildInfo) string {
	v := bi.Main.Version
	if v == "" {
		v = "(devel)"
	}
	var rev, when, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.time":
			when = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		v += " (revision " + rev
		if when != "" {
			v += " of " + when
		}
		if modified == "true" {
			v += ", with local changes"
		}
		v += ")"
	}
	return fmt.Sprintf("%s, %s", v, bi.GoVersion)
}

// build is what rocelab_build_info labels.
type build struct{ version, revision, goVersion string }

// buildFields reads the binary's build information.
func buildFields() build {
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return build{version: "unknown", revision: "unknown", goVersion: "unknown"}
	}
	b := build{version: bi.Main.Version, goVersion: bi.GoVersion, revision: "unknown"}
	if b.version == "" {
		b.version = "(devel)"
	}
	for _, s := range bi.Settings {
		if s.Key == "vcs.revision" {
			b.revision = s.Value
		}
	}
	return b
}
