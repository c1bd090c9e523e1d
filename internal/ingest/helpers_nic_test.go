package ingest

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// corpusPath returns the path of a corpus copy under the repository's
// testdata/corpus.
func nicCorpusPath(rel string) string {
	return filepath.Join("..", "..", "testdata", "corpus", rel)
}

// readCorpus reads a corpus copy through every parser.
func nicReadCorpus(t *testing.T, rel string) *Result {
	t.Helper()
	return readFile(t, nicCorpusPath(rel), rel)
}

// readSynthetic reads a labelled synthetic fixture from testdata/synthetic.
func readSynthetic(t *testing.T, name string) *Result {
	t.Helper()
	path := filepath.Join("..", "..", "testdata", "synthetic", name)
	return readFile(t, path, path)
}

// readFile reads the file at path, named name, through every parser.
func readFile(t testing.TB, path, name string) *Result {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	res, err := Read(name, f)
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// readText reads an inline (synthetic) input through every parser.
func nicReadText(t *testing.T, name, text string) *Result {
	t.Helper()
	res, err := Read(name, strings.NewReader(text))
	if err != nil {
		t.Fatal(err)
	}
	return res
}

// artifact returns the one artifact of type T in res.
func nicArtifact[T Artifact](t *testing.T, res *Result) T {
	t.Helper()
	var zero T
	for _, a := range res.Artifacts {
		if x, ok := a.(T); ok {
			return x
		}
	}
	t.Fatalf("%s: no %T artifact; got %v", res.Source, zero, nicKinds(res))
	return zero
}

// noArtifact fails if res has an artifact of type T.
func nicNoArtifact[T Artifact](t *testing.T, res *Result) {
	t.Helper()
	for _, a := range res.Artifacts {
		if _, ok := a.(T); ok {
			t.Fatalf("%s: unexpected %s artifact", res.Source, a.Kind())
		}
	}
}

func nicKinds(res *Result) []Kind {
	var ks []Kind
	for _, a := range res.Artifacts {
		ks = append(ks, a.Kind())
	}
	return ks
}

// value returns the reading of name in s, failing when absent.
func nicValue(t *testing.T, s *CounterSample, name string) uint64 {
	t.Helper()
	r, ok := s.Get(name)
	if !ok {
		t.Fatalf("%s: no counter %s", s.Name(), name)
	}
	return r.Value
}

// checkTaggedApart checks that samples are one per tag, in order, none a
// pair and none given a host by its tag.
func checkTaggedApart(t *testing.T, samples []CounterSample, tags ...string) {
	t.Helper()
	if len(samples) != len(tags) {
		t.Fatalf("%d samples, want one per tagged host %v", len(samples), tags)
	}
	for i, want := range tags {
		if s := samples[i]; s.IsDelta() || s.Tag != want || s.Host != "" {
			t.Errorf("sample %d: host %q tag %q delta %v, want tag %q, no host and no pair", i, s.Host, s.Tag, s.IsDelta(), want)
		}
	}
}
