package doctor

import (
	"strings"

	"rocelab/internal/ingest"
)

// Host settings RCCL checks at init and names in a WARN with no error
// returned (init.cc): the run goes on, slower or less stable. The WARN
// rule (checkWarnErrors) skips them, so that they are never taken for the
// cause of a failure that follows, even one returned on their thread.

func ncclHostRules() []Rule {
	return []Rule{{IDs: []string{"nccl.host.config"}, Check: checkHostWarnings}}
}

// hostWarnings are the host settings RCCL warns about, by a piece of the
// WARN's text, with what each means and its fix.
var hostWarnings = []struct {
	match string
	class failureClass
}{
	{"numa auto balancing", failureClass{
		"the kernel's automatic NUMA balancing is on (kernel.numa_balancing=1)",
		"Automatic NUMA balancing unmaps pages to sample which node touches them and migrates them while the job runs, so host buffers and the proxy threads' memory move under a running collective; RCCL checks /proc/sys/kernel/numa_balancing at init and warns that it makes performance vary from run to run.",
		"`sudo sysctl kernel.numa_balancing=0` on every host, kept in /etc/sysctl.d, before the job starts."}},
	{"iommu=pt", failureClass{
		"the kernel command line lacks iommu=pt: the IOMMU translates every device's DMA",
		"With the IOMMU in translated mode, each DMA a NIC or GPU makes to another device's or the host's memory goes through IOMMU page tables: peer-to-peer and GPUDirect RDMA traffic pays the translation and can fail where a mapping is missing; RCCL checks /proc/cmdline at init and warns that it can make the system unstable or hang, and AMD's ROCm guides ask for iommu=pt.",
		"Add iommu=pt (with amd_iommu=on on AMD hosts) to GRUB_CMDLINE_LINUX, update-grub, reboot every host; check /proc/cmdline afterwards."}},
}

// checkHostWarnings reports each host setting RCCL warned about, once
// per setting with the hosts that printed it.
func checkHostWarnings(inc *Incident) []Finding {
	var gs failureGroups
	for _, l := range All[*ingest.NCCLLog](inc) {
		for _, w := range l.Warnings {
			if c, ok := hostWarning(w.Message); ok {
				gs.add(c.what, c, strings.TrimSpace(w.Message), w.Host, w.Evidence)
			}
		}
	}
	return gs.warnings("nccl.host.config")
}

// hostWarning classifies a WARN as one of hostWarnings.
func hostWarning(msg string) (failureClass, bool) {
	m := strings.ToLower(msg)
	for _, h := range hostWarnings {
		if strings.Contains(m, h.match) {
			return h.class, true
		}
	}
	return failureClass{}, false
}
