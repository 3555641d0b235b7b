package table

import (
	"bytes"
	"errors"
	"fmt"
	"io"
)

const (
	// scanBufSize is the scanner's first buffer; it doubles for records
	// that do not fit, up to maxRecord.
	scanBufSize = 256 << 10
	// maxRecord bounds the bytes of one CSV record (all its lines), so a
	// quote left open cannot make the reader buffer a whole large file.
	maxRecord = 64 << 20
)

// errShort tells next that the buffer ends before the record does.
var errShort = errors.New("short buffer")

var utf8BOM = []byte{0xEF, 0xBB, 0xBF}

// scanError is malformed CSV at a 1-based line of the file.
type scanError struct {
	line int
	msg  string
}

func (e *scanError) Error() string { return fmt.Sprintf("line %d: %s", e.line, e.msg) }

// span locates a field in the buffer or, when scratch, in the scratch
// space where quoted fields are unescaped.
type span struct {
	lo, hi  int
	scratch bool
}

// scanner splits RFC 4180 CSV (comma separator, double quotes) into
// records with the rules of encoding/csv's default Reader: "\r\n" ends a
// line like "\n" (also inside quoted fields, where it becomes "\n"), one
// "\r" before the end of the file is dropped, empty lines between records
// are skipped, a quote inside an unquoted field and text after a closing
// quote are errors. It also skips a UTF-8 BOM at the start. Unquoted
// fields are returned without copying.
type scanner struct {
	r        io.Reader
	h        io.Writer // receives every byte read, or nil
	buf      []byte
	pos, end int   // unread bytes are buf[pos:end]
	read     int64 // bytes read from r
	eof      bool
	bomDone  bool
	line     int // physical lines consumed before pos
	recLine  int // 1-based line where the last record returned starts
	fields   [][]byte
	spans    []span
	scratch  []byte
}

func newScanner(r io.Reader, h io.Writer) *scanner {
	return &scanner{r: r, h: h, buf: make([]byte, scanBufSize)}
}

// offset is the number of bytes of the input consumed by the records
// returned so far.
func (s *scanner) offset() int64 { return s.read - int64(s.end-s.pos) }

// next returns the fields of the next record, valid until the following
// call; io.EOF after the last record; a *scanError for malformed CSV; or
// the reader's error.
func (s *scanner) next() ([][]byte, error) {
	for {
		fields, err := s.parse()
		if err != errShort {
			return fields, err
		}
		if err := s.fill(); err != nil {
			return nil, err
		}
	}
}

// fill moves the unread bytes to the front of the buffer, grows it if
// they fill it, and reads until it is full or the input ends.
func (s *scanner) fill() error {
	if s.pos > 0 {
		s.end = copy(s.buf, s.buf[s.pos:s.end])
		s.pos = 0
	}
	if s.end == len(s.buf) {
		if len(s.buf) >= maxRecord {
			return &scanError{line: s.line + 1, msg: fmt.Sprintf(
				"a record longer than %d MiB starts here (is a quote left open?)", maxRecord>>20)}
		}
		s.buf = append(s.buf, make([]byte, len(s.buf))...)
	}
	for empty := 0; s.end < len(s.buf); {
		n, err := s.r.Read(s.buf[s.end:])
		if n > 0 && s.h != nil {
			s.h.Write(s.buf[s.end : s.end+n])
		}
		s.end += n
		s.read += int64(n)
		switch {
		case err == io.EOF:
			s.eof = true
			return nil
		case err != nil:
			return err
		case n == 0:
			if empty++; empty > 100 {
				return io.ErrNoProgress
			}
		}
	}
	return nil
}

// physLine finds the physical line starting at p: its content ends at ce
// (without "\n", "\r\n", or a final "\r" at the end of the input), the
// next line starts at next, nl says whether a "\n" ended it. ok is false
// when the buffer ends before the line does.
func (s *scanner) physLine(p int) (ce, next int, nl, ok bool) {
	i := bytes.IndexByte(s.buf[p:s.end], '\n')
	switch {
	case i >= 0:
		ce, next, nl = p+i, p+i+1, true
	case s.eof:
		ce, next = s.end, s.end
	default:
		return 0, 0, false, false
	}
	if ce > p && s.buf[ce-1] == '\r' {
		ce--
	}
	return ce, next, nl, true
}

