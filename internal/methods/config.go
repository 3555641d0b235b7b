package methods

import (
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/misslab/misslab/internal/methodid"
)

// Defaults of a method block.
const (
	DefaultTimeout      = 10 * time.Minute // limit per call
	DefaultStartTimeout = time.Minute      // time to print the ready line
	// MaxNameLength is the longest method name, in bytes.
	MaxNameLength = 40
	// MaxFileBytes is the largest methods file Load reads.
	MaxFileBytes = 1 << 20
)

// ErrConfig is wrapped by every error of Load and Parse: a methods file
// that cannot be read, does not parse, or breaks a rule of the protocol
// (unknown kind or attribute, missing command, missing file, ...).
var ErrConfig = errors.New("methods: invalid methods file")

// ConfigError lists every problem found in a methods file, one per line,
// each as "file:line,col-col: method "name": message" (the position in
// hcl.Range form). It wraps ErrConfig.
type ConfigError struct {
	Problems []string
}

// Error returns the problems, one per line.
func (e *ConfigError) Error() string { return strings.Join(e.Problems, "\n") }

// Unwrap returns ErrConfig so that errors.Is(err, ErrConfig) holds.
func (e *ConfigError) Unwrap() error { return ErrConfig }

// Config is one method block of a methods file.
type Config struct {
	Name    string
	Kind    methodid.Kind
	Command []string // program and arguments; run with Dir as working directory
	// Files are the method's source files as written in the methods file
	// (relative to Dir, slash-separated); their bytes are part of the
	// identity.
	Files []string
	// Dir is the absolute directory of the methods file: the child's
	// working directory, and the base of Files.
	Dir            string
	Version        string // free text, part of the identity
	AcceptsMissing bool   // learners only: the method takes NA itself
	// Tasks are the tasks a learner declares (tasks = [...]; the default,
	// regression only, is methodid.TasksRegression).
	Tasks methodid.Tasks
	// Timeout limits each call (DefaultTimeout when the file says none).
	Timeout time.Duration
	// StartTimeout limits the wait for a new process's ready line
	// (DefaultStartTimeout when the file says none).
	StartTimeout time.Duration
	// Env holds extra environment variables of the child, on top of the
	// protocol's own (PATH, LANG, HOME, TMPDIR, MISSLAB_METHOD,
	// MISSLAB_PROTOCOL; PATH and LANG may be overridden).
	Env map[string]string
}

// Catalog is a parsed methods file with every method's identity computed.
// It is immutable and safe for concurrent use.
type Catalog struct {
	path    string
	entries map[string]*entry
	names   []string // sorted
}

// entry is one method of a catalog: its configuration, the hashes of its
// files when the catalog was built, and its public identity.
type entry struct {
	cfg    Config
	hashes map[string]string // file as written → lowercase hex SHA-256
	method methodid.Method
}

// Load reads the methods file at path and parses it (see Parse), with its
// files resolved against the file's own directory. Errors wrap ErrConfig.
func Load(path string) (*Catalog, error) {
	abs, err := filepath.Abs(path)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	f, err := os.Open(abs)
	if err != nil {
		return nil, fmt.Errorf("%w: %w", ErrConfig, err)
	}
	defer f.Close()
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, path, err)
	}
	if len(src) > MaxFileBytes {
		return nil, fmt.Errorf("%w: %s is larger than %d bytes", ErrConfig, path, MaxFileBytes)
	}
	cat, err := Parse(src, path, filepath.Dir(abs))
	if err != nil {
		return nil, err
	}
	cat.path = abs
	return cat, nil
}

// Parse parses the methods file src (HCL native syntax: method "name"
// blocks, see the package's protocol) and hashes every method's files,
// which are resolved against dir (made absolute). filename is used in
// diagnostics only. On any problem it returns a *ConfigError listing every
// one found; it wraps ErrConfig.
func Parse(src []byte, filename, dir string) (*Catalog, error) {
	absDir, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("%w: %s: %w", ErrConfig, dir, err)
	}
	cfgs, ranges, err := decode(src, filename, absDir)
	if err != nil {
		return nil, err
	}
	cat := &Catalog{path: filename, entries: map[string]*entry{}}
	var problems []string
	for i, cfg := range cfgs {
		hashes, err := hashFiles(cfg)
		if err != nil {
			problems = append(problems, fmt.Sprintf("%s: method %q: files: %v", ranges[i], cfg.Name, err))
			continue
		}
		cat.entries[cfg.Name] = &entry{cfg: cfg, hashes: hashes, method: methodid.Method{
			Name: cfg.Name, Kind: cfg.Kind, AcceptsMissing: cfg.AcceptsMissing, Tasks: cfg.Tasks, ID: Identity(cfg, hashes)}}
		cat.names = append(cat.names, cfg.Name)
	}
	if len(problems) > 0 {
		return nil, &ConfigError{Problems: problems}
	}
	slices.Sort(cat.names)
	return cat, nil
}

