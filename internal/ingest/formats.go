package ingest

// formats lists the parsers. Add one line per format.
func formats() []Format {
	return []Format{
		{KindNCCLLog, NewNCCLLogParser},
		{KindNCCLTests, NewNCCLTestsParser},
	}
}
