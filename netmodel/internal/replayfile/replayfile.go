// Package replayfile is the container the replay formats share: the
// lockstep replay (netmodel/lockstep/replay) and the snapshot replay
// (netmodel/interp/replay).
//
//	file   = magic | version (1 byte) | block(header) | block*
//	block  = length (unsigned varint, 1 to Format.MaxBlock) | that many bytes
//
// Every block is one bit stream (package wire) padded with zero bits to a
// whole byte. Each format opens its header with the same labels (see
// SerializeLabels) and says what its other blocks hold.
//
// A Reader allocates at most one block's bytes, and those grow with the
// bytes actually present, never with the length a block claims; a
// malformed file is an error wrapping the format's Err, never a panic.
package replayfile

import (
	"bufio"
	"bytes"
	"encoding/binary"
	"errors"
	"fmt"
	"io"

	"github.com/netphys/netphys/wire"
)

// Format is what tells one replay format's files from another's.
type Format struct {
	Magic    string // opens every file: "NPRP", "NPSR"
	Version  byte   // the format's version, after the magic
	MaxBlock int    // the largest block, in bytes
	Name     string // what a file is called in messages: "replay"
	// Err is wrapped by every error about a malformed file (the format
	// package's ErrFormat).
	Err error
}

// Reader reads a file's blocks.
type Reader struct {
	f    Format
	r    *bufio.Reader
	buf  bytes.Buffer // the last block
	read int64
}

// Open reads the magic, the version and the header block of a file of
// format f from r, decoding the header with header (as Decode does), and
// returns the reader of the blocks after it. Errors wrap f.Err, or r's
// own error.
func Open(r io.Reader, f Format, header func(wire.Stream) error) (*Reader, error) {
	br := &Reader{f: f, r: bufio.NewReader(r)}
	magic := make([]byte, len(f.Magic)+1)
	n, err := io.ReadFull(br.r, magic)
	br.read = int64(n)
	if err != nil {
		return nil, fmt.Errorf("%w: %d bytes, too short for a replay: %w", f.Err, n, err)
	}
	if string(magic[:len(f.Magic)]) != f.Magic {
		return nil, fmt.Errorf("%w: the file does not start with %q: not a netphys %s", f.Err, f.Magic, f.Name)
	}
	if v := magic[len(f.Magic)]; v != f.Version {
		return nil, fmt.Errorf("%w: version %d, this reader takes %d", f.Err, v, f.Version)
	}
	b, err := br.Next()
	if err == io.EOF {
		err = fmt.Errorf("%w: no header: %w", f.Err, io.ErrUnexpectedEOF)
	}
	if err != nil {
		return nil, err
	}
	if err := Decode(b, header); err != nil {
		return nil, fmt.Errorf("%w: header: %w", f.Err, err)
	}
	return br, nil
}

// Size is the number of bytes read so far: the file's size up to the end
// of the last block Next returned.
func (b *Reader) Size() int64 { return b.read }

// Next reads the next block; io.EOF at a clean end of file, between
// blocks. The block's bytes are valid until the next call.
func (b *Reader) Next() ([]byte, error) {
	n, err := binary.ReadUvarint(countingReader{b})
	switch {
	case err == io.EOF:
		return nil, io.EOF
	case err != nil:
		return nil, fmt.Errorf("%w: block length: %w", b.f.Err, err)
	case n == 0 || n > uint64(b.f.MaxBlock):
		return nil, fmt.Errorf("%w: a block of %d bytes, want 1 to %d", b.f.Err, n, b.f.MaxBlock)
	}
	b.buf.Reset()
	// CopyN grows the buffer as bytes arrive: a length claimed by a cut
	// file costs what the file holds, not what it claims.
	got, err := io.CopyN(&b.buf, b.r, int64(n))
	b.read += got
	if err != nil {
		return nil, fmt.Errorf("%w: a block of %d bytes cut after %d: %w", b.f.Err, n, got, io.ErrUnexpectedEOF)
	}
	return b.buf.Bytes(), nil
}

