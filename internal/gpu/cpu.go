package gpu

// CPUGen is a server CPU's generation when it is known. It sets two
// different figures for the link between the CPU sockets: what NCCL's
// topology believes, from the CPUID family and model it reads (the
// search's figure per release, src/graph/topo.cc), and what the hardware
// carries, from the generation's UPI links (the simulated link's rate).
type CPUGen uint8

// CPU generations. CPUAnyGen knows the vendor alone.
const (
	CPUAnyGen CPUGen = iota
	// Skylake is the first Xeon Scalable (Skylake-SP, CPUID model 0x55):
	// three 20-lane UPI links at 10.4 GT/s (Tam et al., "SkyLake-SP: A
	// 14nm 28-Core Xeon Processor", ISSCC 2018, DOI
	// 10.1109/ISSCC.2018.8310170).
	Skylake
	// IceLake is the third Xeon Scalable (Ice Lake-SP, model 0x6A): three
	// UPI links at 11.2 GT/s (Intel ARK, Xeon Platinum 8380, as
	// felixsteinke/cpu-spec-dataset 4c08d887 dataset/intel-cpus.csv
	// transcribes it).
	IceLake
	// SapphireRapids is the fourth Xeon Scalable (model 0x8F): four UPI
	// links at 16 GT/s (ARK, Xeon Platinum 8480+, the same dataset;
	// intel/pcm#550 prints another part's three links a socket at 16.0
	// GT/s).
	SapphireRapids
	// EmeraldRapids is the fifth Xeon Scalable (model 0xCF): four UPI
	// links, two a tile, at 20 GT/s (ServeTheHome's launch article "5th
	// Gen Intel Xeon Processors Emerald Rapids Resets Servers by Intel";
	// the 20 GT/s was first given by the September 2022 specification
	// leak wccftech reported).
	EmeraldRapids
)

// cpuGen is what a generation sets: its scenario name, the CPUID model
// (family 6) NCCL's topology reads, and its UPI links a socket and their
// rate, GT/s (0 links: unknown).
type cpuGen struct {
	name  string
	model int
	links int
	gts   float64
}

// cpuGens are the generations, by CPUGen. An Intel host of unknown
// generation stands for Sapphire Rapids in NCCL's model.
func cpuGens() [EmeraldRapids + 1]cpuGen {
	return [...]cpuGen{
		CPUAnyGen:      {"", 0x8F, 0, 0},
		Skylake:        {"skylake", 0x55, 3, 10.4},
		IceLake:        {"icelake", 0x6A, 3, 11.2},
		SapphireRapids: {"sapphire-rapids", 0x8F, 4, 16},
		EmeraldRapids:  {"emerald-rapids", 0xCF, 4, 20},
	}
}

// String returns the generation's scenario name ("" when unknown).
func (g CPUGen) String() string { return cpuGens()[g].name }

// ParseCPU reads a scenario's CPU: a vendor (intel, amd, arm) or an Intel
// Xeon generation (skylake, icelake, sapphire-rapids, emerald-rapids).
func ParseCPU(name string) (CPU, CPUGen, bool) {
	switch name {
	case "intel":
		return Intel, CPUAnyGen, true
	case "amd":
		return AMD, CPUAnyGen, true
	case "arm":
		return ARM, CPUAnyGen, true
	}
	for g, c := range cpuGens() {
		if g > 0 && c.name == name {
			return Intel, CPUGen(g), true
		}
	}
	return Intel, CPUAnyGen, false
}

// CPUNames returns every name ParseCPU reads.
func CPUNames() []string {
	names := []string{"intel", "amd", "arm"}
	for g, c := range cpuGens() {
		if g > 0 {
			names = append(names, c.name)
		}
	}
	return names
}

// Model returns the CPUID model (family 6) NCCL's topology reads for the
// generation; an Intel host of unknown generation stands for Sapphire
// Rapids.
func (g CPUGen) Model() int { return cpuGens()[g].model }

// LinkBW returns what the generation's links between two sockets carry
// each way, GB/s, at the nominal 2 bytes a transfer a link (10.4 GT/s:
// 20.8 GB/s), a two-socket server joining the sockets by all of them
// (Sapphire Rapids 4 × 32 = 128). It is a ceiling, not a measured rate:
// PCM counts a link's flits at 35.8 GB/s at 16 GT/s (intel/pcm#550; in
// #516 "16 GT *2Bytes" is the asker's figure), of which headers and
// coherence messages take a share, and #516's remote-memory load reached
// 54% of it. 0 when the generation is not known.
func (g CPUGen) LinkBW() float64 {
	c := cpuGens()[g]
	return float64(c.links) * c.gts * 2
}
