package atomicfile

import (
	"errors"
	"io"
	"os"
	"path/filepath"
	"testing"
)

func TestWriteFile(t *testing.T) {
	errBoom := errors.New("boom")
	tests := []struct {
		name    string
		old     string // existing content ("" = no file)
		write   func(io.Writer) error
		want    string // content after the call
		wantErr error
	}{
		{"new file", "", func(w io.Writer) error { _, err := io.WriteString(w, "a,b\n1,2\n"); return err }, "a,b\n1,2\n", nil},
		{"replace", "old\n", func(w io.Writer) error { _, err := io.WriteString(w, "new\n"); return err }, "new\n", nil},
		{"write fails keeps old", "old\n", func(w io.Writer) error { _, _ = io.WriteString(w, "partial"); return errBoom }, "old\n", errBoom},
		{"nil writer", "old\n", nil, "old\n", ErrNoWriter},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			path := filepath.Join(dir, "out.csv")
			if tc.old != "" {
				if err := os.WriteFile(path, []byte(tc.old), 0o600); err != nil {
					t.Fatal(err)
				}
			}
			err := WriteFile(path, 0o640, tc.write)
			if !errors.Is(err, tc.wantErr) {
				t.Fatalf("err = %v, want %v", err, tc.wantErr)
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != tc.want {
				t.Errorf("content = %q, want %q", got, tc.want)
			}
			entries, _ := os.ReadDir(dir)
			if len(entries) != 1 {
				t.Errorf("directory holds %d entries, want 1 (temporary file left behind?)", len(entries))
			}
			if tc.wantErr == nil {
				st, _ := os.Stat(path)
				if st.Mode().Perm() != 0o640 {
					t.Errorf("mode = %v, want 0640", st.Mode().Perm())
				}
			}
		})
	}
}

func TestWriteFileMissingDir(t *testing.T) {
	path := filepath.Join(t.TempDir(), "nope", "out.csv")
	err := WriteFile(path, 0o644, func(io.Writer) error { return nil })
	if !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("err = %v, want os.ErrNotExist", err)
	}
}
