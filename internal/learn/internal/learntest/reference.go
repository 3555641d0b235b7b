package learntest

import (
	"os/exec"
	"regexp"
	"strconv"
	"testing"
)

// Reference times a reference package side by side with a benchmark
// that has just run: it runs cmd (a script printing its own per-run CPU
// time), takes the first submatch of re in its output times scale as
// milliseconds per fit + predict (scale 1000 for seconds), and reports it as "<name>-ms" with the ratio
// reference / misslab as "ratio-<name>" (above 1: misslab is faster).
// goMS is misslab's CPU milliseconds per operation in the same run. A
// reference that is not installed (`make references`) or fails is
// skipped with a note, never failing the benchmark.
func Reference(b *testing.B, name string, goMS float64, re *regexp.Regexp, scale float64, cmd ...string) {
	b.Helper()
	if _, err := exec.LookPath(cmd[0]); err != nil {
		b.Logf("%s reference skipped (run `make references`): %v", name, err)
		return
	}
	out, err := exec.Command(cmd[0], cmd[1:]...).CombinedOutput()
	if err != nil {
		b.Logf("%s reference skipped (run `make references`): %v\n%s", name, err, tail(out))
		return
	}
	m := re.FindSubmatch(out)
	if m == nil {
		b.Logf("%s reference skipped: no %q in its output:\n%s", name, re, tail(out))
		return
	}
	v, err := strconv.ParseFloat(string(m[1]), 64)
	if err != nil {
		b.Logf("%s reference skipped: %v", name, err)
		return
	}
	ms := v * scale
	b.ReportMetric(ms, name+"-ms")
	if goMS > 0 {
		b.ReportMetric(ms/goMS, "ratio-"+name)
	}
}

// tail returns the last 2 KiB of out, for a note.
func tail(out []byte) []byte {
	if len(out) > 2048 {
		return out[len(out)-2048:]
	}
	return out
}
