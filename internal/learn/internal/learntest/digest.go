package learntest

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"math"
	"os"
	"strings"
	"testing"
)

// Digest returns the hex SHA-256 of predictions' IEEE-754 bits, each
// little-endian: two prediction vectors have the same digest exactly
// when they are bit-identical (NaN payloads and −0 included).
func Digest(pred []float64) string {
	h := sha256.New()
	var b [8]byte
	for _, v := range pred {
		binary.LittleEndian.PutUint64(b[:], math.Float64bits(v))
		h.Write(b[:])
	}
	return hex.EncodeToString(h.Sum(nil))
}

// Recorded is one line of a file of recorded results: a case name and the
// text recorded for it (the rest of the line).
type Recorded struct{ Name, Text string }

// ReadRecorded reads a file of "name text" lines, in file order, failing
// the test if it cannot or a line has no space.
func ReadRecorded(t testing.TB, path string) []Recorded {
	t.Helper()
	fh, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer fh.Close()
	var out []Recorded
	sc := bufio.NewScanner(fh)
	for sc.Scan() {
		name, text, ok := strings.Cut(sc.Text(), " ")
		if !ok {
			t.Fatalf("%s: bad line %q", path, sc.Text())
		}
		out = append(out, Recorded{name, text})
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return out
}

// WriteRecorded writes recs as "name text" lines to path.
func WriteRecorded(t testing.TB, path string, recs []Recorded) {
	t.Helper()
	var sb strings.Builder
	for _, r := range recs {
		sb.WriteString(r.Name + " " + r.Text + "\n")
	}
	if err := os.WriteFile(path, []byte(sb.String()), 0o644); err != nil {
		t.Fatal(err)
	}
}
