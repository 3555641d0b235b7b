package grid

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"slices"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2"
	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// Limits on a grid file, enforced by Parse and ParseFile before the HCL
// parser sees the file. Grid files are written by hand (the largest
// example is a few KB and nests 4 levels), so each limit is far beyond any
// real grid; together they keep a hostile or mistaken file from crashing
// the parser, which recurses once per nesting level, or from costing
// gigabytes or minutes before its error. A file past a limit fails with an
// *Error whose field is "limit", at the first token past the limit (at
// 1:1 for the file size).
const (
	// MaxFileBytes is the size of the largest grid file accepted, in
	// bytes (4 MiB). ParseFile checks it before reading the file.
	MaxFileBytes = 4 << 20
	// MaxDepth is the deepest nesting accepted. Every bracket, brace (of a
	// block or an object), parenthesis, string, heredoc and template
	// sequence ("${...}", "%{...}") adds a level until it closes; every
	// operator (unary, binary or "?"), index ("x[i]") and %{if}/%{for}
	// directive adds a level until the end of its expression (a comma,
	// the closing bracket, or the end of the line in a body or object).
	MaxDepth = 32
	// MaxListLength is the largest number of elements in one list [...].
	MaxListLength = 10_000
	// MaxBlocks is the largest number of blocks (sweep, data, learner, ...)
	// in a file, nested blocks included.
	MaxBlocks = 10_000
	// MaxTokens is the largest number of tokens in a file: each name,
	// number, operator, bracket, comma, piece of string, comment and line
	// break counts one. Parsing allocates about 1 KB per token, so a file
	// at this limit costs at most about 150 MB and a fraction of a second.
	MaxTokens = 100_000
	// MaxNumberLength is the longest number accepted, in characters: HCL
	// converts numbers in time and memory that grow faster than their
	// length (a million digits take 3 s and 2 GB).
	MaxNumberLength = 100
	// MaxExponent is the largest exponent accepted in a number, in
	// magnitude: float64 spans about 1e±308, and writing a number with a
	// larger exponent in a diagnostic takes math/big seconds (1e-99999: 7 s).
	MaxExponent = 400
	// MaxStringPieces is the largest number of pieces of text in one
	// string or heredoc: a heredoc has one per line, and text is also cut
	// around each template sequence and each "$" or "%" that opens none.
	// HCL's parser joins the pieces by copying, in time and memory that
	// grow with their number times the length of the string.
	MaxStringPieces = 64
)

// limitField is the Diagnostic.Field of an error for a file past a limit.
const limitField = "limit"

// readFile reads the grid file at path. A file larger than MaxFileBytes
// is refused with an *Error at 1:1: from its size before reading when it
// is a regular file, else after reading MaxFileBytes + 1 bytes.
func readFile(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	defer f.Close()
	if fi, err := f.Stat(); err == nil && fi.Mode().IsRegular() && fi.Size() > MaxFileBytes {
		return nil, limitError(nil, path, 0, "the file is %d bytes, past the limit of %d bytes (4 MiB)",
			fi.Size(), MaxFileBytes)
	}
	src, err := io.ReadAll(io.LimitReader(f, MaxFileBytes+1))
	if err != nil {
		return nil, fmt.Errorf("grid: %w", err)
	}
	if len(src) > MaxFileBytes {
		return nil, limitError(nil, path, 0, "the file is larger than the limit of %d bytes (4 MiB)", MaxFileBytes)
	}
	return src, nil
}

