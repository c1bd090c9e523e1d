package twinfeed

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// An incident is what an engineer gathers from the hosts of a slow job,
// and what `rocelab diagnose` reads: per host, the netdev's settings
// (`ethtool <if>`, `ethtool -i <if>`) and its counters (`ethtool -S`), the
// RDMA devices (`ibv_devinfo -v`), their counters (hw_counters and the IB
// port counters, as `grep ""` prints sysfs), the DCQCN settings (sysfs, as
// `rocelab collect` gathers them) and the QoS (`mlnx_qos -i`). The twin
// writes its hosts as that incident, every counter dump as a before/after
// pair at simulated times 0 and the run's end, each command after a shell
// prompt that names the host, so that the doctor scopes every line to its
// host and device as it does on real pastes.

// IncidentFile is one file of an incident: its path under the directory
// and its content.
type IncidentFile struct {
	Path string
	Fill func(w io.Writer) error
}

// Incident lists the files of hosts as an incident dumped at start (all
// counters zero) and end; header describes the run in each file's first
// lines.
func Incident(hosts []Host, end unit.Time, header string) []IncidentFile {
	var out []IncidentFile
	for i := range hosts {
		h := &hosts[i]
		p := prompt(h.Name)
		pci := serverPCIe(h)
		for j := range h.Devices {
			d := &h.Devices[j]
			bus := "0000:0c:00.0"
			if pci != nil {
				bus = pci.nic[nicIndex(d)]
			}
			out = append(out, IncidentFile{filepath.Join("ethtool", h.Name+"-"+d.Netdev+".txt"), func(w io.Writer) error {
				fmt.Fprintf(w, "%s# what: netdev %s of %s (RDMA device %s): settings, then counters at the start and at the end of the run (simulated time)\n", header, d.Netdev, h.Name, d.Name)
				fmt.Fprintf(w, "%sethtool -i %s\n%s", p, d.Netdev, ethtoolInfo(nicModelFor(d.Rate), bus))
				fmt.Fprintf(w, "%sethtool %s\n%s", p, d.Netdev, ethtoolSettings(d))
				for _, at := range []unit.Time{0, end} {
					dateLine(w, p, at)
					fmt.Fprintf(w, "%sethtool -S %s\nNIC statistics:\n", p, d.Netdev)
					for _, c := range d.Ethtool {
						fmt.Fprintf(w, "     %s: %d\n", c.Name, zeroAt(at, c.Value))
					}
				}
				return nil
			}})
		}
		out = append(out,
			IncidentFile{filepath.Join("hw_counters", h.Name+".txt"), func(w io.Writer) error {
				fmt.Fprintf(w, "%s# what: RDMA hw_counters and port counters of %s's devices at the start and at the end of the run (simulated time)\n", header, h.Name)
				for _, at := range []unit.Time{0, end} {
					dateLine(w, p, at)
					fmt.Fprintf(w, "%sgrep \"\" /sys/class/infiniband/*/ports/*/{hw_counters,counters}/*\n", p)
					for _, d := range h.Devices {
						for _, set := range []struct {
							dir string
							cs  []Counter
						}{{"hw_counters", d.HWCounters}, {"counters", d.PortCounters}} {
							for _, c := range set.cs {
								fmt.Fprintf(w, "/sys/class/infiniband/%s/ports/%d/%s/%s:%d\n", d.Name, d.Port, set.dir, c.Name, zeroAt(at, c.Value))
							}
						}
					}
				}
				return nil
			}},
			IncidentFile{filepath.Join("ibv_devinfo", h.Name+".txt"), func(w io.Writer) error {
				fmt.Fprintf(w, "%s# what: the RDMA devices of %s\n%sibv_devinfo -v\n", header, h.Name, p)
				for _, d := range h.Devices {
					devinfo(w, &d)
				}
				return nil
			}},
			IncidentFile{filepath.Join("dcqcn", h.Name+".txt"), func(w io.Writer) error {
				fmt.Fprintf(w, "%s# what: DCQCN settings of %s's RDMA netdevs (empty: congestion control off)\n", header, h.Name)
				fmt.Fprintf(w, "%sgrep \"\" /sys/class/net/*/ecn/roce_*/* /sys/class/net/*/ecn/roce_*/enable/*\n", p)
				for _, d := range h.Devices {
					for _, k := range d.DCQCN.Params {
						fmt.Fprintf(w, "/sys/class/net/%s/ecn/roce_%s/%s:%d\n", d.Netdev, k.Role, k.Name, k.Value)
					}
					for _, role := range []string{"np", "rp"} {
						for prio := 0; prio < 8; prio++ {
							fmt.Fprintf(w, "/sys/class/net/%s/ecn/roce_%s/enable/%d:%d\n", d.Netdev, role, prio, d.DCQCN.Enabled>>prio&1)
						}
					}
				}
				return nil
			}},
			IncidentFile{filepath.Join("mlnx_qos", h.Name+".txt"), func(w io.Writer) error {
				fmt.Fprintf(w, "%s# what: QoS of %s's RDMA netdevs\n", header, h.Name)
				for _, d := range h.Devices {
					fmt.Fprintf(w, "%smlnx_qos -i %s\n%s", p, d.Netdev, mlnxQoSBody(&d))
				}
				return nil
			}},
		)
		if pci != nil {
			out = append(out, IncidentFile{filepath.Join("lspci", h.Name+".txt"), func(w io.Writer) error {
				fmt.Fprintf(w, "%s# what: the PCIe devices of %s as the scenario builds them (the twin's rendering, not a real server): %s\n%slspci -vvv -nn -D\n", header, h.Name, pci.what, p)
				pci.writeLspci(w)
				return nil
			}})
		}
	}
	return out
}

