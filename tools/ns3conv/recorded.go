package main

import (
	"bufio"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"os"
	"regexp"
	"strconv"
	"strings"

	"rocelab/internal/scenario"
)

// A recorded ns-3 run (testdata/ns3, testdata/sweep) is tied to the input
// ns-3 ran, not to the scenario's text: its head carries the sha256 of
// the files ns3conv writes for the scenario and seed. The figures are a
// function of those files (and of the ns-3 build): a scenario edit that
// leaves them alike (a comment, a key only rocelab reads, such as
// switch.ecmp.model) keeps the run valid, and a converter change that
// alters them (a knob mapped otherwise) makes it stale though the
// scenario did not change.

// inputHashPrefix begins the head line that carries the hash.
const inputHashPrefix = "# input: sha256 of ns3conv's config.txt, topology.txt, flow.txt, trace.txt for this run: "

// hash is the sha256 of the input f writes: each file's name, length and
// bytes, in the order written.
func (f *files) hash() string {
	h := sha256.New()
	for _, x := range [][2]string{{"config.txt", f.config}, {"topology.txt", f.topology}, {"flow.txt", f.flow}, {"trace.txt", f.trace}} {
		fmt.Fprintf(h, "%s %d\n%s", x[0], len(x[1]), x[1])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// inputHash converts the scenario in file at seed and returns the hash of
// ns-3's input.
func inputHash(file string, seed uint64) (string, error) {
	s, err := scenario.LoadFile(file)
	if err != nil {
		return "", err
	}
	s.Seed = seed
	f, err := convert(s, file)
	if err != nil {
		return "", err
	}
	return f.hash(), nil
}

// recordedRun is a recorded run's head: the scenario and seed its "# run:"
// line converts (the path from the repository's root) and the hash of
// its "# input:" line ("" when it has none).
type recordedRun struct {
	scenario string
	seed     uint64
	hash     string
}

var runLine = regexp.MustCompile(`^# run: go run \./tools/ns3conv -dir D -seed (\d+) (\S+);`)

func readRecordedHead(file string) (recordedRun, error) {
	var r recordedRun
	f, err := os.Open(file)
	if err != nil {
		return r, err
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan() && strings.HasPrefix(sc.Text(), "#"); n++ {
		if m := runLine.FindStringSubmatch(sc.Text()); m != nil {
			r.seed, _ = strconv.ParseUint(m[1], 10, 64)
			r.scenario = m[2]
		}
		if h, ok := strings.CutPrefix(sc.Text(), inputHashPrefix); ok {
			r.hash = h
		}
	}
	if err := sc.Err(); err != nil {
		return r, err
	}
	if r.scenario == "" {
		return r, fmt.Errorf("%s: no \"# run: go run ./tools/ns3conv -dir D -seed S SCENARIO; ...\" line in its head", file)
	}
	return r, nil
}
