package sonic

import (
	"bytes"
	"slices"
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

// VarJSON reads one table pasted as `sonic-cfggen -d --var-json TABLE`
// prints it: the table's rows without its name, below the command line
// that names it. Given the paste (data) and the same with its shell lines
// blanked (BlankPrompts), it returns the blanked text with the command's
// line rewritten as the table's opening, `{"TABLE":` in its first columns,
// and the closing brace after the rest, so every row keeps its line and
// column. ok is false when the first line is no such command.
func VarJSON(data, blanked []byte) ([]byte, bool) {
	first, end := bytes.TrimLeft(data, " \t\r\n"), 0
	if end = bytes.IndexByte(first, '\n'); end < 0 {
		return nil, false
	}
	words := strings.Fields(string(first[:end]))
	i := slices.Index(words, "--var-json")
	if i < 0 || i+1 >= len(words) || len(data) != len(blanked) {
		return nil, false
	}
	name := strings.Trim(words[i+1], `"'`)
	if !tableName(name) {
		return nil, false
	}
	start := len(data) - len(first)
	open := `{"` + name + `":`
	out := append([]byte{}, blanked...)
	copy(out[start:], open)
	return append(out, "}\n"...), true
}

// FieldsOnly reports a JSON object whose every member is an object of
// plain values: the fields of rows, or the rows of one table, given
// without the table that holds them (`sonic-cfggen -d --var-json TABLE`
// cut from its command line), which lint cannot place. It returns the
// first member, for the message.
func (db *ConfigDB) FieldsOnly() (Value, bool) {
	skipped := map[string]bool{}
	for _, v := range db.Skipped {
		skipped[v.Text] = true
	}
	var first Value
	for name, tab := range db.Tables {
		if len(tab) == 0 {
			return Value{}, false
		}
		for key, row := range tab {
			if len(row) > 0 || !skipped[name+"|"+key] {
				return Value{}, false
			}
		}
		if at := db.tablePos[name]; first.Line == 0 || at.Line < first.Line {
			first = at
		}
	}
	return first, first.Line > 0
}
