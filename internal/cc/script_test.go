package cc

import (
	"flag"
	"fmt"
	"strconv"
	"strings"
	"testing"

	"rocelab/internal/script"
	"rocelab/internal/unit"
)

var rewrite = flag.Bool("rewrite", false, "rewrite the expected output of testdata/*.txt")

// TestScripts runs the stories in testdata/*.txt. A script is prose (lines
// starting with #, and blank lines) and commands; each command is followed
// by a "----" line and its expected output, ending at a blank line. Run with
// -rewrite to regenerate the outputs, then read the diff.
//
// Commands (times like 10us, sizes like 4096 or 10MB, rates like 100G):
//
//	preset NAME line=R [knob=V ...]  a fresh reaction point and NP
//	cnp t=T [n=N every=D]            a CNP arrives (N CNPs, from T every D)
//	send t=T bytes=B [n=N every=D]   N data packets of B bytes, from T every D
//	advance t=T [quiet]              run the timers due up to T, a line each
//	print t=T                        the state, α as at T
//	ce t=T                           a CE-marked packet reaches the NP
//	np t=T                           run the NP's deferred CNPs due up to T
func TestScripts(t *testing.T) {
	script.RunAll(t, "testdata/*.txt", *rewrite, func(*testing.T) func(script.Command) (string, error) {
		var s story
		return s.exec
	})
}

// story is the state of one story: a reaction point and a notification
// point built from one configuration.
type story struct {
	cfg DCQCNConfig
	rp  *DCQCN
	np  NP
}

func (s *story) exec(c script.Command) (string, error) {
	kv, flags := c.Args, c.Flags
	if c.Name != "preset" && s.rp == nil {
		return "", fmt.Errorf("no preset yet")
	}
	var now unit.Time
	if v, ok := kv["t"]; ok {
		var err error
		if now, err = unit.ParseTime(v); err != nil {
			return "", err
		}
	}
	var b strings.Builder
	switch c.Name {
	case "preset":
		return s.preset(flags, kv)
	case "cnp":
		if _, ok := kv["n"]; ok {
			return s.cnps(now, kv)
		}
		s.steps(&b, now, 12)
		s.rp.OnCNP(now)
		fmt.Fprintf(&b, "t=%v cnp: %s", now, s.state(now))
	case "send":
		return s.send(now, kv)
	case "advance":
		limit := 12
		if len(flags) > 0 && flags[0] == "quiet" {
			limit = 0
		}
		s.steps(&b, now, limit)
		fmt.Fprintf(&b, "t=%v %s", now, s.state(now))
	case "print":
		fmt.Fprintf(&b, "t=%v %s", now, s.state(now))
	case "ce":
		if s.np.OnCE(now) {
			fmt.Fprintf(&b, "t=%v cnp sent", now)
		} else {
			fmt.Fprintf(&b, "t=%v held back", now)
		}
	case "np":
		for d := s.np.NextDeadline(); d <= now; d = s.np.NextDeadline() {
			if s.np.OnDeadline(d) {
				fmt.Fprintf(&b, "t=%v deferred cnp sent\n", d)
			}
		}
		fmt.Fprintf(&b, "t=%v np idle until %s", now, fmtTime(s.np.NextDeadline()))
	default:
		return "", fmt.Errorf("unknown command %q", c.Name)
	}
	return b.String(), nil
}

func (s *story) preset(flags []string, kv map[string]string) (string, error) {
	if len(flags) != 1 {
		return "", fmt.Errorf("preset wants one name")
	}
	c, err := Preset(flags[0])
	if err != nil {
		return "", err
	}
	line, err := unit.ParseRate(kv["line"])
	if err != nil {
		return "", err
	}
	var set []string
	for _, n := range Names() {
		if v, ok := kv[n]; ok {
			x, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				return "", err
			}
			if err := c.Set(n, x); err != nil {
				return err.Error(), nil
			}
			set = append(set, n+"="+v)
			delete(kv, n)
		}
	}
	delete(kv, "line")
	if len(kv) > 0 {
		return "", fmt.Errorf("unknown arguments %v", kv)
	}
	s.cfg, s.rp, s.np = c, c.New(line), c.NewNP()
	out := fmt.Sprintf("%s variant at %v, rate %s", c.Variant, line, fmtRate(s.rp.Rate()))
	if len(set) > 0 {
		out += "; " + strings.Join(set, " ")
	}
	return out, nil
}

