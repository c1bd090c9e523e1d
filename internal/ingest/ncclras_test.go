package ingest

import (
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// TestRASReport reads the ncclras report of NVIDIA/nccl#1762: its version,
// the communicator table (three groups, one of them NOCOMM with two
// errors) and the two INCOMPLETE entries of its Errors section with their
// details, each at its line.
func TestRASReport(t *testing.T) {
	data, err := os.ReadFile(filepath.Join(corpusDir, "nccl-log", "ncclras-2.27.3-incomplete-process-60004-outlier-node-nccl1762.txt"))
	if err != nil {
		t.Fatal(err)
	}
	res := checkArtifact(t, data)
	var r *RASReport
	for _, a := range res.Artifacts {
		if x, ok := a.(*RASReport); ok {
			r = x
		}
	}
	if r == nil {
		t.Fatal("no RAS report")
	}
	if r.Version != "2.27.3" || r.VersionEv.Line != 3 {
		t.Errorf("version %q at %d", r.Version, r.VersionEv.Line)
	}
	want := []RASGroup{
		{Group: 0, Comms: 1, Nodes: 1, RanksPerComm: 2, Status: "RUNNING", Errors: "INCOMPLETE"},
		{Group: 1, Comms: 4, Nodes: 1, RanksPerComm: 2, Status: "RUNNING", Errors: "MISMATCH"},
		{Group: 2, Comms: 4, Nodes: 0, RanksPerComm: 0, Status: "NOCOMM", Errors: "INCOMPLETE,MISMATCH"},
	}
	for i := range r.Groups {
		if r.Groups[i].Evidence.Line != 26+i {
			t.Errorf("group %d at line %d", i, r.Groups[i].Evidence.Line)
		}
		r.Groups[i].Evidence = Evidence{}
	}
	if !reflect.DeepEqual(r.Groups, want) {
		t.Errorf("groups %+v", r.Groups)
	}
	if len(r.Entries) != 2 {
		t.Fatalf("entries %+v", r.Entries)
	}
	job, comm := r.Entries[0], r.Entries[1]
	if job.Section != "Errors" || job.Kind != "INCOMPLETE" || job.Comm != "" || job.Evidence.Line != 33 ||
		!reflect.DeepEqual(job.Details, []string{"Missing communicator data from 1 job process", "Process 60004 on node 10.4.109.13 managing GPU 0"}) {
		t.Errorf("job entry %+v", job)
	}
	if comm.Kind != "INCOMPLETE" || comm.Comm != "#0-0 (b3398875b8b2a063)" || len(comm.Details) != 2 || comm.DetailEv[1].Line != 39 {
		t.Errorf("communicator entry %+v", comm)
	}
}

// TestRASNotOtherText: an "Errors" heading over its rule in other text,
// without the report's own titles before it, is no RAS report.
func TestRASNotOtherText(t *testing.T) {
	res := checkArtifact(t, []byte("Errors\n======\n\nINCOMPLETE\n  something\n"))
	for _, a := range res.Artifacts {
		if a.Kind() == KindNCCLRAS {
			t.Errorf("read as a RAS report: %+v", a)
		}
	}
}

func FuzzNCCLRAS(f *testing.F) {
	paths, _ := filepath.Glob(filepath.Join(corpusDir, "nccl-log", "ncclras-*.txt"))
	for _, p := range paths {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(b)
		}
	}
	f.Add([]byte("Job summary\n===========\nCommunicators... (0.00s)\n=============\n    0         1         4       1-8        32        32   RUNNING  OK\nWarnings\n========\nTIMEOUT\n  Encountered 2 communication timeouts\n#x MISMATCH\n#0-0 (1) DEAD\n  a\n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		res := checkArtifact(t, data)
		for _, a := range res.Artifacts {
			r, ok := a.(*RASReport)
			if !ok {
				continue
			}
			if len(r.Groups) > maxRASGroups || len(r.Entries) > maxRASEntries {
				t.Fatal("beyond the caps")
			}
			for _, e := range r.Entries {
				if !rasKinds[e.Kind] || len(e.Details) != len(e.DetailEv) || len(e.Details) > maxRASDetails || e.Section != "Errors" && e.Section != "Warnings" {
					t.Fatalf("entry %+v", e)
				}
				if e.Evidence.Line < 1 || e.Evidence.Line > res.LineCount || strings.Contains(e.Comm, "\n") {
					t.Fatalf("entry %+v outside the %d-line input", e, res.LineCount)
				}
			}
			for _, g := range r.Groups {
				if g.Group < 0 || g.Comms < 0 || g.Evidence.Line < 1 || g.Evidence.Line > res.LineCount {
					t.Fatalf("group %+v", g)
				}
			}
		}
	})
}
