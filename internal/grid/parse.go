package grid

import (
	"cmp"
	"fmt"
	"maps"
	"slices"
	"strings"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"

	"github.com/misslab/misslab/internal/sim"
	"github.com/misslab/misslab/internal/suggest"
)

// ParseOptions tune Parse and ParseFile. It has no field at present:
// Parse ignores it, and callers pass the zero value. Pipelines and their settings are always validated with the
// learn package (names, keys, ranges), so a parsed grid never holds a
// pipeline that a worker would refuse.
type ParseOptions struct{}

// Limits that keep a typo from expanding into an unmanageable sweep.
const (
	MaxScenarios   = 100_000     // scenarios per sweep (a grid file or a Submit)
	MaxRepetitions = 10_000_000  // repetitions per sweep
	MaxPipelines   = 256         // pipelines per sweep
	MaxJobs        = 100_000_000 // scenarios × repetitions; job numbers fit an int32
	// MaxFileScenarios bounds the scenarios of all the sweeps of one file
	// together (each costs about 650 bytes while a file is expanded), so
	// that many small sweeps cannot add up to gigabytes.
	MaxFileScenarios = MaxScenarios
)

// ParseFile reads and parses the grid file at path; see Parse. A file
// larger than MaxFileBytes is refused before it is read.
func ParseFile(path string, opts ParseOptions) (*File, error) {
	src, err := readFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(src, path, opts)
}

// Parse parses a grid file (HCL native syntax, see examples/README.md)
// and expands every sweep. Each scenario is sim.Defaults(model) with the
// file's values, validated by sim.Scenario.Validate; scenarios come from
// nested loops over model, d, rho, noise, n_train, n_test, eta,
// mechanism, rate (outermost first). eta is only accepted when every
// model of the sweep is "prop2". Models without Gaussian covariates get rho 0
// and mechanism "none" gets rate 0 and no columns, each once. Pipelines
// keep file order, with "bayes/oracle" last. filename is used in
// diagnostics only. On any problem Parse returns an *Error listing every
// diagnostic found, as "file:line:column: field: message" lines; the
// error wraps ErrInvalid. A file past one of the limits (MaxFileBytes,
// MaxDepth, MaxListLength, MaxBlocks, MaxTokens, MaxNumberLength,
// MaxExponent, MaxStringPieces) fails with a single "limit" diagnostic
// before it is parsed, as does (with field "syntax") invalid UTF-8, a
// non-ASCII character outside strings and comments, or an unterminated /*
// comment.
func Parse(src []byte, filename string, opts ParseOptions) (*File, error) {
	if err := checkBounds(src, filename); err != nil {
		return nil, err
	}
	p := &parser{}
	hf, hd := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if hd.HasErrors() {
		p.ds.addHCL(hd, "syntax", hcl.Range{Filename: filename, Start: hcl.InitialPos})
		return nil, p.ds.err()
	}
	body := hf.Body.(*hclsyntax.Body)
	if !p.literalOnly(body) {
		return nil, p.ds.err()
	}
	p.check(body, "", fileSchema)
	f := &File{Path: filename}
	names := map[string]hcl.Range{}
	for _, b := range body.Blocks {
		if b.Type != "sweep" || !p.labels(b, "sweep", 1) {
			continue
		}
		if prev, dup := names[b.Labels[0]]; dup {
			p.ds.add(b.LabelRanges[0], "sweep", "sweep %q is defined twice (first at line %d)",
				b.Labels[0], prev.Start.Line)
		}
		names[b.Labels[0]] = b.LabelRanges[0]
		if msg := nameProblem(b.Labels[0]); msg != "" {
			p.ds.add(b.LabelRanges[0], "sweep", "%s", msg)
		}
		if s := p.sweep(b); s != nil {
			f.Sweeps = append(f.Sweeps, s)
		}
	}
	if len(names) == 0 && len(p.ds.list) == 0 {
		p.ds.add(body.SrcRange, "sweep", `the file defines no sweep; add sweep "name" { ... }`)
	}
	if err := p.ds.err(); err != nil {
		return nil, err
	}
	return f, nil
}

