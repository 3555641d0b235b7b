package grid

import (
	"fmt"
	"math"
	"math/big"
	"strconv"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
	"github.com/zclconf/go-cty/cty"
)

// list is the decoded value of a scalar-or-list attribute: a scalar is a
// list of one. set is false when the attribute is absent.
type list[T comparable] struct {
	set  bool
	vals []T
	rngs []hcl.Range // source range of each value
}

// converter turns one HCL value into T or explains, in a few words, why not.
type converter[T any] func(cty.Value) (T, string)

// decodeList evaluates a scalar-or-list attribute (a may be nil). It
// reports wrong element types, empty lists and repeated values at the
// offending element; ok is false when anything was reported.
func decodeList[T comparable](ds *diags, a *hclsyntax.Attribute, field string, conv converter[T]) (l list[T], ok bool) {
	if a == nil {
		return l, true
	}
	l.set, ok = true, true
	exprs := []hclsyntax.Expression{a.Expr}
	tuple, isTuple := a.Expr.(*hclsyntax.TupleConsExpr)
	if isTuple {
		exprs = tuple.Exprs
	}
	first := map[T]hcl.Range{}
	for _, e := range exprs {
		v, hd := e.Value(nil)
		if hd.HasErrors() {
			ds.addHCL(hd, field, e.Range())
			ok = false
			continue
		}
		if isTuple && isList(v) {
			ds.add(e.Range(), field, "lists cannot be nested")
			ok = false
			continue
		}
		for _, ev := range flatten(v) {
			x, bad := conv(ev)
			switch prev, dup := first[x]; {
			case bad != "":
				ds.add(e.Range(), field, "%s", bad)
				ok = false
			case dup:
				ds.add(e.Range(), field, "%s is listed twice (first at line %d)", show(ev), prev.Start.Line)
				ok = false
			default:
				first[x] = e.Range()
				l.vals = append(l.vals, x)
				l.rngs = append(l.rngs, e.Range())
			}
		}
	}
	if ok && len(l.vals) == 0 {
		ds.add(a.Expr.Range(), field, "the list is empty; give at least one value")
		ok = false
	}
	return l, ok
}

// decodeScalar evaluates a single-valued attribute.
func decodeScalar[T any](ds *diags, a *hclsyntax.Attribute, field string, conv converter[T]) (x T, ok bool) {
	v, hd := a.Expr.Value(nil)
	if hd.HasErrors() {
		ds.addHCL(hd, field, a.Expr.Range())
		return x, false
	}
	if isList(v) {
		ds.add(a.Expr.Range(), field, "expected a single value, got a list")
		return x, false
	}
	x, bad := conv(v)
	if bad != "" {
		ds.add(a.Expr.Range(), field, "%s", bad)
		return x, false
	}
	return x, true
}

func isList(v cty.Value) bool {
	t := v.Type()
	return t.IsTupleType() || t.IsListType() || t.IsSetType()
}

// flatten returns the elements of a list value, or v itself.
func flatten(v cty.Value) []cty.Value {
	if !isList(v) || v.IsNull() || !v.IsKnown() {
		return []cty.Value{v}
	}
	var out []cty.Value
	for it := v.ElementIterator(); it.Next(); {
		_, ev := it.Element()
		out = append(out, ev)
	}
	return out
}

// describe names the type of v for an error message.
func describe(v cty.Value) string {
	switch {
	case v.IsNull():
		return "null"
	case !v.IsKnown():
		return "an unknown value"
	case v.Type() == cty.String:
		return fmt.Sprintf("string %q", v.AsString())
	case v.Type() == cty.Number:
		return "number " + show(v)
	}
	return v.Type().FriendlyName()
}

// show formats a primitive value as it would appear in a grid file.
func show(v cty.Value) string {
	switch {
	case v.IsNull() || !v.IsKnown():
		return describe(v)
	case v.Type() == cty.String:
		return strconv.Quote(v.AsString())
	case v.Type() == cty.Number:
		return v.AsBigFloat().Text('g', -1)
	case v.Type() == cty.Bool:
		return strconv.FormatBool(v.True())
	}
	return v.Type().FriendlyName()
}

func known(v cty.Value) bool { return !v.IsNull() && v.IsKnown() }

func toString(v cty.Value) (string, string) {
	if !known(v) || v.Type() != cty.String {
		return "", "expected a string, got " + describe(v)
	}
	return v.AsString(), ""
}

func toBool(v cty.Value) (bool, string) {
	if !known(v) || v.Type() != cty.Bool {
		return false, "expected true or false, got " + describe(v)
	}
	return v.True(), ""
}

func toFloat(v cty.Value) (float64, string) {
	if !known(v) || v.Type() != cty.Number {
		return 0, "expected a number, got " + describe(v)
	}
	f, _ := v.AsBigFloat().Float64()
	if math.IsInf(f, 0) {
		return 0, show(v) + " is out of the float64 range"
	}
	return f, ""
}

func toInt(v cty.Value) (int, string) {
	bf, bad := wholeNumber(v)
	if bad != "" {
		return 0, bad
	}
	i, acc := bf.Int64()
	if acc != big.Exact || i != int64(int(i)) {
		return 0, show(v) + " is out of the integer range"
	}
	return int(i), ""
}

func toUint64(v cty.Value) (uint64, string) {
	bf, bad := wholeNumber(v)
	if bad != "" {
		return 0, bad
	}
	u, acc := bf.Uint64()
	if acc != big.Exact {
		return 0, show(v) + " is outside [0, 2^64)"
	}
	return u, ""
}

func wholeNumber(v cty.Value) (*big.Float, string) {
	if !known(v) || v.Type() != cty.Number {
		return nil, "expected a whole number, got " + describe(v)
	}
	bf := v.AsBigFloat()
	if !bf.IsInt() {
		return nil, "expected a whole number, got " + show(v)
	}
	return bf, ""
}
