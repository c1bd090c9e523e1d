package doctor

import (
	"fmt"
	"strconv"
	"strings"

	"rocelab/internal/ingest"
)

// checkBuildMismatch reports a run whose version line says nccl-tests (or
// rccl-tests) was compiled against one NCCL and ran with another:
// "nccl-headers=22803 nccl-library=22707". The figures are the loaded
// library's, and the test's features chosen at compile time by
// NCCL_VERSION_CODE (registration -R, the device API -D, CTA policy -x)
// meet a library that may lack them. One finding per distinct version
// line of a file: the runs of one build say the same thing.
func checkBuildMismatch(inc *Incident) []Finding {
	var fs []Finding
	for _, t := range All[*ingest.NCCLTests](inc) {
		told := map[string]bool{}
		for _, r := range t.Runs {
			if told[r.Version] {
				continue
			}
			told[r.Version] = true
			lib := "NCCL"
			if r.Tool == ingest.ToolRCCL {
				lib = "RCCL"
			}
			built, ran, ok := buildVersions(r.Version)
			if !ok || built == ran || refusedIncompatible(t, built, ran) {
				continue // the same versions the refusal names: nccltests.failed tells it
			}
			sev, how := Info, "newer than"
			if ran < built {
				sev, how = Warn, "older than"
			}
			fs = append(fs, Finding{
				ID: "nccltests.version.mismatch", Severity: sev, Layer: LayerNCCL,
				Title:     fmt.Sprintf("%s ran %s %s, %s the %s it was built against", testName(r), lib, ncclCodeVersion(ran), how, ncclCodeVersion(built)),
				Evidence:  []ingest.Evidence{r.VersionLine},
				Mechanism: fmt.Sprintf("The version line gives the %s headers the test was compiled with and the library it loaded at run time. The bandwidths are the loaded library's, not the build's; and the test enables features by the headers' version at compile time (buffer registration -R, symmetric memory, the device API -D, the CTA policy -x) and checks only some of them against the library at run time, so a library older than its headers can refuse or mishandle them (nccl-tests 2.17's device API: 'Incompatible NCCL versions'). A container whose %s differs from the host's, LD_LIBRARY_PATH or a plugin directory picking up another libnccl, or a test binary copied from another image all do this.", lib, lib),
				Fix:       fmt.Sprintf("Check which library the test loads (`ldd $(which all_reduce_perf) | grep -E 'nccl|rccl'`, NCCL_DEBUG=VERSION) and rebuild the test against it (`make NCCL_HOME=<that install>`), or put the intended %s first on LD_LIBRARY_PATH; compare releases only between runs whose version lines match.", lib),
			}.per(t.Source()+" "+collName(r), "run", "nccl-tests built and run against different NCCL"))
		}
	}
	return fs
}

// refusedIncompatible reports whether t holds nccl-tests' refusal of the
// device API between the built and ran NCCL codes.
func refusedIncompatible(t *ingest.NCCLTests, built, ran int) bool {
	want := fmt.Sprintf("%s%d, but is running with NCCL %d.", incompatibleDeviceAPI, built, ran)
	for _, f := range t.Failures {
		if f.Usage == ingest.UsageDevice && strings.HasPrefix(f.Message, want) {
			return true
		}
	}
	return false
}

// buildVersions reads the "nccl-headers=22803 nccl-library=22707" (or
// rccl-) fields of a version line.
func buildVersions(v string) (built, ran int, ok bool) {
	for _, f := range strings.Fields(v) {
		key, val, found := strings.Cut(f, "=")
		n, err := strconv.Atoi(val)
		if !found || err != nil || n <= 0 {
			continue
		}
		switch key {
		case "nccl-headers", "rccl-headers":
			built = n
		case "nccl-library", "rccl-library":
			ran = n
		}
	}
	return built, ran, built > 0 && ran > 0
}

// ncclCodeVersion spells NCCL_VERSION_CODE: 22803 is 2.28.3 (2.9 on,
// X*10000 + Y*100 + Z), 2708 is 2.7.8 (before, X*1000 + Y*100 + Z).
func ncclCodeVersion(c int) string {
	major, minor := codeRelease(c)
	return fmt.Sprintf("%d.%d.%d", major, minor, c%100)
}

// codeRelease is the major and minor release of NCCL_VERSION_CODE c, in
// either of its encodings (ncclCodeVersion).
func codeRelease(c int) (major, minor int) {
	if c >= 10000 {
		return c / 10000, c % 10000 / 100
	}
	return c / 1000, c % 1000 / 100
}

// codeAtLeast reports whether NCCL_VERSION_CODE c is release major.minor
// or later.
func codeAtLeast(c, major, minor int) bool {
	ma, mi := codeRelease(c)
	return ma > major || ma == major && mi >= minor
}
