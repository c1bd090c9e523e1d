package main

import (
	"bufio"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"syscall"
)

// manifestName lists the files an earlier 'rocelab run --out' wrote into a
// directory, so that --force removes those and nothing else. It is hidden,
// so 'rocelab diagnose DIR' skips it.
const manifestName = ".rocelab-out"

// prepareOut checks an --out directory before the simulation: it must be
// new, empty, or (with force) hold an earlier run's output, which is then
// removed file by file. Files rocelab did not write are never removed; with
// force they are left and named in the returned warning.
func prepareOut(dir string, force bool) (warning string, err error) {
	st, err := os.Stat(dir)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", checkWritable(dir)
	case err != nil:
		return "", err
	case !st.IsDir():
		return "", fmt.Errorf("%s is not a directory", dir)
	}
	all, err := listFiles(dir)
	if err != nil {
		return "", err
	}
	if len(all) == 0 {
		return "", checkWritable(dir)
	}
	ours, hasManifest := readManifest(dir)
	if !hasManifest {
		return "", fmt.Errorf("%s is not empty (%s) and holds no output of an earlier 'rocelab run --out': choose a new or empty directory, since 'rocelab diagnose' would read these files with the run's", dir, someOf(all))
	}
	if !force {
		return "", fmt.Errorf("%s holds the output of an earlier run (%d files): give --force to replace it, or choose a new directory; 'rocelab diagnose' would otherwise mix stale files with the new ones", dir, len(ours))
	}
	for _, f := range ours {
		if err := os.Remove(filepath.Join(dir, f)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return "", err
		}
	}
	os.Remove(filepath.Join(dir, manifestName))
	foreign := without(all, append(ours, manifestName))
	if len(foreign) > 0 {
		warning = fmt.Sprintf("--out %s also holds files rocelab did not write, left in place: %s; 'rocelab diagnose %s' reads them too", dir, someOf(foreign), dir)
	}
	return warning, checkWritable(dir)
}

// checkWritable creates dir if needed and proves a file can be made in it.
func checkWritable(dir string) error {
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	f, err := os.CreateTemp(dir, ".rocelab-check-*")
	if err != nil {
		return err
	}
	f.Close()
	return os.Remove(f.Name())
}

// writeManifest records every file now under dir as the run's output.
func writeManifest(dir string) error {
	files, err := listFiles(dir)
	if err != nil {
		return err
	}
	f, err := os.Create(filepath.Join(dir, manifestName))
	if err != nil {
		return err
	}
	w := bufio.NewWriter(f)
	fmt.Fprintln(w, "# files written by rocelab run --out; rocelab run --force removes exactly these")
	for _, p := range without(files, []string{manifestName}) {
		fmt.Fprintln(w, p)
	}
	if err := w.Flush(); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// readManifest returns the files the manifest lists, relative to dir.
func readManifest(dir string) ([]string, bool) {
	data, err := os.ReadFile(filepath.Join(dir, manifestName))
	if err != nil {
		return nil, false
	}
	var out []string
	for _, l := range strings.Split(string(data), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") || !filepath.IsLocal(l) {
			continue
		}
		out = append(out, l)
	}
	return out, true
}

// lockName is the lock a run holds on an output directory while it
// writes there: the process id of the holder.
const lockName = ".rocelab-lock"

// lockOut makes dir (when it does not exist) and takes its lock, so that
// two runs never write one directory at once; a lock whose process has
// gone is taken over. release drops it, and the directory too when this
// call made it and the command wrote nothing there (it failed first).
func lockOut(dir string) (release func(), err error) {
	st, err := os.Stat(dir)
	if err == nil && !st.IsDir() {
		return func() {}, nil // prepareOut says what is wrong
	}
	made := errors.Is(err, fs.ErrNotExist)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return nil, err
	}
	p := filepath.Join(dir, lockName)
	for try := 0; try < 2; try++ {
		f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
		if err == nil {
			fmt.Fprintf(f, "%d\n", os.Getpid())
			f.Close()
			return func() {
				os.Remove(p)
				if made {
					os.Remove(dir) // only if empty
				}
			}, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			return nil, err
		}
		data, _ := os.ReadFile(p)
		if pid, _ := strconv.Atoi(strings.TrimSpace(string(data))); pid > 0 && alive(pid) {
			return nil, fmt.Errorf("%s is being written by another rocelab (process %d): wait for it, or choose another directory", dir, pid)
		}
		os.Remove(p) // left by a run that has gone
	}
	return nil, fmt.Errorf("%s: cannot take the lock %s", dir, p)
}

// alive reports whether a process exists.
func alive(pid int) bool {
	pr, err := os.FindProcess(pid)
	return err == nil && pr.Signal(syscall.Signal(0)) == nil
}

// listFiles returns the regular files under dir, relative to it, sorted;
// the lock is not one of them.
func listFiles(dir string) ([]string, error) {
	var out []string
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && d.Name() != lockName {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	})
	sort.Strings(out)
	return out, err
}

func without(all, drop []string) []string {
	skip := map[string]bool{}
	for _, d := range drop {
		skip[d] = true
	}
	var out []string
	for _, a := range all {
		if !skip[a] {
			out = append(out, a)
		}
	}
	return out
}

// someOf names a few files: "a, b, c and 4 more".
func someOf(files []string) string {
	if len(files) <= 3 {
		return strings.Join(files, ", ")
	}
	return fmt.Sprintf("%s and %d more", strings.Join(files[:3], ", "), len(files)-3)
}
