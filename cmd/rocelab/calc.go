package main

import (
	"strconv"
	"strings"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"rocelab/internal/calc"
	"rocelab/internal/headroom"
	"rocelab/internal/unit"
)

func newCalcCmd() *cobra.Command {
	var asJSON bool
	cmd := &cobra.Command{
		Use:   "calc",
		Short: "Calculators: PFC headroom, ECN thresholds, RoCE MTU, pause time, busbw, ACK timeout",
		Long: `calc computes the numbers a RoCE fabric is configured with. Each
calculator prints its formula, every input (given or defaulted, and from
where), the outputs, and the sources of the rules.`,
	}
	cmd.PersistentFlags().BoolVarP(&asJSON, "json", "j", false, "write the result as JSON")
	write := func(c *cobra.Command, r *calc.Result) error {
		markDefaults(c, r)
		return writeResult(c.OutOrStdout(), asJSON, r)
	}
	cmd.AddCommand(calcHeadroomCmd(write), calcECNCmd(write), calcMTUCmd(write), calcPauseCmd(write),
		calcBusBWCmd(write), calcTimeoutCmd(write))
	return cmd
}

// inputFlags names the flag of a calculator input whose name differs.
var inputFlags = map[string]string{"nic_speed": "speed", "nics_per_node": "nics", "gpus_per_node": "gpus", "netdev_mtu": "mtu"}

// markDefaults says "default" where a calculator labels an input "given"
// but its flag was left at its default.
func markDefaults(c *cobra.Command, r *calc.Result) {
	for i := range r.Inputs {
		in := &r.Inputs[i]
		rest, ok := strings.CutPrefix(in.Source, "given")
		if !ok {
			continue
		}
		name, ok := inputFlags[in.Name]
		if !ok {
			name = strings.ReplaceAll(in.Name, "_", "-")
		}
		if f := c.Flags().Lookup(name); f != nil && !f.Changed {
			in.Source = "default: --" + name + " " + f.DefValue + rest
		}
	}
}

// calcWriter writes a calculator's result.
type calcWriter func(*cobra.Command, *calc.Result) error

// unitFlags parses flags written with units, reporting the flag by name.
type unitFlags struct {
	fs  *pflag.FlagSet
	err error
}

// value parses flag name with parse, reporting what was expected.
func value[T any](u *unitFlags, name, expected string, parse func(string) (T, error)) T {
	s, _ := u.fs.GetString(name)
	v, err := parse(s)
	if err != nil {
		u.fail("--%s: expected %s, got %q", name, expected, s)
	}
	return v
}

func (u *unitFlags) rate(name string) unit.BitRate {
	r := value(u, name, "a positive rate such as 100G", unit.ParseRate)
	s, _ := u.fs.GetString(name)
	if r <= 0 || unit.Bare(s) {
		u.fail("--%s: expected a positive rate with its unit, such as 100G (a bare %q would be bits per second)", name, s)
	}
	return r
}

func (u *unitFlags) bytes(name string) unit.Bytes {
	return value(u, name, "a size such as 9100, 1KiB or 32MiB", unit.ParseBytes)
}

func (u *unitFlags) length(name string) unit.Length {
	return value(u, name, "a length such as 3m or 300m", unit.ParseLength)
}

// time parses a duration flag; "auto" (or empty) is 0.
func (u *unitFlags) time(name string) unit.Time {
	return value(u, name, "a duration such as 2us or 20us", func(s string) (unit.Time, error) {
		if s == "" || s == "auto" {
			return 0, nil
		}
		return unit.ParseTime(s)
	})
}

func (u *unitFlags) fail(format string, args ...any) {
	if u.err == nil {
		u.err = usageError(format, args...)
	}
}

