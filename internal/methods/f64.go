package methods

import (
	"encoding/binary"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"gonum.org/v1/gonum/mat"
)

// The data files of the protocol hold raw IEEE-754 binary64 values,
// little-endian, column-major, with no header.

// encodeMatrix appends m to buf column-major and returns it.
func encodeMatrix(buf []byte, m *mat.Dense) []byte {
	raw := m.RawMatrix()
	n := 8 * raw.Rows * raw.Cols
	buf = grow(buf, n)
	out := buf[len(buf) : len(buf)+n]
	k := 0
	for j := 0; j < raw.Cols; j++ {
		for i := j; i < raw.Rows*raw.Stride; i += raw.Stride {
			binary.LittleEndian.PutUint64(out[k:k+8], math.Float64bits(raw.Data[i]))
			k += 8
		}
	}
	return buf[:len(buf)+n]
}

// encodeVector appends v to buf and returns it.
func encodeVector(buf []byte, v []float64) []byte {
	n := 8 * len(v)
	buf = grow(buf, n)
	out := buf[len(buf) : len(buf)+n]
	for i, x := range v {
		binary.LittleEndian.PutUint64(out[8*i:8*i+8], math.Float64bits(x))
	}
	return buf[:len(buf)+n]
}

// grow makes room for n more bytes after len(buf).
func grow(buf []byte, n int) []byte {
	if cap(buf)-len(buf) < n {
		nb := make([]byte, len(buf), len(buf)+n)
		copy(nb, buf)
		return nb
	}
	return buf
}

// readValues reads exactly n values from the file at path; a file of
// another size (or a missing one) is an error.
func readValues(path string, n int) ([]float64, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, fmt.Errorf("output file %s: %w", filepath.Base(path), err)
	}
	if !st.Mode().IsRegular() || st.Size() != int64(8*n) {
		return nil, fmt.Errorf("output file %s has %d bytes, want %d (%d values)", filepath.Base(path), st.Size(), 8*n, n)
	}
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, fmt.Errorf("output file %s: %w", filepath.Base(path), err)
	}
	if len(b) != 8*n {
		return nil, fmt.Errorf("output file %s has %d bytes, want %d (%d values)", filepath.Base(path), len(b), 8*n, n)
	}
	out := make([]float64, n)
	for i := range out {
		out[i] = math.Float64frombits(binary.LittleEndian.Uint64(b[8*i:]))
	}
	return out, nil
}

// readMatrix reads a rows × cols column-major matrix from path.
func readMatrix(path string, rows, cols int) (*mat.Dense, error) {
	v, err := readValues(path, rows*cols)
	if err != nil {
		return nil, err
	}
	m := mat.NewDense(rows, cols, nil)
	raw := m.RawMatrix()
	k := 0
	for j := 0; j < cols; j++ {
		for i := 0; i < rows; i++ {
			raw.Data[i*raw.Stride+j] = v[k]
			k++
		}
	}
	return m, nil
}
