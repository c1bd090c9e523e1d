package sonic

import (
	"bytes"
	"strings"
)

// Shell lines pasted around a CONFIG_DB dump, blanked so the JSON reads.

// BlankPrompts returns data with the shell lines around a pasted JSON
// dump blanked out: a first line that is a prompt or a command
// ("admin@sonic:~$ show runningconfiguration all", "$ sudo sonic-cfggen -d
// --print-data") followed by a line opening the JSON, and prompt lines after
// its last line. Blanking keeps every byte's line and column, so positions
// stay those of the text as given. ok is false when there is nothing to
// blank.
func BlankPrompts(data []byte) ([]byte, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	first := -1
	for i, l := range lines {
		if len(bytes.TrimSpace(l)) > 0 {
			first = i
			break
		}
	}
	if first < 0 || !shellLine(lines[first]) {
		return data, false
	}
	next := -1
	for i := first + 1; i < len(lines); i++ {
		if t := bytes.TrimSpace(lines[i]); len(t) > 0 {
			if t[0] == '{' || t[0] == '[' {
				next = i
			}
			break
		}
	}
	if next < 0 {
		return data, false
	}
	out := make([]byte, 0, len(data))
	for i, l := range lines {
		if i == first || i > next && shellLine(l) {
			l = blank(l)
		}
		out = append(out, l...)
	}
	return out, true
}

// shellLine reports whether a line is a shell prompt or a command that
// prints CONFIG_DB.
func shellLine(l []byte) bool {
	t := string(bytes.TrimSpace(l))
	if t == "" || t[0] == '{' || t[0] == '[' || t[0] == '"' || t[0] == '}' || t[0] == ']' {
		return false
	}
	if strings.Contains(t, "$ ") || strings.HasSuffix(t, "$") || strings.HasSuffix(t, "#") || strings.Contains(t, "# ") {
		return true
	}
	for _, c := range []string{"show ", "sudo ", "sonic-cfggen", "cat ", "sonic-db-cli", "redis-cli"} {
		if strings.HasPrefix(t, c) {
			return true
		}
	}
	return false
}

// blank replaces a line's bytes by spaces, keeping its line break.
func blank(l []byte) []byte {
	out := bytes.Repeat([]byte(" "), len(l))
	if n := len(l); n > 0 && l[n-1] == '\n' {
		out[n-1] = '\n'
		if n > 1 && l[n-2] == '\r' {
			out[n-2] = '\r'
		}
	}
	return out
}
