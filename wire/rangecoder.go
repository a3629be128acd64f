package wire

import "fmt"

// The range coder is the binary arithmetic coder of LZMA (Igor Pavlov's
// rc): a 32-bit range, a 64-bit low with carry propagation through a
// cached byte, probabilities of ProbBits bits. A bit of probability p
// costs -log2(p) bits, so well-predicted bits cost a small fraction of a
// bit. Differences from LZMA's: 12-bit probabilities (LZMA: 11), the
// always-zero first byte is not sent, and the final flush sends only the
// bytes needed to pin a value inside the final range; the decoder reads
// zeros past the end of its input. A packet of a few bits thus costs a
// byte or two, not LZMA's five-byte minimum.
//
// Everything is integer arithmetic: the coder is bit-identical on every
// platform.

const (
	topValue = 1 << 24
	// flushBytes is the most bytes a decoder of a complete input reads
	// past its end: the zero bytes Finish leaves out.
	flushBytes = 4
)

// RangeEncoder is a Stream and ModelStream that range-codes everything it
// is given. Plain Bits are coded at probability 1/2 (exactly one bit
// each); ModelBit codes a bit under an adaptive model. Created by
// NewRangeEncoder it writes into a caller's buffer; by NewRangeMeasurer it
// only counts the bytes it would write, exactly.
type RangeEncoder struct {
	low       uint64
	rng       uint32
	cache     byte
	cacheSize int  // pending bytes: cache, then cacheSize-1 bytes of 0xFF
	first     bool // the first byte out of shiftLow is always zero: skip it
	buf       []byte
	n         int // bytes produced
	measure   bool
}

// NewRangeEncoder returns an encoder writing into buf.
func NewRangeEncoder(buf []byte) *RangeEncoder {
	e := &RangeEncoder{}
	e.Reset(buf)
	return e
}

// Reset starts the encoder afresh, writing into buf, as NewRangeEncoder
// would: a sender keeps one encoder and allocates none per packet.
//
// An encoder is a value: a copy of it codes on from the same point, and
// restoring an earlier copy rewinds it, because it only ever appends to
// buf (the bytes a carry may still change are held in the encoder, not
// in buf). A sender that tries an object on a copy and keeps the copy
// only when the packet still fits thus writes the packet as it measures
// it.
func (e *RangeEncoder) Reset(buf []byte) {
	*e = RangeEncoder{rng: 0xFFFFFFFF, cacheSize: 1, first: true, buf: buf}
}

// NewRangeMeasurer returns an encoder that writes nothing and counts the
// bytes an encoder given the same calls would write.
func NewRangeMeasurer() *RangeEncoder {
	return &RangeEncoder{rng: 0xFFFFFFFF, cacheSize: 1, first: true, measure: true}
}

// Mode returns Writing, or Measuring for a measurer.
func (e *RangeEncoder) Mode() Mode {
	if e.measure {
		return Measuring
	}
	return Writing
}

func (e *RangeEncoder) out(b byte) {
	if e.first {
		e.first = false
		return
	}
	// Bytes beyond the buffer are counted, not stored: the flush's
	// trailing zeros may land there and be dropped again; check reports
	// real overflows.
	if !e.measure && e.n < len(e.buf) {
		e.buf[e.n] = b
	}
	e.n++
}

func (e *RangeEncoder) shiftLow() {
	if uint32(e.low) < 0xFF000000 || e.low>>32 != 0 {
		carry := byte(e.low >> 32)
		temp := e.cache
		for {
			e.out(temp + carry)
			temp = 0xFF
			e.cacheSize--
			if e.cacheSize == 0 {
				break
			}
		}
		e.cache = byte(e.low >> 24)
	}
	e.cacheSize++
	e.low = (e.low & 0x00FFFFFF) << 8
}

func (e *RangeEncoder) normalize() {
	for e.rng < topValue {
		e.rng <<= 8
		e.shiftLow()
	}
}

