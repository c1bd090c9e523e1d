package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// Rules over `nvidia-smi nvlink -s`: every GPU of a server should show
// the same number of NVLinks, all active at one speed. A GPU with fewer
// (links <inactive>, or slower) caps the NVLink bandwidth of every ring
// and tree NCCL builds through it.

func nvlinkRules() []Rule {
	return []Rule{{IDs: []string{"nvlink.inactive", "nvlink.ok"}, Check: checkNVLinks}}
}

// checkNVLinks reports GPUs with fewer active or slower NVLinks than the
// best GPU of the same output.
func checkNVLinks(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.NVLinkStatus](inc) {
		gpus, cut := s.GPUs, ""
		lines := 0
		for _, g := range gpus {
			lines = max(lines, len(g.Links))
		}
		// nvidia-smi lists every link of a GPU: a last block with fewer
		// is a paste that ends there.
		if last := gpus[len(gpus)-1]; len(gpus) > 1 && len(last.Links) < lines {
			gpus = gpus[:len(gpus)-1]
			cut = fmt.Sprintf("; %s's block ends after %s: the paste is cut", last.Name, plural(len(last.Links), "link", "links"))
		}
		most, fastest := 0, 0.0
		for _, g := range gpus {
			most = max(most, g.Active())
			for _, l := range g.Links {
				fastest = max(fastest, l.GBps)
			}
		}
		var bad []string
		var ev []Evidence
		for _, g := range gpus {
			var off, slow []string
			for _, l := range g.Links {
				switch {
				case l.Inactive:
					off = append(off, strconv.Itoa(l.Link))
				case l.GBps < fastest:
					slow = append(slow, fmt.Sprintf("%d at %g GB/s", l.Link, l.GBps))
				}
			}
			if len(off) == 0 && len(slow) == 0 {
				continue
			}
			what := fmt.Sprintf("%s %d of %d active", g.Name, g.Active(), len(g.Links))
			if len(off) == 1 {
				what += " (link " + off[0] + " <inactive>)"
			} else if len(off) > 1 {
				what += " (links " + strings.Join(off[:len(off)-1], ", ") + " and " + off[len(off)-1] + " <inactive>)"
			}
			if len(slow) > 0 {
				what += " (" + strings.Join(slow, ", ") + ")"
			}
			bad = append(bad, what)
			ev = append(ev, g.Evidence)
			for _, l := range g.Links {
				if l.Inactive || l.GBps < fastest {
					ev = append(ev, l.Evidence)
					break
				}
			}
		}
		if len(bad) == 0 {
			g := gpus[0]
			fs = append(fs, Finding{
				ID: "nvlink.ok", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s: %s has its %d NVLinks active at %g GB/s, %g GB/s per GPU each way%s", s.Source(), whichGPUs(gpus), len(g.Links), fastest, fastest*float64(len(g.Links)), cut),
				Evidence:  []Evidence{g.Evidence, g.Links[0].Evidence},
				Mechanism: "nvidia-smi nvlink -s prints each link's speed in one direction; a GPU's NVLink bandwidth is the sum over its active links.",
			})
			continue
		}
		title := fmt.Sprintf("%s: NVLinks down or slow: %s%s", s.Source(), list(bad, 4), cut)
		if most == 0 {
			title = fmt.Sprintf("%s: no NVLink is active on any of the %d GPUs shown%s", s.Source(), len(gpus), cut)
		}
		best := ""
		if len(gpus) > 1 {
			best = fmt.Sprintf("The best GPU here has %d active links at %g GB/s each way. ", most, fastest)
		}
		fs = append(fs, Finding{
			ID: "nvlink.inactive", Severity: Warn, Layer: LayerNCCL,
			Title:    title,
			Evidence: ev,
			Mechanism: best +
				"NCCL builds its intra-node rings and trees over NVLink (through the NVSwitches on HGX/DGX and NVL systems): a GPU with links down or trained slower carries every channel through it at its lower bandwidth, so intra-node and, in a ring, the whole job's busbw drop; with every link down NCCL falls back to PCIe peer-to-peer or host memory. " +
				"Links go inactive after an NVLink or NVSwitch error (Xid 74, 79), a GPU reset without the Fabric Manager, or a failed cable or baseboard connector.",
			Fix: "`nvidia-smi nvlink -e` (error counters) and `nvidia-smi -q | grep -iA3 fabric` on the host, the Fabric Manager's log and state (`systemctl status nvidia-fabricmanager`) on NVSwitch systems, dmesg for Xid 74/79; reset the GPU or reboot the node, and keep it out of jobs (drain it) while links stay down: a link that does not come back is a hardware case.",
		})
	}
	return fs
}

// whichGPUs is "GPU 0" for one GPU, "each of the 8 GPUs" for more.
func whichGPUs(gpus []ingest.NVLinkGPU) string {
	if len(gpus) == 1 {
		return gpus[0].Name
	}
	return fmt.Sprintf("each of the %d GPUs", len(gpus))
}
