package exporter

import (
	"io/fs"
	"os"
	"path"

	"golang.org/x/sys/unix"
)

// Dir returns the directory root as an fs.FS whose small files the
// collectors read with three system calls (open, one read, close) instead
// of the five or six of os.Open: a scrape reads thousands of sysfs files,
// and this halves its cost.
func Dir(root string) fs.FS { return rawDir{FS: os.DirFS(root), root: root} }

type rawDir struct {
	fs.FS
	root string
}

// readInto reads name into buf[:0], growing it while a read fills it.
func (d rawDir) readInto(name string, buf []byte) ([]byte, error) {
	if !fs.ValidPath(name) {
		return nil, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	p := path.Join(d.root, name)
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	buf = buf[:0]
	for {
		if cap(buf)-len(buf) < 512 {
			buf = append(buf, make([]byte, 4096)...)[:len(buf)]
		}
		n, err := unix.Read(fd, buf[len(buf):cap(buf)])
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return nil, &fs.PathError{Op: "read", Path: name, Err: err}
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			return buf, nil
		}
		if len(buf) > maxFileSize {
			return nil, &fs.PathError{Op: "read", Path: name, Err: errTooLarge}
		}
	}
}

// Sub keeps the fast path below a subdirectory.
func (d rawDir) Sub(dir string) (fs.FS, error) {
	if !fs.ValidPath(dir) {
		return nil, &fs.PathError{Op: "sub", Path: dir, Err: fs.ErrInvalid}
	}
	return Dir(path.Join(d.root, dir)), nil
}
