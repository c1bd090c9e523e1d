package main

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"

	"rocelab/internal/scenario"
)

// stdinName is how standard input is named in messages.
const stdinName = "<stdin>"

// An input is one file a command reads: a path, or "-" for stdin.
type input struct {
	name string
	r    io.Reader
	f    *os.File
}

// Close closes the file (not stdin).
func (in *input) Close() {
	if in.f != nil {
		in.f.Close()
	}
}

// openInput opens path for a command that reads one file of the kind what
// ("a capture", "a scenario"): "-" is stdin; a directory is refused with
// the files in it that look like what was asked for, and the command that
// reads them all when there is one. Gzip is left to the readers, which
// recognise it by its magic number.
func openInput(path string, stdin io.Reader, what string, looksRight func(name string) bool, forDirs string) (*input, error) {
	if path == "-" {
		return &input{name: stdinName, r: stdin}, nil
	}
	f, err := os.Open(path)
	if err != nil {
		var pe *fs.PathError
		if errors.As(err, &pe) {
			return nil, fmt.Errorf("%s: %v", path, pe.Err)
		}
		return nil, err
	}
	st, err := f.Stat()
	if err != nil {
		f.Close()
		return nil, fmt.Errorf("%s: %v", path, err)
	}
	if st.IsDir() {
		f.Close()
		msg := fmt.Sprintf("%s is a directory: expected %s file", path, what)
		if some := filesIn(path, looksRight, 5); len(some) > 0 {
			msg += " such as " + strings.Join(some, ", ")
		}
		return nil, errors.New(msg + forDirs)
	}
	return &input{name: path, r: f, f: f}, nil
}

// filesIn lists up to n files directly in dir whose names pass keep.
func filesIn(dir string, keep func(string) bool, n int) []string {
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, e := range ents {
		if e.Type().IsRegular() && keep(e.Name()) {
			out = append(out, filepath.Join(dir, e.Name()))
		}
	}
	sort.Strings(out)
	if len(out) > n {
		out = append(out[:n], "…")
	}
	return out
}

// captureName and scenarioName tell capture and scenario files by name.
func captureName(n string) bool {
	n = strings.TrimSuffix(n, ".gz")
	return strings.HasSuffix(n, ".pcap") || strings.HasSuffix(n, ".pcapng") || strings.HasSuffix(n, ".cap")
}

func scenarioName(n string) bool {
	n = strings.TrimSuffix(n, ".gz")
	return strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml")
}

// maxDescription caps what a command reads from one description, space or
// scenario file before refusing it: the scenario loader's own cap.
const maxDescription = int64(scenario.MaxFileSize)

// readSmall reads the whole of a small input file of the kind what ("a
// cluster description"): "-" is stdin, a directory is refused, and at most
// maxDescription bytes are read, so that /dev/zero or a FIFO that never
// ends is refused at once instead of filling memory.
func readSmall(path string, stdin io.Reader, what string) (name string, data []byte, err error) {
	in, err := openInput(path, stdin, what, scenarioName, "")
	if err != nil {
		return "", nil, err
	}
	defer in.Close()
	data, err = io.ReadAll(io.LimitReader(in.r, maxDescription+1))
	if err != nil {
		return in.name, nil, fmt.Errorf("%s: %v", in.name, err)
	}
	if int64(len(data)) > maxDescription {
		return in.name, nil, fmt.Errorf("%s: larger than the %d KiB %s may be; not %s", in.name, maxDescription>>10, what, what)
	}
	return in.name, data, nil
}
