package report

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"rocelab/internal/textout"
	"rocelab/internal/twin"
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
func (r *Run) writeSwitches(dir string) error {
	o := r.obs
	for _, d := range []string{"ethtool", "switch"} {
		if err := os.MkdirAll(filepath.Join(dir, d), 0o755); err != nil {
			return err
		}
	}
	hostOf := map[string]*twin.NIC{}
	for i := range o.NICs {
		hostOf[o.Ports[o.NICs[i].Port].Name] = &o.NICs[i]
	}
	bySwitch := map[string][]*twin.Port{}
	var order []string
	for i := range o.Ports {
		pt := &o.Ports[i]
		if !pt.Switch || pt.Counters == nil {
			continue
		}
		sw, _, _ := strings.Cut(pt.Name, "/")
		if _, ok := bySwitch[sw]; !ok {
			order = append(order, sw)
		}
		bySwitch[sw] = append(bySwitch[sw], pt)
		file := portFile(pt.Name)
		err := textout.WriteFile(filepath.Join(dir, "ethtool", file+".txt"), func(w io.Writer) error {
			fmt.Fprintf(w, "# source: rocelab twin, scenario %q seed %d (simulated, not a real host)\n", r.Scenario.Name, r.Scenario.Seed)
			fmt.Fprintf(w, "# what: switch port %s (peer %s): its speed, then its counters under mlx5 names at the start and at the end of the run (simulated time)\n", pt.Name, pt.Peer)
			fmt.Fprintf(w, "$ ethtool %s\nSettings for %s:\n\tSpeed: %dMb/s\n\tDuplex: Full\n\tLink detected: yes\n", file, file, int64(pt.LineRate.Gbps()*1000))
			for _, at := range []unit.Time{0, o.Sim.End} {
				WriteTimeLine(w, at)
				fmt.Fprintf(w, "$ ethtool -S %s\nNIC statistics:\n", file)
				for _, c := range pt.Counters {
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
				dev, _, _ := strings.Cut(pt.Peer, "/")
				port, capab := portFile(pt.Peer), "BR"
				if n, ok := hostOf[pt.Peer]; ok {
					dev, port, capab = n.Machine, n.Netdev, "O"
				}
				fmt.Fprintf(w, row, portFile(pt.Name), dev, port, capab, port)
			}
			fmt.Fprintf(w, "%s\nTotal entries displayed:  %d\n", strings.Repeat("-", 50), len(bySwitch[sw]))
			writeECNProfile(w, sw, o.Config.ECN)
			return nil
		})
		if err != nil {
			return err
		}
	}
	return nil
}

// writeECNProfile writes the switches' RED/ECN settings of the lossless
// queue as SONiC's `ecnconfig -l` prints a profile.
func writeECNProfile(w io.Writer, sw string, e *twin.ECNProfile) {
	if e == nil {
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

// portFile names a port in a file name and in its dumps: NODE-pN.
func portFile(name string) string { return strings.ReplaceAll(name, "/", "-") }
