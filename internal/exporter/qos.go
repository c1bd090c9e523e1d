package exporter

import (
	"bufio"
	"errors"
	"io/fs"
	"strconv"

	"github.com/prometheus/client_golang/prometheus"

	"rocelab/internal/ingest"
)

// QoS is a netdev's QoS state as the kernel holds it.
type QoS struct {
	// Trust is "dscp" or "pcp" ("" when unknown).
	Trust string
	// PFC is the set of priorities with PFC enabled, when PFCKnown.
	PFC      [8]bool
	PFCKnown bool
	// DSCP maps each DSCP to its priority, -1 where none is set.
	DSCP [64]int8
}

// qosCollector exports trust mode, PFC-enabled priorities and the
// DSCP→priority map of the netdevs behind the RDMA ports.
type qosCollector struct{}

var (
	qosTrust = newMetric("rocelab_qos_trust_info", "The netdev's priority trust mode (dscp or pcp); always 1.", prometheus.GaugeValue, "netdev", "device", "port", "trust")
	qosPFC   = newMetric("rocelab_qos_pfc_enabled", "1 when PFC is enabled on the priority, else 0.", prometheus.GaugeValue, "netdev", "device", "port", "priority")
	qosDSCP  = newMetric("rocelab_qos_dscp_priority", "The priority a received DSCP maps to (trust dscp); DSCPs without a mapping are left out.", prometheus.GaugeValue, "netdev", "device", "port", "dscp")
)

// Name implements Collector.
func (c *qosCollector) Name() string { return "qos" }

// Describe implements Collector.
func (c *qosCollector) Describe(ch chan<- *prometheus.Desc) {
	ch <- qosTrust.desc()
	ch <- qosPFC.desc()
	ch <- qosDSCP.desc()
}

// Collect implements Collector.
func (c *qosCollector) Collect(s *Scrape) {
	if s.Host.QoS == nil {
		return
	}
	for _, p := range s.Netdevs() {
		q, err := s.Host.QoS.QoS(p.Netdev)
		if errors.Is(err, ErrUnsupported) {
			continue
		}
		if err != nil {
			s.Fail(p.Netdev, err)
			continue
		}
		if q.Trust != "" {
			s.emit(qosTrust, 1, p.Netdev, p.Device, p.Port, q.Trust)
		}
		if q.PFCKnown {
			for prio, on := range q.PFC {
				s.emit(qosPFC, b2f(on), p.Netdev, p.Device, p.Port, strconv.Itoa(prio))
			}
		}
		for dscp, prio := range q.DSCP {
			if prio >= 0 {
				s.emit(qosDSCP, float64(prio), p.Netdev, p.Device, p.Port, strconv.Itoa(dscp))
			}
		}
	}
}

// MlnxQoSDir reads QoS state from `mlnx_qos -i <netdev>` text files,
// <netdev>.txt in a directory: the test and twin path (--path.mlnx-qos).
// A missing file means the netdev has no QoS state to report.
type MlnxQoSDir struct{ FS fs.FS }

// QoS implements QoSSource.
func (d MlnxQoSDir) QoS(netdev string) (QoS, error) {
	name := netdev + ".txt"
	f, err := openRegular(d.FS, name)
	if errors.Is(err, fs.ErrNotExist) {
		return QoS{}, ErrUnsupported
	}
	if err != nil {
		return QoS{}, err
	}
	defer f.Close()
	p := ingest.NewMlnxQoSParser(name)
	// A small scanner: ingest's LineReader buffers 256 KiB for logs of
	// any size, too much to allocate per netdev per scrape.
	sc := bufio.NewScanner(f)
	sc.Buffer(make([]byte, 0, 1024), ingest.MaxLineBytes)
	for n := 1; sc.Scan(); n++ {
		p.Feed(ingest.Line{Num: n, Text: ingest.Clean(sc.Bytes())})
	}
	if err := sc.Err(); err != nil {
		return QoS{}, &ParseError{File: name, Msg: err.Error()}
	}
	a, _ := p.Result().(*ingest.MlnxQoS)
	if a == nil || len(a.Configs) != 1 {
		return QoS{}, &ParseError{File: name, Msg: "expected the output of one mlnx_qos -i run"}
	}
	c := &a.Configs[0]
	q := QoS{Trust: c.Trust, PFC: c.PFC, PFCKnown: c.PFCKnown}
	for i, prio := range c.DSCP2Prio {
		q.DSCP[i] = int8(prio)
	}
	return q, nil
}
