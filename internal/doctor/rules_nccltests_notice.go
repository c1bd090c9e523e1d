package doctor

import (
	"fmt"
	"strings"

	"rocelab/internal/ingest"
)

// checkOptionIgnored reports an option nccl-tests said it ignored or
// disabled: the run measured without it. One finding per distinct line of
// a file.
func checkOptionIgnored(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		at := map[string]int{}
		for _, n := range t.Notices {
			if i, ok := at[n.Message]; ok {
				if len(fs[i].Evidence) < 3 {
					fs[i].Evidence = append(fs[i].Evidence, n.Evidence)
				}
				continue
			}
			at[n.Message] = len(fs)
			why, fix := "the NCCL (and CUDA) nccl-tests was built against is older than the option needs, so the build left the feature out", "Rebuild nccl-tests against the NCCL the line names or later (`make NCCL_HOME=...`) and load that NCCL, or drop the option."
			if strings.HasSuffix(n.Message, "Disabling.") {
				why, fix = "the option's value is out of its range or it conflicts with another option given", "Give the option a value it takes, or drop the option it conflicts with (CUDA graphs, -G, exclude per-iteration timing -I and blocking -z 3)."
			}
			fs = append(fs, Finding{
				ID: "nccltests.option.ignored", Severity: Info, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s ran without %s: %s", fileTool(t), n.Option, n.Message),
				Evidence:  []ingest.Evidence{n.Evidence},
				Mechanism: fmt.Sprintf("nccl-tests checks some options after reading them and, instead of refusing the command line, prints this line and goes on without the option: %s. The figures were measured as if %s had not been given.", why, n.Option),
				Fix:       fix,
			}.per(t.Source()+" "+n.Message, "line", "nccl-tests ignored an option"))
		}
	}
	return fs
}
