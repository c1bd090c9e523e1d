package ingest

import (
	"bytes"
	"slices"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// Log records. What a log store writes for each line a program printed,
// the line being one field of it:
//
//   - JSON lines with the text in "log" beside "stream" or "time":
//     Docker's json-file driver ({"log":"...\n","stream":"stderr",
//     "time":"..."}), Fluentd and Fluent Bit forwarding a container's
//     output (with "kubernetes" metadata beside it);
//   - the other JSON records of a log store (see jsonRecordKeys):
//     journald's `journalctl -o json` ("MESSAGE" beside "__CURSOR",
//     "__REALTIME_TIMESTAMP", "_HOSTNAME"), Google Cloud Logging's
//     export ("textPayload" beside "timestamp", "receiveTimestamp" or
//     "logName"), an Elastic document ("message" beside "@timestamp" or
//     "timestamp"), Loki's `logcli query --output=jsonl` ("line" beside
//     "labels" or "timestamp");
//   - CSV exports of a log console, a header naming the message column
//     then one row per line: CloudWatch Logs Insights ("@timestamp,
//     @message"), Azure Monitor's ContainerLog ("TimeGenerated [UTC],
//     LogEntry,..."), Loki and Grafana ("Time,Line"), Splunk ("_time,
//     _raw").
//
// The field is unescaped with, for every byte, its offset in the line as
// read, so that columns still point into the file. A record's field can
// hold what a terminal would have drawn (colour codes written "\u001b["),
// and goes through render like any line.

// messageColumns are the header names of the column that holds the line
// in a log console's CSV export, lower-cased.
var messageColumns = []string{"@message", "message", "log", "logentry", "textpayload", "line", "_raw", "msg"}

// A recordState follows the records of one input: the CSV export's
// message column once its header, the input's first line that is not
// blank, was read.
type recordState struct {
	// begun is set once a line that is not blank was read: a header is
	// looked for only there (a log line "Time,Message" further on is
	// text).
	begun bool
	// col is one more than the message column, 0 outside a CSV export;
	// fields is how many columns the header names.
	col, fields int
	// open is set when the message field of the last row ran past its
	// line, in quotes (a message that ends in a newline): the next line
	// continues it, and the fields after its closing quote end the row.
	open bool
}

// unwrap returns the line a record in b holds, with the offset in b of
// each of its bytes; ok is false when b is no record.
func (rs *recordState) unwrap(b []byte) (field []byte, at []int, ok bool) {
	first := !rs.begun && len(bytes.TrimSpace(b)) > 0
	rs.begun = rs.begun || first
	if rs.open {
		rs.open = false
		end, closed := closingQuote(b, 0)
		if !closed {
			rs.open = true
		}
		field, at = csvUnquote(b, 0, end)
		return field, at, true
	}
	if rs.col > 0 {
		if field, at, ok = rs.row(b); ok {
			return field, at, true
		}
		rs.col = 0
	}
	if i := firstNonSpace(string(b[:min(len(b), 8)])); i < len(b) && b[i] == '{' && mayBeRecord(b) {
		return jsonLogRecord(b)
	}
	if first {
		rs.header(b)
	}
	return nil, nil, false
}

// header takes b for a CSV export's header when one of its columns is a
// message column and every one is a column's name (most lines stop at
// their first byte that no name holds, before anything is copied).
func (rs *recordState) header(b []byte) {
	if len(b) > 512 || bytes.IndexByte(b, ',') < 0 {
		return
	}
	for _, c := range b {
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || strings.IndexByte(`@_ []().-,"`, c) >= 0) {
			return
		}
	}
	names := strings.Split(string(b), ",")
	col := 0
	for i, n := range names {
		n = strings.Trim(strings.TrimSpace(n), `"`)
		if n == "" {
			return
		}
		for _, m := range messageColumns {
			if strings.EqualFold(n, m) && col == 0 {
				col = i + 1
			}
		}
	}
	if col > 0 {
		rs.col, rs.fields = col, len(names)
	}
}

// row returns the message field of a CSV row of the export: ok only
// when b has the header's number of fields, or ends inside the quotes
// of the message field (whatever its column: the line that closes them
// holds the row's other fields).
func (rs *recordState) row(b []byte) (field []byte, at []int, ok bool) {
	n, i := 0, 0
	for {
		n++
		start, end, next, closed := csvField(b, i)
		if next < 0 {
			return nil, nil, false
		}
		if n == rs.col {
			rs.open = !closed
			field, at = csvUnquote(b, start, end)
		}
		if !closed || next >= len(b) {
			break
		}
		i = next
	}
	if rs.open {
		return field, at, true
	}
	if n != rs.fields || field == nil && at == nil {
		rs.open = false
		return nil, nil, false
	}
	return field, at, true
}

