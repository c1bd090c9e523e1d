package perftest

// The report formulas, for the external tests.
var (
	BWRow  = bwRow
	LatRow = latRow
)
