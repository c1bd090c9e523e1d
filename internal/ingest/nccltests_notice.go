package ingest

import "strings"

// A TestNotice is nccl-tests telling that an option of its command line
// had no effect: common.cu's "Option -R (register) is not supported before
// NCCL 2.19. Ignoring" when the NCCL it was built against lacks the
// feature, and its "... (-I) is incompatible with CUDA graph mode (-G).
// Disabling." when two options conflict. The run goes on without it.
type TestNotice struct {
	// Option is the option named, "-R"; Message the whole line.
	Option, Message string
	Evidence        Evidence
}

// notice reads an option notice; the first maxKept are kept.
func (t *NCCLTests) notice(ln Line, s string) bool {
	opt, ok := noticeOption(strings.TrimSpace(s))
	if !ok {
		return false
	}
	if len(t.Notices) < maxKept {
		t.Notices = append(t.Notices, TestNotice{Option: opt, Message: strings.Clone(strings.TrimSpace(s)), Evidence: At(t.src, ln)})
	}
	return true
}

// noticeOption returns the option an "... Ignoring" or "... Disabling."
// line names: the "-X" after "Option " that starts it, or the first "(-X"
// in it.
func noticeOption(s string) (string, bool) {
	if !strings.HasSuffix(s, " Ignoring") && !strings.HasSuffix(s, " Disabling.") {
		return "", false
	}
	if rest, ok := strings.CutPrefix(s, "Option -"); ok && rest != "" && isOptionLetter(rest[0]) {
		return "-" + rest[:1], true
	}
	if _, rest, ok := strings.Cut(s, "(-"); ok && rest != "" && isOptionLetter(rest[0]) {
		return "-" + rest[:1], true
	}
	return "", false
}

func isOptionLetter(c byte) bool { return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' }