type countingReader struct{ b *Reader }

func (c countingReader) ReadByte() (byte, error) {
	x, err := c.b.r.ReadByte()
	if err == nil {
		c.b.read++
	}
	return x, err
}

// Decode reads block b with f and checks that nothing follows but the
// last byte's zero padding. Its errors are f's, or End's: the caller
// wraps them with its format's error and what the block was.
func Decode(b []byte, f func(wire.Stream) error) error {
	rd := wire.NewReader(b)
	if err := f(rd); err != nil {
		return err
	}
	return End(rd, b)
}

// End checks that rd, reading block b, is at the end of its content:
// nothing follows but the last byte's zero padding.
func End(rd *wire.Reader, b []byte) error {
	if err := rd.Align(); err != nil {
		return err
	}
	if left := len(b) - rd.BitsRead()/8; left != 0 {
		return fmt.Errorf("%d bytes after the block's content", left)
	}
	return nil
}

// Writer writes a file's blocks.
type Writer struct {
	w       io.Writer
	f       Format
	buf     []byte
	written int64
}

// Create writes the magic, the version and the header block (what header
// serializes) of a file of format f to w, and returns the writer of the
// blocks after it.
func Create(w io.Writer, f Format, header func(wire.Stream) error) (*Writer, error) {
	bw := &Writer{w: w, f: f}
	if err := bw.write(append([]byte(f.Magic), f.Version)); err != nil {
		return nil, err
	}
	if err := bw.Block(header); err != nil {
		return nil, err
	}
	return bw, nil
}

// Written is the number of bytes written so far.
func (w *Writer) Written() int64 { return w.written }

// Block writes one block holding what f serializes. f runs twice: once
// to measure the block, once to write it; a block that would be empty or
// larger than the format's MaxBlock is an error and writes nothing.
func (w *Writer) Block(f func(wire.Stream) error) error {
	var m wire.Measurer
	if err := f(&m); err != nil {
		return err
	}
	n := m.Bytes()
	switch {
	case n == 0:
		return errors.New("an empty block: a reader would take it for a malformed file")
	case n > w.f.MaxBlock:
		return fmt.Errorf("a block of %d bytes, beyond %d", n, w.f.MaxBlock)
	}
	if cap(w.buf) < n+binary.MaxVarintLen64 {
		w.buf = make([]byte, 0, n+binary.MaxVarintLen64)
	}
	b := binary.AppendUvarint(w.buf[:0], uint64(n))
	wr := wire.NewWriter(b[len(b) : len(b)+n])
	if err := f(wr); err != nil {
		return err
	}
	if got := len(wr.Bytes()); got != n { // Bytes also clears the padding
		return fmt.Errorf("a block measured at %d bytes wrote %d", n, got)
	}
	return w.write(b[:len(b)+n])
}

func (w *Writer) write(b []byte) error {
	n, err := w.w.Write(b)
	w.written += int64(n)
	return err
}

// SerializeLabels writes, reads or measures the labels every replay
// header opens with: the network model (at most 32 bytes), the game and
// its variant (its setup: the layout, the players), the party that
// recorded (64 bytes each) and a free note (256 bytes).
func SerializeLabels(s wire.Stream, model, game, variant, party, note *string) error {
	for _, f := range []struct {
		v   *string
		max int
	}{{model, 32}, {game, 64}, {variant, 64}, {party, 64}, {note, 256}} {
		if err := SerializeString(s, f.v, f.max); err != nil {
			return err
		}
	}
	return nil
}

// SerializeString writes, reads or measures a string of at most max
// bytes.
func SerializeString(s wire.Stream, v *string, max int) error {
	b := []byte(*v)
	if err := wire.SerializeBytes(s, &b, max); err != nil {
		return err
	}
	if s.Mode() == wire.Reading {
		*v = string(b)
	}
	return nil
}
