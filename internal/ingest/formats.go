package ingest

// formats lists the parsers. Add one line per format.
func formats() []Format {
	return []Format{
		{Kind: KindNCCLLog, New: NewNCCLLogParser},
		{Kind: KindNCCLTests, New: NewNCCLTestsParser},
		{Kind: KindEthtool, New: NewEthtoolParser},
		{Kind: KindHWCounters, New: NewHWCountersParser},
		{Kind: KindPerftest, New: NewPerftestParser},
		{Kind: KindShowGIDs, New: NewShowGIDsParser},
		{Kind: KindDevinfo, New: NewDevinfoParser},
		{Kind: KindMlnxQoS, New: NewMlnxQoSParser},
		{Kind: KindDmesg, New: NewDmesgParser},
		{Kind: KindNCCLSettings, New: NewNCCLSettingsParser},
		{Kind: KindSwitch, New: NewSwitchParser},
		{Kind: KindCollectMeta, New: NewCollectMetaParser},
		{Kind: KindMlxConfig, New: NewMlxConfigParser},
		{Kind: KindDCQCNSysfs, New: NewDCQCNSysfsParser},
		{Kind: KindMlnxQoSCommands, New: NewMlnxQoSCommandParser},
		{Kind: KindGPUTopo, New: NewGPUTopoParser},
		{Kind: KindNCCLTopo, New: NewNCCLTopoParser},
		{Kind: KindLspci, New: NewLspciParser},
		{Kind: KindNVLink, New: NewNVLinkParser},
		{Kind: KindNCCLRAS, New: NewNCCLRASParser},
		{Kind: KindMlxlink, New: NewMlxlinkParser},
		{Kind: KindTransceiver, New: NewTransceiverParser},
		{Kind: KindPerfquery, New: NewPerfqueryParser},
		{Kind: KindNVSMI, New: NewNVSMIParser},
		{Kind: KindIPLink, New: NewIPLinkParser},
		{Kind: KindDevlinkHealth, New: NewDevlinkParser},
		{Kind: KindBonding, New: NewBondingParser},
		{Kind: KindModules, New: NewModulesParser},
	}
}
