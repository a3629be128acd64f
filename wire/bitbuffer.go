package wire

import (
	"encoding/binary"
	"fmt"
)

// Bit order: the first bit written is the least significant bit of byte 0;
// a value of n bits is stored least significant bit first. A 10-bit value
// v followed by a 3-bit value w therefore lands as
//
//	byte 0: v7 v6 v5 v4 v3 v2 v1 v0
//	byte 1:  0  0  0 w2 w1 w0 v9 v8
//
// (bit 7 on the left). Unused bits of the last byte are zero.

// Writer is the writing Stream: it packs bits into a caller's buffer and
// never allocates. Bytes of the buffer past those written may be
// overwritten (with zeros). A Writer is a value: a copy writes on from the
// same bit, and restoring an earlier copy rewinds it, since a write keeps
// the bits before it and sets every bit after it in its last byte.
type Writer struct {
	buf []byte
	pos int // bits written
}

// NewWriter returns a Writer over buf; its capacity in bits is 8·len(buf).
func NewWriter(buf []byte) *Writer { return &Writer{buf: buf} }

// Reset starts writing again at the beginning of buf.
func (w *Writer) Reset(buf []byte) { w.buf, w.pos = buf, 0 }

// Mode returns Writing.
func (w *Writer) Mode() Mode { return Writing }

// Bits writes the low n bits of v.
func (w *Writer) Bits(v uint64, n int) (uint64, error) {
	x := v
	if err := checkBits(x, n); err != nil {
		return v, fmt.Errorf("wire: write %d bits of %#x: %w", n, x, err)
	}
	if w.pos+n > len(w.buf)*8 {
		return v, fmt.Errorf("wire: write %d bits at bit %d of %d: %w", n, w.pos, len(w.buf)*8, ErrOverflow)
	}
	// Fast path: one 8-byte store covers the value and the bits already
	// in its first byte. The bytes past the value are zeroed; they are
	// beyond what Bytes returns.
	if i, off := w.pos>>3, w.pos&7; n <= 56 && i+8 <= len(w.buf) {
		keep := uint64(w.buf[i]) & (1<<off - 1)
		binary.LittleEndian.PutUint64(w.buf[i:], keep|x<<off)
		w.pos += n
		return v, nil
	}
	for n > 0 {
		i, off := w.pos>>3, w.pos&7
		// Keep the bits before pos; x holds no bits above n, so the byte
		// conversion drops exactly the bits that belong to the next byte.
		w.buf[i] = w.buf[i]&(1<<off-1) | byte(x<<off)
		k := min(8-off, n)
		x >>= k
		n -= k
		w.pos += k
	}
	return v, nil
}

// Align writes zero bits up to the next byte boundary.
func (w *Writer) Align() error {
	if pad := (8 - w.pos&7) & 7; pad > 0 {
		_, err := w.Bits(0, pad)
		return err
	}
	return nil
}

// BitsWritten returns the number of bits written so far.
func (w *Writer) BitsWritten() int { return w.pos }

// BitsLeft returns the number of bits that still fit in the buffer.
func (w *Writer) BitsLeft() int { return len(w.buf)*8 - w.pos }

// Bytes returns the written bytes, the last one padded with zero bits
// (cleared here: a rewound Writer may have written past pos).
func (w *Writer) Bytes() []byte {
	if off := w.pos & 7; off != 0 {
		w.buf[w.pos>>3] &= 1<<off - 1
	}
	return w.buf[:(w.pos+7)>>3]
}

// Reader is the reading Stream. Every read is bounds-checked: reading past
// the end is ErrTruncated, and the reader never allocates.
type Reader struct {
	buf []byte
	pos int // bits read
}

// NewReader returns a Reader over buf.
func NewReader(buf []byte) *Reader { return &Reader{buf: buf} }

// Reset starts reading buf from its beginning.
func (r *Reader) Reset(buf []byte) { r.buf, r.pos = buf, 0 }

// Mode returns Reading.
func (r *Reader) Mode() Mode { return Reading }

// Bits reads and returns n bits; v is ignored.
func (r *Reader) Bits(_ uint64, n int) (uint64, error) {
	if n < 1 || n > 64 {
		return 0, fmt.Errorf("wire: read %d bits: %w", n, ErrConfig)
	}
	if r.pos+n > len(r.buf)*8 {
		return 0, fmt.Errorf("wire: read %d bits at bit %d of %d: %w", n, r.pos, len(r.buf)*8, ErrTruncated)
	}
	if i, off := r.pos>>3, r.pos&7; n <= 56 && i+8 <= len(r.buf) {
		r.pos += n
		return binary.LittleEndian.Uint64(r.buf[i:]) >> off & (1<<n - 1), nil
	}
	var x uint64
	for shift := 0; shift < n; {
		i, off := r.pos>>3, r.pos&7
		k := min(8-off, n-shift)
		x |= uint64(r.buf[i]>>off) & (1<<k - 1) << shift
		shift += k
		r.pos += k
	}
	return x, nil
}

// Align skips to the next byte boundary; the skipped bits must be zero.
func (r *Reader) Align() error {
	if pad := (8 - r.pos&7) & 7; pad > 0 {
		x, err := r.Bits(0, pad)
		if err != nil {
			return err
		}
		if x != 0 {
			return fmt.Errorf("wire: non-zero alignment padding: %w", ErrInvalid)
		}
	}
	return nil
}

// BitsRead returns the number of bits read so far.
func (r *Reader) BitsRead() int { return r.pos }

// BitsLeft returns the number of unread bits, counting the padding of the
// last byte.
func (r *Reader) BitsLeft() int { return len(r.buf)*8 - r.pos }

// Measurer is the measuring Stream: it validates values exactly as a
// Writer does and counts the bits a Writer would produce.
type Measurer struct{ pos int }

// Mode returns Measuring.
func (m *Measurer) Mode() Mode { return Measuring }

// Bits counts n bits after checking that v fits.
func (m *Measurer) Bits(v uint64, n int) (uint64, error) {
	if err := checkBits(v, n); err != nil {
		return v, fmt.Errorf("wire: measure %d bits of %#x: %w", n, v, err)
	}
	m.pos += n
	return v, nil
}

// Align counts the padding to the next byte boundary.
func (m *Measurer) Align() error {
	m.pos += (8 - m.pos&7) & 7
	return nil
}

// BitCount returns the number of bits counted so far.
func (m *Measurer) BitCount() int { return m.pos }

// Bytes returns the number of bytes a Writer would return from Bytes.
func (m *Measurer) Bytes() int { return (m.pos + 7) >> 3 }
