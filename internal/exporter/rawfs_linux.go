package exporter

import (
	"encoding/binary"
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
	// O_NONBLOCK: a FIFO in the tree must not hang the scrape (the open
	// of a FIFO waits for a writer, and its read for data); sysfs
	// attributes ignore the flag.
	fd, err := unix.Open(p, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	defer unix.Close(fd)
	return readFD(fd, "", name, buf)
}

// readFD reads the open file fd (dir/name in errors) into buf[:0],
// growing it while a read fills it: a sysfs attribute comes in one read.
func readFD(fd int, dir, name string, buf []byte) ([]byte, error) {
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
			return nil, &fs.PathError{Op: "read", Path: joinPath(dir, name), Err: err}
		}
		buf = buf[:len(buf)+n]
		if n == 0 || len(buf) < cap(buf) {
			return buf, nil
		}
		if len(buf) > maxFileSize {
			return nil, &fs.PathError{Op: "read", Path: joinPath(dir, name), Err: errTooLarge}
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

// openDir opens a directory of the tree for readAt and readDirent.
func (d rawDir) openDir(name string) (int, error) {
	if !fs.ValidPath(name) {
		return -1, &fs.PathError{Op: "open", Path: name, Err: fs.ErrInvalid}
	}
	fd, err := unix.Open(path.Join(d.root, name), unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return -1, &fs.PathError{Op: "open", Path: name, Err: err}
	}
	return fd, nil
}

// readAt reads the file name of directory dirfd into buf[:0], as readInto
// does; the kernel then resolves one path component, not the whole path.
func readAt(dirfd int, dir, name string, buf []byte) ([]byte, error) {
	fd, err := unix.Openat(dirfd, name, unix.O_RDONLY|unix.O_CLOEXEC|unix.O_NONBLOCK, 0)
	if err != nil {
		return nil, &fs.PathError{Op: "open", Path: joinPath(dir, name), Err: err}
	}
	defer unix.Close(fd)
	return readFD(fd, dir, name, buf)
}

// readDirent calls fn with the name of each entry of directory dirfd but .
// and .., and whether it is a regular file or a symbolic link (what a
// sysfs attribute can be; a FIFO or a directory is not), reading the
// entries into buf. name is valid only during the call.
func readDirent(dirfd int, buf []byte, fn func(name []byte, file bool)) error {
	for {
		n, err := unix.ReadDirent(dirfd, buf)
		if err == unix.EINTR {
			continue
		}
		if err != nil {
			return err
		}
		if n <= 0 {
			return nil
		}
		b := buf[:n]
		// struct linux_dirent64: ino u64, off s64, reclen u16, type u8,
		// name NUL-terminated.
		for len(b) >= 19 {
			reclen := int(binary.NativeEndian.Uint16(b[16:]))
			if reclen < 19 || reclen > len(b) {
				return nil
			}
			typ := b[18]
			name := b[19:reclen]
			for i, c := range name {
				if c == 0 {
					name = name[:i]
					break
				}
			}
			if !(len(name) == 1 && name[0] == '.' || len(name) == 2 && name[0] == '.' && name[1] == '.') {
				fn(name, typ == unix.DT_REG || typ == unix.DT_LNK || typ == unix.DT_UNKNOWN)
			}
			b = b[reclen:]
		}
	}
}

// joinPath is dir/name, or name alone: built only for an error.
func joinPath(dir, name string) string {
	if dir == "" {
		return name
	}
	return dir + "/" + name
}
