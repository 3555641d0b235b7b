package fpclass

import (
	"runtime"
	"strconv"
)

// Any is the class a coordinator is told to accept from every worker
// (coordinator serve --fp-class=any): results may then differ in their
// last bits depending on which worker computed them.
const Any = "any"

// ScoreVersion is misslab's score version, the last part of every class.
// Bump it with any change that alters a job's scores in any bit on one
// platform (a learner, an imputer, the simulator, how seeds are derived):
// a coordinator then refuses workers of the old build, and a data
// directory holding the old scores refuses to be extended by the new
// one. experiment's TestScoreFingerprint fails until it is bumped.
const ScoreVersion = 1

// Current returns this build's class, Platform() followed by the score
// version: say "amd64 go1.26.8 scores/1" or "arm64+fma go1.26.8 scores/1".
func Current() string {
	return Platform() + " scores/" + strconv.Itoa(ScoreVersion)
}

// Platform returns the part of the class the build's platform sets,
// "GOARCH[+fma] GOVERSION", say "amd64 go1.26.8".
//
// Go's compiler may fuse x·y + z into one fused multiply-add, which
// rounds once instead of twice: it always does on arm64, ppc64, s390x
// and riscv64, and on amd64 only when built with GOAMD64=v3 or above.
// Fused and unfused builds of the same source differ in the last bits of
// many sums, enough to flip a near-tie between two splits of a tree and
// so change a score. The math package's functions (Exp, Log, …) have
// per-architecture implementations, and a Go release may change them:
// hence the architecture and the Go version. "+fma" is measured, not
// assumed: Platform runs one multiply-add whose fused and unfused results
// differ.
func Platform() string {
	return name(runtime.GOARCH, fuses(), runtime.Version())
}

// name composes a platform from its parts.
func name(arch string, fused bool, version string) string {
	if fused {
		arch += "+fma"
	}
	return arch + " " + version
}

// Mismatch is the phrase a coordinator's refusal of a worker's class
// carries: the worker tells that refusal from other FAILED_PRECONDITION
// answers by it.
const Mismatch = "worker of another floating-point class"

// probe holds the operands of fuses's multiply-add in variables, so that
// the compiler cannot fold it: x·y = 1 − 2⁻⁶⁰ exactly, which rounds to 1.
var probe = struct{ x, y, z float64 }{1 + 0x1p-30, 1 - 0x1p-30, -1}

// fuses reports whether this build fuses x·y + z: rounded twice it is 0,
// fused it is −2⁻⁶⁰.
func fuses() bool {
	return mulAdd(probe.x, probe.y, probe.z) != 0
}

// mulAdd is x·y + z as the compiler compiles it for this build.
//
//go:noinline
func mulAdd(x, y, z float64) float64 {
	return x*y + z
}

// Accepts reports whether a coordinator of class want (Any: every class)
// accepts a worker of class got.
func Accepts(want, got string) bool {
	return want == Any || want == got
}