// repeat parses n= and every=.
func repeat(kv map[string]string) (int, unit.Time, error) {
	n, every := 1, unit.Time(0)
	if v, ok := kv["n"]; ok {
		var err error
		if n, err = strconv.Atoi(v); err != nil {
			return 0, 0, err
		}
		if every, err = unit.ParseTime(kv["every"]); err != nil {
			return 0, 0, err
		}
	}
	return n, every, nil
}

// cnps feeds n CNPs from now every `every` and sums up what they caused.
func (s *story) cnps(now unit.Time, kv map[string]string) (string, error) {
	n, every, err := repeat(kv)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	before := s.rp.Stats()
	t := now
	for i := 0; i < n; i++ {
		t = now + unit.Time(i)*every
		s.steps(&b, t, 0)
		s.rp.OnCNP(t)
	}
	d := diff(before, s.rp.Stats())
	fmt.Fprintf(&b, "%d CNPs, %v..%v: decreases %d; timer steps %d; releases %d\n", n, now, t, d.Decreases, d.TimerIncreases, d.Releases)
	fmt.Fprintf(&b, "t=%v %s", t, s.state(t))
	return b.String(), nil
}

// send feeds n packets of bytes each, from now every `every`, running the
// timers due before each, and sums up the steps they caused.
func (s *story) send(now unit.Time, kv map[string]string) (string, error) {
	size, err := unit.ParseBytes(kv["bytes"])
	if err != nil {
		return "", err
	}
	n, every, err := repeat(kv)
	if err != nil {
		return "", err
	}
	var b strings.Builder
	byPhase := map[Phase]int64{}
	before := s.rp.Stats()
	t := now
	for i := 0; i < n; i++ {
		t = now + unit.Time(i)*every
		s.steps(&b, t, 0)
		bi := s.rp.Stats().ByteIncreases
		s.rp.OnSend(t, int(size))
		byPhase[s.rp.LastPhase()] += s.rp.Stats().ByteIncreases - bi
	}
	d := diff(before, s.rp.Stats())
	fmt.Fprintf(&b, "sent %d × %d B, %v..%v: byte steps fr=%d ai=%d hai=%d; timer steps %d; decreases %d; releases %d\n",
		n, size, now, t, byPhase[FastRecovery], byPhase[AdditiveIncrease], byPhase[HyperIncrease],
		d.TimerIncreases, d.Decreases, d.Releases)
	fmt.Fprintf(&b, "t=%v %s", t, s.state(t))
	return b.String(), nil
}

// steps runs the timers due up to now, printing a line for each of the
// first max and a count of the rest.
func (s *story) steps(b *strings.Builder, now unit.Time, limit int) {
	shown, hidden := 0, 0
	for d := s.rp.NextDeadline(); d <= now; d = s.rp.NextDeadline() {
		before := s.rp.Stats()
		s.rp.OnDeadline(d)
		if shown >= limit {
			hidden++
			continue
		}
		shown++
		var what []string
		df := diff(before, s.rp.Stats())
		if df.TimerIncreases > 0 {
			what = append(what, "timer "+s.rp.LastPhase().String())
		}
		if df.Decreases > 0 {
			what = append(what, "decrease")
		}
		if df.Releases > 0 {
			what = append(what, "release")
		}
		fmt.Fprintf(b, "t=%v %s: %s\n", d, strings.Join(what, ", "), s.state(d))
	}
	if hidden > 0 && limit > 0 {
		fmt.Fprintf(b, "... %d more timer steps\n", hidden)
	}
}

func diff(a, b DCQCNStats) DCQCNStats {
	return DCQCNStats{
		CNPs:           b.CNPs - a.CNPs,
		Decreases:      b.Decreases - a.Decreases,
		TimerIncreases: b.TimerIncreases - a.TimerIncreases,
		ByteIncreases:  b.ByteIncreases - a.ByteIncreases,
		Releases:       b.Releases - a.Releases,
	}
}

func (s *story) state(now unit.Time) string {
	tt, bc := s.rp.Stages()
	st := fmt.Sprintf("rate=%s target=%s alpha=%.6f T=%d BC=%d next=%s",
		fmtRate(s.rp.Rate()), fmtRate(s.rp.Target()), s.rp.Alpha(now), tt, bc, fmtTime(s.rp.NextDeadline()))
	if !s.rp.Limited() {
		st += " (unlimited)"
	}
	return st
}

func fmtRate(r unit.BitRate) string {
	return strconv.FormatFloat(float64(r)/float64(unit.Gbps), 'f', 6, 64) + "G"
}

func fmtTime(t unit.Time) string {
	if t == unit.MaxTime {
		return "never"
	}
	return t.String()
}
