package ingest

import (
	"slices"
	"strings"
)

// HIP's code object loader says when it has no code object for a device
// it can see: "hipErrorNoBinaryForGpu: Unable to find code object for
// all current devices!", and at AMD_LOG_LEVEL=1 one line a device, such as
// ":1:hip_code_object.cpp :507 : ... amdgcn-amd-amdhsa--gfx1036 - [Not
// Found]". RCCL then fails with 'invalid kernel file'.

// codeObject reads such a line into t.NoCodeObject and t.NoCodeObjectGfx.
func (t *NCCLTests) codeObject(ln Line, s string) bool {
	switch {
	case strings.Contains(s, "Unable to find code object for all current devices"):
	case strings.Contains(s, "[Not Found]") && strings.Contains(s, "gfx"):
		if g := gfxTarget(s); g != "" && len(t.NoCodeObjectGfx) < maxKept && !slices.Contains(t.NoCodeObjectGfx, g) {
			t.NoCodeObjectGfx = append(t.NoCodeObjectGfx, g)
		}
	default:
		return false
	}
	if t.NoCodeObject.Line == 0 {
		t.NoCodeObject = At(t.src, ln)
	}
	return true
}

// gfxTarget is the first gfx target named in s ("gfx1036" of
// "amdgcn-amd-amdhsa--gfx1036:xnack-"), "" for none.
func gfxTarget(s string) string {
	i := strings.Index(s, "gfx")
	if i < 0 {
		return ""
	}
	j := i + 3
	for j < len(s) && (s[j] >= '0' && s[j] <= '9' || s[j] >= 'a' && s[j] <= 'f') {
		j++
	}
	if j == i+3 {
		return ""
	}
	return s[i:j]
}
