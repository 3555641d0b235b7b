package plan

import (
	"strings"
	"testing"
)

func TestSlurmPlan(t *testing.T) {
	plan := func(cpu, longest float64, jobs, cells int) Summary {
		return Summary{Sweeps: []Sweep{{Jobs: jobs, CPUSeconds: cpu, LongestJob: longest, MaxCells: cells}}}
	}
	for _, tc := range []struct {
		name  string
		p     Summary
		o     SlurmOptions
		nodes int
		time  string
		memG  int64
	}{
		// 2.2 CPU-hours fit one 32-core node within 4 h: 275 s expected,
		// 1.5 × that + 10 min = 1013 s → 30 min. Memory: 64 MiB + 32 ×
		// (32 MiB + 9000 × 1800 B) = 1.66 GB, × 1.25 = 1.93 GiB → 2 GiB.
		{"figure3", plan(7920, 4, 3000, 9000), SlurmOptions{}, 1, "00:30:00", 2},
		// 20 CPU-hours in 1 h on 16-core nodes: ⌈72000/(3600·0.9·16)⌉ = 2
		// nodes, 2500 s expected, 4350 s → 1 h 15.
		{"paper in an hour", plan(72000, 4, 50000, 9000), SlurmOptions{CPUsPerNode: 16, TargetHours: 1}, 2, "01:15:00", 2},
		// Never more cores than jobs: 10 jobs, 8-core nodes → 2 nodes; the
		// longest job (10⁵ s) sets the wall time, twice it the limit:
		// 2·10⁵ s → 200 700 s = 2 d 7 h 45.
		{"few jobs", plan(1e6, 1e5, 10, 9000), SlurmOptions{CPUsPerNode: 8, TargetHours: 1}, 2, "2-07:45:00", 1},
		// MaxNodes caps at 4: 10⁷/(128 · 0.9) = 86 806 s, × 1.5 + 600 →
		// 1 d 12 h 30. The largest scenario (n·d = 10⁶) sets memory: 64 MiB
		// + 32 × (32 MiB + 1.8 GB) = 58.7 GB, × 1.25 = 68.4 GiB → 69 GiB.
		{"capped", plan(1e7, 60, 1e6, 1_000_000), SlurmOptions{MaxNodes: 4}, 4, "1-12:30:00", 69},
	} {
		t.Run(tc.name, func(t *testing.T) {
			sp := tc.p.Slurm(tc.o)
			if sp.Nodes != tc.nodes || slurmTime(sp.TimeLimit) != tc.time || sp.MemPerNode>>30 != tc.memG {
				t.Errorf("nodes %d time %s mem %dG, want %d %s %dG (%+v)", sp.Nodes, slurmTime(sp.TimeLimit), sp.MemPerNode>>30,
					tc.nodes, tc.time, tc.memG, sp)
			}
			if sp.TimeLimit < 2*sp.LongestJob || sp.TimeLimit < sp.WallSeconds {
				t.Errorf("time limit %v below the longest job ×2 (%v) or the expected wall %v", sp.TimeLimit, sp.LongestJob, sp.WallSeconds)
			}
			var b strings.Builder
			if err := sp.WriteText(&b, "g.hcl"); err != nil {
				t.Fatal(err)
			}
			if want := "--time=" + tc.time + " "; !strings.Contains(b.String(), want) || !strings.Contains(b.String(), "sweep.sbatch g.hcl") {
				t.Errorf("output lacks %q:\n%s", want, b.String())
			}
		})
	}
}
