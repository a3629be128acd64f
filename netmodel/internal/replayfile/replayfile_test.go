package replayfile

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"slices"
	"strings"
	"testing"

	"github.com/netphys/netphys/wire"
)

var errTest = errors.New("malformed test file")

var testFormat = Format{Magic: "TEST", Version: 3, MaxBlock: 64, Name: "test file", Err: errTest}

// labels is a header of the labels alone.
type labels struct{ model, game, variant, party, note string }

func (l *labels) serialize(s wire.Stream) error {
	return SerializeLabels(s, &l.model, &l.game, &l.variant, &l.party, &l.note)
}

// word is a block of one 16-bit value.
func word(v uint16) func(wire.Stream) error {
	return func(s wire.Stream) error { return wire.SerializeBits(s, &v, 16) }
}

func testFile(t testing.TB, h labels, words ...uint16) []byte {
	var buf bytes.Buffer
	w, err := Create(&buf, testFormat, h.serialize)
	if err != nil {
		t.Fatal(err)
	}
	for _, v := range words {
		if err := w.Block(word(v)); err != nil {
			t.Fatal(err)
		}
	}
	if w.Written() != int64(buf.Len()) {
		t.Fatalf("Written %d, %d bytes in the file", w.Written(), buf.Len())
	}
	return buf.Bytes()
}

// readWords reads a file of testFile's shape: its header and the words
// of its blocks, up to the first error.
func readWords(b []byte) (labels, []uint16, int64, error) {
	var h labels
	r, err := Open(bytes.NewReader(b), testFormat, h.serialize)
	if err != nil {
		return h, nil, 0, err
	}
	var words []uint16
	for {
		blk, err := r.Next()
		if err == io.EOF {
			return h, words, r.Size(), nil
		}
		if err != nil {
			return h, words, r.Size(), err
		}
		var v uint16
		if err := Decode(blk, func(s wire.Stream) error { return wire.SerializeBits(s, &v, 16) }); err != nil {
			return h, words, r.Size(), fmt.Errorf("%w: block %d: %w", errTest, len(words), err)
		}
		words = append(words, v)
	}
}

func TestRoundTrip(t *testing.T) {
	h := labels{"lockstep", "cube world", "cubes900", "server", "a note"}
	file := testFile(t, h, 1, 2, 65535)
	if !bytes.HasPrefix(file, []byte("TEST\x03")) {
		t.Fatalf("the file opens with %q", file[:5])
	}
	got, words, size, err := readWords(file)
	if err != nil || got != h || len(words) != 3 || words[0] != 1 || words[1] != 2 || words[2] != 65535 || size != int64(len(file)) {
		t.Fatalf("read %+v %v, %d bytes of %d: %v", got, words, size, len(file), err)
	}
}

// TestMalformed: every way a file can be wrong is an error wrapping the
// format's, saying what is wrong.
func TestMalformed(t *testing.T) {
	file := testFile(t, labels{model: "m"}, 7)
	header := file[:len(file)-3] // the last block: length 2, two bytes
	for _, c := range []struct {
		name, b, want string
	}{
		{"empty", "", "too short"},
		{"other magic", "NPRP\x03", "not a netphys test file"},
		{"other version", "TEST\x04", "version 4, this reader takes 3"},
		{"no header", "TEST\x03", "no header"},
		{"zero length", string(header) + "\x00", "a block of 0 bytes"},
		{"too long", string(header) + "\x41", "a block of 65 bytes, want 1 to 64"},
		{"bad varint", string(header) + "\xff\xff\xff\xff\xff\xff\xff\xff\xff\xff\x01", "block length"},
		{"cut block", string(header) + "\x02\x00", "cut after 1"},
		{"cut length", string(header) + "\x80", "block length"},
		{"bytes after", string(header) + "\x03\x00\x07\x00", "1 bytes after the block's content"},
	} {
		_, _, _, err := readWords([]byte(c.b))
		if !errors.Is(err, errTest) || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v, want the format's error saying %q", c.name, err, c.want)
		}
	}
}

// TestWriterRefuses: a block a reader would refuse is never written.
func TestWriterRefuses(t *testing.T) {
	var buf bytes.Buffer
	w, err := Create(&buf, testFormat, (&labels{}).serialize)
	if err != nil {
		t.Fatal(err)
	}
	n := buf.Len()
	big := func(s wire.Stream) error {
		b := make([]byte, 64)
		return wire.SerializeBytes(s, &b, 64)
	}
	for _, c := range []struct {
		name string
		f    func(wire.Stream) error
	}{{"empty", func(wire.Stream) error { return nil }}, {"big", big}} {
		if err := w.Block(c.f); err == nil {
			t.Errorf("%s block written", c.name)
		}
	}
	if buf.Len() != n || w.Written() != int64(n) {
		t.Fatalf("%d bytes written by refused blocks", buf.Len()-n)
	}
	long := labels{note: strings.Repeat("x", 257)}
	if _, err := Create(io.Discard, testFormat, long.serialize); err == nil {
		t.Fatal("a note of 257 bytes written")
	}
}

// FuzzOpen: no input makes the reader panic or read beyond what it is
// given; what it reads writes back to a file that reads the same.
func FuzzOpen(f *testing.F) {
	f.Add(testFile(f, labels{"m", "g", "v", "p", "n"}, 1, 2, 3))
	f.Add([]byte("TEST\x03"))
	f.Fuzz(func(t *testing.T, b []byte) {
		h, words, size, err := readWords(b)
		if size > int64(len(b)) {
			t.Fatalf("%d bytes read of %d", size, len(b))
		}
		if err != nil {
			if !errors.Is(err, errTest) {
				t.Fatalf("an error not wrapping the format's: %v", err)
			}
			return
		}
		h2, words2, _, err := readWords(testFile(t, h, words...))
		if err != nil || h2 != h || !slices.Equal(words2, words) {
			t.Fatalf("written back, reads %+v %v (%v); first read %+v %v", h2, words2, err, h, words)
		}
	})
}
