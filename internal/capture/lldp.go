package capture

import (
	"encoding/binary"
	"fmt"
	"sort"
	"strings"
)

// LLDPSummary says what the capture's LLDP frames advertise about data
// center bridging (IEEE 802.1 organisationally specific TLVs, OUI
// 00-80-C2): PFC, ETS, application priority and congestion notification.
type LLDPSummary struct {
	Frames      int64    `json:"frames"`
	FirstPacket int      `json:"first_packet"`
	Senders     []string `json:"senders"`
	// TLVs counts the DCBX TLVs seen by name.
	TLVs map[string]int64 `json:"dcbx_tlvs"`
	// PFCEnabled lists, per sender, the priorities its last PFC
	// configuration TLV enables, e.g. "08:00:27:42:ba:59: 2,4,5 (willing no)".
	PFCEnabled []string `json:"pfc_enabled"`

	pfc map[string]string
}

var dcbxSubtypes = map[byte]string{
	0x08: "Congestion Notification",
	0x09: "ETS Configuration",
	0x0a: "ETS Recommendation",
	0x0b: "PFC Configuration",
	0x0c: "Application Priority",
}

// add reads the TLVs of one LLDPDU.
func (s *LLDPSummary) add(num int, b []byte, src [6]byte) {
	s.Frames++
	if s.FirstPacket == 0 {
		s.FirstPacket = num
	}
	mac := macString(src)
	if i := sort.SearchStrings(s.Senders, mac); i == len(s.Senders) || s.Senders[i] != mac {
		s.Senders = append(s.Senders, "")
		copy(s.Senders[i+1:], s.Senders[i:])
		s.Senders[i] = mac
	}
	for len(b) >= 2 {
		h := binary.BigEndian.Uint16(b)
		typ, n := h>>9, int(h&0x1ff)
		if typ == 0 || 2+n > len(b) {
			return
		}
		v := b[2 : 2+n]
		b = b[2+n:]
		if typ != 127 || n < 4 || v[0] != 0x00 || v[1] != 0x80 || v[2] != 0xc2 {
			continue
		}
		name, ok := dcbxSubtypes[v[3]]
		if !ok {
			continue
		}
		if s.TLVs == nil {
			s.TLVs = map[string]int64{}
			s.pfc = map[string]string{}
		}
		s.TLVs[name]++
		if v[3] == 0x0b && n >= 6 {
			s.pfc[mac] = pfcConfig(v[4], v[5])
		}
	}
}

// pfcConfig formats a PFC configuration TLV's flags and enable bitmap.
func pfcConfig(flags, enable byte) string {
	var ps []string
	for p := range 8 {
		if enable&(1<<p) != 0 {
			ps = append(ps, fmt.Sprint(p))
		}
	}
	list := strings.Join(ps, ",")
	if list == "" {
		list = "none"
	}
	willing := "no"
	if flags&0x80 != 0 {
		willing = "yes"
	}
	return fmt.Sprintf("%s (willing %s)", list, willing)
}

// finish fills PFCEnabled in sender order.
func (s *LLDPSummary) finish() {
	for _, mac := range s.Senders {
		if c, ok := s.pfc[mac]; ok {
			s.PFCEnabled = append(s.PFCEnabled, mac+": "+c)
		}
	}
}

// Describe says in one line what the LLDP frames carry.
func (s *LLDPSummary) Describe() string {
	var tl []string
	for name, n := range s.TLVs {
		tl = append(tl, fmt.Sprintf("%s ×%d", name, n))
	}
	sort.Strings(tl)
	d := fmt.Sprintf("%d %s from %d %s", s.Frames, plural(s.Frames, "LLDP frame", "LLDP frames"), len(s.Senders), plural(int64(len(s.Senders)), "sender", "senders"))
	if len(tl) > 0 {
		d += "; DCBX TLVs: " + strings.Join(tl, ", ")
	}
	if len(s.PFCEnabled) > 0 {
		d += "; PFC enabled on priorities " + strings.Join(s.PFCEnabled, "; ")
	}
	return d
}
