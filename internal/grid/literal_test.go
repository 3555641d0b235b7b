package grid

import (
	"errors"
	"fmt"
	"strings"
	"testing"
)

// TestForExpressionsAndFileScenarioBudget: inputs that are small as text
// but huge once evaluated or expanded are refused before that happens,
// with the place and the limit in the error.
func TestForExpressionsAndFileScenarioBudget(t *testing.T) {
	list := "[" + strings.Repeat("0.1, ", 999) + "0.1]"
	sweep := func(name string) string {
		// 10 × 10 × 10 × 10 × 5 = 50,000 scenarios: half the file budget.
		return fmt.Sprintf(`sweep %q {
  seed = 1
  repetitions = 1
  data {
    model = "quadratic"
    n_train = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109]
    n_test = [100, 101, 102, 103, 104, 105, 106, 107, 108, 109]
    rho = [0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9]
    noise = [0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1]
  }
  missingness { rate = [0.1, 0.2, 0.3, 0.4, 0.5] }
  pipelines { names = ["tree/mia"] }
}
`, name)
	}
	cases := []struct {
		name, src, want string
	}{
		{"nested for", "x = [for a in " + list + " : [for b in " + list + " : 1]]\n",
			"f.hcl:1:5: limit: for expressions are not allowed in a grid file; write the list out"},
		{"template for", `x = "%{for a in ` + list + `}${a}%{endfor}"` + "\n",
			"f.hcl:1:6: limit: for expressions are not allowed"},
		{"many sweeps", sweep("a") + sweep("b") + sweep("c"),
			"f.hcl:30:3: data: the file's sweeps have more than 100000 scenarios in all; split the file"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse([]byte(tc.src), "f.hcl", ParseOptions{})
			if !errors.Is(err, ErrInvalid) || !strings.HasPrefix(err.Error(), tc.want) {
				t.Fatalf("err = %v\nwant %s...", err, tc.want)
			}
		})
	}
	if _, err := Parse([]byte(sweep("a")+sweep("b")), "f.hcl", ParseOptions{}); err != nil {
		t.Fatalf("two sweeps of 50,000 scenarios (the budget exactly) refused: %v", err)
	}
}
