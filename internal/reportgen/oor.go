package reportgen

import (
	"strings"

	"github.com/misslab/misslab/internal/grid"
	"github.com/misslab/misslab/internal/learn"
)

// oorText names the out-of-range imputation convention of the sweep's
// oor pipelines (see impute.OOR), for the line under the report's title:
// "  ·  oor: paper constant 999999 (default)" or "  ·  oor: max + k·(max
// − min), k = 0.1" when every oor pipeline uses the same one, else each
// pipeline with its own, e.g. "  ·  oor: svm/oor: paper constant 999999
// (default); knn/oor{oor_k=0.1}: max + k·(max − min), k = 0.1". It is
// empty for a sweep without oor pipelines.
func oorText(sw *grid.Sweep) string {
	var names, conv []string
	same := true
	for _, p := range sw.Pipelines {
		if p.Spec().Strategy != learn.OOR {
			continue
		}
		c := oorConvention(p.Resolved())
		same = same && (len(conv) == 0 || conv[0] == c)
		names, conv = append(names, p.Label()), append(conv, c)
	}
	switch {
	case len(conv) == 0:
		return ""
	case same:
		return "  ·  oor: " + conv[0]
	}
	parts := make([]string, len(conv))
	for i := range conv {
		parts[i] = names[i] + ": " + conv[i]
	}
	return "  ·  oor: " + strings.Join(parts, "; ")
}

// oorConvention describes the fill rule that the resolved settings s of
// an oor pipeline select.
func oorConvention(s learn.Settings) string {
	k, scaled := s["oor_k"]
	if !scaled {
		return "paper constant 999999 (default)"
	}
	return "max + k·(max − min), k = " + fmtF(k)
}
