package reliable

import (
	"bufio"
	"encoding/hex"
	"os"
	"strconv"
	"strings"
	"testing"
)

// vectors.txt lines, produced by reliable.c:
//
//	HDR seq=S ack=A ack_bits=HEX -> N HEXBYTES
//	TX ep1 seq=S N HEXPREFIX[...]
//
// A TX line is one datagram the reference endpoint transmitted; its hex
// is cut after 24 bytes and marked "..." when longer.
type headerVector struct {
	h    Header
	want []byte
}

type txVector struct {
	seq      Sequence
	size     int
	prefix   []byte
	complete bool // prefix is the whole datagram
}

func loadVectors(t testing.TB) ([]headerVector, []txVector) {
	t.Helper()
	f, err := os.Open("testdata/reliable-header-1.0.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var hdrs []headerVector
	var txs []txVector
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		if len(fields) == 0 {
			continue
		}
		switch fields[0] {
		case "HDR":
			// HDR seq=0 ack=65535 ack_bits=00000000 -> 8 3e00000100000000
			v := headerVector{h: Header{
				Sequence: Sequence(atoi(t, strings.TrimPrefix(fields[1], "seq="))),
				Ack:      Sequence(atoi(t, strings.TrimPrefix(fields[2], "ack="))),
			}}
			bits, err := strconv.ParseUint(strings.TrimPrefix(fields[3], "ack_bits="), 16, 32)
			if err != nil {
				t.Fatal(err)
			}
			v.h.AckBits = uint32(bits)
			v.want = unhex(t, fields[6])
			if len(v.want) != atoi(t, fields[5]) {
				t.Fatalf("vector %q: length field disagrees with bytes", sc.Text())
			}
			hdrs = append(hdrs, v)
		case "TX":
			// TX ep1 seq=2 1037 01020000013e0200...
			v := txVector{
				seq:  Sequence(atoi(t, strings.TrimPrefix(fields[2], "seq="))),
				size: atoi(t, fields[3]),
			}
			hx, cut := strings.CutSuffix(fields[4], "...")
			v.prefix, v.complete = unhex(t, hx), !cut
			txs = append(txs, v)
		default:
			t.Fatalf("unknown vector line %q", sc.Text())
		}
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	if len(hdrs) == 0 || len(txs) == 0 {
		t.Fatal("no vectors loaded")
	}
	return hdrs, txs
}

func atoi(t testing.TB, s string) int {
	t.Helper()
	n, err := strconv.Atoi(s)
	if err != nil {
		t.Fatal(err)
	}
	return n
}

func unhex(t testing.TB, s string) []byte {
	t.Helper()
	b, err := hex.DecodeString(s)
	if err != nil {
		t.Fatal(err)
	}
	return b
}