// WithRepetitions returns a copy of f in which every sweep runs n
// repetitions instead of the number in the file, so that CI can run a
// grid at reduced size. Repetition r draws the same data whatever the
// total, so the first n repetitions of a full run are the same jobs.
// Scenarios and pipelines are shared with f. n must be ≥ 1, and no sweep
// may pass MaxJobs with n repetitions; errors wrap ErrInvalid.
func (f *File) WithRepetitions(n int) (*File, error) {
	if n < 1 || n > MaxRepetitions {
		return nil, fmt.Errorf("%w: repetitions = %d outside [1, %d]", ErrInvalid, n, MaxRepetitions)
	}
	out := &File{Path: f.Path, Sweeps: make([]*Sweep, len(f.Sweeps))}
	for i, s := range f.Sweeps {
		if err := CheckSizes(int64(n), int64(s.Units()), int64(len(s.Scenarios)), int64(len(s.Pipelines))); err != nil {
			return nil, fmt.Errorf("sweep %q: %w", s.Name, err)
		}
		c := *s
		c.Repetitions = n
		out.Sweeps[i] = &c
	}
	return out, nil
}

type parser struct {
	ds         diags
	nScenarios int // expanded so far in the file, against MaxFileScenarios
	// ext lists the external methods the current sweep declares
	// (`methods`), extAt where each is written.
	ext   []string
	extAt map[string]hcl.Range
}

// schema names the attributes and blocks a body accepts; anyAttr accepts
// every attribute name (learner settings).
type schema struct {
	attrs    []string
	blocks   []string
	anyAttr  bool
	children map[string]schema // nested block schemas, to say where a misplaced name belongs
}

var (
	dataSchema     = schema{attrs: []string{"model", "d", "rho", "noise", "n_train", "n_test", "eta", "task", "scale", "threshold"}}
	missSchema     = schema{attrs: []string{"mechanism", "rate", "columns"}}
	pipelineSchema = schema{attrs: []string{"learners", "strategies", "names"}}
	sweepSchema    = schema{attrs: []string{"seed", "repetitions", "bayes", "methods"},
		blocks: []string{"data", "table", "split", "missingness", "pipelines", "learner", "strategy"},
		children: map[string]schema{"data": dataSchema, "table": tableSchema, "split": splitSchema,
			"missingness": missSchema, "pipelines": pipelineSchema}}
	fileSchema = schema{blocks: []string{"sweep"}, children: map[string]schema{"sweep": sweepSchema}}
)

// check reports the attributes and blocks of body that s does not name,
// with a suggestion when one is close.
func (p *parser) check(body *hclsyntax.Body, prefix string, s schema) {
	known := append(slices.Clone(s.attrs), s.blocks...)
	for _, a := range attrsInOrder(body) {
		switch {
		case s.anyAttr || slices.Contains(s.attrs, a.Name):
		case slices.Contains(s.blocks, a.Name):
			p.ds.add(a.NameRange, join(prefix, a.Name), "%s is a block: write %s { ... } without \"=\"", a.Name, a.Name)
		case s.parentOf(a.Name) != "":
			p.ds.add(a.NameRange, join(prefix, a.Name), "%s belongs inside a %s block", a.Name, s.parentOf(a.Name))
		default:
			p.ds.add(a.NameRange, join(prefix, a.Name), "unknown attribute %q%s", a.Name, hint(a.Name, known))
		}
	}
	for _, b := range body.Blocks {
		switch {
		case slices.Contains(s.blocks, b.Type):
		case slices.Contains(s.attrs, b.Type):
			p.ds.add(b.TypeRange, join(prefix, b.Type), "%s is an attribute: write %s = value", b.Type, b.Type)
		case s.parentOf(b.Type) != "":
			p.ds.add(b.TypeRange, join(prefix, b.Type), "%s belongs inside a %s block", b.Type, s.parentOf(b.Type))
		default:
			p.ds.add(b.TypeRange, join(prefix, b.Type), "unknown block %q%s", b.Type, hint(b.Type, known))
		}
	}
}

// parentOf returns the nested block whose schema names name, or "".
func (s schema) parentOf(name string) string {
	for _, child := range slices.Sorted(maps.Keys(s.children)) {
		c := s.children[child]
		if slices.Contains(c.attrs, name) || slices.Contains(c.blocks, name) {
			return child
		}
	}
	return ""
}

// hint suggests a close name or else lists the allowed ones.
func hint(name string, known []string) string {
	if s := suggest.Hint(name, known); s != "" {
		return s
	}
	if len(known) == 0 {
		return " (none allowed here)"
	}
	return " (allowed: " + strings.Join(known, ", ") + ")"
}

// labels checks that block b has exactly n labels.
func (p *parser) labels(b *hclsyntax.Block, field string, n int) bool {
	if len(b.Labels) == n {
		return true
	}
	switch n {
	case 0:
		p.ds.add(b.LabelRanges[0], field, "a %s block takes no label", b.Type)
	case 1:
		p.ds.add(b.TypeRange, field, `a %s block takes exactly one label: %s "name" { ... }`, b.Type, b.Type)
	}
	return false
}

