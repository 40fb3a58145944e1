package tools

import (
	"encoding/binary"
	"io"
	"os"
	"syscall"
	"unicode/utf16"
	"unicode/utf8"
)

// A UTF-16 file that starts with a byte-order mark is text: it is what
// Windows Notepad saves and PowerShell's > writes. Its NUL bytes made it
// "binary" to the NUL heuristic, so Read refused it and Grep skipped it.
// Now Read shows it and Grep searches it in UTF-8, as ripgrep's BOM
// sniffing does, and Edit and Write keep its encoding and mark. A file
// without a mark is not guessed at: a wrong guess would be worse than
// "Binary file not supported".

// byteOrder reads and appends UTF-16 units: binary.LittleEndian or
// binary.BigEndian.
type byteOrder interface {
	binary.ByteOrder
	binary.AppendByteOrder
}

// utf16Order is the byte order a UTF-16 byte-order mark at the start of
// head gives, nil for none (UTF-32's FF FE 00 00 is not UTF-16).
func utf16Order(head []byte) byteOrder {
	switch {
	case len(head) < 2:
		return nil
	case head[0] == 0xFF && head[1] == 0xFE:
		if len(head) >= 4 && head[2] == 0 && head[3] == 0 {
			return nil
		}
		return binary.LittleEndian
	case head[0] == 0xFE && head[1] == 0xFF:
		return binary.BigEndian
	}
	return nil
}

// fileUTF16Order is the byte order of the UTF-16 file at path, nil for a
// file in any other encoding or none. Only a regular file is looked at.
func fileUTF16Order(path string) byteOrder {
	f, err := os.OpenFile(path, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil
	}
	defer f.Close()
	if fi, err := f.Stat(); err != nil || !fi.Mode().IsRegular() {
		return nil
	}
	var head [4]byte
	n, _ := io.ReadFull(f, head[:])
	return utf16Order(head[:n])
}

// decodeUTF16 is the UTF-8 of a whole UTF-16 file, its mark dropped.
func decodeUTF16(data []byte, order byteOrder) []byte {
	out, rest := appendUnits(make([]byte, 0, len(data)), data[2:], order)
	if len(rest) > 0 {
		out = utf8.AppendRune(out, utf8.RuneError) // cut off mid-character
	}
	return out
}

// encodeUTF16 is text in UTF-16 with a byte-order mark.
func encodeUTF16(text string, order byteOrder) []byte {
	units := utf16.AppendRune(nil, '\uFEFF')
	for _, r := range text {
		units = utf16.AppendRune(units, r)
	}
	out := make([]byte, 0, 2*len(units))
	for _, u := range units {
		out = order.AppendUint16(out, u)
	}
	return out
}

// appendUnits appends the UTF-8 of in's UTF-16 units to out and returns
// what is left: half a unit, or a lead surrogate waiting for its pair. A
// surrogate without its pair is U+FFFD.
func appendUnits(out, in []byte, order byteOrder) ([]byte, []byte) {
	i := 0
	for ; i+1 < len(in); i += 2 {
		u := rune(order.Uint16(in[i:]))
		switch {
		case !utf16.IsSurrogate(u):
			out = utf8.AppendRune(out, u)
		case u >= 0xDC00: // a trail surrogate with no lead
			out = utf8.AppendRune(out, utf8.RuneError)
		case i+3 >= len(in):
			return out, in[i:] // its pair is in the next read
		default:
			r := utf16.DecodeRune(u, rune(order.Uint16(in[i+2:])))
			if r != utf8.RuneError {
				i += 2
			}
			out = utf8.AppendRune(out, r)
		}
	}
	return out, in[i:]
}

// utf16Reader reads a UTF-16 stream, its mark already read, as UTF-8, so
// Read shows a large file a piece at a time as it does any other.
type utf16Reader struct {
	src   io.Reader
	order byteOrder
	in    []byte // read and not yet decoded: at most three bytes
	out   []byte // decoded and not yet handed on
	buf   []byte // what out is cut from
	err   error
	chunk []byte
}

func newUTF16Reader(src io.Reader, order byteOrder) *utf16Reader {
	return &utf16Reader{src: src, order: order, chunk: make([]byte, 32<<10)}
}

func (d *utf16Reader) Read(p []byte) (int, error) {
	for len(d.out) == 0 {
		if d.err != nil {
			if len(d.in) == 0 {
				return 0, d.err
			}
			d.in = d.in[:0]
			d.out = utf8.AppendRune(d.out, utf8.RuneError) // cut off mid-character
			break
		}
		n, err := d.src.Read(d.chunk)
		d.err = err
		d.in = append(d.in, d.chunk[:n]...)
		var rest []byte
		d.buf, rest = appendUnits(d.buf[:0], d.in, d.order)
		d.out, d.in = d.buf, append(d.in[:0], rest...)
	}
	n := copy(p, d.out)
	d.out = d.out[n:]
	return n, nil
}