// checkBounds returns an *Error for the first limit that src exceeds, or
// for invalid UTF-8, a non-ASCII character outside strings and comments or
// an unterminated /* comment (which HCL's lexer reads in quadratic time),
// or nil. It checks the limits twice, each time in one pass that neither
// recurses nor holds more than O(MaxDepth) state. Neither pass is enough
// alone:
//   - first on the bytes, with a scanner that tokenizes like HCL's lexer
//     (strings, escapes, template sequences, heredocs, comments). It is
//     what keeps refusal cheap: hclsyntax.LexConfig does not recurse, but
//     it builds every token of the file (4 MiB of line breaks: 4 million
//     tokens, 2.2 GB, 3 s) and reads unterminated /* comments in
//     quadratic time (100,000 of them: minutes);
//   - then on the tokens of hclsyntax.LexConfig, so that no difference
//     between the scanner and HCL's lexer can let deep input reach the
//     recursive parser (FuzzBounds looks for such differences). For a
//     file the first pass accepts, this costs about what ParseConfig's
//     own lexing does.
func checkBounds(src []byte, filename string) error {
	if len(src) > MaxFileBytes {
		return limitError(src, filename, 0, "the file is %d bytes, past the limit of %d bytes (4 MiB)",
			len(src), MaxFileBytes)
	}
	if off := invalidUTF8(src); off >= 0 {
		// HCL's lexer reads some invalid sequences as names that swallow
		// the next byte, a quote or a brace included: refuse them first.
		return diagError(src, filename, off, "syntax",
			"invalid character encoding (byte 0x%02x); a grid file is UTF-8 text", src[off])
	}
	if v := scanBytes(src, newMeter()); v != nil {
		return diagError(src, filename, v.off, v.field, "%s", v.msg)
	}
	toks, _ := hclsyntax.LexConfig(src, filename, hcl.InitialPos)
	if v := scanTokens(toks, newMeter()); v != nil {
		return diagError(src, filename, v.off, v.field, "%s", v.msg)
	}
	return nil
}

// limitError returns an *Error with one "limit" diagnostic at byte off of
// src.
func limitError(src []byte, filename string, off int, format string, a ...any) error {
	return diagError(src, filename, off, limitField, format, a...)
}

// diagError returns an *Error with one diagnostic at byte off of src.
func diagError(src []byte, filename string, off int, field, format string, a ...any) error {
	line, col := position(src, off)
	return &Error{Diagnostics: []Diagnostic{{Filename: filename, Line: line, Column: col,
		Field: field, Message: fmt.Sprintf(format, a...)}}}
}

