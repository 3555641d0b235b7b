package grid

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// maxRejectAlloc bounds what refusing a hostile input may allocate. Before
// the limits, these inputs crashed the parser with a stack overflow or
// cost about 1 GB.
const maxRejectAlloc = 16 << 20

// Messages of the limits, as the diagnostics print them.
const (
	deepMsg   = "limit: nested more than 32 levels deep; every bracket, brace, parenthesis, string, template sequence and operator adds a level"
	piecesMsg = "limit: piece 65 of the string is past the limit of 64 pieces per string or heredoc (one per line, and more around each ${, %{, $ or %)"
	tokensMsg = "limit: token 100001 is past the limit of 100000 tokens per file (names, numbers, operators, brackets, pieces of strings, comments and line breaks each count)"
)

// allocated returns the bytes that f allocates.
func allocated(f func()) uint64 {
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	f()
	runtime.ReadMemStats(&after)
	return after.TotalAlloc - before.TotalAlloc
}

// rep is strings.Repeat.
func rep(s string, n int) string { return strings.Repeat(s, n) }

// TestHostileInputs: inputs that used to crash Parse or cost gigabytes
// fail with one diagnostic at the first token past a limit, allocating
// little.
func TestHostileInputs(t *testing.T) {
	tests := []struct {
		name string
		src  string
		want string // after "hostile.hcl:"
	}{
		{"100000 nested brackets", "sweep \"s\" {\n  seed = " + rep("[", 100_000) + rep("]", 100_000) + "\n}\n",
			"2:41: " + deepMsg}, // the sweep's brace is level 1, the 32nd "[" level 33
		{"50000 nested lists", "sweep \"s\" {\n  data {\n    rho = " + rep("[0, ", 50_000) + "0" + rep("]", 50_000) + "\n  }\n}\n",
			"3:131: " + deepMsg},
		{"100000 nested blocks", rep("a {\n", 100_000) + rep("}\n", 100_000), "33:3: " + deepMsg},
		{"100000 nested parentheses", "x = " + rep("(", 100_000) + "1" + rep(")", 100_000) + "\n", "1:37: " + deepMsg},
		{"nested objects", "x = " + rep("{a = ", 100_000) + "1" + rep("}", 100_000) + "\n", "1:165: " + deepMsg},
		{"nested interpolations", "x = " + rep(`"${`, 100_000) + "1" + rep(`}"`, 100_000) + "\n", "1:53: " + deepMsg},
		{"nested template ifs", `x = "` + rep("%{if true}", 100_000) + rep("%{endif}", 100_000) + "\"\n", "1:308: " + deepMsg},
		{"unary minus", "x = " + rep("-", 1_000_000) + "1\n", "1:37: " + deepMsg},
		{"negations", "x = " + rep("!", 1_000_000) + "true\n", "1:37: " + deepMsg},
		{"sum", "x = " + rep("1+", 1_000_000) + "1\n", "1:70: " + deepMsg},
		{"conditionals", "x = " + rep("true ? 1 : ", 300_000) + "1\n", "1:362: " + deepMsg},
		{"indexes", "x = a" + rep("[0]", 1_000_000) + "\n", "1:99: " + deepMsg},
		{"list of 1e6 elements", "sweep \"s\" {\n  data {\n    rho = [" + rep("0, ", 1_000_000) + "0]\n  }\n}\n",
			"3:30012: limit: list element 10001 is past the limit of 10000 elements per list"},
		{"20000 blocks", rep("data {}\n", 20_000), "10001:1: limit: block 10001 is past the limit of 10000 blocks per file"},
		{"4 MB of line breaks", rep("\n", 4_000_000), "100001:1: " + tokensMsg},
		{"4 MB of comments", rep("#\n", 2_000_000), "50001:1: " + tokensMsg},
		{"1e6 digits", "x = " + rep("7", 1_000_000) + "\n",
			"1:5: limit: the number has 1000000 characters, past the limit of 100"},
		{"huge exponent", "x = [1, 2e-100000000]\n",
			"1:9: limit: the exponent of 2e-100000000 is past the limit of 400 in magnitude"},
		{"1e5 unterminated comments", "/* a */ x = 1\n" + rep("/*a\n", 100_000),
			`2:1: syntax: the comment has no end: "/*" without "*/"`},
		{"heredoc of 50000 lines", "x = <<EOT\n" + rep("a\n", 50_000) + "EOT\n", "66:1: " + piecesMsg},
		{"50000 dollars in a string", `x = "` + rep("$a", 50_000) + "\"\n", "1:70: " + piecesMsg},
		{"non-ASCII name", "x = <<ÉTÉ\n" + rep("[", 100_000) + "\nÉTÉ\n",
			"1:7: syntax: the character 'É' is outside a string or a comment, where a grid file has only ASCII"},
		{"invalid UTF-8 that HCL reads as a name", "x = \xc4\"" + rep("[", 100_000) + "\n",
			"1:5: syntax: invalid character encoding (byte 0xc4); a grid file is UTF-8 text"},
		{"too many bytes", rep(" ", MaxFileBytes+1),
			"1:1: limit: the file is 4194305 bytes, past the limit of 4194304 bytes (4 MiB)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			var err error
			alloc := allocated(func() { _, err = Parse(src, "hostile.hcl", testOpts) })
			var ge *Error
			if !errors.As(err, &ge) || !errors.Is(err, ErrInvalid) || len(ge.Diagnostics) != 1 {
				t.Fatalf("got %T %v, want one diagnostic", err, err)
			}
			if got, want := err.Error(), "hostile.hcl:"+tt.want; got != want {
				t.Errorf("error\n got: %s\nwant: %s", got, want)
			}
			if alloc > maxRejectAlloc {
				t.Errorf("refusing it allocated %d MB", alloc>>20)
			}
		})
	}
}