func calcHeadroomCmd(write calcWriter) *cobra.Command {
	var occ, small, gearbox float64
	var cell, lanes int
	var formula, asic string
	var shp bool
	cmd := &cobra.Command{
		Use:   "headroom --speed 100G --cable 300m [--formula mellanox|sonic] [--asic MELLANOX-SPECTRUM-3] [--mtu 9100] [--lossless-mtu N] [--mac-phy-delay 1KiB] [--cell-size 144 --small-packet-percent 50 | --cell-occupancy F] [--response-time T] [--shared-headroom-pool] [--lanes 8]",
		Short: "PFC headroom (xoff, xon, size) of a lossless priority group by SONiC's formulas",
		Long: `calc headroom computes xoff, xon and size of one lossless priority group by a
vendor's published formula: --formula mellanox (default) is sonic-swss
cfgmgr/buffer_headroom_mellanox.lua, --formula sonic the well-known formula of
SONiC's dynamic buffer design. --asic fills cell size, MAC/PHY delay, pipeline
latency and the per-generation terms from SONiC's ASIC_TABLE (` + strings.Join(headroom.ASICNames(), ", ") + `);
flags given explicitly override it. The twin's headroom: auto, lint and the
doctor use the same function.`,
		Args: cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			u := &unitFlags{fs: c.Flags()}
			f, err := headroom.ParseFormula(formula)
			if err != nil {
				u.fail("--formula: %v", err)
			}
			in := calc.HeadroomInput{Given: map[string]bool{}}
			in.Formula = f
			if asic != "" {
				a, ok := headroom.LookupASIC(asic)
				if !ok {
					u.fail("--asic: expected one of %s, got %q", strings.Join(headroom.ASICNames(), ", "), asic)
				}
				a.Apply(&in.Input)
				in.ASIC = a.Name
			}
			fl := c.Flags()
			for flag, name := range map[string]string{"speed": "speed", "cable": "cable", "mtu": "mtu", "lossless-mtu": "lossless_mtu",
				"mac-phy-delay": "mac_phy_delay", "cell-size": "cell_size", "small-packet-percent": "small_packet_percentage",
				"cell-occupancy": "cell_occupancy", "response-time": "response_time", "gearbox-delay": "gearbox_delay",
				"shared-headroom-pool": "shared_headroom_pool", "pipeline-latency": "pipeline_latency"} {
				in.Given[name] = fl.Changed(flag)
			}
			in.Speed, in.Cable, in.PortMTU, in.LosslessMTU = u.rate("speed"), u.length("cable"), u.bytes("mtu"), u.bytes("lossless-mtu")
			if asic == "" || fl.Changed("mac-phy-delay") {
				in.MACPHYDelay = float64(u.bytes("mac-phy-delay"))
			}
			if asic == "" || fl.Changed("pipeline-latency") {
				in.PipelineLatency = float64(u.bytes("pipeline-latency"))
			}
			if asic == "" || fl.Changed("cell-size") {
				in.CellSize = cell
			}
			in.CellOccupancy, in.SmallPacketPercent, in.GearboxDelay = occ, small, gearbox
			in.ResponseTime, in.SharedHeadroomPool, in.Lanes = u.time("response-time"), shp, lanes
			if occ != 0 && !(occ >= 1 && occ <= 100) {
				u.fail("--cell-occupancy: expected a factor from 1 to 100, got %g", occ)
			}
			if !(small >= 0 && small <= 100) {
				u.fail("--small-packet-percent: expected 0 to 100, got %g", small)
			}
			if cell < 0 || cell > 4096 {
				u.fail("--cell-size: expected a cell size in bytes (96, 144, 192, 256), got %d", cell)
			}
			if !(gearbox >= 0 && gearbox < 1e6) {
				u.fail("--gearbox-delay: expected nanoseconds from 0, got %g", gearbox)
			}
			if in.PortMTU <= 0 || in.PortMTU > 65535 || in.LosslessMTU < 0 || in.LosslessMTU > 65535 {
				u.fail("--mtu, --lossless-mtu: expected up to 65535 bytes")
			}
			if u.err != nil {
				return u.err
			}
			return write(c, calc.Headroom(in))
		},
	}
	f := cmd.Flags()
	f.String("speed", "100G", "port speed")
	f.String("cable", "3m", "cable length")
	f.StringVar(&formula, "formula", "mellanox", "mellanox (sonic-swss buffer_headroom_mellanox.lua) or sonic (SONiC's generic formula)")
	f.StringVar(&asic, "asic", "", "SONiC ASIC_TABLE row whose cell size, MAC/PHY delay and pipeline latency to use")
	f.String("mtu", "9100", "switch port MTU (SONiC's)")
	f.String("lossless-mtu", "0", "largest lossless frame (SONiC LOSSLESS_TRAFFIC_PATTERN mtu); 0 = --mtu")
	f.String("mac-phy-delay", "1KiB", "bytes in the switch's MAC/PHY pipeline after XOFF (ASIC table; Spectrum 0.8KiB)")
	f.String("pipeline-latency", "0", "xon: the ASIC's pipeline latency (Spectrum 19KiB)")
	f.Float64Var(&occ, "cell-occupancy", 0, "worst-case cell occupancy factor (default 1, or computed from --cell-size)")
	f.IntVar(&cell, "cell-size", 0, "buffer cell size in bytes (Spectrum-1 96, Spectrum-2/3 144, -4/5 192, -6 256)")
	f.Float64Var(&small, "small-packet-percent", 50, "percent of lossless packets that are 64 B (with --cell-size; SONiC's LOSSLESS_TRAFFIC_PATTERN)")
	f.Float64Var(&gearbox, "gearbox-delay", 0, "gearbox delay in nanoseconds (SONiC PERIPHERIAL_TABLE)")
	f.String("response-time", "auto", "peer response time; auto: the IEEE 802.3 31B.3.7 budget for the speed")
	f.BoolVar(&shp, "shared-headroom-pool", false, "the switch pools xoff (size = xon; no small-packet compensation)")
	f.IntVar(&lanes, "lanes", 0, "lanes of the port; 8 doubles xon and adds one MTU to size (lua)")
	return cmd
}

