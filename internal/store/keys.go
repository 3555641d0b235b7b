package store

import (
	"crypto/sha256"
	"encoding/binary"
	"slices"
	"strconv"
	"strings"
)

// The keys of results derive from canonical text encodings of a scenario
// and a pipeline, defined here and nowhere else for the store: they are
// part of the on-disk format as much as the records are. They equal, byte
// for byte, the encodings the coordinator uses as identities
// (sim.Scenario.Canonical and grid.Pipeline.Canonical, a test of
// internal/storeconv checks it), and testdata/keys.golden pins them.
// Changing one changes every key and needs a migration that rewrites them.

// DrawKey identifies the data a job draws: SHA-256 of the seed and the
// scenario's canonical encoding, truncated to 16 bytes.
type DrawKey [16]byte

// PipeKey identifies a pipeline: SHA-256 of its canonical encoding,
// truncated to 8 bytes.
type PipeKey [8]byte

// NewDrawKey returns the key of (seed, scenario).
func NewDrawKey(seed uint64, sc Scenario) DrawKey {
	h := sha256.Sum256([]byte("seed=" + strconv.FormatUint(seed, 10) + "\x00" + sc.Canonical()))
	var k DrawKey
	copy(k[:], h[:])
	return k
}

// NewPipeKey returns the key of a pipeline.
func NewPipeKey(p Pipeline) PipeKey {
	h := sha256.Sum256([]byte(p.Canonical()))
	var k PipeKey
	copy(k[:], h[:])
	return k
}

// fmtFloat is the float format of the canonical encodings: the shortest
// text that reads back as the same float64.
func fmtFloat(v float64) string { return strconv.FormatFloat(v, 'g', -1, 64) }

// Canonical returns the scenario's canonical encoding, e.g.
// "model=quadratic;d=9;rho=0.5;noise=0.1;n_train=1000;n_test=1000;
// mechanism=mcar;rate=0.2;columns=0,1,2;eta=0" (one line). A table
// scenario encodes its table instead of the simulation parameters.
func (sc Scenario) Canonical() string {
	var b strings.Builder
	if sc.Table != nil {
		b.WriteString("model=table")
		sc.Table.canonical(&b)
	} else {
		b.WriteString("model=" + sc.Model)
		b.WriteString(";d=" + strconv.Itoa(sc.D))
		b.WriteString(";rho=" + fmtFloat(sc.Rho))
		b.WriteString(";noise=" + fmtFloat(sc.Noise))
		b.WriteString(";n_train=" + strconv.Itoa(sc.NTrain))
		b.WriteString(";n_test=" + strconv.Itoa(sc.NTest))
	}
	b.WriteString(";mechanism=" + sc.Mechanism)
	b.WriteString(";rate=" + fmtFloat(sc.Rate))
	b.WriteString(";columns=")
	for i, c := range sc.Columns {
		if i > 0 {
			b.WriteByte(',')
		}
		b.WriteString(strconv.Itoa(c))
	}
	if sc.Table == nil {
		b.WriteString(";eta=" + fmtFloat(sc.Eta))
	}
	if sc.Task != "" && sc.Task != "regression" { // regression keys predate tasks
		b.WriteString(";task=" + sc.Task)
		if sc.Table == nil {
			b.WriteString(";scale=" + fmtFloat(sc.Scale) + ";threshold=" + fmtFloat(sc.Threshold))
		}
	}
	return b.String()
}

// canonical appends the table's part of a scenario's encoding.
func (t *Table) canonical(b *strings.Builder) {
	list := func(key string, v []string) {
		b.WriteString(";" + key + "=[")
		for i, s := range v {
			if i > 0 {
				b.WriteByte(',')
			}
			b.WriteString(strconv.Quote(s))
		}
		b.WriteByte(']')
	}
	b.WriteString(";table=" + t.SHA256 + ";format=" + t.Format + ";target=" + strconv.Quote(t.Target))
	list("drop", t.Drop)
	list("categorical", t.Categorical)
	list("na", t.NA)
	list("features", t.Features)
	if t.Folds >= 2 {
		b.WriteString(";folds=" + strconv.Itoa(t.Folds))
	} else {
		b.WriteString(";test_fraction=" + fmtFloat(t.TestFraction))
	}
}

// Canonical returns the pipeline's canonical encoding: its name, its
// overrides sorted by key ("tree/mia{cp=0.01,minbucket=7}"), and the
// identities of its external methods, learner first, as the first 16 hex
// digits of each ("hgb/native@hgb=3f2a9c1b2d4e5f60"; "unbound" while it
// has none).
func (p Pipeline) Canonical() string {
	c := p.Name
	if len(p.Settings) > 0 {
		s := slices.SortedFunc(slices.Values(p.Settings), func(a, b Setting) int { return strings.Compare(a.Key, b.Key) })
		parts := make([]string, len(s))
		for i, kv := range s {
			parts[i] = kv.Key + "=" + fmtFloat(kv.Value)
		}
		c += "{" + strings.Join(parts, ",") + "}"
	}
	for i, m := range p.Methods {
		sep := ","
		if i == 0 {
			sep = "@"
		}
		id := "unbound"
		if m.ID != "" {
			id = m.ID[:min(16, len(m.ID))]
		}
		c += sep + m.Name + "=" + id
	}
	return c
}

const (
	jobKeyLen    = 16 + 4
	resultKeyLen = jobKeyLen + 8
	sweepIDLen   = 64
)

func jobKey(d DrawKey, unit int) []byte {
	k := make([]byte, jobKeyLen, resultKeyLen)
	copy(k, d[:])
	binary.BigEndian.PutUint32(k[16:], uint32(unit))
	return k
}

func resultKey(d DrawKey, unit int, p PipeKey) []byte {
	return append(jobKey(d, unit), p[:]...)
}

func failureKey(sweepID string, job int) []byte {
	k := make([]byte, 0, sweepIDLen+8)
	k = append(k, sweepID...)
	return binary.BigEndian.AppendUint64(k, uint64(job))
}
