package methods

import (
	"cmp"
	"fmt"
	"maps"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"

	"github.com/misslab/misslab/internal/methodid"
)

// builtinNames are misslab's built-in learner and strategy names, which a
// method may not take (protocol version 1).
var builtinNames = []string{"tree", "ctree", "forest", "boost", "svm", "knn", "linear", "bayes",
	"mean", "median", "constant", "oor", "gaussian", "iterative", "mia", "mia-inf", "surrogate", "block", "prob",
	"majority", "oracle", "native"}

var (
	nameRE = regexp.MustCompile(`^[a-z][a-z0-9_]*$`)
	envRE  = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]*$`)
	// methodAttrs are the attributes of a method block, in protocol order.
	methodAttrs = []string{"kind", "command", "files", "version", "accepts_missing", "tasks", "timeout", "start_timeout", "env"}
	// reservedEnv are the variables the worker sets and env may not change.
	reservedEnv = []string{"HOME", "TMPDIR", "MISSLAB_METHOD", "MISSLAB_PROTOCOL"}
)

// problem is one diagnostic of a methods file.
type problem struct {
	rng    hcl.Range
	method string // "" for problems outside a method block
	msg    string
}

func (p problem) String() string {
	if p.method == "" {
		return fmt.Sprintf("%s: %s", p.rng, p.msg)
	}
	return fmt.Sprintf("%s: method %q: %s", p.rng, p.method, p.msg)
}

// decoder turns a methods file into Configs, collecting every problem.
type decoder struct {
	dir      string
	method   string // the block being decoded
	problems []problem
}

func (d *decoder) add(rng hcl.Range, format string, a ...any) {
	d.problems = append(d.problems, problem{rng: rng, method: d.method, msg: fmt.Sprintf(format, a...)})
}

// addHCL records the errors of HCL diagnostics, prefixed with field.
func (d *decoder) addHCL(hd hcl.Diagnostics, field string, fallback hcl.Range) {
	for _, x := range hd {
		if x.Severity != hcl.DiagError {
			continue
		}
		rng := fallback
		if x.Subject != nil {
			rng = *x.Subject
		}
		msg := x.Summary
		if x.Detail != "" {
			msg += "; " + x.Detail
		}
		if field != "" {
			msg = field + ": " + msg
		}
		d.add(rng, "%s", msg)
	}
}

// err returns nil or a *ConfigError with the problems sorted by position.
func (d *decoder) err() error {
	if len(d.problems) == 0 {
		return nil
	}
	ps := slices.Clone(d.problems)
	slices.SortStableFunc(ps, func(a, b problem) int {
		return cmp.Or(cmp.Compare(a.rng.Start.Line, b.rng.Start.Line), cmp.Compare(a.rng.Start.Column, b.rng.Start.Column))
	})
	out := make([]string, len(ps))
	for i, p := range ps {
		out[i] = p.String()
	}
	return &ConfigError{Problems: out}
}

// decode parses src and decodes its method blocks, in file order, with the
// range of each block's header.
func decode(src []byte, filename, dir string) ([]Config, []hcl.Range, error) {
	d := &decoder{dir: dir}
	hf, hd := hclsyntax.ParseConfig(src, filename, hcl.InitialPos)
	if hd.HasErrors() {
		d.addHCL(hd, "", hcl.Range{Filename: filename, Start: hcl.InitialPos, End: hcl.InitialPos})
		return nil, nil, d.err()
	}
	body := hf.Body.(*hclsyntax.Body)
	for _, a := range attrsInOrder(body) {
		d.add(a.NameRange, `unknown attribute %q (a methods file holds only method "name" { ... } blocks)`, a.Name)
	}
	var cfgs []Config
	var ranges []hcl.Range
	first := map[string]int{}
	for _, b := range body.Blocks {
		if b.Type != "method" {
			d.add(b.TypeRange, `unknown block %q (a methods file holds only method "name" { ... } blocks)`, b.Type)
			continue
		}
		if len(b.Labels) != 1 {
			d.add(b.TypeRange, `a method block takes exactly one label: method "name" { ... }`)
			continue
		}
		d.method = b.Labels[0]
		if line, dup := first[d.method]; dup {
			d.add(b.LabelRanges[0], "defined twice (first at line %d)", line)
		}
		first[d.method] = b.LabelRanges[0].Start.Line
		if cfg, ok := d.block(b); ok {
			cfgs = append(cfgs, cfg)
			ranges = append(ranges, b.DefRange())
		}
		d.method = ""
	}
	if err := d.err(); err != nil {
		return nil, nil, err
	}
	return cfgs, ranges, nil
}

// block decodes one method block; ok is false when it had problems.
func (d *decoder) block(b *hclsyntax.Block) (Config, bool) {
	before := len(d.problems)
	d.checkName(b)
	for _, a := range attrsInOrder(b.Body) {
		if !slices.Contains(methodAttrs, a.Name) {
			d.add(a.NameRange, "unknown attribute %q (allowed: %s)", a.Name, strings.Join(methodAttrs, ", "))
		}
	}
	for _, nb := range b.Body.Blocks {
		d.add(nb.TypeRange, "unknown block %q (a method block takes only attributes: %s)", nb.Type, strings.Join(methodAttrs, ", "))
	}
	attrs := b.Body.Attributes
	cfg := Config{Name: b.Labels[0], Dir: d.dir, Timeout: DefaultTimeout, StartTimeout: DefaultStartTimeout}
	cfg.Kind = d.kind(attrs["kind"], b.DefRange())
	cfg.Command = d.command(attrs["command"], b.DefRange())
	cfg.Files = d.files(attrs["files"])
	cfg.Version = d.str(attrs["version"], "version")
	cfg.AcceptsMissing = d.acceptsMissing(attrs["accepts_missing"], cfg.Kind)
	cfg.Tasks = d.tasks(attrs["tasks"], cfg.Kind)
	cfg.Timeout = d.duration(attrs["timeout"], "timeout", DefaultTimeout)
	cfg.StartTimeout = d.duration(attrs["start_timeout"], "start_timeout", DefaultStartTimeout)
	cfg.Env = d.env(attrs["env"])
	return cfg, len(d.problems) == before
}

// checkName applies the naming rules to b's label.
func (d *decoder) checkName(b *hclsyntax.Block) {
	name, rng := b.Labels[0], b.LabelRanges[0]
	switch {
	case !nameRE.MatchString(name) || len(name) > MaxNameLength:
		d.add(rng, "invalid method name (want ^[a-z][a-z0-9_]*$, at most %d bytes)", MaxNameLength)
	case slices.Contains(builtinNames, name):
		d.add(rng, "%q is the name of a built-in learner or strategy of misslab; choose another", name)
	}
}

// value evaluates a's expression with no variables or functions.
func (d *decoder) value(a *hclsyntax.Attribute, field string) (cty.Value, bool) {
	v, hd := a.Expr.Value(nil)
	if hd.HasErrors() {
		d.addHCL(hd, field, a.Expr.Range())
		return cty.NilVal, false
	}
	if v.IsNull() || !v.IsWhollyKnown() {
		d.add(a.Expr.Range(), "%s must not be null", field)
		return cty.NilVal, false
	}
	return v, true
}

// str decodes an optional string attribute ("" when absent).
func (d *decoder) str(a *hclsyntax.Attribute, field string) string {
	if a == nil {
		return ""
	}
	v, ok := d.value(a, field)
	if !ok {
		return ""
	}
	if v.Type() != cty.String {
		d.add(a.Expr.Range(), "%s must be a string, not %s", field, v.Type().FriendlyName())
		return ""
	}
	return v.AsString()
}

// kind decodes the required kind attribute.
func (d *decoder) kind(a *hclsyntax.Attribute, def hcl.Range) methodid.Kind {
	if a == nil {
		d.add(def, `kind is required ("learner" or "imputer")`)
		return ""
	}
	before := len(d.problems)
	k := methodid.Kind(d.str(a, "kind"))
	if len(d.problems) == before && k != methodid.Learner && k != methodid.Imputer {
		d.add(a.Expr.Range(), `kind = %q is unknown (want "learner" or "imputer")`, string(k))
	}
	return k
}

// command decodes the required, non-empty command list.
func (d *decoder) command(a *hclsyntax.Attribute, def hcl.Range) []string {
	if a == nil {
		d.add(def, `command is required (a non-empty list of strings, e.g. ["python3", "method.py"])`)
		return nil
	}
	cmd, _, ok := d.strList(a, "command")
	switch {
	case !ok:
	case len(cmd) == 0:
		d.add(a.Expr.Range(), "command is empty; give the program and its arguments")
	case cmd[0] == "":
		d.add(a.Expr.Range(), "command: the program name (first element) is empty")
	}
	return cmd
}

// strList decodes a list of strings, with the range of each element.
func (d *decoder) strList(a *hclsyntax.Attribute, field string) ([]string, []hcl.Range, bool) {
	v, ok := d.value(a, field)
	if !ok {
		return nil, nil, false
	}
	if !v.Type().IsTupleType() && !v.Type().IsListType() {
		d.add(a.Expr.Range(), "%s must be a list of strings, not %s", field, v.Type().FriendlyName())
		return nil, nil, false
	}
	tuple, _ := a.Expr.(*hclsyntax.TupleConsExpr)
	var out []string
	var rngs []hcl.Range
	for i, ev := range v.AsValueSlice() {
		rng := a.Expr.Range()
		if tuple != nil && i < len(tuple.Exprs) {
			rng = tuple.Exprs[i].Range()
		}
		if ev.IsNull() || ev.Type() != cty.String {
			d.add(rng, "%s[%d] must be a string", field, i)
			ok = false
			continue
		}
		out, rngs = append(out, ev.AsString()), append(rngs, rng)
	}
	return out, rngs, ok
}

// files decodes the optional files list and checks each file.
func (d *decoder) files(a *hclsyntax.Attribute) []string {
	if a == nil {
		return nil
	}
	files, rngs, _ := d.strList(a, "files")
	seen := map[string]bool{}
	for i, f := range files {
		switch {
		case f == "" || path.IsAbs(f) || filepath.IsAbs(f) || strings.Contains(f, `\`):
			d.add(rngs[i], "files: %q must be a slash-separated path relative to the methods file's directory", f)
		case path.Clean(f) != f:
			d.add(rngs[i], "files: %q is not a clean path (write %q)", f, path.Clean(f))
		case seen[f]:
			d.add(rngs[i], "files: %q is listed twice", f)
		default:
			if err := checkRegular(filepath.Join(d.dir, filepath.FromSlash(f))); err != nil {
				d.add(rngs[i], "files: %q %v (in %s)", f, err, d.dir)
			}
		}
		seen[f] = true
	}
	return files
}

// acceptsMissing decodes accepts_missing, which only learners take.
func (d *decoder) acceptsMissing(a *hclsyntax.Attribute, kind methodid.Kind) bool {
	if a == nil {
		return false
	}
	if kind == methodid.Imputer {
		d.add(a.NameRange, "accepts_missing is only for learners (this method is an imputer)")
		return false
	}
	v, ok := d.value(a, "accepts_missing")
	if !ok {
		return false
	}
	if v.Type() != cty.Bool {
		d.add(a.Expr.Range(), "accepts_missing must be true or false, not %s", v.Type().FriendlyName())
		return false
	}
	return v.True()
}

// tasks decodes tasks, which only learners take: a list of task names
// (methodid.TaskNames), default ["regression"].
func (d *decoder) tasks(a *hclsyntax.Attribute, kind methodid.Kind) methodid.Tasks {
	if a == nil {
		return methodid.TasksRegression
	}
	if kind == methodid.Imputer {
		d.add(a.NameRange, "tasks is only for learners (an imputer never sees the target, so it serves every task)")
		return methodid.TasksRegression
	}
	names, _, ok := d.strList(a, "tasks")
	if !ok {
		return methodid.TasksRegression
	}
	t, err := methodid.ParseTasks(names)
	if err != nil {
		d.add(a.Expr.Range(), "tasks: %v", err)
	}
	return t
}

// duration decodes an optional positive Go duration string.
func (d *decoder) duration(a *hclsyntax.Attribute, field string, def time.Duration) time.Duration {
	if a == nil {
		return def
	}
	before := len(d.problems)
	s := d.str(a, field)
	if len(d.problems) != before {
		return def
	}
	t, err := time.ParseDuration(s)
	switch {
	case err != nil:
		d.add(a.Expr.Range(), `%s = %q is not a duration (e.g. "90s", "10m", "1h30m")`, field, s)
	case t <= 0:
		d.add(a.Expr.Range(), "%s = %q must be positive", field, s)
	default:
		return t
	}
	return def
}

// env decodes the optional map of extra environment variables.
func (d *decoder) env(a *hclsyntax.Attribute) map[string]string {
	if a == nil {
		return nil
	}
	v, ok := d.value(a, "env")
	if !ok {
		return nil
	}
	if !v.Type().IsObjectType() && !v.Type().IsMapType() {
		d.add(a.Expr.Range(), `env must be a map of strings, e.g. { OMP_NUM_THREADS = "1" }, not %s`, v.Type().FriendlyName())
		return nil
	}
	out := map[string]string{}
	m := v.AsValueMap()
	for _, k := range slices.Sorted(maps.Keys(m)) {
		ev := m[k]
		switch {
		case !envRE.MatchString(k):
			d.add(a.Expr.Range(), "env: %q is not a valid variable name", k)
		case slices.Contains(reservedEnv, k):
			d.add(a.Expr.Range(), "env: %s is set by the worker and cannot be changed", k)
		case ev.IsNull() || ev.Type() != cty.String:
			d.add(a.Expr.Range(), `env: %s must be a string (write it in quotes)`, k)
		default:
			out[k] = ev.AsString()
		}
	}
	return out
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
