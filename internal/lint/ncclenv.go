package lint

import (
	"strings"

	"rocelab/internal/ingest"
)

// kindNCCLEnv is the kind of the NCCL settings lint reads from env files.
//
// This is a stopgap until the ingest package's reader of NCCL settings
// (export lines, mpirun -x, Kubernetes env lists; branch doctor2) is on
// main: it reads only "export NCCL_X=V" and "NCCL_X=V" lines, and lint's
// rules use it through ncclSettings only, so that the reader can be swapped
// without touching them.
const kindNCCLEnv ingest.Kind = "nccl-env"

// An ncclSetting is one NCCL_* variable given a value.
type ncclSetting struct {
	Name, Value string
	Evidence    ingest.Evidence
}

// ncclEnv is the NCCL settings of one input.
type ncclEnv struct {
	src      string
	settings []ncclSetting
}

// Kind implements ingest.Artifact.
func (e *ncclEnv) Kind() ingest.Kind { return kindNCCLEnv }

// Source implements ingest.Artifact.
func (e *ncclEnv) Source() string { return e.src }

// Lines implements ingest.Artifact.
func (e *ncclEnv) Lines() int { return len(e.settings) }

// GIDUses reports NCCL_IB_GID_INDEX, so that the doctor's GID rules check
// it against a GID table given alongside.
func (e *ncclEnv) GIDUses() []ingest.GIDUse {
	var out []ingest.GIDUse
	for _, s := range e.settings {
		if s.Name != "NCCL_IB_GID_INDEX" {
			continue
		}
		if n, ok := smallInt(s.Value); ok {
			out = append(out, ingest.GIDUse{Index: n, Evidence: s.Evidence})
		}
	}
	return out
}

// readNCCLEnv reads "export NCCL_X=V" and "NCCL_X=V" lines; nil when there
// are none.
func readNCCLEnv(src string, data []byte) *ncclEnv {
	e := &ncclEnv{src: src}
	for i, line := range strings.Split(string(data), "\n") {
		t := strings.TrimSpace(strings.TrimSuffix(line, "\r"))
		t = strings.TrimPrefix(t, "export ")
		name, val, ok := strings.Cut(strings.TrimSpace(t), "=")
		if !ok || !strings.HasPrefix(name, "NCCL_") || !isEnvName(name) {
			continue
		}
		if j := strings.Index(val, " #"); j >= 0 {
			val = val[:j]
		}
		val = strings.Trim(strings.TrimSpace(val), `"'`)
		e.settings = append(e.settings, ncclSetting{Name: name, Value: val,
			Evidence: ingest.Evidence{File: src, Line: i + 1, Text: strings.TrimSpace(line)}})
	}
	if len(e.settings) == 0 {
		return nil
	}
	return e
}

func isEnvName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '_') {
			return false
		}
	}
	return true
}

// smallInt parses a non-negative decimal below 1<<20.
func smallInt(s string) (int, bool) {
	if s == "" || len(s) > 7 {
		return 0, false
	}
	n := 0
	for i := 0; i < len(s); i++ {
		if s[i] < '0' || s[i] > '9' {
			return 0, false
		}
		n = n*10 + int(s[i]-'0')
	}
	return n, true
}
