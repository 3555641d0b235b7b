package main

import (
	"flag"
	"fmt"
	"io"
	"net"

	"github.com/misslab/misslab/internal/atomicfile"
)

// addrFile is serve's --addr-file flag: where to write the address the
// coordinator actually listens on. With --listen 127.0.0.1:0 the kernel
// picks a free port and the file says which, so tests, scripts and batch
// jobs start a coordinator without guessing (and racing for) a free port.
type addrFile struct{ path *string }

func addAddrFile(fs *flag.FlagSet) addrFile {
	return addrFile{path: fs.String("addr-file", "",
		"once listening, write the bound host:port and a newline to this file (written atomically; not removed at exit)")}
}

// write writes addr to the flag's file, if one was given, through a
// temporary file renamed into place, so a reader polling for the file
// sees either no file or the whole address. Errors name the file.
func (f addrFile) write(addr net.Addr) error {
	if *f.path == "" {
		return nil
	}
	err := atomicfile.WriteFile(*f.path, 0o644, func(w io.Writer) error {
		_, err := fmt.Fprintln(w, addr.String())
		return err
	})
	if err != nil {
		return fmt.Errorf("--addr-file: %w", err)
	}
	return nil
}
