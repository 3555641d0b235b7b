// Package archtest holds no code: its test checks that every package's
// imports of this module stay within what docs/ARCHITECTURE.md allows.
package archtest
