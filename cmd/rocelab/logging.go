package main

import (
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"

	"github.com/spf13/cobra"
)

// Logging flags, shared by every command.
const (
	flagQuiet    = "quiet"
	flagLogLevel = "log-level"
)

func addLogFlags(root *cobra.Command) {
	pf := root.PersistentFlags()
	pf.BoolP(flagQuiet, "q", false, "print only results, warnings and errors: no progress bar, no INFO lines")
	pf.String(flagLogLevel, "", "log level: debug, info, warn or error (default: info, or warn on a terminal where a progress bar shows)")
	_ = root.RegisterFlagCompletionFunc(flagLogLevel, cobra.FixedCompletions([]string{"debug", "info", "warn", "error"}, cobra.ShellCompDirectiveNoFileComp))
}

// logSetup is how a command logs: the logger, and whether it shows a
// progress bar.
type logSetup struct {
	log      *slog.Logger
	progress bool
}

// setupLog reads -q and --log-level. The progress bar shows on a terminal
// unless -q; INFO lines are then off by default, since the bar says how the
// run goes.
func setupLog(cmd *cobra.Command) (logSetup, error) {
	stderr := cmd.ErrOrStderr()
	quiet, _ := cmd.Flags().GetBool(flagQuiet)
	level, _ := cmd.Flags().GetString(flagLogLevel)
	return newLogSetup(stderr, quiet, level, isTerminal(stderr))
}

// newLogSetup logs to stderr, a terminal or not, as -q and --log-level say.
func newLogSetup(stderr io.Writer, quiet bool, level string, terminal bool) (logSetup, error) {
	ls := logSetup{progress: !quiet && terminal}
	lvl := slog.LevelInfo
	switch strings.ToLower(level) {
	case "":
		if quiet || ls.progress {
			lvl = slog.LevelWarn
		}
	case "debug":
		lvl = slog.LevelDebug
	case "info":
		lvl = slog.LevelInfo
	case "warn", "warning":
		lvl = slog.LevelWarn
	case "error":
		lvl = slog.LevelError
	default:
		return ls, usageError("--log-level: expected debug, info, warn or error, got %q", level)
	}
	ls.log = slog.New(slog.NewTextHandler(stderr, &slog.HandlerOptions{Level: lvl, ReplaceAttr: dropTime}))
	return ls, nil
}

// dropTime leaves the wall-clock time out of log lines: rocelab's output
// is a function of its input.
func dropTime(groups []string, a slog.Attr) slog.Attr {
	if len(groups) == 0 && a.Key == slog.TimeKey {
		return slog.Attr{}
	}
	return a
}

// warnf prints a warning line on stderr, whatever the log level: a warning
// is about the input and is never hidden.
func warnf(w io.Writer, format string, args ...any) {
	fmt.Fprintf(w, "rocelab: warning: "+format+"\n", args...)
}

func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	if !ok {
		return false
	}
	st, err := f.Stat()
	return err == nil && st.Mode()&os.ModeCharDevice != 0
}
