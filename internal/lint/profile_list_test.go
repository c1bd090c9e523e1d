package lint

import (
	"path/filepath"
	"slices"
	"strings"
	"testing"
)

// TestProfileListReference: sonic-yang-models' real BUFFER_PORT_INGRESS
// and _EGRESS_PROFILE_LIST test data hold a case whose profile_list names
// "wrong", a profile the case does not define (the YANG test expects the
// leafref to fail on it). bufferorch resolves every item of the list
// (Orch::resolveFieldRefArray) and retries the port's row while one is
// missing, so each file gives one config.reference.missing, at that case,
// and its valid cases none.
func TestProfileListReference(t *testing.T) {
	for _, dir := range []string{"INGRESS", "EGRESS"} {
		name := "buildimage-yang-models-tests_config-buffer_port_" + strings.ToLower(dir) + "_profile_list-yang-instance.json"
		var got []string
		for _, fd := range lintFiles(t, filepath.Join("..", "..", "testdata", "corpus", "sonic", name)).Findings {
			if fd.ID == "config.reference.missing" {
				got = append(got, fd.Title)
			}
		}
		want := "BUFFER_PORT_" + dir + "_PROFILE_LIST_WRONG_PROFILE_VALUE: BUFFER_PORT_" + dir + `_PROFILE_LIST|Ethernet4 profile_list names BUFFER_PROFILE "wrong", which the config does not define`
		if len(got) != 1 || !strings.HasSuffix(got[0], want) {
			t.Errorf("%s: got %q, want one ending %q", name, got, want)
		}
	}
}

// TestProfileListItems: SYNTHETIC rows. Each item of a profile_list is a
// reference of its own, in the bracket form or plain: the one missing is
// named, alone, and the list of defined profiles gives nothing.
func TestProfileListItems(t *testing.T) {
	fs := lintText(t, `{
"PORT": {"Ethernet0": {}, "Ethernet4": {}},
"BUFFER_POOL": {"ingress_lossless_pool": {"size": "1000000", "type": "ingress", "mode": "dynamic"}, "egress_lossy_pool": {"size": "1000000", "type": "egress", "mode": "dynamic"}},
"BUFFER_PROFILE": {"a": {"pool": "ingress_lossless_pool", "size": "0", "dynamic_th": "0"}, "e": {"pool": "egress_lossy_pool", "size": "0", "dynamic_th": "0"}},
"BUFFER_PORT_INGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": "[BUFFER_PROFILE|a],[BUFFER_PROFILE|ingress_lossy_profile]"}, "Ethernet4": {"profile_list": "a"}},
"BUFFER_PORT_EGRESS_PROFILE_LIST": {"Ethernet0": {"profile_list": ["e", "egress_lossless_profile"]}, "Ethernet4": {"profile_list": "e"}}
}`, "config.reference.missing")
	var got []string
	for _, fd := range fs {
		_, title, _ := strings.Cut(fd.Title, ": ")
		got = append(got, title)
	}
	want := []string{
		`BUFFER_PORT_INGRESS_PROFILE_LIST|Ethernet0 profile_list names BUFFER_PROFILE "ingress_lossy_profile", which the config does not define`,
		`BUFFER_PORT_EGRESS_PROFILE_LIST|Ethernet0 profile_list names BUFFER_PROFILE "egress_lossless_profile", which the config does not define`,
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("got %q\nwant %q", got, want)
	}
	if len(fs) > 0 && !strings.Contains(fs[0].Mechanism, "no profile of the list is set on the port") {
		t.Errorf("mechanism: %q", fs[0].Mechanism)
	}
}
