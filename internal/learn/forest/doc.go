// Package forest grows random forests for regression with ranger's
// defaults, natively handling NA with MIA or taking complete (imputed)
// data, on its own weighted grower whose trees a test checks equal to the
// tree package's on the same bootstrap rows.
package forest
