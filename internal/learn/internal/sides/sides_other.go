//go:build !amd64

package sides

// useVector is false: only the Go loop exists on this architecture.
const useVector = false

func splitVec([]uint64, []uint8, uint, []uint64, []uint64) (int, int) { return 0, 0 }
