package ampute

import "testing"

// BenchmarkApply times Apply on 1000 rows of 10 features, 5 amputed.
func BenchmarkApply(b *testing.B) {
	Z := gaussian(1000, 10, 0.5, 40)
	for _, mech := range Mechanisms[1:] {
		b.Run(string(mech), func(b *testing.B) {
			m, err := Fit(Z, singletons(10), Spec{Mechanism: mech, Rate: 0.3, Amputed: []int{0, 2, 4, 6, 8}}, rng(41))
			if err != nil {
				b.Fatal(err)
			}
			r := rng(42)
			b.ReportAllocs()
			for b.Loop() {
				if _, err := m.Apply(Z, r); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