// Path returns the methods file's path (absolute when the catalog came
// from Load, else the filename given to Parse).
func (c *Catalog) Path() string { return c.path }

// Methods returns every method of the catalog, sorted by name, with its
// ID set.
func (c *Catalog) Methods() []methodid.Method {
	out := make([]methodid.Method, len(c.names))
	for i, n := range c.names {
		out[i] = c.entries[n].method
	}
	return out
}

// Lookup returns the method called name, with its ID set.
func (c *Catalog) Lookup(name string) (methodid.Method, bool) {
	e, ok := c.entries[name]
	if !ok {
		return methodid.Method{}, false
	}
	return e.method, true
}

// Config returns the configuration of the method called name (a copy:
// changing it does not change the catalog).
func (c *Catalog) Config(name string) (Config, bool) {
	e, ok := c.entries[name]
	if !ok {
		return Config{}, false
	}
	cfg := e.cfg
	cfg.Command = slices.Clone(cfg.Command)
	cfg.Files = slices.Clone(cfg.Files)
	if cfg.Env != nil {
		cfg.Env = make(map[string]string, len(e.cfg.Env))
		for k, v := range e.cfg.Env {
			cfg.Env[k] = v
		}
	}
	return cfg, true
}

// Identity returns the identity of a method (protocol version 1): the
// lowercase hex SHA-256 of
//
//	misslab-method/1
//	name=<name>
//	kind=<learner|imputer>
//	version=<version>
//	accepts_missing=<true|false>
//	tasks=<classification|regression,classification>   (only when not the default)
//	file=<path as written>\t<lowercase hex sha256 of its bytes>   (one per file, sorted by path)
//
// with every line ending in "\n". The tasks line is written only for a
// learner that declares classification (cfg.Tasks is not
// methodid.TasksRegression), so every method that does not keeps the
// identity it had before tasks existed, and one that does gets another.
// fileHashes maps each of cfg.Files to its hash (a missing entry counts as
// ""). The command and the environment are not part of it.
func Identity(cfg Config, fileHashes map[string]string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "misslab-method/1\nname=%s\nkind=%s\nversion=%s\naccepts_missing=%t\n",
		cfg.Name, cfg.Kind, cfg.Version, cfg.AcceptsMissing)
	if cfg.Tasks != methodid.TasksRegression {
		fmt.Fprintf(&b, "tasks=%s\n", cfg.Tasks)
	}
	files := slices.Clone(cfg.Files)
	slices.Sort(files)
	for _, f := range files {
		fmt.Fprintf(&b, "file=%s\t%s\n", f, fileHashes[f])
	}
	sum := sha256.Sum256([]byte(b.String()))
	return hex.EncodeToString(sum[:])
}

// hashFiles hashes every file of cfg, each of which must be a regular
// file (symbolic links are followed).
func hashFiles(cfg Config) (map[string]string, error) {
	out := make(map[string]string, len(cfg.Files))
	for _, f := range cfg.Files {
		h, err := hashFile(filepath.Join(cfg.Dir, filepath.FromSlash(f)))
		if err != nil {
			return nil, fmt.Errorf("%q: %w", f, err)
		}
		out[f] = h
	}
	return out, nil
}

// hashFile returns the lowercase hex SHA-256 of the regular file at path.
func hashFile(path string) (string, error) {
	if err := checkRegular(path); err != nil {
		return "", err
	}
	fh, err := os.Open(path)
	if err != nil {
		return "", err
	}
	defer fh.Close()
	h := sha256.New()
	if _, err := io.Copy(h, fh); err != nil {
		return "", err
	}
	return hex.EncodeToString(h.Sum(nil)), nil
}

// currentIdentity re-hashes the files of e and returns the identity they
// give now.
func (e *entry) currentIdentity() (string, error) {
	hashes, err := hashFiles(e.cfg)
	if err != nil {
		return "", err
	}
	return Identity(e.cfg, hashes), nil
}

// checkRegular reports a path that does not exist or is not a regular
// file (symbolic links are followed), in a few words.
func checkRegular(path string) error {
	st, err := os.Stat(path)
	switch {
	case errors.Is(err, os.ErrNotExist):
		return errors.New("does not exist")
	case err != nil:
		return err
	case !st.Mode().IsRegular():
		return fmt.Errorf("is not a regular file (%s)", st.Mode().Type())
	}
	return nil
}