// parse reads one record from buf[pos:end], or returns errShort without
// consuming anything when the record may continue past end.
func (s *scanner) parse() ([][]byte, error) {
	if !s.bomDone {
		if s.end-s.pos < len(utf8BOM) && !s.eof {
			return nil, errShort
		}
		if bytes.HasPrefix(s.buf[s.pos:s.end], utf8BOM) {
			s.pos += len(utf8BOM)
		}
		s.bomDone = true
	}
	p, line := s.pos, s.line
	for { // skip empty lines, keeping the progress if the buffer runs out
		if p == s.end && s.eof {
			s.pos, s.line = p, line
			return nil, io.EOF
		}
		ce, next, _, ok := s.physLine(p)
		if !ok {
			s.pos, s.line = p, line
			return nil, errShort
		}
		if ce > p {
			break
		}
		p, line = next, line+1
	}
	ce, next, _, _ := s.physLine(p)
	if bytes.IndexByte(s.buf[p:ce], '"') < 0 {
		s.split(p, ce)
		s.pos, s.line, s.recLine = next, line+1, line+1
		return s.fields, nil
	}
	end, lines, err := s.quoted(p, line+1)
	if err != nil {
		return nil, err
	}
	s.pos, s.line, s.recLine = end, line+lines, line+1
	return s.resolve(), nil
}

// split is the common case: one line without quotes.
func (s *scanner) split(p, ce int) {
	s.fields = s.fields[:0]
	for {
		j := bytes.IndexByte(s.buf[p:ce], ',')
		if j < 0 {
			s.fields = append(s.fields, s.buf[p:ce:ce])
			return
		}
		s.fields = append(s.fields, s.buf[p:p+j:p+j])
		p += j + 1
	}
}

// cursor is a position in a record with quotes: i in the physical line
// that starts at start, has its content end at ce, is followed by the
// line at next, ended with "\n" if nl, and is line number line.
type cursor struct {
	i, start, ce, next int
	nl                 bool
	line               int
}

// quoted parses a record with quotes starting at p on 1-based line first.
// It returns where the next record starts and how many lines it used.
func (s *scanner) quoted(p, first int) (end, lines int, err error) {
	s.spans, s.scratch = s.spans[:0], s.scratch[:0]
	c := cursor{i: p, start: p, line: first}
	c.ce, c.next, c.nl, _ = s.physLine(p)
	for {
		if c.i < c.ce && s.buf[c.i] == '"' {
			err = s.quotedField(&c)
		} else {
			err = s.plainField(&c)
		}
		if err != nil {
			return 0, 0, err
		}
		if c.i == c.ce {
			return c.next, c.line - first + 1, nil
		}
		c.i++ // the comma
	}
}

// plainField reads a field without quotes, leaving c at the comma or the
// end of the line after it.
func (s *scanner) plainField(c *cursor) error {
	fe := c.ce
	if j := bytes.IndexByte(s.buf[c.i:c.ce], ','); j >= 0 {
		fe = c.i + j
	}
	if q := bytes.IndexByte(s.buf[c.i:fe], '"'); q >= 0 {
		return &scanError{line: c.line, msg: fmt.Sprintf(
			"byte %d: a quote in a field that does not start with one (quote the field and double the quote)", c.i+q-c.start+1)}
	}
	s.spans = append(s.spans, span{lo: c.i, hi: fe})
	c.i = fe
	return nil
}

// quotedField reads a quoted field into the scratch space, over as many
// lines as it takes, leaving c at the comma or the end of the line after
// its closing quote.
func (s *scanner) quotedField(c *cursor) error {
	lo, first := len(s.scratch), c.line
	for c.i++; ; {
		j := bytes.IndexByte(s.buf[c.i:c.ce], '"')
		if j < 0 {
			s.scratch = append(s.scratch, s.buf[c.i:c.ce]...)
			if !c.nl {
				return &scanError{line: first, msg: "a quoted field starting on this line is not closed by the end of the file"}
			}
			s.scratch = append(s.scratch, '\n')
			if err := s.nextLine(c); err != nil {
				return err
			}
			continue
		}
		s.scratch = append(s.scratch, s.buf[c.i:c.i+j]...)
		if c.i += j + 1; c.i < c.ce && s.buf[c.i] == '"' {
			s.scratch = append(s.scratch, '"')
			c.i++
			continue
		}
		break
	}
	s.spans = append(s.spans, span{lo: lo, hi: len(s.scratch), scratch: true})
	if c.i < c.ce && s.buf[c.i] != ',' {
		return &scanError{line: c.line, msg: fmt.Sprintf("byte %d: text after the closing quote of a field", c.i-c.start+1)}
	}
	return nil
}

// nextLine moves c to the start of the next physical line, or returns
// errShort if the buffer ends before that line does.
func (s *scanner) nextLine(c *cursor) error {
	var ok bool
	c.start, c.i = c.next, c.next
	if c.ce, c.next, c.nl, ok = s.physLine(c.start); !ok {
		return errShort
	}
	c.line++
	return nil
}

// resolve turns the spans of a quoted record into fields.
func (s *scanner) resolve() [][]byte {
	s.fields = s.fields[:0]
	for _, sp := range s.spans {
		if sp.scratch {
			s.fields = append(s.fields, s.scratch[sp.lo:sp.hi:sp.hi])
		} else {
			s.fields = append(s.fields, s.buf[sp.lo:sp.hi:sp.hi])
		}
	}
	return s.fields
}