// csvField reads the field that starts at b[i]: it returns where its
// content starts and ends (inside the quotes of a quoted one), where the
// next field starts (past the comma) or len(b), -1 when text follows a
// closing quote, and whether a quoted field closed on this line.
func csvField(b []byte, i int) (start, end, next int, closed bool) {
	if i < len(b) && b[i] == '"' {
		end, closed = closingQuote(b, i+1)
		next = min(end+1, len(b))
		if next < len(b) && b[next] == ',' {
			next++
		} else if closed && next < len(b) {
			return 0, 0, -1, true
		}
		return i + 1, end, next, closed
	}
	j := bytes.IndexByte(b[i:], ',')
	if j < 0 {
		return i, len(b), len(b), true
	}
	return i, i + j, i + j + 1, true
}

// closingQuote returns where the quote that closes a quoted field whose
// content starts at b[i] is ("" inside is a quote), len(b) when none
// does on this line.
func closingQuote(b []byte, i int) (int, bool) {
	for i < len(b) {
		if b[i] == '"' {
			if i+1 < len(b) && b[i+1] == '"' {
				i += 2
				continue
			}
			return i, true
		}
		i++
	}
	return len(b), false
}

// csvUnquote returns b[start:end] with every doubled quote made one, and
// the offset of each byte kept.
func csvUnquote(b []byte, start, end int) ([]byte, []int) {
	field := make([]byte, 0, end-start)
	at := make([]int, 0, end-start+1)
	for i := start; i < end; i++ {
		field = append(field, b[i])
		at = append(at, i)
		if b[i] == '"' && i+1 < end && b[i+1] == '"' {
			i++
		}
	}
	return trimRecordEnd(field, at)
}

// jsonRecordKeys are the keys of a JSON log record's text, each with
// the keys of which one must stand beside it: a key alone is anyone's
// JSON.
var jsonRecordKeys = [...]struct {
	text string
	with []string
}{
	{"log", []string{"stream", "time"}},
	{"MESSAGE", []string{"__CURSOR", "__REALTIME_TIMESTAMP", "_HOSTNAME"}},
	{"textPayload", []string{"timestamp", "receiveTimestamp", "logName"}},
	{"message", []string{"@timestamp", "timestamp"}},
	{"line", []string{"labels", "timestamp"}},
}

// mayBeRecord reports whether b holds, quoted, a key jsonRecordKeys names
// for the text: the quotes are searched for with the key, as the key's
// letters can stand first inside another key or value ("kubernetes",
// "nccl-logger", "MESSAGE_PUMP").
func mayBeRecord(b []byte) bool {
	for _, k := range jsonRecordKeys {
		if bytes.Contains(b, []byte(`"`+k.text+`"`)) {
			return true
		}
	}
	return false
}

// jsonLogRecord returns the text of a JSON log record: the string under
// one of jsonRecordKeys' text keys when one of its companions stands
// beside it. Its top-level keys are scanned and their values skipped
// (strings, numbers, literals, nested objects and arrays); nothing but
// space may follow the record.
func jsonLogRecord(b []byte) ([]byte, []int, bool) {
	i := jsonSpace(b, 0)
	if i >= len(b) || b[i] != '{' {
		return nil, nil, false
	}
	var value [len(jsonRecordKeys)]int
	var other [len(jsonRecordKeys)]bool
	for i = jsonSpace(b, i+1); ; i = jsonSpace(b, i+1) {
		if i >= len(b) || b[i] != '"' {
			return nil, nil, false
		}
		keyEnd, ok := jsonStringEnd(b, i)
		key := b[i+1 : max(keyEnd-1, i+1)]
		if i = jsonSpace(b, keyEnd); !ok || i >= len(b) || b[i] != ':' {
			return nil, nil, false
		}
		v := jsonSpace(b, i+1)
		if i, ok = jsonValueEnd(b, v); !ok {
			return nil, nil, false
		}
		for r, k := range jsonRecordKeys {
			if string(key) == k.text && b[v] == '"' {
				value[r] = v + 1 // one more than where the string starts
			}
			other[r] = other[r] || slices.Contains(k.with, string(key))
		}
		if i = jsonSpace(b, i); i < len(b) && b[i] == ',' {
			continue
		}
		if i >= len(b) || b[i] != '}' || jsonSpace(b, i+1) != len(b) {
			return nil, nil, false
		}
		for r := range jsonRecordKeys {
			if value[r] > 0 && other[r] {
				field, at := jsonUnquote(b, value[r])
				return field, at, true
			}
		}
		return nil, nil, false
	}
}

