package sonic

import (
	"strconv"
	"strings"
)

// ParseRedis reads CONFIG_DB rows as the Redis tools print them, one
// `hgetall` per row:
//
//	admin@sonic:~$ redis-cli -n 4 hgetall "PORT_QOS_MAP|Ethernet0"
//	 1) "dscp_to_tc_map"
//	 2) "AZURE"
//	admin@sonic:~$ sonic-db-cli CONFIG_DB hgetall 'PFC_WD|Ethernet0'
//	{'action': 'drop', 'detection_time': '200', 'restoration_time': '200'}
//
// Other lines are ignored. ok is false when no row was read.
func ParseRedis(name string, data []byte) (*ConfigDB, bool) {
	db := &ConfigDB{File: name, Tables: map[string]Table{}, tablePos: map[string]Value{}}
	db.lines = strings.Split(string(data), "\n")
	var row map[string]Value
	var field *Value
	rows := 0
	for i, raw := range db.lines {
		t := strings.TrimSpace(raw)
		ln := i + 1
		if key, ok := hgetallKey(t); ok {
			table, k, _ := strings.Cut(key, "|")
			tab, ok := db.Tables[table]
			if !ok {
				tab = Table{}
				db.Tables[table] = tab
				db.tablePos[table] = Value{Text: table, Line: ln, Col: 1}
			}
			if _, dup := tab[k]; dup {
				db.Duplicates = append(db.Duplicates, Value{Text: key, Line: ln, Col: 1})
			}
			row, field = map[string]Value{}, nil
			tab[k] = row
			rows++
			continue
		}
		if row == nil {
			continue
		}
		if strings.HasPrefix(t, "{") && strings.HasSuffix(t, "}") {
			for f, v := range pyDict(t) {
				// At the value's quote, past the field's "'f': ".
				col := strings.Index(raw, "'"+f+"'") + 1
				if i := strings.Index(raw, "'"+f+"': '"); i >= 0 {
					col = i + len(f) + 5
				}
				row[f] = Value{Text: unref(v), Line: ln, Col: col}
			}
			row = nil
			continue
		}
		// " 1) "dscp_to_tc_map"": odd items are fields, even ones values.
		num, val, ok := strings.Cut(t, ") ")
		n, err := strconv.Atoi(num)
		if !ok || err != nil || n < 1 || len(val) < 2 || val[0] != '"' || val[len(val)-1] != '"' {
			if t != "" {
				row, field = nil, nil
			}
			continue
		}
		val = val[1 : len(val)-1]
		col := strings.Index(raw, "\"") + 2
		if n%2 == 1 {
			field = &Value{Text: val, Line: ln, Col: col}
			continue
		}
		if field != nil {
			row[field.Text] = Value{Text: unref(val), Line: ln, Col: col}
			field = nil
		}
	}
	return db, rows > 0
}

// hgetallKey reads the key of a `redis-cli ... hgetall KEY` or
// `sonic-db-cli CONFIG_DB hgetall KEY` command line.
func hgetallKey(t string) (string, bool) {
	low := asciiLower(t) // same length as t, so its indices are t's
	i := strings.Index(low, "hgetall ")
	if i < 0 || !strings.Contains(low, "redis-cli") && !strings.Contains(low, "sonic-db-cli") && !strings.Contains(low, "> hgetall") {
		return "", false
	}
	k := strings.TrimSpace(t[i+len("hgetall "):])
	k = strings.Trim(k, "'\"")
	if !strings.Contains(k, "|") || strings.ContainsAny(k, " \t") {
		return "", false
	}
	return k, true
}

// pyDict reads the dict sonic-db-cli prints: {'a': 'b', 'c': 'd'}.
func pyDict(t string) map[string]string {
	out := map[string]string{}
	for _, part := range strings.Split(strings.Trim(t, "{}"), "', '") {
		k, v, ok := strings.Cut(part, "': '")
		if !ok {
			continue
		}
		out[strings.Trim(k, "' ")] = strings.Trim(v, "' ")
	}
	return out
}

// asciiLower lowers ASCII letters only, keeping every byte where it is.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
