package lint

import (
	"strings"
	"testing"
)

// A cut of Microsoft's real Azure Local Nexus 93180 render without its
// port-channel50 block (the cut is ours): members Ethernet1/41-42, PFC on,
// take port-channel50's classification, which the input no longer shows,
// so they are named as not judged, not told RoCE lands in class 0.
func TestNXOSChannelMissingNotJudged(t *testing.T) {
	lines := strings.Split(readText(t, "../../testdata/corpus/nxos/azurelocal-switchgen-gotmpl-n93180-portchannel-members.cfg"), "\n")
	at := -1
	for i, l := range lines {
		if l == "interface port-channel50" {
			at = i
		}
	}
	if at < 0 || !strings.HasPrefix(lines[at+7], "  service-policy type qos input") {
		t.Fatalf("port-channel50 block not where expected (line %d)", at+1)
	}
	cut := strings.Join(append(lines[:at:at], lines[at+10:]...), "\n")
	rep := lintFiles(t, tempFile(t, "cut.cfg", cut))
	named := false
	for _, fd := range rep.Findings {
		if fd.ID == "qos.pfc.disabled" && (strings.Contains(fd.Title, "Ethernet1/41") || strings.Contains(fd.Title, "Ethernet1/42")) {
			t.Errorf("member judged: %s", fd.Title)
		}
		named = named || fd.ID == "config.not_judged" && strings.Contains(fd.Title, "channel-group 50 on Ethernet1/41 (port-channel50 not in the input")
	}
	if !named {
		t.Errorf("no config.not_judged naming port-channel50: %v", ids(rep))
	}
}
