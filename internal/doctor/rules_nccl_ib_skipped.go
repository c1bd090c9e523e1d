package doctor

import (
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// The RDMA devices NET/IB lists at init and cannot open or query: left
// out of a transport that starts on the others, or all of them, the
// cause of a socket fallback.

// ibSkipped names what NET/IB left out on host, in log order, each with
// the step that failed: "open the RDMA device erdma_1", "query the RDMA
// device mlx5_2", "query port 2 of an RDMA device"; n counts the devices
// and ports named.
func ibSkipped(l *ingest.NCCLLog, host string) (what []string, n int) {
	verbs := []string{"open the RDMA device", "query the RDMA device", "query port"}
	names := make([][]string, len(verbs))
	for _, w := range l.Warnings {
		if w.Host != host || !ingest.IBDeviceSkipped(w.Message) {
			continue
		}
		f := strings.Fields(w.Message)
		k := 0
		switch {
		case strings.Contains(w.Message, "query port"):
			k = 2
		case strings.Contains(w.Message, "query device"):
			k = 1
		}
		if name := f[len(f)-1]; !slices.Contains(names[k], name) {
			names[k] = append(names[k], name)
		}
	}
	for k, ns := range names {
		if len(ns) == 0 {
			continue
		}
		n += len(ns)
		v := verbs[k]
		if len(ns) > 1 {
			v += "s"
		}
		x := v + " " + strings.Join(ns, ", ")
		if k == 2 {
			x += " of an RDMA device"
		}
		what = append(what, x)
	}
	return what, n
}

// ibSkippedAll reports whether NET/IB kept no device on host: the host
// has "No device found." or "Failed to initialize any NET plugin", or
// lists socket devices and no IB device. Its skipped devices are then why
// the transport fell back (whyNoIB), not devices left out of a working one.
func ibSkippedAll(l *ingest.NCCLLog, host string) bool {
	if slices.Contains(l.NoIBDevice.Hosts, host) || slices.Contains(l.NoNetwork.Hosts, host) {
		return true
	}
	on := func(d ingest.NetDevice) bool { return d.Host == host }
	return slices.ContainsFunc(l.SocketDevices, on) && !slices.ContainsFunc(l.IBDevices, on)
}

// ibAllSkippedFix is what to do when NET/IB skipped every device of a
// host, so that NCCL fell back to sockets: no device is left to leave out
// with NCCL_IB_HCA; the verbs devices themselves are not usable.
const ibAllSkippedFix = "Make the verbs devices usable by the job: NET/IB saw them but could open none. In a container pass /dev/infiniband (every uverbsN and rdma_cm: docker run --device=/dev/infiniband --cap-add=IPC_LOCK, or the Kubernetes RDMA/SR-IOV device plugin); on the host load ib_uverbs and the NIC's driver (mlx5_ib) and install rdma-core with the NIC's provider (libmlx5); the user must be able to open /dev/infiniband/uverbs* (mode, group, a udev rule). `ibv_devinfo` run as the job's user where NCCL runs must list the ports as PORT_ACTIVE."

// ibDeviceSkippedClass is NET/IB failing to open or query one RDMA device
// while it lists them (NVIDIA/nccl#2428: "Unable to open device erdma_1",
// a device the container's device plugin did not admit): NCCL leaves it
// out and goes on, so the job runs on fewer NICs on that host, and ranks
// whose hosts list different devices can wait on each other for ever.
// what names each device or port the host left out, n of them
// (ibSkipped); using is whether the host's "NET/IB : Using" line is in
// the log.
func ibDeviceSkippedClass(what []string, n int, using bool) failureClass {
	them := "it"
	if n > 1 {
		them = "them"
	}
	kept := ": this host's ranks run on the devices it did open"
	if !using {
		kept = " (the log holds no NET/IB : Using line of this host to show the devices it kept)"
	}
	return failureClass{"NCCL could not " + strings.Join(what, ", ") + " and left " + them + " out" + kept,
		"At init NET/IB opens every verbs device (ibv_open_device, then ibv_query_device and each port) and skips, with this WARN, one that fails; the transport still starts on the others, so this is no socket fallback. The device is listed by the kernel but not usable by the process: in a container, its /dev/infiniband/uverbsN not passed in (a device plugin or cgroup that admits fewer devices than the host has), or a driver in a bad state. The host then uses fewer NICs than its peers: its bandwidth drops, and the channels placed on the missing device can wait for ever. NCCL 2.30+ detects the mixed device counts at init but by default (NCCL_IGNORE_NET_MISMATCH=1) only logs it at INFO (`Detected mixed local Net device counts across ranks`) and goes on to hang (NVIDIA/nccl#2428); older NCCL has no check.",
		"Make the device usable where NCCL runs (`ibv_devinfo -d <device>` inside the container; request every RDMA device from the device plugin, or pass all of /dev/infiniband), or leave it out on every rank with NCCL_IB_HCA so that all hosts list the same devices. NCCL 2.30+: set NCCL_IGNORE_NET_MISMATCH=0 so a mismatch fails init; older NCCL has no check."}
}
