//go:build !amd64

package svm

// vector is false: only the Go loops exist on this architecture.
const vector = false

func expVec([]float64) int                                    { return 0 }
func dotsVec([]float64, []float64, int, []float64) int        { return 0 }
func kernelArgVec([]float64, []float64, float64, float64) int { return 0 }
func toFloat32Vec([]float32, []float64) int                   { return 0 }
func sqDistsVec([]float64, []float64, int, []float64) int     { return 0 }
func scaleVec([]float64, float64) int                         { return 0 }

func candVec([]float64, []float64, float64, []int32, []float64, *[4]float64) (int, int) { return 0, 0 }

func gradVec([]float64, []float64, []float64, []int, []float32, []float32, float64, float64, *gradLanes) int {
	return 0
}