func calcECNCmd(write calcWriter) *cobra.Command {
	var alpha, pmax float64
	var cell int
	cmd := &cobra.Command{
		Use:   "ecn --speed 100G [--rtt 20us] [--buffer 32MiB --alpha 1] [--kmin B --kmax B --pmax P [--cell-size N]]",
		Short: "ECN Kmin/Kmax/Pmax bounds from the BDP, with the source of each rule",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			u := &unitFlags{fs: c.Flags()}
			in := calc.ECNInput{Rate: u.rate("speed"), RTT: u.time("rtt"), Buffer: u.bytes("buffer"), Alpha: alpha,
				Kmin: u.bytes("kmin"), Kmax: u.bytes("kmax"), Pmax: pmax, CellSize: cell}
			if cell < 0 || cell > 4096 {
				u.fail("--cell-size: expected a cell size in bytes (96, 144, 208, ...), got %d", cell)
			}
			if alpha < 0 {
				u.fail("--alpha: expected a positive fraction, got %g", alpha)
			}
			if in.Kmin > 0 && in.Kmax == 0 {
				u.fail("--kmin needs --kmax")
			}
			if u.err != nil {
				return u.err
			}
			return write(c, calc.ECN(in))
		},
	}
	f := cmd.Flags()
	f.String("speed", "100G", "port speed")
	f.String("rtt", "auto", "base RTT the thresholds are sized for; auto: 20us, Huawei's")
	f.String("buffer", "0", "shared buffer, to bound Kmin by the PFC threshold")
	f.Float64Var(&alpha, "alpha", 1, "dynamic threshold α of the lossless pool")
	f.String("kmin", "0", "a Kmin to check")
	f.String("kmax", "0", "a Kmax to check")
	f.Float64Var(&pmax, "pmax", 0.2, "a Pmax to check (a fraction: 0.05 = 5%)")
	f.IntVar(&cell, "cell-size", 0, "--kmin and --kmax count buffer cells of this many bytes")
	return cmd
}