func (e *RangeEncoder) encodeBit(p *Prob, bit bool) {
	bound := (e.rng >> ProbBits) * p.load()
	if !bit {
		e.rng = bound
		*p += (probOne - *p) >> probShift
	} else {
		e.low += uint64(bound)
		e.rng -= bound
		*p -= *p >> probShift
	}
	e.normalize()
}

// Bits codes the low n bits of v at probability 1/2, most significant
// first.
func (e *RangeEncoder) Bits(v uint64, n int) (uint64, error) {
	if err := checkBits(v, n); err != nil {
		return v, fmt.Errorf("wire: range code %d bits of %#x: %w", n, v, err)
	}
	for i := n - 1; i >= 0; i-- {
		e.rng >>= 1
		if v>>i&1 != 0 {
			e.low += uint64(e.rng)
		}
		e.normalize()
	}
	return v, e.check()
}

// Align does nothing: a range-coded stream has no byte structure.
func (e *RangeEncoder) Align() error { return nil }

// ModelBit codes bit under the adaptive model *p and updates the model.
func (e *RangeEncoder) ModelBit(p *Prob, bit bool) (bool, error) {
	e.encodeBit(p, bit)
	return bit, e.check()
}

// Size returns the number of bytes Finish would return if called now,
// without finishing: a sender filling a packet asks it after each object
// to learn whether the next one still fits.
func (e *RangeEncoder) Size() int {
	c := *e
	c.measure = true // the copy shares buf: it must not write
	n, _ := c.Finish()
	return n
}

// SizeBound returns an upper bound on Size, in constant time: the bytes
// out, those pending a carry, and the four of low that a flush adds at
// most. Every bit coded after it raises the bound by at most two bytes
// (one normalization shift adds one, and a bit of probability no less
// than the models' floor of 15/4096 costs under 8.1 bits, two shifts at
// most), so a sender can tell that a packet still fits without Size.
func (e *RangeEncoder) SizeBound() int { return e.n + e.cacheSize + 4 }

// Finish flushes the coder and returns the number of bytes produced; for
// an encoder they are buf[:n]. The encoder must not be used afterwards.
//
// A full flush sends the 4 bytes of low. Any value in the final range
// [low, low+range) decodes the same symbols, so Finish picks the one with
// the most trailing zero bytes and leaves those bytes out: the decoder
// supplies zeros past the end of its input.
func (e *RangeEncoder) Finish() (int, error) {
	zeros := 0
	for z := 4; z > 0; z-- {
		unit := uint64(1) << (8 * z)
		if v := (e.low + unit - 1) &^ (unit - 1); v < e.low+uint64(e.rng) {
			e.low, zeros = v, z
			break
		}
	}
	for range 5 {
		e.shiftLow()
	}
	e.n -= zeros
	return e.n, e.check()
}

// check reports whether the output so far fits the buffer; the test is
// inlined, the error built out of line.
func (e *RangeEncoder) check() error {
	if e.n > len(e.buf) && !e.measure {
		return e.overflow()
	}
	return nil
}

func (e *RangeEncoder) overflow() error {
	return fmt.Errorf("wire: range coder output of %d bytes beyond %d: %w", e.n, len(e.buf), ErrOverflow)
}

// RangeDecoder is the reading Stream and ModelStream matching
// RangeEncoder. Reading more than 4 bytes past the end of its input is
// ErrTruncated, and Finish rejects any input that is not exactly the
// encoder's output for the decoded symbols; otherwise a corrupt input
// decodes to garbage, in constant work per bit.
type RangeDecoder struct {
	code, rng uint32
	window    uint32 // the last 4 bytes read, zeros past the end included
	buf       []byte
	pos       int
	err       error
}

// NewRangeDecoder returns a decoder over buf.
func NewRangeDecoder(buf []byte) *RangeDecoder {
	d := &RangeDecoder{}
	d.Reset(buf)
	return d
}

