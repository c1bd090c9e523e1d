package ingest

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/unit"
)

// Dmesg holds the kernel log lines that matter for a RoCE host: the PCIe
// bandwidth the NIC got at probe time,
//
//	mlx5_core 0001:43:00.0: 63.008 Gb/s available PCIe bandwidth, limited by 8.0 GT/s PCIe x8 link at 0001:42:01.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)
//	mlx5_core 0000:3b:00.0: 252.048 Gb/s available PCIe bandwidth (16.0 GT/s PCIe x16 link)
//
// link up/down events with their speeds where the driver prints one,
// mlx5_ib's completions with error, and devices' faults (DeviceFault).
// Other lines (e.g. mlx5 "PCIe slot advertised sufficient power") are
// ignored.
type Dmesg struct {
	Scoped
	artifactHead
	// PCIe holds the bandwidth lines.
	PCIe []PCIeLink
	// Links holds link up/down events.
	Links []LinkEvent
	// CQEErrors are mlx5_ib's completion-with-error reports, in order.
	CQEErrors []CQEError
	// Faults are the IOMMU's refusals of a device's DMA and NIC firmware
	// health reports, in order.
	Faults []DeviceFault
	// Omitted counts lines dropped by the memory caps.
	Omitted int
}

// maxDmesgEvents bounds the PCIe and link lines one artifact keeps.
const maxDmesgEvents = 1024

// A PCIeLink is one "available PCIe bandwidth" line.
type PCIeLink struct {
	Driver string // e.g. "mlx5_core"
	Device string // PCI address, e.g. "0001:43:00.0"
	// Available is the bandwidth the link provides; Capable is what the
	// device could get at full width and speed (equal when not limited).
	Available, Capable  unit.BitRate
	Width, CapableWidth int     // lanes
	GTs, CapableGTs     float64 // transfer rate per lane
	// LimitedAt is the upstream port that limits the link, when limited.
	LimitedAt string
	Evidence  Evidence
}

// Limited reports whether the kernel says the link runs below what the
// device is capable of.
func (l PCIeLink) Limited() bool { return l.LimitedAt != "" }

// A LinkEvent is a "Link up" / "Link down" line.
type LinkEvent struct {
	Driver, Device string // driver and PCI address or netdev, as printed
	Up             bool
	Rate           unit.BitRate // 0 when the line gives no speed
	Evidence       Evidence
}

// Kind returns KindDmesg.
func (d *Dmesg) Kind() Kind { return KindDmesg }

// Bottlenecks reports the NICs whose PCIe link the kernel says runs below
// what the device is capable of, capped at the bandwidth the link gives.
func (d *Dmesg) Bottlenecks() []Bottleneck {
	var out []Bottleneck
	for _, l := range d.PCIe {
		if !l.Limited() {
			continue
		}
		out = append(out, Bottleneck{
			What:     fmt.Sprintf("%s %s on a PCIe %.1f GT/s x%d link (capable of %.1f GT/s x%d)", l.Driver, l.Device, l.GTs, l.Width, l.CapableGTs, l.CapableWidth),
			Cap:      l.Available,
			Device:   l.Device,
			Evidence: []Evidence{l.Evidence},
		})
	}
	return out
}

// LinkSpeeds returns the speeds of link-up lines.
func (d *Dmesg) LinkSpeeds() []LinkSpeed {
	var out []LinkSpeed
	for _, e := range d.Links {
		if e.Up && e.Rate > 0 {
			out = append(out, LinkSpeed{Device: e.Device, Rate: e.Rate, Evidence: e.Evidence})
		}
	}
	return out
}

type dmesgParser struct {
	out Dmesg
	cqe *CQEError // a header line awaiting its syndrome line
}

// NewDmesgParser returns a parser for kernel log lines in the input src.
func NewDmesgParser(src string) Parser {
	return &dmesgParser{out: Dmesg{artifactHead: artifactHead{src: src}}}
}

