package table

import (
	"math"
	"slices"
)

// builder accumulates one kept column while a table is read.
type builder struct {
	field  int    // index of the column in the file
	name   string // column name
	kind   Kind
	num    []float64        // Numeric values, NaN for NA
	codes  []int32          // Categorical codes in first-seen order, -1 for NA
	index  map[string]int32 // level → first-seen code
	levels []string         // levels in first-seen order
}

// reserve makes room for n rows in all.
func (b *builder) reserve(n int) {
	if b.kind == Numeric {
		b.num = slices.Grow(b.num, n-len(b.num))
	} else {
		b.codes = slices.Grow(b.codes, n-len(b.codes))
	}
}

func (b *builder) addNA() {
	if b.kind == Numeric {
		b.num = append(b.num, math.NaN())
	} else {
		b.codes = append(b.codes, -1)
	}
}

// addLevel appends the categorical value v.
func (b *builder) addLevel(v []byte) {
	code, ok := b.index[string(v)]
	if !ok {
		code = int32(len(b.levels))
		s := string(v)
		b.levels = append(b.levels, s)
		b.index[s] = code
	}
	b.codes = append(b.codes, code)
}

// column finishes the column: levels sorted by byte order with the codes
// renumbered, and the values' spare capacity trimmed if large.
func (b *builder) column() Column {
	if b.kind == Numeric {
		return Column{Name: b.name, Kind: Numeric, Num: trim(b.num)}
	}
	sorted := slices.Clone(b.levels)
	slices.Sort(sorted)
	renum := make([]int32, len(b.levels))
	for i, l := range b.levels {
		j, _ := slices.BinarySearch(sorted, l)
		renum[i] = int32(j)
	}
	codes := trim(b.codes)
	for i, c := range codes {
		if c >= 0 {
			codes[i] = renum[c]
		}
	}
	return Column{Name: b.name, Kind: Categorical, Codes: codes, Levels: sorted}
}

// trim copies s into an exact-size slice when more than 1/16 of its
// capacity is unused; nil becomes empty.
func trim[T any](s []T) []T {
	if s == nil {
		return []T{}
	}
	if cap(s)-len(s) <= len(s)/16 {
		return s
	}
	return slices.Clone(s)
}
