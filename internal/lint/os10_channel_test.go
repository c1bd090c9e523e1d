package lint

import (
	"strings"
	"testing"

	"rocelab/internal/doctor"
)

// Microsoft's real Azure Local OS10 render writes PFC and the service
// policies on ethernet1/1/39-40, members of port-channel50. Our variant of
// it moves the policies and the traffic-class map onto port-channel50 and
// leaves `priority-flow-control mode on` on the members: OS10 applies the
// port-channel's configuration to its members, so they pause qos-group 3
// as before and nothing is told (port-channel50 was judged as a port
// without PFC, its members as PFC without a paused class).
func TestOS10ChannelMembersTakePolicies(t *testing.T) {
	moved := []string{"  service-policy input type network-qos AZS_SERVICES_pfc", "  service-policy output type queuing AZS_SERVICES_ets", "  qos-map traffic-class AZS_SERVICES_Que"}
	var out []string
	member := false
	for _, l := range strings.Split(readText(t, "../../testdata/corpus/os10/azurelocal-switchgen-gotmpl-s5248f-pfc-dot1p-ecn.cfg"), "\n") {
		if strings.HasPrefix(l, "interface ") {
			member = l == "interface ethernet 1/1/39" || l == "interface ethernet 1/1/40"
		}
		if member && (l == moved[0] || l == moved[1] || l == moved[2]) {
			continue
		}
		out = append(out, l)
		if l == "interface port-channel50" {
			out = append(out, moved...)
		}
	}
	if len(out) != len(strings.Split(readText(t, "../../testdata/corpus/os10/azurelocal-switchgen-gotmpl-s5248f-pfc-dot1p-ecn.cfg"), "\n"))-3 {
		t.Fatalf("the member blocks are not where expected (%d lines)", len(out))
	}
	rep := lintFiles(t, tempFile(t, "moved.cfg", strings.Join(out, "\n")))
	for _, fd := range rep.Findings {
		if fd.Severity >= doctor.Warn {
			t.Errorf("%s %s: %s", fd.Severity, fd.ID, fd.Title)
		}
	}
}

// A member whose port-channel the input does not hold and that writes no
// trust map of its own: the map the port-channel gives it is not known,
// so it is named, not told every frame lands in qos-group 0, which no
// PFC pauses (it was); nor told the configuration sets ECN on no queue,
// as the port-channel may apply a queuing policy that marks. Synthetic.
func TestOS10ChannelMissingNamed(t *testing.T) {
	cfg := `! Version 10.5.4.0
interface ethernet1/1/1
 priority-flow-control mode on
 service-policy input type network-qos pfc
 channel-group 10 mode active
class-map type network-qos c3
 match qos-group 3
policy-map type network-qos pfc
 class c3
  pause
  pfc-cos 3
`
	rep := lintFiles(t, tempFile(t, "synthetic-os10-po-cut.cfg", cfg))
	named := false
	for _, fd := range rep.Findings {
		named = named || fd.ID == "config.not_judged" && strings.Contains(fd.Title, "channel-group 10 on ethernet1/1/1 (port-channel10 not in the input")
		if fd.ID == "qos.pfc.disabled" || fd.ID == "ecn.disabled" || strings.HasPrefix(fd.ID, "qos.dscp") {
			t.Errorf("%s %s: %s", fd.Severity, fd.ID, fd.Title)
		}
	}
	if !named {
		t.Errorf("no config.not_judged naming port-channel10: %v", ids(rep))
	}
}