// Feed implements Parser.
func (p *dmesgParser) Feed(l Line) {
	if l.NCCL {
		return
	}
	t := strings.TrimSpace(l.Text)
	msg := stripKernelPrefix(t)
	switch {
	case strings.Contains(msg, "available PCIe bandwidth"):
		if pl, ok := parsePCIeLine(msg); ok {
			pl.Evidence = At(p.out.src, l)
			p.out.PCIe = appendCapped(p.out.PCIe, pl, maxDmesgEvents, &p.out.Omitted)
			p.out.lines.add(l)
		}
	case strings.Contains(msg, "ink") && isLinkEvent(strings.ToLower(msg)):
		if e, ok := parseLinkLine(msg); ok {
			e.Evidence = At(p.out.src, l)
			p.out.Links = appendCapped(p.out.Links, e, maxDmesgEvents, &p.out.Omitted)
			p.out.lines.add(l)
		}
	case strings.Contains(msg, " error cqe on cqn "):
		if dev, side, ok := cqeHeader(msg); ok {
			p.cqe = &CQEError{Device: dev, Side: side, Evidence: []Evidence{At(p.out.src, l)}}
			p.out.lines.add(l)
		}
	case p.cqe != nil && strings.Contains(msg, "vendor syndrome"):
		if syn, v, ok := cqeSyndrome(msg); ok && cqeDevice(msg) == p.cqe.Device {
			e := *p.cqe
			e.Syndrome, e.Vendor = syn, v
			e.Evidence = append(e.Evidence, At(p.out.src, l))
			p.out.addCQE(e)
			p.out.lines.add(l)
		}
		p.cqe = nil
	default:
		if f, ok := parseDeviceFault(msg); ok {
			f.Evidence = At(p.out.src, l)
			p.out.addFault(f)
			p.out.lines.add(l)
		} else if msg != t && (strings.HasPrefix(msg, "mlx5_core ") || strings.HasPrefix(msg, "mlx5_ib") || strings.HasPrefix(msg, "bnxt_en ")) {
			// other timestamped NIC driver lines: part of the log, nothing to keep
			p.out.lines.add(l)
		}
	}
}

// stripKernelPrefix removes "[    8.387840] ", "[Mon Jan  1 10:00:00 2024] "
// and syslog "Jan  1 10:00:00 host kernel: " prefixes, and the line
// number a viewer put before a timestamp (see cutLineNumber).
func stripKernelPrefix(t string) string {
	t = cutLineNumber(t)
	if strings.HasPrefix(t, "[") {
		if i := strings.Index(t, "] "); i > 0 && i < 40 {
			t = strings.TrimSpace(t[i+2:])
		}
	}
	if i := strings.Index(t, "kernel: "); i >= 0 && i < 60 {
		t = strings.TrimSpace(t[i+len("kernel: "):])
		if strings.HasPrefix(t, "[") {
			if j := strings.Index(t, "] "); j > 0 && j < 40 {
				t = strings.TrimSpace(t[j+2:])
			}
		}
	}
	return t
}

// cutLineNumber removes the line number that `dmesg | grep -n` ("1701:["),
// `cat -n` ("  1701\t[") or an editor or pager ("1701 [", "1700[") puts
// before a kernel timestamp. Only digits followed by a bracketed
// timestamp (seconds, or dmesg -T's and -e's dates) are taken: a number
// before anything else is the line's own.
func cutLineNumber(t string) string {
	i := 0
	for i < len(t) && i < 8 && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	if i == 0 {
		return t
	}
	rest := strings.TrimLeft(strings.TrimPrefix(t[i:], ":"), " \t")
	end := strings.IndexByte(rest, ']')
	if len(rest) < 3 || rest[0] != '[' || end < 2 || end > 40 {
		return t
	}
	if ts := rest[1:end]; ts[0] != ' ' && (ts[0] < '0' || ts[0] > '9') && !isDateStamp(ts) {
		return t
	}
	return rest
}

// isDateStamp reports whether a bracketed kernel timestamp is dmesg -T's
// or -e's date ("Mon Jan  1 10:00:00 2024", "Jan  1 10:00"): a
// capitalised three-letter name, a space, and a clock.
func isDateStamp(ts string) bool {
	return len(ts) > 4 && ts[0] >= 'A' && ts[0] <= 'Z' && ts[1] >= 'a' && ts[1] <= 'z' && ts[2] >= 'a' && ts[2] <= 'z' &&
		ts[3] == ' ' && strings.Contains(ts, ":")
}

// isLinkEvent reports whether a lower-cased message is a link up/down line.
func isLinkEvent(lower string) bool {
	for _, k := range []string{"link is up", "link up", "link is down", "link down"} {
		if strings.Contains(lower, k) {
			return true
		}
	}
	return false
}

// driverDevice splits "mlx5_core 0001:43:00.0: rest" (or "mlx5_core
// 0000:3b:00.0 ens1f0: rest") into driver, device and rest.
func driverDevice(msg string) (drv, dev, rest string) {
	head, rest, ok := strings.Cut(msg, ": ")
	if !ok {
		return "", "", msg
	}
	f := strings.Fields(head)
	switch len(f) {
	case 2:
		return f[0], f[1], rest
	case 3:
		return f[0], f[2], rest
	}
	return "", "", msg
}

