package doctor

import "rocelab/internal/ingest"

// ethtoolJSONRules report `ethtool --json` arrays the reader could not
// take: cut by the end of the paste or a command typed after it, or not
// JSON, so the readings in them were judged by no rule.
func ethtoolJSONRules() []Rule {
	return []Rule{{IDs: []string{"input.garbled"}, Check: checkEthtoolJSONGarbled}}
}

func checkEthtoolJSONGarbled(inc *Incident) []Finding {
	return garbledOf(inc, "ethtool --json output", func(a *ingest.EthtoolStats) []ingest.Garble { return a.Garbled },
		"This array opens as `ethtool --json` prints one (after its command, or with an \"ifname\" key) but does not parse as JSON or ends before its closing ']': the paste was cut or edited, so the FEC settings or statistics in it were judged by no rule.",
		"Paste the whole output: `ethtool --json -I --show-fec <if> | tee fec.json` (or `ethtool --json -S <if> --all-groups`), or the text form without --json.")
}