// Reset starts the decoder afresh over buf, as NewRangeDecoder would: a
// receiver keeps one decoder and allocates none per packet.
func (d *RangeDecoder) Reset(buf []byte) {
	*d = RangeDecoder{rng: 0xFFFFFFFF, buf: buf}
	for range 4 {
		d.code = d.code<<8 | uint32(d.next())
	}
	if d.code >= d.rng {
		d.err = fmt.Errorf("wire: range coder state out of range: %w", ErrInvalid)
	}
}

func (d *RangeDecoder) next() byte {
	i := d.pos
	d.pos++
	if i < len(d.buf) {
		d.window = d.window<<8 | uint32(d.buf[i])
		return d.buf[i]
	}
	d.window <<= 8
	if d.pos > len(d.buf)+flushBytes && d.err == nil {
		d.err = fmt.Errorf("wire: range coder input ends after %d bytes: %w", len(d.buf), ErrTruncated)
	}
	return 0
}

// normalize refills the range and checks the invariant code < range that
// every encoder output keeps; a corrupt input that breaks it is caught
// here instead of decoding garbage.
func (d *RangeDecoder) normalize() {
	for d.rng < topValue {
		d.rng <<= 8
		d.code = d.code<<8 | uint32(d.next())
	}
	if d.code >= d.rng && d.err == nil {
		d.err = fmt.Errorf("wire: range coder state out of range: %w", ErrInvalid)
	}
}

// Mode returns Reading.
func (d *RangeDecoder) Mode() Mode { return Reading }

// Bits decodes n bits coded at probability 1/2; v is ignored.
func (d *RangeDecoder) Bits(_ uint64, n int) (uint64, error) {
	if n < 1 || n > 64 {
		return 0, fmt.Errorf("wire: range decode %d bits: %w", n, ErrConfig)
	}
	var x uint64
	for range n {
		d.rng >>= 1
		b := uint64(0)
		if d.code >= d.rng {
			d.code -= d.rng
			b = 1
		}
		x = x<<1 | b
		d.normalize()
	}
	return x, d.err
}

// Align does nothing: a range-coded stream has no byte structure.
func (d *RangeDecoder) Align() error { return nil }

// ModelBit decodes a bit under the adaptive model *p and updates it;
// the bit argument is ignored.
func (d *RangeDecoder) ModelBit(p *Prob, _ bool) (bool, error) {
	bound := (d.rng >> ProbBits) * p.load()
	bit := d.code >= bound
	if !bit {
		d.rng = bound
		*p += (probOne - *p) >> probShift
	} else {
		d.code -= bound
		d.rng -= bound
		*p -= *p >> probShift
	}
	d.normalize()
	return bit, d.err
}

// Finish checks, after the last symbol, that the input is exactly the
// encoding RangeEncoder produces for the decoded symbols: no byte left
// unread, the final bytes those the encoder's flush picks, and exactly as
// many bytes missing at the end as the flush leaves out. An input that passes is the canonical encoding of
// what it decoded to, so a truncated input passes only if it happens to
// be the complete encoding of other symbols.
//
// The check works because the decoder's code register is the encoder's
// final value minus its low, modulo 2³², over the same 4-byte window: the
// decoder recovers low and repeats the encoder's choice of final value:
// the multiple of 2³² in the final range if there is one (4 zero bytes
// left out), else the multiple of 2²⁴ (3 left out; the range is never
// below 2²⁴).
func (d *RangeDecoder) Finish() error {
	if d.err != nil {
		return d.err
	}
	low := d.window - d.code
	omitted, value := 3, (low+1<<24-1)&^(1<<24-1)
	if low == 0 || 1<<32-uint64(low) < uint64(d.rng) {
		omitted, value = 4, 0
	}
	if d.window != value {
		return fmt.Errorf("wire: range coder final bytes are not the encoder's: %w", ErrInvalid)
	}
	switch want := d.pos - omitted; {
	case len(d.buf) > want:
		return fmt.Errorf("wire: %d range-coded bytes where the encoding ends after %d: %w", len(d.buf), want, ErrInvalid)
	case len(d.buf) < want:
		return fmt.Errorf("wire: %d range-coded bytes where the encoding ends after %d: %w", len(d.buf), want, ErrTruncated)
	}
	return nil
}