// parsePCIeLine parses the kernel's pcie_print_link_status message.
func parsePCIeLine(msg string) (PCIeLink, bool) {
	drv, dev, rest := driverDevice(msg)
	pl := PCIeLink{Driver: drv, Device: dev}
	i := strings.Index(rest, " Gb/s available PCIe bandwidth")
	if i < 0 {
		return pl, false
	}
	avail, err := strconv.ParseFloat(strings.TrimSpace(rest[:i]), 64)
	if err != nil || avail <= 0 || avail > 1e5 {
		return pl, false
	}
	pl.Available = unit.BitRate(avail * 1e9)
	tail := rest[i+len(" Gb/s available PCIe bandwidth"):]
	if lim, ok := strings.CutPrefix(tail, ", limited by "); ok {
		// "8.0 GT/s PCIe x8 link at 0001:42:01.0 (capable of 126.016 Gb/s with 8.0 GT/s PCIe x16 link)"
		gts, w, after, ok := gtsWidth(lim)
		if !ok {
			return pl, false
		}
		pl.GTs, pl.Width = gts, w
		at, capPart, _ := strings.Cut(strings.TrimPrefix(strings.TrimSpace(after), "link at "), " (capable of ")
		pl.LimitedAt = strings.TrimSpace(at)
		if pl.LimitedAt == "" {
			pl.LimitedAt = "?"
		}
		if capStr, capLink, ok := strings.Cut(capPart, " Gb/s with "); ok {
			if c, err := strconv.ParseFloat(capStr, 64); err == nil && c > 0 && c < 1e5 {
				pl.Capable = unit.BitRate(c * 1e9)
			}
			if g, w, _, ok := gtsWidth(capLink); ok {
				pl.CapableGTs, pl.CapableWidth = g, w
			}
		}
		return pl, true
	}
	// " (16.0 GT/s PCIe x16 link)"
	gts, w, _, ok := gtsWidth(strings.TrimPrefix(strings.TrimSpace(tail), "("))
	if !ok {
		return pl, false
	}
	pl.GTs, pl.Width, pl.CapableGTs, pl.CapableWidth, pl.Capable = gts, w, gts, w, pl.Available
	return pl, true
}

// gtsWidth parses "8.0 GT/s PCIe x8 link..." and returns the rest after the
// width.
func gtsWidth(s string) (float64, int, string, bool) {
	f := strings.Fields(s)
	if len(f) < 4 || f[1] != "GT/s" || f[2] != "PCIe" || !strings.HasPrefix(f[3], "x") {
		return 0, 0, "", false
	}
	g, err := strconv.ParseFloat(f[0], 64)
	if err != nil || g <= 0 || g > 1000 {
		return 0, 0, "", false
	}
	w, err := strconv.Atoi(f[3][1:])
	if err != nil || w <= 0 || w > 64 {
		return 0, 0, "", false
	}
	i := strings.Index(s, f[3]) + len(f[3])
	return g, w, s[i:], true
}

// parseLinkLine parses link up/down lines of common NIC drivers, e.g.
// "mlx5_core 0000:3b:00.0 ens1f0: Link up",
// "bnxt_en 0000:3b:00.0 eth0: NIC Link is Up, 100000 Mbps full duplex, ...",
// "ice 0000:17:00.0 ens1: NIC Link is up 100 Gbps Full Duplex, ...".
func parseLinkLine(msg string) (LinkEvent, bool) {
	drv, dev, rest := driverDevice(msg)
	lr := strings.ToLower(rest)
	e := LinkEvent{Driver: drv, Device: dev}
	switch {
	case strings.HasPrefix(lr, "link up"), strings.HasPrefix(lr, "nic link is up"), strings.HasPrefix(lr, "link is up"):
		e.Up = true
	case strings.HasPrefix(lr, "link down"), strings.HasPrefix(lr, "nic link is down"), strings.HasPrefix(lr, "link is down"):
	default:
		return e, false
	}
	f := strings.Fields(strings.NewReplacer(",", " ", "/", " ").Replace(rest))
	for i := 1; i < len(f); i++ {
		mult := unit.BitRate(0)
		switch strings.ToLower(f[i]) {
		case "gbps", "gb":
			mult = unit.Gbps
		case "mbps", "mb":
			mult = unit.Mbps
		}
		if mult == 0 {
			continue
		}
		if v, err := strconv.ParseFloat(f[i-1], 64); err == nil && v > 0 && v < 1e7 {
			e.Rate = unit.BitRate(v * float64(mult))
			break
		}
	}
	return e, true
}

// Result implements Parser.
func (p *dmesgParser) Result() Artifact {
	if len(p.out.PCIe) == 0 && len(p.out.Links) == 0 && len(p.out.CQEErrors) == 0 && len(p.out.Faults) == 0 {
		return nil
	}
	return &p.out
}
