package perftest

import (
	"fmt"
	"io"
	"strings"

	"rocelab/internal/workload"
)

// The client's output, as perftest 24.x prints it with C's printf
// (perftest_parameters.h RESULT_LINE, RESULT_FMT*, REPORT_FMT*;
// perftest_communication.h BASIC_ADDR_FMT, RDMA_FMT, PERF_GID_FMT).

const resultLine = "---------------------------------------------------------------------------------------\n"

// cHex formats v as C's %#0Nx does: a zero as N zero digits, else 0x and
// the digits padded to N characters in all.
func cHex(v uint64, width int) string {
	if v == 0 {
		return fmt.Sprintf("%0*x", width, 0)
	}
	return "0x" + fmt.Sprintf("%0*x", max(width-2, 1), v)
}

// gidBytes prints a GID as PERF_GID_FMT: sixteen decimal bytes, two digits
// each, the IPv4-mapped form of an address.
func gidBytes(ip [16]byte) string {
	parts := make([]string, 16)
	for i, b := range ip {
		parts[i] = fmt.Sprintf("%02d", b)
	}
	return strings.Join(parts, ":")
}

// WriteTo writes the client's output: the test's parameters, both
// queue pairs' addresses, the result table, or the completion error that
// stopped it.
func (t *Test) WriteTo(w io.Writer) (int64, error) {
	var b strings.Builder
	o, tl := &t.Opts, t.Opts.tool()
	kind := "BW"
	if o.Kind() == Lat {
		kind = "Latency"
	}
	b.WriteString(resultLine)
	fmt.Fprintf(&b, "                    %s %s Test\n", tl.title, kind)
	fmt.Fprintf(&b, " Dual-port       : OFF\t\tDevice         : %s\n", o.Device)
	fmt.Fprintf(&b, " Number of qps   : %d\t\tTransport type : IB\n", o.QPs)
	b.WriteString(" Connection type : RC\t\tUsing SRQ      : OFF\n")
	b.WriteString(" PCIe relax order: ON\t\tLock-free      : OFF\n")
	b.WriteString(" ibv_wr* API     : ON\t\tUsing Enhanced Reorder      : OFF\n")
	if o.Kind() == BW {
		fmt.Fprintf(&b, " TX depth        : %d\n", o.TxDepth)
	}
	fmt.Fprintf(&b, " CQ Moderation   : %d\n", o.CQMod)
	b.WriteString(" CQE Poll Batch  : Dynamic\n")
	fmt.Fprintf(&b, " Mtu             : %d[B]\n", t.MTU)
	b.WriteString(" Link type       : Ethernet\n")
	fmt.Fprintf(&b, " GID index       : %d\n", o.GIDIndex)
	inline := 0
	if o.Kind() == Lat {
		inline = map[workload.Op]int{workload.Send: 236, workload.WriteImm: 220}[tl.verb]
	}
	if tl.verb != workload.Read {
		fmt.Fprintf(&b, " Max inline data : %d[B]\n", inline)
	} else {
		b.WriteString(" Outstand reads  : 16\n")
	}
	b.WriteString(" rdma_cm QPs\t : OFF\n")
	b.WriteString(" Data ex. method : Ethernet\n")
	b.WriteString(resultLine)
	for side, e := range []Endpoint{t.Client, t.Server} {
		for q := 0; q < o.QPs; q++ {
			qpn := uint64(0x108 + 2*q + side*0x40)
			psn := uint64(0x63ad7d+0x1f3*q+0x9e37*side) & 0xffffff
			fmt.Fprintf(&b, " %s address: LID %s QPN %s PSN %s", []string{"local", "remote"}[side], cHex(0, 4), cHex(qpn, 6), cHex(psn, 6))
			switch tl.verb {
			case workload.Read:
				fmt.Fprintf(&b, " OUT %s", cHex(16, 4))
				fallthrough
			case workload.Write, workload.WriteImm:
				fmt.Fprintf(&b, " RKey %s VAddr %s", cHex(uint64(0x17eedf+q+side*0x1000), 8), cHex(0x7f760c947000+uint64(side)*0x400000+uint64(q)*0x10000, 16))
			}
			b.WriteString("\n")
			fmt.Fprintf(&b, " GID: %s\n", gidBytes(e.IP.As16()))
		}
	}
	b.WriteString(resultLine)
	if o.Kind() == BW {
		if o.Gbits {
			b.WriteString(" #bytes     #iterations    BW peak[Gb/sec]    BW average[Gb/sec]   MsgRate[Mpps]\n")
		} else {
			b.WriteString(" #bytes     #iterations    BW peak[MiB/sec]    BW average[MiB/sec]   MsgRate[Mpps]\n")
		}
	} else {
		b.WriteString(" #bytes #iterations    t_min[usec]    t_max[usec]  t_typical[usec]    t_avg[usec]    t_stdev[usec]   99% percentile[usec]   99.9% percentile[usec] \n")
	}
	unit := float64(1 << 20)
	if o.Gbits {
		unit = 125e6
	}
	for _, r := range t.Rows {
		if o.Kind() == BW {
			fmt.Fprintf(&b, " %-7d    %-10d       %-7.2f            %-7.2f\t\t     %-7.6f\n", r.Size, r.Iters, r.PeakBps/unit, r.AvgBps/unit, r.MsgRate/1e6)
			continue
		}
		fmt.Fprintf(&b, " %-7d %d          %-7.2f        %-7.2f      %-7.2f  \t       %-7.2f     \t%-7.2f\t\t%-7.2f \t\t%-7.2f\n",
			r.Size, r.Iters, r.Min, r.Max, r.Typical, r.Avg, r.Stdev, r.P99, r.P999)
	}
	if e := t.Err; e != nil {
		syndrome := 0
		if e.Status == workload.RetryExceeded {
			syndrome = 0x81
		}
		fmt.Fprintf(&b, " Completion with error at client\n Failed status %d: wr_id %d syndrom 0x%x\nscnt=%d, ccnt=%d\n", e.Status, e.ID, syndrome, len(t.posted), len(t.completed))
	} else if !t.done {
		b.WriteString(" (the run's time limit was reached before the test ended)\n")
	}
	if t.Err == nil {
		b.WriteString(resultLine)
	}
	n, err := io.WriteString(w, b.String())
	return int64(n), err
}
