package doctor

import (
	"fmt"
	"slices"
	"strings"

	"rocelab/internal/ingest"
)

// pluginFallback reports a net plugin that failed to start on hosts that
// then moved their data over NCCL's own IB transport. (A fallback to TCP
// sockets is nccl.transport.socket_fallback, which names the plugin.) The
// job runs, but not on the transport it was set up for, and what was set
// for the plugin does nothing.
func pluginFallback(logs []*ingest.NCCLLog) (Finding, bool) {
	var ev evidence
	var hosts []string
	var first string
	for _, l := range logs {
		if l.PluginInitFailures.Count == 0 {
			continue
		}
		for _, c := range l.Networks {
			if !l.IBNet(c.Name) || !slices.Contains(l.PluginInitFailures.Hosts, c.Host) || slices.Contains(hosts, c.Host) {
				continue
			}
			hosts = append(hosts, c.Host)
			i := slices.Index(l.PluginInitFailures.Hosts, c.Host)
			ev.add(l.PluginInitFailures.First[i], c.Evidence)
			if first == "" {
				first = l.PluginInitFailures.First[i].Text
			}
		}
	}
	if len(hosts) == 0 {
		return Finding{}, false
	}
	name, msg := pluginName(first), pluginMessage(first)
	mech := fmt.Sprintf("NCCL loaded the net plugin %s, which failed to start (%q); NCCL then dropped it and initialised its own IB verbs transport, which carries the data. ", name, msg) +
		"The job runs, but not over the plugin it was set up for: the plugin's settings (FI_*, OFI_NCCL_*) do nothing, and every rank pays the failed plugin start at init."
	fix := "Load the plugin only where its fabric is: on an IB/RoCE cluster unset NCCL_NET_PLUGIN (or set it to none) and take libnccl-net.so out of the image's library path, so that NCCL uses NET/IB from the start; keep the plugin for the fabric it is built for."
	if strings.Contains(strings.ToLower(msg), "pci bus") || strings.Contains(strings.ToLower(msg), "no nic info") {
		mech += " aws-ofi-nccl places each NIC in NCCL's topology by the PCI address libfabric reports for it; a provider that reports none (bus type 0, or no NIC attributes: verbs;ofi_rxm, tcp) fails that query, and plugin/net.cc returns the error (ncclSystemError, 2) that ends the plugin."
		fix = "aws-ofi-nccl is for libfabric providers that report their NICs' PCI attributes (EFA on AWS, whose `fi_info -p efa -v` shows a `nic:` block with bus_attr pci). On an IB/RoCE cluster do not load it: unset NCCL_NET_PLUGIN (or set it to none) and take libnccl-net.so out of the image's library path, so that NCCL uses NET/IB from the start; NCCL_IB_HCA, NCCL_IB_GID_INDEX and NCCL_IB_TC then apply as set."
	}
	return Finding{
		ID: "nccl.plugin.fallback", Severity: Warn, Layer: LayerRDMA,
		Title:     fmt.Sprintf("The net plugin %s failed to start on %s (%q); NCCL fell back to its own IB transport", name, list(realHostsOr(hosts), 3), msg),
		Evidence:  ev.sorted(),
		Mechanism: mech,
		Fix:       fix,
	}, true
}

// pluginMismatch reports hosts of one incident of which some load an
// external net plugin and others, by their loader's own line, none
// (NVIDIA/nccl#1634: HGX-H100-04 loads HPC-X's nccl_rdma_sharp_plugin,
// HGX-H100-11 "Could not find: libnccl-net.so. Using internal network
// plugin.", and nccl-tests hang between such hosts with no error). A
// host whose plugin failed to start runs NCCL's own transport too, but
// that is nccl.plugin.fallback's.
func pluginMismatch(logs []*ingest.NCCLLog) (Finding, bool) {
	var with, without []string
	var ev evidence
	failed := map[string]bool{}
	for _, l := range logs {
		for _, h := range append(slices.Clone(l.PluginFailures.Hosts), l.PluginInitFailures.Hosts...) {
			failed[h] = true
		}
	}
	for _, l := range logs {
		for i, h := range l.Plugins.Hosts {
			if ingest.RealHost(h) && !failed[h] && !slices.Contains(with, h) {
				with = append(with, h)
				ev.add(l.Plugins.First[i])
			}
		}
	}
	for _, l := range logs {
		for i, h := range l.NoNetPlugin.Hosts {
			if ingest.RealHost(h) && !slices.Contains(with, h) && !slices.Contains(without, h) {
				without = append(without, h)
				ev.add(l.NoNetPlugin.First[i])
			}
		}
	}
	if len(with) == 0 || len(without) == 0 {
		return Finding{}, false
	}
	return Finding{
		ID: "nccl.plugin.mismatch", Severity: Warn, Layer: LayerRDMA,
		Title:    fmt.Sprintf("Hosts load different net plugins: %s a net plugin, %s none (NCCL's own transport)", list(with, 3), list(without, 3)),
		Evidence: ev.sorted(),
		Mechanism: "NCCL loads a net plugin when its loader finds one (libnccl-net.so on the library path, or the library NCCL_NET_PLUGIN names), and the plugin then carries the inter-node traffic ('P2P plugin IBext' is HPC-X's nccl-rdma-sharp-plugins, which drive the IB verbs devices themselves); a host where the loader finds none uses NCCL's own IB or socket transport. " +
			"NCCL does not check that its peers made the same choice: ranks on the two kinds of host set their connections up through different code, built for different NCCL versions, and NVIDIA/nccl#1634 saw nccl-tests hang with no error between hosts that load HPC-X's plugin and hosts that do not, while each kind ran among itself. Which library a host loads follows its environment (an HPC-X module loaded on some hosts, LD_LIBRARY_PATH, a container image), not the job.",
		Fix: "Make every rank load the same net plugin: NCCL_NET_PLUGIN=none on every rank to use NCCL's own transport where the plugin is not needed (SHARP and CollNet need it), or the same plugin build on every host's library path (HPC-X's hpcx_load adds its nccl_rdma_sharp_plugin/lib) and the same LD_LIBRARY_PATH passed to every rank (mpirun -x LD_LIBRARY_PATH).",
	}, true
}

// realHostsOr is realHosts, or "1 host"-style counts when no name is a
// host's.
func realHostsOr(hs []string) []string {
	if h := realHosts(hs); len(h) > 0 {
		return h
	}
	return []string{plural(len(hs), "host", "hosts")}
}
