// Package sides stably splits row-keyed 64-bit entries into two streams
// by a per-row side byte, with an AVX-512 kernel on amd64.
package sides