// WriteIncident writes the files of an incident under dir.
func WriteIncident(dir string, files []IncidentFile) error {
	for _, f := range files {
		p := filepath.Join(dir, f.Path)
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return err
		}
		if err := textout.WriteFile(p, f.Fill); err != nil {
			return err
		}
	}
	return nil
}

// prompt is a root shell prompt on host.
func prompt(host string) string { return "[root@" + host + " ~]# " }

func zeroAt(at unit.Time, v int64) int64 {
	if at == 0 {
		return 0
	}
	return v
}

// dateLine writes `date +%s.%N` and its output: simulated time since the
// run started, so two dumps give rates over the window between them.
func dateLine(w io.Writer, prompt string, t unit.Time) {
	ns := int64(t / unit.Nanosecond)
	fmt.Fprintf(w, "%sdate +%%s.%%N\n%d.%09d\n", prompt, ns/1e9, ns%1e9)
}

// ethtoolInfo is `ethtool -i` of a port of model m at PCI address bus.
func ethtoolInfo(m nicModel, bus string) string {
	return "driver: mlx5_core\nversion: 24.10-1.1.4\nfirmware-version: " + m.fw + " (" + m.board + ")\nexpansion-rom-version: \n" +
		"bus-info: " + bus + "\nsupports-statistics: yes\nsupports-test: yes\nsupports-eeprom-access: no\nsupports-register-dump: no\nsupports-priv-flags: yes\n"
}

// ethtoolSettings is `ethtool <if>` of a port up at its nominal rate.
func ethtoolSettings(d *Device) string {
	mbps := int64(d.Rate.Gbps() * 1000)
	var b strings.Builder
	fmt.Fprintf(&b, "Settings for %s:\n", d.Netdev)
	fmt.Fprintf(&b, "\tSupported ports: [ Backplane ]\n\tSupported link modes:   %dbaseCR4/Full\n", mbps)
	fmt.Fprintf(&b, "\tSupported pause frame use: Symmetric\n\tSupports auto-negotiation: Yes\n")
	fmt.Fprintf(&b, "\tAdvertised link modes:  %dbaseCR4/Full\n\tAdvertised pause frame use: No\n", mbps)
	fmt.Fprintf(&b, "\tSpeed: %dMb/s\n\tDuplex: Full\n\tAuto-negotiation: on\n\tPort: Direct Attach Copper\n\tPHYAD: 0\n\tTransceiver: internal\n", mbps)
	b.WriteString("\tSupports Wake-on: d\n\tWake-on: d\n\tCurrent message level: 0x00000004 (4)\n\t\t\t       link\n\tLink detected: yes\n")
	return b.String()
}

// ibSpeed returns the active_width and active_speed ibv_devinfo prints for
// a line rate: four lanes at the rate's IB lane speed when there is one
// (25 EDR, 50 HDR, 100 NDR, 200 XDR), else one lane.
func ibSpeed(r unit.BitRate) (width string, speed string) {
	codes := map[float64]int{2.5: 1, 5: 2, 10: 4, 14: 16, 25: 32, 50: 64, 100: 128, 200: 256}
	g := r.Gbps()
	if c, ok := codes[g/4]; ok {
		return "4X (2)", fmt.Sprintf("%.1f Gbps (%d)", g/4, c)
	}
	return "1X (1)", fmt.Sprintf("%.1f Gbps (%d)", g, codes[g])
}

// mtuEnum is the IB MTU enum of a byte size.
func mtuEnum(mtu int) int {
	for e, b := 1, 256; b <= 4096; e, b = e+1, b*2 {
		if b == mtu {
			return e
		}
	}
	return 0
}

// devinfo writes one device as `ibv_devinfo -v` prints it.
func devinfo(w io.Writer, d *Device) {
	width, speed := ibSpeed(d.Rate)
	m := nicModelFor(d.Rate)
	fmt.Fprintf(w, "hca_id:\t%s\n\ttransport:\t\t\tInfiniBand (0)\n\tfw_ver:\t\t\t\t%s\n", d.Name, m.fw)
	fmt.Fprintf(w, "\tvendor_id:\t\t\t0x02c9\n\tvendor_part_id:\t\t\t%d\n\thw_ver:\t\t\t\t0x0\n\tboard_id:\t\t\t%s\n\tphys_port_cnt:\t\t\t1\n", m.part, m.board)
	fmt.Fprintf(w, "\t\tport:\t%d\n\t\t\tstate:\t\t\tPORT_ACTIVE (4)\n", d.Port)
	fmt.Fprintf(w, "\t\t\tmax_mtu:\t\t4096 (5)\n\t\t\tactive_mtu:\t\t%d (%d)\n", d.MTU, mtuEnum(d.MTU))
	fmt.Fprintf(w, "\t\t\tsm_lid:\t\t\t0\n\t\t\tport_lid:\t\t0\n\t\t\tport_lmc:\t\t0x00\n\t\t\tlink_layer:\t\tEthernet\n")
	fmt.Fprintf(w, "\t\t\tactive_width:\t\t%s\n\t\t\tactive_speed:\t\t%s\n\t\t\tphys_state:\t\tLINK_UP (5)\n", width, speed)
	for _, g := range d.GIDs {
		ver := "RoCE v1"
		if strings.Contains(g.Type, "v2") {
			ver = "RoCE v2"
		}
		fmt.Fprintf(w, "\t\t\tGID[%3d]:\t\t%s, %s\n", g.Index, g.GID, ver)
	}
	fmt.Fprintln(w)
}
