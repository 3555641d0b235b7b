package plan

import (
	"fmt"
	"io"
	"math"
	"strings"
)

// SlurmOptions describe the cluster a Slurm allocation is planned for.
type SlurmOptions struct {
	CPUsPerNode int     // cores of one node given to misslab's worker; default 32
	MaxNodes    int     // at most this many nodes; default 64
	TargetHours float64 // aim to finish within this wall time; default 4
}

// Allocation is a suggested Slurm allocation for
// deploy/slurm/sweep.sbatch: one worker per node with CPUsPerTask cores
// (worker --parallel), the coordinator beside the first node's worker.
type Allocation struct {
	Nodes       int     // nodes to ask for, one worker each
	CPUsPerTask int     // cores per node's worker (SlurmOptions.CPUsPerNode)
	MemPerNode  int64   // bytes: the worker's jobs at their largest, with headroom
	TimeLimit   float64 // seconds, rounded up to 15 minutes
	WallSeconds float64 // expected wall time, seconds
	CPUSeconds  float64 // estimated single-core seconds of the whole grid
	Jobs        int     // jobs of the whole grid
	LongestJob  float64 // estimated seconds of the most expensive job
}

// Memory model of one running job, measured on the paper's learners
// (a quadratic sweep of tree, forest and boost at n_train = 10⁴, d = 9,
// two jobs at once: 366 MB resident for the whole run): a fixed part
// plus a cost per training cell (n_train × d), which trees, forests and
// boosting's presorted columns and node indices dominate.
const (
	workerBaseBytes = 64 << 20
	jobBaseBytes    = 32 << 20
	jobCellBytes    = 1800
	slurmEfficiency = 0.9 // share of worker time spent in jobs (BENCHMARKS: the scheduler's simulation)
)

// Slurm suggests an allocation for the plan: enough nodes to finish
// within TargetHours at 90% efficiency, never more cores than jobs; the
// time limit covers the expected wall time with 50% margin plus 10
// minutes of start-up, and at least twice the longest job; memory holds
// CPUsPerTask jobs of the largest scenario at once, plus 25%.
func (p Summary) Slurm(o SlurmOptions) Allocation {
	o = o.withDefaults()
	jobs, _, cpu := p.Totals()
	sp := Allocation{CPUsPerTask: o.CPUsPerNode, CPUSeconds: cpu, Jobs: jobs}
	cells := 0
	for _, s := range p.Sweeps {
		sp.LongestJob = max(sp.LongestJob, s.LongestJob)
		cells = max(cells, s.MaxCells)
	}
	need := cpu / (o.TargetHours * 3600 * slurmEfficiency * float64(o.CPUsPerNode))
	sp.Nodes = min(max(int(math.Ceil(need)), 1), o.MaxNodes, max(1, (jobs+o.CPUsPerNode-1)/o.CPUsPerNode))
	cores := float64(sp.Nodes * o.CPUsPerNode)
	sp.WallSeconds = max(cpu/(cores*slurmEfficiency), sp.LongestJob)
	limit := max(1.5*sp.WallSeconds+600, 2*sp.LongestJob)
	sp.TimeLimit = math.Ceil(limit/900) * 900
	perJob := int64(jobBaseBytes) + int64(cells)*jobCellBytes
	sp.MemPerNode = roundGiB(int64(float64(workerBaseBytes+int64(o.CPUsPerNode)*perJob) * 1.25))
	return sp
}

func (o SlurmOptions) withDefaults() SlurmOptions {
	if o.CPUsPerNode <= 0 {
		o.CPUsPerNode = 32
	}
	if o.MaxNodes <= 0 {
		o.MaxNodes = 64
	}
	if o.TargetHours <= 0 {
		o.TargetHours = 4
	}
	return o
}

// roundGiB rounds bytes up to a whole GiB (at least 1).
func roundGiB(b int64) int64 {
	const gib = 1 << 30
	return max(1, (b+gib-1)/gib) * gib
}

// WriteText prints the suggestion as the sbatch command to run on the
// grid file at gridPath, with what it rests on. The only error is w's.
func (sp Allocation) WriteText(w io.Writer, gridPath string) error {
	var b strings.Builder
	fmt.Fprintf(&b, "Slurm: %d jobs, %s CPU, longest job %s; expected wall %s on %d node(s) × %d cores.\n\n",
		sp.Jobs, human(sp.CPUSeconds), human(sp.LongestJob), human(sp.WallSeconds), sp.Nodes, sp.CPUsPerTask)
	fmt.Fprintf(&b, "  %s \\\n      %s\n\n", sp.sbatch(), sp.script(gridPath))
	b.WriteString("--cpus-per-task becomes each worker's --parallel. --mem holds that many jobs of the largest\n" +
		"scenario at once (+25%); --time is 1.5× the expected wall time + 10 min, in whole quarter hours.\n" +
		"Elastic workers instead: sbatch --array=1-N --cpus-per-task=... deploy/slurm/workers.sbatch ADDR (docs/SLURM.md).\n")
	_, err := io.WriteString(w, b.String())
	return err
}

// Command is the sbatch command line of the allocation for the grid
// file at gridPath, as WriteText prints it (on one line).
func (sp Allocation) Command(gridPath string) string {
	return sp.sbatch() + " " + sp.script(gridPath)
}

// sbatch is the command and its options.
func (sp Allocation) sbatch() string {
	return fmt.Sprintf("sbatch --nodes=%d --ntasks-per-node=1 --cpus-per-task=%d --mem=%dG --time=%s",
		sp.Nodes, sp.CPUsPerTask, sp.MemPerNode>>30, slurmTime(sp.TimeLimit))
}

// script is the batch script and its arguments.
func (sp Allocation) script(gridPath string) string {
	return "deploy/slurm/sweep.sbatch " + gridPath
}

// slurmTime formats seconds as Slurm's [days-]hours:minutes:seconds.
func slurmTime(sec float64) string {
	s := int64(math.Ceil(sec))
	d, h, m := s/86400, s%86400/3600, s%3600/60
	if d > 0 {
		return fmt.Sprintf("%d-%02d:%02d:%02d", d, h, m, s%60)
	}
	return fmt.Sprintf("%02d:%02d:%02d", h, m, s%60)
}
