package scenario

import (
	"bufio"
	"compress/gzip"
	"fmt"
	"io"
	"os"

	"rocelab/internal/unit"
)

// LoadReader reads a scenario from r (plain or gzip-compressed YAML) and
// validates it. name is the file name used in messages. At most
// MaxFileSize bytes are read: a larger input is refused without reading
// the rest.
func LoadReader(name string, r io.Reader) (*Scenario, error) {
	br := bufio.NewReader(r)
	if head, _ := br.Peek(2); len(head) == 2 && head[0] == 0x1f && head[1] == 0x8b {
		zr, err := gzip.NewReader(br)
		if err != nil {
			return nil, Errors{{File: name, Msg: "gzip: " + err.Error()}}
		}
		defer zr.Close()
		r = zr
	} else {
		r = br
	}
	data, err := io.ReadAll(io.LimitReader(r, int64(MaxFileSize)+1))
	if err != nil {
		return nil, Errors{{File: name, Msg: err.Error()}}
	}
	if unit.Bytes(len(data)) > MaxFileSize {
		return nil, Errors{{File: name, Msg: fmt.Sprintf("larger than the %s a scenario may be; a scenario describes traffic with generators, not flow by flow", human(MaxFileSize))}}
	}
	return Load(name, data)
}

// openFile opens a scenario file, refusing a directory with a message that
// says what is expected.
func openFile(path string) (*os.File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	if st, err := f.Stat(); err == nil && st.IsDir() {
		f.Close()
		return nil, fmt.Errorf("%s is a directory: expected a scenario file (YAML), e.g. one printed by 'rocelab examples NAME'", path)
	}
	return f, nil
}