func calcMTUCmd(write calcWriter) *cobra.Command {
	return &cobra.Command{
		Use:   "mtu NETDEV_MTU",
		Short: "RoCE path MTU from the netdev MTU",
		Args:  cobra.ExactArgs(1),
		RunE: func(c *cobra.Command, args []string) error {
			m, err := strconv.Atoi(args[0])
			if err != nil || m < 68 || m > 65535 {
				return usageError("NETDEV_MTU: expected a number of bytes from 68 to 65535, got %q", args[0])
			}
			return write(c, calc.PathMTU(m))
		},
	}
}

func calcPauseCmd(write calcWriter) *cobra.Command {
	var quanta int
	cmd := &cobra.Command{
		Use:   "pause --speed 100G [--quanta 65535]",
		Short: "PFC quantum and pause time at a port speed",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			u := &unitFlags{fs: c.Flags()}
			in := calc.PauseInput{Rate: u.rate("speed"), Quanta: quanta}
			if quanta < 0 || quanta > 0xFFFF {
				u.fail("--quanta: expected 0 to 65535, got %d", quanta)
			}
			if u.err != nil {
				return u.err
			}
			return write(c, calc.Pause(in))
		},
	}
	cmd.Flags().String("speed", "100G", "port speed")
	cmd.Flags().IntVar(&quanta, "quanta", 0xFFFF, "pause value in quanta")
	return cmd
}

func calcBusBWCmd(write calcWriter) *cobra.Command {
	var in calc.BusBWInput
	cmd := &cobra.Command{
		Use:   "busbw --speed 100G --nodes N [--nics 1] [--gpus 8] [--op allreduce] [--size 1GiB]",
		Short: "Expected nccl-tests busbw per collective from NIC speed and node count",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			u := &unitFlags{fs: c.Flags()}
			in.Rate, in.Size = u.rate("speed"), u.bytes("size")
			if in.Efficiency < 0 || in.Efficiency > 1 {
				u.fail("--efficiency: expected a fraction from 0 to 1, got %g", in.Efficiency)
			}
			if u.err != nil {
				return u.err
			}
			r, err := calc.BusBW(in)
			if err != nil {
				return usageError("%v", err)
			}
			return write(c, r)
		},
	}
	f := cmd.Flags()
	f.String("speed", "100G", "NIC speed")
	f.IntVar(&in.Nodes, "nodes", 2, "servers")
	f.IntVar(&in.NICsPerNode, "nics", 1, "NICs per server the rings use")
	f.IntVar(&in.GPUsPerNode, "gpus", 8, "GPUs (ranks) per server")
	f.StringVar(&in.Op, "op", "allreduce", "collective: allreduce, allgather, reducescatter, broadcast, reduce, alltoall, sendrecv")
	f.Float64Var(&in.Efficiency, "efficiency", 0, "fraction of line rate reached (default 0.97)")
	f.String("size", "0", "message size for a time estimate")
	return cmd
}

func calcTimeoutCmd(write calcWriter) *cobra.Command {
	var in calc.TimeoutInput
	cmd := &cobra.Command{
		Use:   "timeout [--timeout 20] [--retry-cnt 7]",
		Short: "RC ACK timeout and retry budget from NCCL_IB_TIMEOUT and NCCL_IB_RETRY_CNT",
		Args:  cobra.NoArgs,
		RunE: func(c *cobra.Command, _ []string) error {
			if in.Timeout < 0 || in.Timeout > 31 {
				return usageError("--timeout: expected 0 to 31 (5 bits), got %d", in.Timeout)
			}
			if in.RetryCnt < 0 || in.RetryCnt > 7 {
				return usageError("--retry-cnt: expected 0 to 7 (3 bits), got %d", in.RetryCnt)
			}
			in.TimeoutGiven, in.RetryGiven = c.Flags().Changed("timeout"), c.Flags().Changed("retry-cnt")
			return write(c, calc.Timeout(in))
		},
	}
	cmd.Flags().IntVar(&in.Timeout, "timeout", 20, "QP timeout exponent (NCCL_IB_TIMEOUT)")
	cmd.Flags().IntVar(&in.RetryCnt, "retry-cnt", 7, "QP retry count (NCCL_IB_RETRY_CNT)")
	return cmd
}
