package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// RDMA ports that are not up: ibv_devinfo's PORT_DOWN, ibstat's "Down",
// `rdma link`'s "state DOWN", and ports seen both down and active in one
// input (a link that flaps).

func portRules() []Rule {
	return []Rule{{IDs: []string{"devinfo.port.down"}, Check: checkPortsDown}, {IDs: []string{"devinfo.open_failed"}, Check: checkOpenFailed}, {IDs: []string{"devinfo.verbs_abi"}, Check: checkVerbsABI}}
}

// portActive reports whether a port state, in any of the forms the
// parsers keep ("PORT_ACTIVE (4)", "PORT_ACTIVE"), is active.
func portActive(state string) bool { return strings.HasPrefix(state, "PORT_ACTIVE") }

// portReading is one reading of a port's state.
type portReading struct {
	state, phys string
	ib          bool
	ev          ingest.Evidence
}

// checkPortsDown reports each port whose last or any reading is not
// active.
func checkPortsDown(inc *Incident) []Finding {
	var order []string
	byPort := map[string][]portReading{}
	for _, d := range All[*ingest.Devinfo](inc) {
		for _, dev := range d.Devices {
			for _, pt := range dev.Ports {
				if pt.State == "" {
					continue
				}
				name := fmt.Sprintf("%s port %d", nameOr(dev.Name, unnamedDevice), pt.Port)
				if dev.Host != "" {
					name = dev.Host + " " + name
				}
				key := d.Source() + "\x00" + name
				if _, ok := byPort[key]; !ok {
					order = append(order, key)
				}
				byPort[key] = append(byPort[key], portReading{pt.State, pt.PhysState, pt.LinkLayer == "InfiniBand", pt.Evidence["state"]})
			}
		}
	}
	var fs []Finding
	for _, key := range order {
		rs := byPort[key]
		name := key[strings.IndexByte(key, 0)+1:]
		var down []portReading
		active := false
		var ev evidence
		for _, r := range rs {
			if portActive(r.state) {
				active = true
			} else {
				down = append(down, r)
			}
			ev.add(r.ev)
		}
		if len(down) == 0 {
			continue
		}
		first := down[0]
		what := stateWords(first)
		f := Finding{ID: "devinfo.port.down", Severity: Warn, Layer: LayerRDMA, Evidence: ev.sorted()}
		if active {
			f.Severity = Error
			f.Title = fmt.Sprintf("%s flapped: %s, and ACTIVE in another reading (%d readings)", name, what, len(rs))
			f.Mechanism = "The same port read down and active in one input: the link goes down and comes back. Every queue pair on the port stalls while it is down, NCCL's connections time out (completion status 12 on the peers, an IB 'port error' async event), and a job can hang at init. " + physWhy(first)
			f.Fix = "Find what drops the link: the cable or optic (reseat or swap it), the switch port's error and flap counters and logs, `dmesg` for link down/up messages on the host; on InfiniBand the subnet manager's log. Keep the job off this port (NCCL_IB_HCA) until it stays up."
		} else {
			f.Title = fmt.Sprintf("%s is not up: %s", name, what)
			f.Mechanism = "A port that is not ACTIVE carries no RDMA: a job told to use it (NCCL_IB_HCA, perftest -d) fails to connect, and NCCL leaves it out of 'NET/IB : Using'. An unused port that is down is harmless. " + physWhy(first)
			f.Fix = "If the job should use this port: check the cable and the switch port (`ibstat`, `rdma link`, the switch's interface status), for RoCE the netdev (`ip link show`, `ethtool <netdev>`: Link detected), for InfiniBand that a subnet manager runs (`sminfo`). Otherwise leave it out with NCCL_IB_HCA."
		}
		fs = append(fs, f)
	}
	return fs
}

// stateWords says a reading as engineers do: "DOWN (physical state
// POLLING)".
func stateWords(r portReading) string {
	s := strings.TrimPrefix(r.state, "PORT_")
	if i := strings.IndexByte(s, ' '); i > 0 {
		s = s[:i]
	}
	if r.phys != "" {
		s += " (physical state " + r.phys + ")"
	}
	return s
}

// physWhy explains the physical state of a port that is not active.
func physWhy(r portReading) string {
	p := strings.ToUpper(strings.ReplaceAll(r.phys, " ", "_"))
	switch {
	case p == "POLLING":
		return "Physical state POLLING: the port sees no link partner and keeps training: no cable or a bad one, an optic, or the switch port down."
	case p == "DISABLED":
		return "Physical state DISABLED: the port was shut administratively (on the host or the switch)."
	case p == "LINKUP" || p == "LINK_UP":
		if r.ib {
			return "The physical link is up but the port is not ACTIVE: on InfiniBand the subnet manager has not configured it (no SM running, or the SM lost the port)."
		}
		return "The physical link is up but the port is not ACTIVE: on RoCE the port follows its netdev, which is down or has no address."
	}
	return ""
}

