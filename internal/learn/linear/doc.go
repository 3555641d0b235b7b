// Package linear fits least-squares linear regression with a small,
// scale-invariant ridge penalty on complete (imputed) data.
package linear
