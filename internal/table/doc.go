// Package table reads a user's data table (CSV or Parquet), identifies it by the SHA-256 of its bytes and turns it into a numeric design matrix with NaN for NA.
package table
