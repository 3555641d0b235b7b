// Package learntest holds what the learner packages' tests and benchmarks
// share: CSV fixture tables, the paper's Model 1 design and process CPU
// time. It is imported by _test.go files only.
package learntest
