package grid

import (
	"bytes"
	"strings"
	"unicode/utf8"

	"github.com/hashicorp/hcl/v2/hclsyntax"
)

// This file turns a grid file into the token kinds of the meter in
// bounds.go, twice: from HCL's own tokens, and with a scanner of the bytes
// that mimics HCL's lexer without building tokens.

// scanTokens feeds HCL's own tokens to m and returns the first violation.
func scanTokens(toks hclsyntax.Tokens, m *meter) *violation {
	for _, t := range toks {
		if t.Type == hclsyntax.TokenEOF {
			continue
		}
		k, ok := tokenKinds[t.Type]
		if !ok {
			k = kPunct
		}
		if !m.add(k, t.Range.Start.Byte, t.Bytes) {
			break
		}
		// HCL's parser reads a comment ending in a line break as one.
		if k == kComment && bytes.HasSuffix(t.Bytes, []byte{'\n'}) {
			m.add(kNewline, t.Range.End.Byte-1, t.Bytes[len(t.Bytes)-1:])
		}
	}
	return m.bad
}

// tokenKinds maps HCL's token types to the meter's kinds; every other
// type is kPunct.
var tokenKinds = map[hclsyntax.TokenType]tokKind{
	hclsyntax.TokenIdent:           kTerm,
	hclsyntax.TokenNumberLit:       kTerm,
	hclsyntax.TokenQuotedLit:       kText,
	hclsyntax.TokenStringLit:       kText,
	hclsyntax.TokenQuotedNewline:   kPunct,
	hclsyntax.TokenComment:         kComment,
	hclsyntax.TokenNewline:         kNewline,
	hclsyntax.TokenComma:           kComma,
	hclsyntax.TokenEqual:           kEquals,
	hclsyntax.TokenOParen:          kOpenParen,
	hclsyntax.TokenCParen:          kCloseParen,
	hclsyntax.TokenOBrack:          kOpenBrack,
	hclsyntax.TokenCBrack:          kCloseBrack,
	hclsyntax.TokenOBrace:          kOpenBrace,
	hclsyntax.TokenCBrace:          kCloseBrace,
	hclsyntax.TokenTemplateInterp:  kOpenSeq,
	hclsyntax.TokenTemplateControl: kOpenCtl,
	hclsyntax.TokenTemplateSeqEnd:  kCloseSeq,
	hclsyntax.TokenOQuote:          kOpenQuote,
	hclsyntax.TokenCQuote:          kCloseQuote,
	hclsyntax.TokenOHeredoc:        kOpenHeredoc,
	hclsyntax.TokenCHeredoc:        kCloseHeredoc,
	hclsyntax.TokenMinus:           kOp,
	hclsyntax.TokenBang:            kOp,
	hclsyntax.TokenPlus:            kOp,
	hclsyntax.TokenStar:            kOp,
	hclsyntax.TokenSlash:           kOp,
	hclsyntax.TokenPercent:         kOp,
	hclsyntax.TokenAnd:             kOp,
	hclsyntax.TokenOr:              kOp,
	hclsyntax.TokenQuestion:        kOp,
	hclsyntax.TokenEqualOp:         kOp,
	hclsyntax.TokenNotEqual:        kOp,
	hclsyntax.TokenLessThan:        kOp,
	hclsyntax.TokenGreaterThan:     kOp,
	hclsyntax.TokenLessThanEq:      kOp,
	hclsyntax.TokenGreaterThanEq:   kOp,
}

// lexMode is the state of HCL's lexer: code, a quoted string, a heredoc.
type lexMode uint8

const (
	mCode lexMode = iota
	mQuote
	mHeredoc
)

// scanner splits src into tokens the way HCL's lexer does
// (hclsyntax/scan_tokens.rl) and feeds them to a meter without building
// them. Its stacks grow only with nesting, which the meter bounds.
type scanner struct {
	src    []byte
	i      int // next byte
	m      *meter
	modes  []lexMode // innermost last
	braces int       // "{" and template sequences open, as the lexer counts them
	seqs   []int     // values of braces at which "}" ends a template sequence
	docs   []heredoc // open heredocs, innermost last
	// lastClose is the offset of the last "*/" in src, or -1.
	lastClose int
}

