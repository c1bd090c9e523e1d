package sonic

import (
	"bytes"
	"strings"
)

// Shell lines pasted around a CONFIG_DB dump, blanked so the JSON reads.

// BlankPrompts returns data with the shell lines around a pasted JSON
// dump blanked out: first lines that are a prompt, a command
// ("admin@sonic:~$ show runningconfiguration all", "$ sudo sonic-cfggen -d
// --print-data") or a Markdown code fence (```json, as an issue or a chat
// quotes the dump) followed by a line opening the JSON, and such lines after
// its last line; and the "HOST | SUCCESS => " Ansible's ad-hoc output
// prints before a module's JSON, on the JSON's first line. Blanking keeps
// every byte's line and column, so positions stay those of the text as
// given. ok is false when there is nothing to blank.
func BlankPrompts(data []byte) ([]byte, bool) {
	lines := bytes.SplitAfter(data, []byte("\n"))
	head, next, lead := -1, -1, 0
	for i, l := range lines {
		t := bytes.TrimSpace(l)
		if len(t) == 0 {
			continue
		}
		if t[0] == '{' || t[0] == '[' {
			next = i
			break
		}
		if lead = ansibleHeader(l); lead > 0 {
			next = i
			break
		}
		if !shellLine(l) {
			break
		}
		head = i
	}
	if head < 0 && lead == 0 || next < 0 {
		return data, false
	}
	out := make([]byte, 0, len(data))
	for i, l := range lines {
		switch {
		case i <= head || i > next && shellLine(l):
			l = blank(l)
		case i == next && lead > 0:
			l = append(blank(l[:lead]), l[lead:]...)
		}
		out = append(out, l...)
	}
	return out, true
}

// ansibleHeader returns the length of the "HOST | SUCCESS => " that
// Ansible's ad-hoc output (its minimal callback) prints before a module's
// JSON result on the result's first line, as `ansible DUT -m config_facts
// -a "host=DUT source=running"` prints a SONiC switch's config; 0 when the
// line is no such header.
func ansibleHeader(l []byte) int {
	host, rest, ok := bytes.Cut(l, []byte(" | "))
	if !ok || len(bytes.TrimSpace(host)) == 0 || bytes.ContainsAny(bytes.TrimSpace(host), " \t") {
		return 0
	}
	for _, state := range []string{"SUCCESS => ", "CHANGED => "} {
		if json, ok := bytes.CutPrefix(rest, []byte(state)); ok {
			if t := bytes.TrimSpace(json); len(t) > 0 && t[0] == '{' {
				return len(l) - len(json)
			}
		}
	}
	return 0
}

// shellLine reports whether a line is a shell prompt or a command that
// prints CONFIG_DB.
func shellLine(l []byte) bool {
	t := string(bytes.TrimSpace(l))
	if strings.HasPrefix(t, "```") {
		return true
	}
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
// prints it, or as jq picks it out of a dump (`show runningconfiguration
// all | jq .TABLE`): the table's rows without its name, below the command
// naming it. Given the paste (data) and the same with its shell lines
// blanked (BlankPrompts), it returns the blanked text with the command's
// line rewritten as the table's opening, `{"TABLE":` in its first columns,
// and the closing brace after the rest, so every row keeps its line and
// column. ok is false when no line before the JSON is such a command.
func VarJSON(data, blanked []byte) ([]byte, bool) {
	if len(data) != len(blanked) {
		return nil, false
	}
	for start := 0; start < len(data); {
		end := bytes.IndexByte(data[start:], '\n')
		if end < 0 {
			return nil, false
		}
		line := data[start : start+end]
		if t := bytes.TrimSpace(line); len(t) > 0 && (t[0] == '{' || t[0] == '[') {
			return nil, false
		}
		if name, ok := varJSONTable(string(line)); ok && bytes.Equal(bytes.TrimSpace(blanked[start:start+end]), nil) {
			out := append([]byte{}, blanked...)
			copy(out[start:], `{"`+name+`":`)
			return append(out, "}\n"...), true
		}
		start += end + 1
	}
	return nil, false
}

// varJSONTable is the table a command line prints alone: the word after
// sonic-cfggen's --var-json (or joined to it by "="), or jq's filter .TABLE
// (quoted or not, after jq's flags such as -S or -r).
func varJSONTable(line string) (string, bool) {
	words := strings.Fields(line)
	for i, w := range words {
		var name string
		switch {
		case strings.HasPrefix(w, "--var-json="):
			name = strings.Trim(w[len("--var-json="):], `"'`)
		case w == "--var-json" && i+1 < len(words):
			name = strings.Trim(words[i+1], `"'`)
		case w == "jq":
			j := i + 1
			for j < len(words) && strings.HasPrefix(words[j], "-") {
				j++
			}
			if j == len(words) {
				continue
			}
			name = strings.Trim(words[j], `"'`)
			if !strings.HasPrefix(name, ".") {
				continue
			}
			name = name[1:]
		default:
			continue
		}
		// The opening must fit where the command was.
		return name, tableName(name) && len(name)+4 <= len(line)
	}
	return "", false
}

// FieldsOnly reports a JSON object whose every member is an object of
// plain values: the fields of rows, or the rows of one table, given
// without the table that holds them (`sonic-cfggen -d --var-json TABLE`
// cut from its command line), which lint cannot place. The fields must be
// named as CONFIG_DB names them, in lower case (pfc_enable, or a map's
// "3"): a tool's JSON output (portstat's STATE, RX_OK) is no config's rows.
// It returns the first member, for the message.
func (db *ConfigDB) FieldsOnly() (Value, bool) {
	var first Value
	for name, tab := range db.Tables {
		if len(tab) == 0 {
			return Value{}, false
		}
		for key, row := range tab {
			if len(row) > 0 || !db.wasSkipped(name+"|"+key) || strings.ToLower(key) != key {
				return Value{}, false
			}
		}
		if at := db.tablePos[name]; first.Line == 0 || at.Line < first.Line {
			first = at
		}
	}
	return first, first.Line > 0
}