// jsonSpace returns where the JSON white space from b[i] ends.
func jsonSpace(b []byte, i int) int {
	for i < len(b) && (b[i] == ' ' || b[i] == '\t' || b[i] == '\r' || b[i] == '\n') {
		i++
	}
	return i
}

// jsonStringEnd returns where the JSON string that starts at b[i] (a
// quote) ends, past its closing quote; ok is false when it does not
// close or holds a control byte.
func jsonStringEnd(b []byte, i int) (int, bool) {
	for j := i + 1; j < len(b); j++ {
		switch c := b[j]; {
		case c == '\\':
			j++
		case c == '"':
			return j + 1, true
		case c < 0x20:
			return j, false
		}
	}
	return len(b), false
}

// jsonValueEnd returns where the JSON value that starts at b[i] ends.
func jsonValueEnd(b []byte, i int) (int, bool) {
	if i >= len(b) {
		return i, false
	}
	switch b[i] {
	case '"':
		return jsonStringEnd(b, i)
	case '{', '[':
		depth := 0
		for j := i; j < len(b); j++ {
			switch b[j] {
			case '"':
				end, ok := jsonStringEnd(b, j)
				if !ok {
					return end, false
				}
				j = end - 1
			case '{', '[':
				depth++
			case '}', ']':
				if depth--; depth == 0 {
					return j + 1, true
				}
			}
		}
		return len(b), false
	}
	j := i
	for j < len(b) && strings.IndexByte(",}] \t\r\n", b[j]) < 0 {
		j++
	}
	return j, j > i && strings.IndexByte("-0123456789tfn", b[i]) >= 0
}

// jsonUnquote returns the JSON string whose content starts at b[i]
// unescaped, and the offset of each byte: that of the escape that wrote
// it. The string closes (jsonLogRecord scanned it).
func jsonUnquote(b []byte, i int) ([]byte, []int) {
	field := make([]byte, 0, len(b)-i)
	at := make([]int, 0, len(b)-i+1)
	for i < len(b) && b[i] != '"' {
		start := i
		var r rune
		switch {
		case b[i] != '\\':
			field = append(field, b[i])
			at = append(at, i)
			i++
			continue
		case i+1 < len(b) && b[i+1] == 'u' && i+6 <= len(b):
			r = hexRune(b[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) && i+6 <= len(b) && b[i] == '\\' && b[i+1] == 'u' {
				r = utf16.DecodeRune(r, hexRune(b[i+2:i+6]))
				i += 6
			}
		case i+1 < len(b):
			r = rune(b[i+1])
			switch b[i+1] {
			case 'n':
				r = '\n'
			case 'r':
				r = '\r'
			case 't':
				r = '\t'
			case 'b':
				r = '\b'
			case 'f':
				r = '\f'
			}
			i += 2
		default:
			i++
			continue
		}
		n := len(field)
		field = utf8.AppendRune(field, r)
		for range len(field) - n {
			at = append(at, start)
		}
	}
	return trimRecordEnd(field, at)
}

// hexRune reads four hex digits.
func hexRune(h []byte) rune {
	var r rune
	for _, c := range h {
		r <<= 4
		switch {
		case c >= '0' && c <= '9':
			r |= rune(c - '0')
		case c >= 'a' && c <= 'f':
			r |= rune(c - 'a' + 10)
		case c >= 'A' && c <= 'F':
			r |= rune(c - 'A' + 10)
		}
	}
	return r
}

// trimRecordEnd takes the line end a record keeps of the line off its
// field.
func trimRecordEnd(field []byte, at []int) ([]byte, []int) {
	for len(field) > 0 && (field[len(field)-1] == '\n' || field[len(field)-1] == '\r') {
		field, at = field[:len(field)-1], at[:len(at)-1]
	}
	if field == nil {
		field = []byte{}
	}
	return field, at
}