// TestLimitsAcceptTheirMaximum: input exactly at MaxListLength, MaxBlocks,
// MaxDepth, MaxNumberLength, MaxExponent and MaxStringPieces passes the
// bounds, so each limit is where it says.
func TestLimitsAcceptTheirMaximum(t *testing.T) {
	for name, src := range map[string]string{
		"list":   "x = [" + rep("0, ", MaxListLength) + "]\n",
		"blocks": rep("a {}\n", MaxBlocks),
		"depth":  "x = " + rep("[", MaxDepth) + rep("]", MaxDepth) + "\n",
		"number": "x = " + rep("1", MaxNumberLength-5) + "e-400\n",
		"pieces": "x = <<EOT\n" + rep("a\n", MaxStringPieces) + "EOT\n",
	} {
		if err := checkBounds([]byte(src), "max.hcl"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// TestParseFileTooLarge: ParseFile refuses a file over MaxFileBytes from
// its size, without reading it, and a device that never ends after
// reading MaxFileBytes + 1 bytes.
func TestParseFileTooLarge(t *testing.T) {
	path := filepath.Join(t.TempDir(), "big.hcl")
	f, err := os.Create(path)
	if err != nil {
		t.Fatal(err)
	}
	if err := f.Truncate(MaxFileBytes + 1); err != nil {
		t.Fatal(err)
	}
	f.Close()
	alloc := allocated(func() { _, err = ParseFile(path, testOpts) })
	want := path + ":1:1: limit: the file is 4194305 bytes, past the limit of 4194304 bytes (4 MiB)"
	if !errors.Is(err, ErrInvalid) || err.Error() != want {
		t.Errorf("error\n got: %v\nwant: %s", err, want)
	}
	if alloc > 1<<20 {
		t.Errorf("refusing it allocated %d bytes: it read the file", alloc)
	}
	if _, err := os.Stat("/dev/zero"); err != nil {
		t.Skip("no /dev/zero")
	}
	_, err = ParseFile("/dev/zero", testOpts)
	want = "/dev/zero:1:1: limit: the file is larger than the limit of 4194304 bytes (4 MiB)"
	if !errors.Is(err, ErrInvalid) || err.Error() != want {
		t.Errorf("error\n got: %v\nwant: %s", err, want)
	}
}

// hidden hold 100 brackets, braces or parentheses where HCL reads text:
// comments, strings, heredocs. None may count.
var hidden = map[string]string{
	"hash comment":        "# " + rep("[", 100) + "\nx = 1\n",
	"slash comment":       "// " + rep("(", 100) + "\nx = 1\n",
	"block comment":       "/* " + rep("{", 100) + "\n" + rep("[", 100) + " */ x = 1\n",
	"string":              `x = "` + rep("[", 100) + "\"\n",
	"escaped quote":       `x = "\"` + rep("[", 100) + "\"\n",
	"escaped dollar":      `x = "$${` + rep("[", 100) + "\"\n",
	"escaped percent":     `x = "%%{` + rep("{", 100) + "\"\n",
	"dollar, escape":      `x = "$$${` + rep("[", 100) + "\"\n",
	"block label":         `sweep "` + rep("{", 100) + "\" {\n}\n",
	"heredoc":             "x = <<EOT\n" + rep("[", 100) + "\nEOT\n",
	"indented heredoc":    "x = <<-EOT\n  " + rep("(", 100) + "\n  EOT\n",
	"marker lookalikes":   "x = <<EOT\nEOT " + rep("[", 50) + "\n${1}EOT\n" + rep("[", 50) + "\nEOT\n",
	"non-ASCII text":      "# é [\nx = \"é${\"ü[\"}\" // ∑ (\ny = <<EOT\n∑ {\nEOT\n",
	"heredoc in sequence": "x = \"${<<EOT\n\"" + rep("[", 100) + "\nEOT\n}\"\n",
}

// TestTextDoesNotCount: brackets in comments, strings and heredocs do not
// count towards MaxDepth.
func TestTextDoesNotCount(t *testing.T) {
	for name, src := range hidden {
		if err := checkBounds([]byte(src), "text.hcl"); err != nil {
			t.Errorf("%s: %v", name, err)
		}
	}
}

// counted end comments, strings and heredocs where HCL does: the 40
// brackets after them count, and the 33rd level is at want.
var counted = []struct{ name, src, want string }{
	{"after a hash comment", "# [[[\nx = " + rep("[", 40), "2:37"},
	{"after a block comment", "/* [[[\n */ x = " + rep("[", 40), "2:41"},
	{"after a string", `x = ["[[[", ` + rep("[", 40), "1:44"},
	{"after an escaped backslash", `x = ["\\", ` + rep("[", 40), "1:43"},
	{"in an interpolation", `x = "[[${` + rep("[", 40), "1:40"},
	{"after a heredoc", "x = [<<EOT\n[[[\n  EOT\n, " + rep("[", 40), "4:34"},
	{"in a heredoc's interpolation", "x = <<EOT\n[[${" + rep("[", 40), "2:35"},
	{"an escape, then an interpolation", `x = "$${}${` + rep("[", 40), "1:42"},
}

// TestTextEnds: brackets right after a comment, a string or a heredoc, or
// inside a template sequence, count.
func TestTextEnds(t *testing.T) {
	for _, tt := range counted {
		err := checkBounds([]byte(tt.src), "x.hcl")
		if want := "x.hcl:" + tt.want + ": " + deepMsg; err == nil || err.Error() != want {
			t.Errorf("%s: got %v, want %s", tt.name, err, want)
		}
	}
}

// TestTextInGrid: a grid with brackets in comments, a label, a string and
// a heredoc parses.
func TestTextInGrid(t *testing.T) {
	src := "# " + rep("[", 50) + "\nsweep \"" + rep("(", 50) + "\" {\n  seed = 1 /* " + rep("{", 50) + " */\n" +
		"  repetitions = 2\n  data {\n    model = \"quad${\"ratic\"}\"\n  }\n" +
		"  pipelines {\n    names = [<<-EOT\n      %{ if false }" + rep("[", 50) + "%{ endif }tree/mia%{ if false }\n" +
		"      %{ endif ~}\n    EOT\n    ]\n  }\n}\n"
	f, err := Parse([]byte(src), "text.hcl", testOpts)
	if err != nil {
		t.Fatalf("%v\n%s", err, src)
	}
	if s := f.Sweeps[0]; s.Name != rep("(", 50) || len(s.Pipelines) != 1 || s.Pipelines[0].Canonical() != "tree/mia" {
		t.Errorf("sweep %q with %d pipelines", s.Name, len(s.Pipelines))
	}
}

// token is what a meter sees of a token.
type token struct {
	kind tokKind
	off  int
}

// trace returns the tokens that scan feeds to a meter, and its verdict.
func trace(scan func(*meter) *violation) ([]token, *violation) {
	var toks []token
	m := newMeter()
	m.trace = func(k tokKind, off int) { toks = append(toks, token{k, off}) }
	v := scan(m)
	return toks, v
}

// before returns the tokens of toks that start before off.
func before(toks []token, off int) []token {
	i := 0
	for i < len(toks) && toks[i].off < off {
		i++
	}
	return toks[:i]
}

// scanAgree reports whether the byte scanner and HCL's lexer yield the
// same tokens and verdict from src, when it is UTF-8 (checkBounds refuses
// it otherwise before scanning). Where the scanner refuses an unterminated
// /* comment or a non-ASCII character outside strings, they must agree
// before the token of HCL's lexer that holds the refused byte.
func scanAgree(t *testing.T, src []byte) {
	t.Helper()
	if !utf8.Valid(src) {
		return
	}
	bytesToks, bytesBad := trace(func(m *meter) *violation { return scanBytes(src, m) })
	lexed, _ := hclsyntax.LexConfig(src, "x.hcl", hcl.InitialPos)
	hclToks, hclBad := trace(func(m *meter) *violation { return scanTokens(lexed, m) })
	if bytesBad != nil && bytesBad.field == "syntax" {
		cut := 0
		for _, t := range lexed {
			if t.Range.Start.Byte <= bytesBad.off {
				cut = t.Range.Start.Byte
			}
		}
		bytesToks, hclToks, bytesBad, hclBad = before(bytesToks, cut), before(hclToks, cut), nil, nil
	}
	if !slices.Equal(bytesToks, hclToks) || fmt.Sprint(bytesBad) != fmt.Sprint(hclBad) {
		t.Errorf("scanner and lexer differ on %q\nscanner: %v %v\n  lexer: %v %v",
			src, bytesToks, bytesBad, hclToks, hclBad)
	}
}

// boundsSeeds returns the test files, the examples and the inputs above.
func boundsSeeds() [][]byte {
	var out [][]byte
	paths, _ := filepath.Glob("testdata/*.hcl")
	more, _ := filepath.Glob("../../examples/*.hcl")
	for _, p := range append(paths, more...) {
		if src, err := os.ReadFile(p); err == nil {
			out = append(out, src)
		}
	}
	for _, src := range hidden {
		out = append(out, []byte(src))
	}
	for _, tt := range counted {
		out = append(out, []byte(tt.src))
	}
	for _, s := range []string{
		"x = 1e-5 - -1.5e+3 + a-b\n", "x = 1..2\n", "x = a[*].b.*.c\n", "x = {a: 1, b = 2}\n",
		"x = \"${~ a ~}\"\n", "x = \"${ { a = 1 } }\"\n", "x = \"${ [ } ]\"\n", "x = <<EOT\na\rb\nEOT\n",
		"x = <<EOT\r\nEOT\r\n", "é = 1 // x\r\n", "\xef\xbb\xbfx = 1\n", "x = \"a\\é\\\n$", "x = <<EOT\n%",
		"x = [for k, v in y : v if k > 1]\n", "~}}", "x = <<€\n[\n", "x = <<E€\n[\n", "x = <<-_é-1\n[\n_é-1\n",
		"x = é[0] + ∑[1]\n", "x = <<\n", "x = <<-\n", "x = <<1\n", "/**/ x = [ /*[*/ 1 /*\n", "/*/",
		"x = \"a\\\"b\\\n\r\nc$$%%{${1}\"\n", "x = <<EOT\n$\n%%{\n$${\n  EOT\n",
		"<<A\n$0\n$\n\n$\r\n$ab\n$é\n$a$\n%%{~\r\n$${x\nA\n", "<<A\n$0\r", "<<A\n$${\ra",
	} {
		out = append(out, []byte(s))
	}
	return out
}

// TestScannerMatchesLexer: on every test file, example and input above,
// the byte scanner yields the tokens of HCL's lexer.
func TestScannerMatchesLexer(t *testing.T) {
	for _, src := range boundsSeeds() {
		scanAgree(t, src)
	}
}

// FuzzBounds: the byte scanner yields the tokens of HCL's lexer on any
// input, so both checks agree and neither panics.
func FuzzBounds(f *testing.F) {
	for _, src := range boundsSeeds() {
		f.Add(src)
	}
	f.Fuzz(scanAgree)
}