// checkOpenFailed reports ibv_devinfo outputs that could not open some of
// the devices they list ("Failed to open device"), with the devices they
// did open.
func checkOpenFailed(inc *Incident) []Finding {
	var fs []Finding
	for _, d := range All[*ingest.Devinfo](inc) {
		if len(d.OpenFailed) == 0 {
			continue
		}
		// A container given none of the devices opens none of them.
		read, ev := "it opened none", append([]Evidence{}, d.OpenFailed[:min(len(d.OpenFailed), 3)]...)
		if len(d.Devices) > 0 {
			var opened []string
			for _, dev := range d.Devices {
				opened = append(opened, nameOr(dev.Name, unnamedDevice))
			}
			read = "it read " + list(opened, 4)
			ev = append(ev, d.Devices[0].Evidence)
		}
		fs = append(fs, Finding{
			ID: "devinfo.open_failed", Severity: Warn, Layer: LayerRDMA,
			Title:    fmt.Sprintf("ibv_devinfo could not open %s ('Failed to open device'); %s", plural(len(d.OpenFailed), "RDMA device", "RDMA devices"), read),
			Subject:  d.Source(),
			Evidence: evidenceInOrder(ev),
			Mechanism: "libibverbs lists every RDMA device under /sys/class/infiniband and opens each through its character device, /dev/infiniband/uverbsN. In a container (the Kubernetes RDMA or SR-IOV device plugins, VFs given to other pods) the host's whole sysfs list is visible while only the assigned devices' files are mounted, so the others fail to open; on a host, a missing or unreadable uverbs file or a device whose driver failed does the same. " +
				"NCCL and perftest skip a device they cannot open: only the devices that opened can carry RDMA here, and NCCL_IB_HCA naming another leaves NCCL without that NIC (or on sockets).",
			Fix: "Compare `ls -l /dev/infiniband` with `ls /sys/class/infiniband` in the same container or host: give the pod the devices it should use (the device plugin's resource, the SR-IOV network), and set NCCL_IB_HCA to those; on a host, check the driver of the devices that fail (`dmesg | grep -i mlx`).",
		})
	}
	return fs
}

// checkVerbsABI reports RDMA devices libibverbs left out because its
// user-space provider does not speak the kernel driver's ABI, one finding
// per provider and pair of versions in each input.
func checkVerbsABI(inc *Incident) []Finding {
	type key struct {
		provider         string
		kernel, min, max int
	}
	var fs []Finding
	for _, d := range All[*ingest.Devinfo](inc) {
		var order []key
		byKey := map[key][]ingest.VerbsABIReject{}
		for _, r := range leftOut(d) {
			k := key{r.Provider, r.KernelABI, r.Min, r.Max}
			if _, seen := byKey[k]; !seen {
				order = append(order, k)
			}
			byKey[k] = append(byKey[k], r)
		}
		for _, k := range order {
			rs := byKey[k]
			var devs []string
			var ev []Evidence
			for _, r := range rs {
				devs = append(devs, r.Device)
				if len(ev) < 3 {
					ev = append(ev, r.Evidence)
				}
			}
			supports := fmt.Sprintf("ABI %d to %d", k.min, k.max)
			if k.min == k.max {
				supports = fmt.Sprintf("ABI %d only", k.min)
			}
			fs = append(fs, Finding{
				ID: "devinfo.verbs_abi", Severity: Error, Layer: LayerRDMA,
				Title:    fmt.Sprintf("libibverbs left out %s (%s): its %s provider supports %s, the kernel driver speaks ABI %d", plural(len(rs), "RDMA device", "RDMA devices"), list(devs, 4), k.provider, supports, k.kernel),
				Subject:  d.Source(),
				Evidence: evidenceInOrder(ev),
				Mechanism: "An RDMA driver has two halves: the kernel module and the user-space provider libibverbs loads for it (libbnxt_re, libionic, libmlx5). libibverbs checks the ABI version the kernel driver reports against the range its provider was built for and drops every device outside it from ibv_get_device_list, printing this warning once per device in every process that loads it. " +
					"The devices are then invisible to NCCL, RCCL, UCX and perftest: NCCL says 'NET/IB : No device found' and moves the job's data over TCP sockets, or fails where NCCL_IB_HCA names them. The halves come from different releases: a vendor's out-of-tree driver (Broadcom's bnxt_re, AMD's ionic_rdma) under a distribution's or a container image's rdma-core provider, or the reverse.",
				Fix: fmt.Sprintf("Install the %s provider from the same release as the host's kernel driver, on the host and in every container image that runs the job (Broadcom: libbnxt_re from the bnxt_re driver bundle; AMD: libionic from the same AINIC bundle; the in-tree driver: the distribution's rdma-core), or mount the host's provider into the container; check that `ibv_devices` lists the devices where the job runs.", k.provider),
			})
		}
	}
	return fs
}

// leftOut returns the ABI warnings whose device the same input does not
// list: libibverbs tries every provider in turn, so a device one provider
// turned down may be taken by another and listed after the warning
// (open-mpi/ompi#11623: "Driver mlx5 does not support the kernel ABI of 2
// (supports 1 to 1) for device .../rxe_eth0", then rxe_eth0 in use).
func leftOut(d *ingest.Devinfo) []ingest.VerbsABIReject {
	var out []ingest.VerbsABIReject
	for _, r := range d.ABIRejected {
		if !slices.ContainsFunc(d.Devices, func(x ingest.DevinfoDevice) bool { return x.Name == r.Device }) {
			out = append(out, r)
		}
	}
	return out
}
