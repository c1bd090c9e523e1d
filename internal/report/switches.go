package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rocelab/internal/fabric"
	"rocelab/internal/scenario"
	"rocelab/internal/textout"
	"rocelab/internal/unit"
)

// writeSwitches writes what the switches show: per port, its speed
// (`ethtool <port>`) and its counters as a before/after pair of mlx5-named
// dumps (ethtool/<switch>-pN.txt; ECN marks, drops by reason and the PFC
// watchdog included), and per switch (switch/<switch>.txt) its LLDP
// neighbours as SONiC's `show lldp table` prints them, each host neighbour
// named by its machine and netdev as the hosts' own files name them, and
// its WRED/ECN profile as `ecnconfig -l` prints it. The port names are the
// twin's (NODE-pN), the same in every file.
func (r *Run) writeSwitches(dir string, tw *scenario.Twin) error {
	net := tw.Net
	for _, d := range []string{"ethtool", "switch"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	node := map[fabric.Node]int{}
	for i, n := range tw.Nodes {
		node[n] = i
	}
	rates := map[[2]int]unit.BitRate{}
	for _, l := range tw.Scenario.Topo.Links {
		rates[[2]int{l.A, l.PA}], rates[[2]int{l.B, l.PB}] = l.Rate, l.Rate
	}
	peerOf := func(pt *fabric.Port) (device, port string) {
		p := pt.Peer()
		if h, ok := p.Node().(interface{ HostID() int32 }); ok {
			m := tw.Scenario.Machine(int(h.HostID()))
			return m.Host, m.Netdev
		}
		return p.Node().Name(), portFile(p)
	}
	bySwitch := map[string][]*fabric.Port{}
	var order []string
	for _, pt := range net.Ports {
		sw, isSwitch := pt.Node().(*fabric.Switch)
		if !isSwitch {
			continue
		}
		if _, ok := bySwitch[sw.Name()]; !ok {
			order = append(order, sw.Name())
		}
		bySwitch[sw.Name()] = append(bySwitch[sw.Name()], pt)
		rate := rates[[2]int{node[pt.Node()], pt.Index()}]
		err := textout.WriteFile(filepath.Join(dir, "ethtool", portFile(pt)+".txt"), func(w io.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintf(w, "# what: switch port %s (peer %s): its speed, then its counters under mlx5 names at the start and at the end of the run (simulated time)\n", pt.Name(), pt.Peer().Name())
			fmt.Fprintf(w, "$ ethtool %s\nSettings for %s:\n\tSpeed: %dMb/s\n\tDuplex: Full\n\tLink detected: yes\n", portFile(pt), portFile(pt), int64(rate.Gbps()*1000))
			snap := pt.Snapshot()
			cs := snap.Ethtool(net.PFCEnabled, true)
			for _, at := range []unit.Time{0, r.end} {
				WriteTimeLine(w, at)
				fmt.Fprintf(w, "$ ethtool -S %s\n", portFile(pt))
				fmt.Fprintln(w, "NIC statistics:")
				for _, c := range cs {
					v := c.Value
					if at == 0 {
						v = 0
					}
					fmt.Fprintf(w, "     %s: %d\n", c.Name, v)
				}
			}
			return nil
		})
		if err != nil {
			return err
		}
	}
	for _, sw := range order {
		err := textout.WriteFile(filepath.Join(dir, "switch", sw+".txt"), func(w io.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real switch)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintf(w, "# what: the LLDP neighbours and the ECN profile of switch %s\n", sw)
			fmt.Fprintf(w, "admin@%s:~$ show lldp table\nCapability codes: (R) Router, (B) Bridge, (O) Other\n", sw)
			const row = "%-14s %-16s %-16s %-12s %s\n"
			fmt.Fprintf(w, row, "LocalPort", "RemoteDevice", "RemotePortID", "Capability", "RemotePortDescr")
			fmt.Fprintf(w, row, strings.Repeat("-", 14), strings.Repeat("-", 16), strings.Repeat("-", 16), strings.Repeat("-", 12), strings.Repeat("-", 16))
			for _, pt := range bySwitch[sw] {
				dev, port := peerOf(pt)
				capab := "BR"
				if _, isSwitch := pt.Peer().Node().(*fabric.Switch); !isSwitch {
					capab = "O"
				}
				fmt.Fprintf(w, row, portFile(pt), dev, port, capab, port)
			}
			fmt.Fprintf(w, "%s\nTotal entries displayed:  %d\n", strings.Repeat("-", 50), len(bySwitch[sw]))
			writeECNProfile(w, sw, tw.Scenario.Switch.ECN)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// portFile names a port in a file name and in its dumps: NODE-pN.
func portFile(pt *fabric.Port) string { return strings.ReplaceAll(pt.Name(), "/", "-") }

// writeECNProfile writes the switches' RED/ECN settings of the lossless
// queue as SONiC's `ecnconfig -l` prints a profile.
func writeECNProfile(w io.Writer, sw string, e scenario.ECNSpec) {
	if !e.Enabled {
		return
	}
	rows := [][2]string{
		{"red_max_threshold", fmt.Sprint(int64(e.Kmax))}, {"wred_green_enable", "true"}, {"ecn", "ecn_all"},
		{"green_min_threshold", fmt.Sprint(int64(e.Kmin))}, {"red_min_threshold", fmt.Sprint(int64(e.Kmin))},
		{"green_max_threshold", fmt.Sprint(int64(e.Kmax))}, {"green_drop_probability", fmt.Sprint(int(e.Pmax*100 + 0.5))},
	}
	fmt.Fprintf(w, "admin@%s:~$ ecnconfig -l\nProfile: AZURE_LOSSLESS\n%s  %s\n", sw, strings.Repeat("-", 23), strings.Repeat("-", 7))
	for _, r := range rows {
		fmt.Fprintf(w, "%-23s  %s\n", r[0], r[1])
	}
	fmt.Fprintf(w, "%s  %s\n", strings.Repeat("-", 23), strings.Repeat("-", 7))
}