type heredoc struct {
	marker []byte
	bol    bool // at the start of a line: it may be the closing marker
}

// scanBytes feeds the tokens of src to m and returns the first violation.
func scanBytes(src []byte, m *meter) *violation {
	s := &scanner{src: src, m: m, modes: []lexMode{mCode}, lastClose: bytes.LastIndex(src, []byte("*/"))}
	if bytes.HasPrefix(src, bom) {
		s.i = len(bom)
	}
	for s.i < len(src) && m.bad == nil {
		switch s.modes[len(s.modes)-1] {
		case mCode:
			s.code()
		case mQuote:
			s.quoted()
		case mHeredoc:
			s.heredoc()
		}
	}
	return m.bad
}

// emit feeds the token from s.i to end and moves past it.
func (s *scanner) emit(k tokKind, end int) {
	start := s.i
	s.i = end
	s.m.add(k, start, s.src[start:end])
}

func (s *scanner) at(i int) byte {
	if i < len(s.src) {
		return s.src[i]
	}
	return 0
}

// code reads one token (or a run of spaces) outside strings.
func (s *scanner) code() {
	i, c, next := s.i, s.src[s.i], s.at(s.i+1)
	switch {
	case c == ' ' || c == '\t':
		s.i++
	case c == '\n':
		s.emit(kNewline, i+1)
	case c == '\r' && next == '\n':
		s.emit(kNewline, i+2)
	case c == '#' || c == '/' && next == '/':
		s.lineComment()
	case c == '/' && next == '*':
		s.blockComment()
	case c >= '0' && c <= '9':
		s.emit(kTerm, numberEnd(s.src, i))
	case c == '"':
		s.modes = append(s.modes, mQuote)
		s.emit(kOpenQuote, i+1)
	case c == '<' && s.heredocOpener():
	case c == '{':
		s.braces++
		s.emit(kOpenBrace, i+1)
	case c == '}':
		s.closeBrace(i+1, false)
	case c == '~' && next == '}':
		s.closeBrace(i+2, true)
	case c >= utf8.RuneSelf:
		// Names in a grid file are ASCII, and HCL's Unicode tables are
		// newer than Go's: refuse rather than guess where a name ends.
		r, _ := utf8.DecodeRune(s.src[i:])
		s.m.refuse(i, "syntax", "the character %q is outside a string or a comment, "+
			"where a grid file has only ASCII", r)
	default:
		if end := identEnd(s.src, i); end > i {
			s.emit(kTerm, end)
			return
		}
		k, n := punct(s.src[i:])
		s.emit(k, i+n)
	}
}

// lineComment reads a # or // comment, which HCL's parser reads as a line
// break when it ends with one.
func (s *scanner) lineComment() {
	nl := bytes.IndexByte(s.src[s.i:], '\n')
	if nl < 0 {
		s.emit(kComment, len(s.src))
		return
	}
	nl += s.i
	s.emit(kComment, nl+1)
	s.m.add(kNewline, nl, s.src[nl:nl+1])
}

// blockComment reads a /* */ comment. One without its end is refused:
// HCL's lexer would search the rest of the file for the end from each
// "/*", in time quadratic in the size of the file.
func (s *scanner) blockComment() {
	if s.lastClose < s.i+2 {
		s.m.refuse(s.i, "syntax", "the comment has no end: %q without %q", "/*", "*/")
		return
	}
	s.emit(kComment, s.i+4+bytes.Index(s.src[s.i+2:], []byte("*/")))
}