// attrsInOrder returns the attributes of body in source order.
func attrsInOrder(body *hclsyntax.Body) []*hclsyntax.Attribute {
	out := make([]*hclsyntax.Attribute, 0, len(body.Attributes))
	for _, a := range body.Attributes {
		out = append(out, a)
	}
	slices.SortFunc(out, func(a, b *hclsyntax.Attribute) int {
		return cmp.Compare(a.SrcRange.Start.Byte, b.SrcRange.Start.Byte)
	})
	return out
}

// blocksOf returns the blocks of body of the given type, in source order,
// after checking their labels.
func (p *parser) blocksOf(body *hclsyntax.Body, typ string, nlabels int) []*hclsyntax.Block {
	var out []*hclsyntax.Block
	for _, b := range body.Blocks {
		if b.Type == typ && p.labels(b, typ, nlabels) {
			out = append(out, b)
		}
	}
	return out
}

// single returns the only block of the given type, or nil; it reports
// repeats.
func (p *parser) single(body *hclsyntax.Body, typ string) *hclsyntax.Block {
	bs := p.blocksOf(body, typ, 0)
	for _, b := range bs[min(1, len(bs)):] {
		p.ds.add(b.TypeRange, typ, "duplicate %s block (first at line %d)", typ, bs[0].TypeRange.Start.Line)
	}
	if len(bs) == 0 {
		return nil
	}
	return bs[0]
}

func join(prefix, name string) string {
	if prefix == "" {
		return name
	}
	return prefix + "." + name
}

// sweep decodes and expands one sweep block; nil when it has errors.
func (p *parser) sweep(b *hclsyntax.Block) *Sweep {
	p.check(b.Body, "", sweepSchema)
	s := &Sweep{Name: b.Labels[0]}
	hdr := b.DefRange()
	ok := true
	if a := b.Body.Attributes["seed"]; a == nil {
		p.ds.add(hdr, "seed", "required attribute is missing (any whole number in [0, 2^64))")
		ok = false
	} else {
		s.Seed, ok = decodeScalar(&p.ds, a, "seed", toUint64)
	}
	var okReps bool
	if a := b.Body.Attributes["repetitions"]; a == nil {
		p.ds.add(hdr, "repetitions", "required attribute is missing (a whole number ≥ 1)")
	} else if s.Repetitions, okReps = decodeScalar(&p.ds, a, "repetitions", toInt); okReps {
		if s.Repetitions < 1 || s.Repetitions > MaxRepetitions {
			p.ds.add(a.Expr.Range(), "repetitions", "repetitions = %d outside [1, %d]", s.Repetitions, MaxRepetitions)
			okReps = false
		}
	}
	scen, okScen := p.dataOrTable(b, s)
	okMethods := p.declaredMethods(b)
	pipes, okPipes := p.pipelines(b)
	okPipes = okPipes && okMethods && p.tasksFit(b, scen, pipes)
	if !ok || !okReps || !okScen || !okPipes || !p.sizes(b, s.Repetitions, (&Sweep{Scenarios: scen}).Units(), len(scen), len(pipes)) {
		return nil
	}
	s.Scenarios, s.Pipelines = scen, pipes
	return s
}

// dataOrTable expands the scenarios of sweep b from its data block
// (simulated) or its table block (a user's table), never both; a table
// sweep's file summary goes to s.TableFile.
func (p *parser) dataOrTable(b *hclsyntax.Block, s *Sweep) ([]sim.Scenario, bool) {
	tb := p.single(b.Body, "table")
	if tb == nil {
		if sb := p.single(b.Body, "split"); sb != nil {
			p.ds.add(sb.TypeRange, "split", "a split block belongs to a sweep with a table block (simulated data draw fresh test sets)")
			return nil, false
		}
		return p.scenarios(b)
	}
	if db := p.single(b.Body, "data"); db != nil {
		p.ds.add(db.TypeRange, "data", "a sweep takes a data block (simulated) or a table block (a real table), not both")
		return nil, false
	}
	scen, tf, ok := p.tableSweep(b, tb)
	s.TableFile = tf
	return scen, ok && len(scen) > 0
}

// sizes applies to sweep b the limits that Sweep.Check applies to a
// Submit (MaxJobs, MaxPipelines), so that a file that parses is never
// refused when it is submitted.
func (p *parser) sizes(b *hclsyntax.Block, reps, units, scenarios, pipelines int) bool {
	field, msg := sizeProblem(int64(reps), int64(units), int64(scenarios), int64(pipelines))
	if field == "" {
		return true
	}
	at := b.DefRange()
	if field == "repetitions" {
		at = b.Body.Attributes["repetitions"].Expr.Range()
	}
	p.ds.add(at, field, "%s", msg)
	return false
}
