package knn

// Screening modes for SetScreening.
const (
	ScreenNone = screenNone
	Screen64   = screen64
	Screen32   = screen32
)

// SetScreening forces m to use a coarser screen (or none) than Fit chose,
// so tests can check every scan path against the reference. It returns
// false when m cannot use mode.
func SetScreening(m *Model, mode int) bool {
	switch {
	case mode == screenNone:
		m.scr = screener{mode: screenNone}
	case mode == screen64 && m.scr.mode == screen32:
		m.scr = newScreenerMode(m.x, m.n, m.p, screen64)
	case mode != m.scr.mode:
		return false
	}
	return true
}

// ScreenMode returns the screen Fit chose for m.
func ScreenMode(m *Model) int { return m.scr.mode }

// SetClassScreening is SetScreening for a fitted Classifier.
func SetClassScreening(m *ClassModel, mode int) bool { return SetScreening(m.m, mode) }