// heredocOpener reads "<<EOT" or "<<-EOT" and its line break, if there.
func (s *scanner) heredocOpener() bool {
	start := s.i + 2
	if s.at(s.i+1) != '<' {
		return false
	}
	if s.at(start) == '-' {
		start++
	}
	end := identEnd(s.src, start)
	nl := end
	if s.at(nl) == '\r' {
		nl++
	}
	if end == start || s.at(nl) != '\n' {
		return false
	}
	s.docs = append(s.docs, heredoc{marker: s.src[start:end], bol: true})
	s.modes = append(s.modes, mHeredoc)
	s.emit(kOpenHeredoc, nl+1)
	return true
}

// closeBrace reads "}" or "~}": the end of a template sequence when the
// braces opened since the sequence are closed, else of a block or object.
func (s *scanner) closeBrace(end int, tilde bool) {
	if n := len(s.seqs); n > 0 && s.seqs[n-1] == s.braces {
		s.seqs = s.seqs[:n-1]
		s.modes = s.modes[:len(s.modes)-1]
		s.braces--
		s.emit(kCloseSeq, end)
		return
	}
	s.braces--
	if tilde {
		s.emit(kCloseSeq, end) // HCL's lexer does so too; its parser reports it
		return
	}
	s.emit(kCloseBrace, end)
}

// template reads a "$" or "%" in a string or heredoc. "${" or "%{" opens
// a sequence. Otherwise template returns the end of the text it starts
// and whether it escapes a sequence: "$${" and "%%{" (and a "~" after
// them) do, a "$" or "%" before anything else stands for itself; at the
// end of the file it is an invalid token (end 0).
func (s *scanner) template(c byte) (end int, escape bool) {
	i := s.i
	end = i + 2
	switch {
	case s.at(i+1) == c && s.at(i+2) == '{':
		end = i + 3
		escape = true
	case s.at(i+1) != '{' && i+1 < len(s.src):
		return i + 1, false
	case s.at(i+1) != '{':
		s.emit(kPunct, i+1)
		return 0, false
	}
	if s.at(end) == '~' {
		end++
	}
	if escape {
		return end, true
	}
	s.braces++
	s.seqs = append(s.seqs, s.braces)
	if n := len(s.docs); n > 0 {
		s.docs[n-1].bol = false
	}
	s.modes = append(s.modes, mCode)
	if c == '$' {
		s.emit(kOpenSeq, end)
	} else {
		s.emit(kOpenCtl, end)
	}
	return 0, false
}

// quoted reads one token of a quoted string.
func (s *scanner) quoted() {
	i, c := s.i, s.src[s.i]
	switch c {
	case '"':
		s.modes = s.modes[:len(s.modes)-1]
		s.emit(kCloseQuote, i+1)
	case '$', '%':
		if end, _ := s.template(c); end > 0 {
			s.emit(kText, end)
		}
	case '\n', '\r':
		j := i + 1
		for j < len(s.src) && (s.src[j] == '\n' || s.src[j] == '\r') {
			j++
		}
		s.emit(kPunct, j) // a line break in a quoted string: HCL's parser refuses it
	default:
		if end := quotedTextEnd(s.src, i); end > i {
			s.emit(kText, end)
			return
		}
		s.emit(kPunct, i+1) // "\" before a line break or at the end: invalid to HCL's lexer
	}
}

// quotedTextEnd returns the end of the run of characters and escapes
// ("\" and the next character) starting at src[i], up to a quote, "$",
// "%", line break, or a "\" that escapes none.
func quotedTextEnd(src []byte, i int) int {
	for i < len(src) {
		switch c := src[i]; {
		case c == '\\':
			if i+1 == len(src) || src[i+1] == '\n' || src[i+1] == '\r' {
				return i
			}
			_, n := utf8.DecodeRune(src[i+1:])
			i += 1 + n
		case strings.IndexByte("\"$%\r\n", c) >= 0:
			return i
		default:
			i++
		}
	}
	return i
}

