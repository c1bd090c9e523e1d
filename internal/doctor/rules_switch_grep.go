package doctor

import (
	"fmt"

	"rocelab/internal/ingest"
)

// checkUnplacedPFC says which rows of a filtered `show pfc counters` were
// seen and judged by no rule, because their order could not say whether
// they counted received or sent pause.
func checkUnplacedPFC(inc *Incident) []Finding {
	var fs []Finding
	for _, s := range All[*ingest.SwitchCounters](inc) {
		if len(s.UnplacedPFC) == 0 {
			continue
		}
		fs = append(fs, Finding{
			ID: "switch.pfc.unplaced", Severity: Info, Layer: LayerFabric,
			Title:     fmt.Sprintf("%s: %s of `show pfc counters | grep` seen but not judged: Rx or Tx cannot be told", s.Source(), plural(len(s.UnplacedPFC), "row", "rows")),
			Evidence:  s.UnplacedPFC,
			Mechanism: "grep drops the \"Port Rx\" and \"Port Tx\" headers that say which table a row belongs to. SONiC prints every port's Rx row and then every port's Tx row, so a port's first row is what it received and its second what it sent; these rows are a third or later of their port (two outputs pasted under one command, or an edited paste), which that order cannot place.",
			Fix:       "Keep the headers in the filter (`show pfc counters | grep -E 'Port|Ethernet0'`) or cut one table out first (`show pfc counters | sed -n '/Port Tx/,/^$/p' | grep Ethernet0`), one command per output.",
		})
	}
	return fs
}
