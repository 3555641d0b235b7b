// Command devca writes a development CA, a coordinator certificate, a
// client certificate and a random token into a directory, with crypto/x509
// only (no openssl), for `make ca` and the compose tests. Not for
// production: use your organisation's CA or cert-manager there.
package main

import (
	"flag"
	"fmt"
	"os"
	"strings"
	"time"

	"github.com/misslab/misslab/internal/auth"
)

func main() {
	out := flag.String("out", "deploy/certs", "directory to write into")
	hosts := flag.String("hosts", strings.Join(auth.DefaultHosts, ","), "comma-separated names and IPs of the server certificate")
	extra := flag.String("extra-hosts", "", "comma-separated names and IPs added to --hosts")
	valid := flag.Duration("valid", 90*24*time.Hour, "validity of every certificate")
	keyMode := flag.String("key-mode", "0600", "file mode of keys and token (0644 lets a container's non-root user read a bind mount)")
	flag.Parse()
	var mode os.FileMode
	if _, err := fmt.Sscanf(*keyMode, "%o", &mode); err != nil || mode&^0o777 != 0 {
		fmt.Fprintln(os.Stderr, "devca: bad --key-mode", *keyMode)
		os.Exit(2)
	}
	names := strings.Split(*hosts, ",")
	if *extra != "" {
		names = append(names, strings.Split(*extra, ",")...)
	}
	if err := auth.WriteDevPKI(*out, names, *valid, mode); err != nil {
		fmt.Fprintln(os.Stderr, "devca:", err)
		os.Exit(1)
	}
	fmt.Printf("devca: wrote %s/{ca.pem,server.pem,server-key.pem,client.pem,client-key.pem,token} for %s\n",
		*out, strings.Join(names, ", "))
}
