package exporter

import (
	"errors"
	"io/fs"

	"golang.org/x/sys/unix"
)

// A dir reads the files of one directory of the host's tree: through a
// directory descriptor on a tree opened with Dir (one path component for
// the kernel to resolve per file, no path to build), by path on any other
// fs.FS (fixtures in memory, the twin's trees).
type dir struct {
	s    *Scrape
	path string
	fd   int // -1: by path
}

// openDir opens directory path of the host's tree.
func (s *Scrape) openDir(path string) (dir, error) {
	if r, ok := s.Host.Sys.(rawDir); ok {
		fd, err := r.openDir(path)
		if err != nil {
			return dir{}, err
		}
		return dir{s, path, fd}, nil
	}
	st, err := fs.Stat(s.Host.Sys, path)
	if err != nil {
		return dir{}, err
	}
	if !st.IsDir() {
		return dir{}, &fs.PathError{Op: "open", Path: path, Err: errors.New("not a directory")}
	}
	return dir{s, path, -1}, nil
}

func (d dir) close() {
	if d.fd >= 0 {
		unix.Close(d.fd)
	}
}

// read reads file name of the directory into the scrape's scratch buffer;
// the result is valid until the next read.
func (d dir) read(name string) ([]byte, error) {
	if d.fd < 0 {
		return d.s.readFile(d.path + "/" + name)
	}
	w := d.s.worker
	b, err := readAt(d.fd, d.path, name, d.s.e.bufs[w])
	if err == nil {
		d.s.e.bufs[w] = b
	}
	return b, err
}

// each calls fn with each entry's name and whether it can be an attribute
// file (regular or a symbolic link: not a FIFO, not a directory).
func (d dir) each(fn func(name []byte, file bool)) error {
	if d.fd >= 0 {
		w := d.s.worker
		if d.s.e.dirbufs[w] == nil {
			d.s.e.dirbufs[w] = make([]byte, 8<<10)
		}
		return readDirent(d.fd, d.s.e.dirbufs[w], fn)
	}
	ents, err := fs.ReadDir(d.s.Host.Sys, d.path)
	if err != nil {
		return err
	}
	for _, e := range ents {
		fn([]byte(e.Name()), e.Type().IsRegular() || e.Type()&fs.ModeSymlink != 0)
	}
	return nil
}
