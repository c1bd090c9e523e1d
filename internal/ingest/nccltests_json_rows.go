package ingest

import (
	"io"
	"math"
	"strconv"
	"strings"
)

// The rows of an nccl-tests JSON document's "results", with their values
// rounded as nccl-tests prints them in its table.

// row reads one result row; a row without both halves is kept as
// truncated, as a table row cut short is.
func (j *jsonRun) row() error {
	r := j.run
	start, err := j.open("a result row")
	if err != nil {
		return err
	}
	row := TestRow{Root: -1}
	var halves int
	err = j.members(func(k string, _ jsonAt) error {
		var err error
		switch k {
		case "size":
			row.Size, err = j.integer()
		case "count":
			row.Count, err = j.integer()
		case "type":
			row.Type, err = j.str()
		case "redop":
			row.Redop, err = j.str()
		case "root":
			var s string
			s, err = j.str()
			row.Root = atoiOr(strings.TrimSpace(s), -1)
		case "out_of_place", "in_place":
			h := &row.Out
			if k == "in_place" {
				h = &row.In
			}
			var ok bool
			ok, err = j.half(h)
			if ok {
				halves++
			}
		default:
			err = j.skip()
		}
		return err
	})
	row.Evidence = j.at(start, j.tap.text(j.dec.InputOffset()))
	if err != nil {
		if isCut(err) && row.Evidence.Text != "" && len(r.Truncated) < maxKept {
			r.Truncated = append(r.Truncated, row.Evidence)
		}
		return err
	}
	if halves < 2 {
		if len(r.Truncated) < maxKept {
			r.Truncated = append(r.Truncated, row.Evidence)
		}
		return nil
	}
	j.t.keepRow(r, row)
	return nil
}

// half reads {"time":..,"alg_bw":..,"bus_bw":..,"nwrong":..} ("cpu_time"
// under -C); ok is false for null or a value the table could not print
// as a number.
func (j *jsonRun) half(h *TestHalf) (bool, error) {
	if !j.dec.More() {
		return false, j.fail(io.ErrUnexpectedEOF, "a value")
	}
	seen, valid := 0, true
	null := false
	err := j.objectOrNull(&null, "a half of a row", func(k string, _ jsonAt) error {
		var v float64
		var ok bool
		var err error
		switch k {
		case "time", "cpu_time":
			v, ok, err = j.num()
			h.Time = tableValue(v, 7)
		case "alg_bw":
			v, ok, err = j.num()
			h.AlgBW = tableValue(v, 6)
		case "bus_bw":
			v, ok, err = j.num()
			h.BusBW = tableValue(v, 6)
		case "nwrong":
			v, ok, err = j.num()
			h.Wrong, h.ErrorText = -1, ""
			if ok {
				var good bool
				h.Wrong, h.ErrorText, good = wrongField(strconv.FormatFloat(v, 'g', -1, 64), false)
				valid = valid && good
			}
			return err
		default:
			return j.skip()
		}
		seen++
		valid = valid && ok && !math.IsNaN(v) && !math.IsInf(v, 0) && v >= 0
		return err
	})
	return err == nil && !null && seen == 3 && valid, err
}

// tableValue is v as nccl-tests prints it in a column of width characters
// (getFloatStr): two decimals, else one, else none, else exponent form.
func tableValue(v float64, width int) float64 {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return v
	}
	for prec := 2; prec >= 0; prec-- {
		if s := strconv.FormatFloat(v, 'f', prec, 64); len(s) <= width {
			r, _ := strconv.ParseFloat(s, 64)
			return r
		}
	}
	prec := 0
	if width >= 7 {
		prec = 1
	}
	r, _ := strconv.ParseFloat(strconv.FormatFloat(v, 'e', prec, 64), 64)
	return r
}