// invalidUTF8 returns the offset of the first byte of src that is not
// valid UTF-8, or -1.
func invalidUTF8(src []byte) int {
	for i := 0; i < len(src); {
		if src[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if r == utf8.RuneError && n == 1 {
			return i
		}
		i += n
	}
	return -1
}

// position returns the 1-based line and column (in characters) of byte
// off of src; a leading byte order mark takes no column, as in HCL.
func position(src []byte, off int) (line, col int) {
	before := src[:off]
	start := bytes.LastIndexByte(before, '\n') + 1
	col = 1 + utf8.RuneCount(before[start:])
	if start == 0 && bytes.HasPrefix(before, bom) {
		col--
	}
	return 1 + bytes.Count(before, []byte{'\n'}), col
}

var bom = []byte("\xef\xbb\xbf")

// violation is the first limit exceeded: where and what.
type violation struct {
	off   int
	field string // the Diagnostic.Field: limitField, or "syntax"
	msg   string
}

// tokKind classifies a token for the meter.
type tokKind uint8

const (
	kText         tokKind = iota // literal text of a string or heredoc
	kTerm                        // name or number: ends an operand
	kPunct                       // any other token: ".", ":", "=>", "...", invalid characters
	kComment                     // a comment
	kNewline                     // a line break outside strings
	kComma                       // ","
	kEquals                      // "=" (not "==")
	kOp                          // an operator: - ! + * / % && || == != < > <= >= ?
	kOpenParen                   // "("
	kCloseParen                  // ")"
	kOpenBrack                   // "["
	kCloseBrack                  // "]"
	kOpenBrace                   // "{" of a block or an object
	kCloseBrace                  // "}" of a block or an object
	kOpenSeq                     // "${" in a string or heredoc
	kOpenCtl                     // "%{" in a string or heredoc
	kCloseSeq                    // "}" or "~}" ending a template sequence
	kOpenQuote                   // opening '"'
	kCloseQuote                  // closing '"'
	kOpenHeredoc                 // "<<EOT" or "<<-EOT" and its line break
	kCloseHeredoc                // the closing "EOT" line, without its line break
)

// closes reports whether k closes a frame.
func (k tokKind) closes() bool {
	switch k {
	case kCloseParen, kCloseBrack, kCloseBrace, kCloseSeq, kCloseQuote, kCloseHeredoc:
		return true
	}
	return false
}

// frameKind is what an open frame of the meter is.
type frameKind uint8

const (
	fBody    frameKind = iota // the file or a block's body: items end at line breaks
	fObject                   // an object constructor {...}
	fParen                    // (...)
	fList                     // [...]: a list, a for expression or an index
	fSeq                      // ${...} or %{...}
	fQuote                    // "..."
	fHeredoc                  // <<EOT ... EOT
)

// frame is one open bracket, brace, parenthesis, string or sequence.
type frame struct {
	kind   frameKind
	extra  int  // levels added inside it that close with no bracket: operators, indexes, directives
	elems  int  // fList: elements so far
	fresh  bool // fList: the next token starts an element; fBody: it starts an item
	assign bool // fBody: the current item is an attribute, past its "="
	item   int  // fBody: byte offset of the current item's first token
}

// meter follows the nesting of a token stream and records the first
// limit it exceeds. A token that closes something else than the innermost
// frame (a ")" closing a "[") closes nothing, so that bad input only ever
// counts deeper.
type meter struct {
	stack   []frame // innermost last; the file's body at the bottom
	depth   int     // levels open: frames above the bottom plus their extras
	tokens  int
	blocks  int
	operand bool // the last token ended an operand, so "[" indexes it
	ctl     bool // the last token was "%{": a name now is a directive
	bad     *violation
	trace   func(k tokKind, off int) // tests: sees every token
}

func newMeter() *meter {
	return &meter{stack: append(make([]frame, 0, MaxDepth+2), frame{kind: fBody, fresh: true})}
}

// add feeds the token of kind k at byte off; text is its source. It
// returns false once a limit is exceeded.
func (m *meter) add(k tokKind, off int, text []byte) bool {
	if m.bad != nil {
		return false
	}
	if m.trace != nil {
		m.trace(k, off)
	}
	if m.tokens++; m.tokens > MaxTokens {
		return m.fail(off, "token %d is past the limit of %d tokens per file (names, numbers, "+
			"operators, brackets, pieces of strings, comments and line breaks each count)", m.tokens, MaxTokens)
	}
	top := &m.stack[len(m.stack)-1]
	switch k {
	case kText:
		return m.piece(top, off)
	case kComment:
		return true
	case kNewline:
		m.newline(top)
		return true
	}
	ctl, index := m.ctl, m.operand
	m.ctl, m.operand = k == kOpenCtl, k == kTerm || k.closes()
	if top.fresh && k != kComma && !k.closes() && !m.begin(top, off) {
		return false
	}
	switch k {
	case kComma:
		m.settle(top)
		top.fresh = top.kind == fList
	case kEquals:
		top.assign = top.assign || top.kind == fBody
	case kOp:
		return m.level(top, off)
	case kTerm:
		return m.term(text, off, ctl)
	case kOpenBrack:
		return (!index || m.level(top, off)) && m.push(fList, off)
	case kOpenBrace:
		return m.openBrace(top, off)
	default:
		return m.other(top, k, off)
	}
	return true
}

// piece counts a piece of text of a string or heredoc.
func (m *meter) piece(top *frame, off int) bool {
	if top.kind != fQuote && top.kind != fHeredoc {
		return true
	}
	if top.elems++; top.elems > MaxStringPieces {
		return m.fail(off, "piece %d of the string is past the limit of %d pieces per string or heredoc "+
			"(one per line, and more around each ${, %%{, $ or %%)", top.elems, MaxStringPieces)
	}
	return true
}

// newline ends the item or the expression in a body or an object.
func (m *meter) newline(top *frame) {
	if top.kind == fBody || top.kind == fObject {
		m.settle(top)
		top.fresh, top.assign = top.kind == fBody, false
	}
}

// other opens or closes the frame of token k, if any.
func (m *meter) other(top *frame, k tokKind, off int) bool {
	switch k {
	case kOpenParen:
		return m.push(fParen, off)
	case kOpenSeq, kOpenCtl:
		return m.push(fSeq, off)
	case kOpenQuote:
		return m.push(fQuote, off)
	case kOpenHeredoc:
		return m.push(fHeredoc, off)
	case kCloseParen:
		m.pop(top, fParen)
	case kCloseBrack:
		m.pop(top, fList)
	case kCloseBrace:
		m.pop(top, fBody, fObject)
	case kCloseSeq:
		m.pop(top, fSeq)
	case kCloseQuote:
		m.pop(top, fQuote)
	case kCloseHeredoc:
		m.pop(top, fHeredoc)
	}
	return true
}

// begin handles the first token of a body item or of a list element.
func (m *meter) begin(top *frame, off int) bool {
	top.fresh = false
	switch top.kind {
	case fBody:
		top.item = off
	case fList:
		if top.elems++; top.elems > MaxListLength {
			return m.fail(off, "list element %d is past the limit of %d elements per list", top.elems, MaxListLength)
		}
	}
	return true
}

// openBrace opens a block when the brace follows a block header in a
// body, else an object.
func (m *meter) openBrace(top *frame, off int) bool {
	if top.kind != fBody || top.assign {
		return m.push(fObject, off)
	}
	if m.blocks++; m.blocks > MaxBlocks {
		return m.fail(top.item, "block %d is past the limit of %d blocks per file", m.blocks, MaxBlocks)
	}
	return m.push(fBody, off)
}

// term checks a name or a number. A name just after "%{" is a directive:
// HCL's parser nests the text between %{if} or %{for} and its %{endif} or
// %{endfor}, so each adds a level to the string around the sequence.
func (m *meter) term(text []byte, off int, ctl bool) bool {
	if len(text) > 0 && text[0] >= '0' && text[0] <= '9' {
		return m.number(text, off)
	}
	if !ctl || len(m.stack) < 2 {
		return true
	}
	outer := &m.stack[len(m.stack)-2]
	switch string(text) {
	case "if", "for":
		return m.level(outer, off)
	case "endif", "endfor":
		if outer.extra > 0 {
			outer.extra--
			m.depth--
		}
	}
	return true
}

// number checks the length and the exponent of a number.
func (m *meter) number(text []byte, off int) bool {
	if len(text) > MaxNumberLength {
		return m.fail(off, "the number has %d characters, past the limit of %d", len(text), MaxNumberLength)
	}
	for i, c := range text {
		if c == 'e' || c == 'E' {
			if !m.exponent(text, i+1, off) {
				return false
			}
		}
	}
	return true
}

// exponent checks the exponent starting at text[i], after an "e".
func (m *meter) exponent(text []byte, i, off int) bool {
	if i < len(text) && (text[i] == '+' || text[i] == '-') {
		i++
	}
	exp := 0
	for ; i < len(text) && text[i] >= '0' && text[i] <= '9'; i++ {
		if exp = 10*exp + int(text[i]-'0'); exp > MaxExponent {
			return m.fail(off, "the exponent of %s is past the limit of %d in magnitude", text, MaxExponent)
		}
	}
	return true
}

// level adds a level to frame f that lasts until f settles or closes.
func (m *meter) level(f *frame, off int) bool {
	f.extra++
	m.depth++
	return m.deep(off)
}

// push opens a frame of kind k.
func (m *meter) push(k frameKind, off int) bool {
	m.stack = append(m.stack, frame{kind: k, fresh: k == fList || k == fBody})
	m.depth++
	return m.deep(off)
}

// pop closes top when it is one of kinds (never the file's body).
func (m *meter) pop(top *frame, kinds ...frameKind) {
	if len(m.stack) > 1 && slices.Contains(kinds, top.kind) {
		m.depth -= 1 + top.extra
		m.stack = m.stack[:len(m.stack)-1]
	}
}

// settle ends the expression in f: its operator levels close.
func (m *meter) settle(f *frame) {
	m.depth -= f.extra
	f.extra = 0
}

func (m *meter) deep(off int) bool {
	if m.depth <= MaxDepth {
		return true
	}
	return m.fail(off, "nested more than %d levels deep; every bracket, brace, parenthesis, string, "+
		"template sequence and operator adds a level", MaxDepth)
}

// fail records a limit exceeded at off.
func (m *meter) fail(off int, format string, a ...any) bool {
	return m.refuse(off, limitField, format, a...)
}

// refuse records a problem with field at off.
func (m *meter) refuse(off int, field, format string, a ...any) bool {
	m.bad = &violation{off: off, field: field, msg: fmt.Sprintf(format, a...)}
	return false
}

// literalOnly reports for expressions (`[for x in l : ...]`, `%{for}` in
// a template) as errors: a grid file writes its values out, and a for
// expression multiplies a small file into gigabytes when it is evaluated
// (two nested ones over a 1,000-element list: 684 MB), which no limit on
// the text can see.
func (p *parser) literalOnly(body *hclsyntax.Body) bool {
	ok := true
	hclsyntax.VisitAll(body, func(n hclsyntax.Node) hcl.Diagnostics {
		if fe, isFor := n.(*hclsyntax.ForExpr); isFor && ok {
			p.ds.add(fe.SrcRange, "limit", "for expressions are not allowed in a grid file; write the list out")
			ok = false
		}
		return nil
	})
	return ok
}