// heredoc reads one token of a heredoc: a sequence, or a piece of text up
// to and including a line break. A line alone with the marker, but for
// spaces, closes the heredoc.
func (s *scanner) heredoc() {
	d := &s.docs[len(s.docs)-1]
	i, c := s.i, s.src[s.i]
	if c == '$' || c == '%' {
		end, escape := s.template(c)
		if end == 0 {
			return
		}
		// HCL's lexer joins an escape with the line break after it, and a
		// lone "$" or "%" with the next byte when "\n" or "\r" follows it.
		d.bol = false
		if nl := s.lineBreak(end); escape && nl > end {
			end, d.bol = nl, true
		} else if !escape && (s.at(i+2) == '\n' || s.at(i+2) == '\r') {
			end, d.bol = i+2, true
		}
		s.emit(kText, end)
		return
	}
	j := i
	for j < len(s.src) && strings.IndexByte("$%\r\n", s.src[j]) < 0 {
		j++
	}
	nl := s.lineBreak(j)
	switch {
	case nl > j && d.bol && bytes.Equal(bytes.TrimSpace(s.src[i:nl]), d.marker):
		s.docs, s.modes = s.docs[:len(s.docs)-1], s.modes[:len(s.modes)-1]
		s.emit(kCloseHeredoc, j)
		s.emit(kNewline, nl)
	case nl > j:
		d.bol = true
		s.emit(kText, nl)
	case j > i:
		d.bol = false
		s.emit(kText, j)
	default: // a "\r" alone: HCL's lexer stops; the rest is one invalid token
		s.emit(kPunct, len(s.src))
	}
}

// lineBreak returns the end of the "\n" or "\r\n" at src[i], or i.
func (s *scanner) lineBreak(i int) int {
	switch {
	case s.at(i) == '\n':
		return i + 1
	case s.at(i) == '\r' && s.at(i+1) == '\n':
		return i + 2
	}
	return i
}

// numberEnd returns the end of the number starting at src[i], a digit:
// digits, ".", and exponents, not ending with ".".
func numberEnd(src []byte, i int) int {
	j := i + 1
	for j < len(src) {
		c := src[j]
		k := j + 1
		if (c == 'e' || c == 'E') && k < len(src) && (src[k] == '+' || src[k] == '-') {
			k++
		}
		switch {
		case c >= '0' && c <= '9' || c == '.':
			j++
			continue
		case (c == 'e' || c == 'E') && k < len(src) && src[k] >= '0' && src[k] <= '9':
			j = k + 1
			continue
		}
		break
	}
	for src[j-1] == '.' {
		j--
	}
	return j
}

// identEnd returns the end of the name starting at src[i], or i if none
// does: a letter or "_", then letters, digits, "_" and "-" (ASCII only:
// the scanner refuses other characters outside strings).
func identEnd(src []byte, i int) int {
	j := i
	for j < len(src) && (isLetter(src[j]) || src[j] == '_' || j > i && (isDigit(src[j]) || src[j] == '-')) {
		j++
	}
	return j
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

func isDigit(c byte) bool { return '0' <= c && c <= '9' }

// twoChar are the tokens of two or three characters that are not names,
// numbers, comments or brackets.
var twoChar = map[string]tokKind{
	"==": kOp, "!=": kOp, "<=": kOp, ">=": kOp, "&&": kOp, "||": kOp,
	"::": kPunct, "=>": kPunct, "..": kPunct,
}

// punct returns the kind and length of the token at the start of b that
// is neither a name, a number, a comment, a string nor a brace.
func punct(b []byte) (tokKind, int) {
	if len(b) >= 2 {
		if k, ok := twoChar[string(b[:2])]; ok {
			if string(b[:2]) == ".." {
				if len(b) >= 3 && b[2] == '.' {
					return kPunct, 3
				}
				return kPunct, 1
			}
			return k, 2
		}
	}
	switch b[0] {
	case ',':
		return kComma, 1
	case '=':
		return kEquals, 1
	case '-', '!', '+', '*', '/', '%', '<', '>', '?':
		return kOp, 1
	case '(':
		return kOpenParen, 1
	case ')':
		return kCloseParen, 1
	case '[':
		return kOpenBrack, 1
	case ']':
		return kCloseBrack, 1
	}
	return kPunct, 1
}
