package snapshot

import "testing"

// benchmarkStage codes tick 200 of the synthetic script (the katamari
// ball rolling) with 900 cubes.
func benchmarkStage(b *testing.B, st Stage, decode bool) {
	seq := synthSequence(900, 200, 1)
	c := Codec{Stage: st, Config: DefaultConfig()}
	prev, _ := c.Quantize(seq[190])
	base, _ := c.Quantize(seq[193])
	ref := Reference{Base: &base, Prev: &prev, BaseAge: 6, PrevAge: 3}
	buf := make([]byte, 64<<10)
	pkt, err := c.Encode(buf, seq[199], ref)
	if err != nil {
		b.Fatal(err)
	}
	pkt = append([]byte(nil), pkt...)
	got := &Snapshot{Cubes: make([]Cube, 900)}
	for b.Loop() {
		if decode {
			err = c.Decode(pkt, got, ref)
		} else {
			_, err = c.Encode(buf, seq[199], ref)
		}
		if err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(pkt)), "bytes/snapshot")
}

func BenchmarkEncodeSeparateChanges(b *testing.B) { benchmarkStage(b, SeparateChanges, false) }
func BenchmarkDecodeSeparateChanges(b *testing.B) { benchmarkStage(b, SeparateChanges, true) }
func BenchmarkEncodeRangeCoded(b *testing.B)      { benchmarkStage(b, RangeCoded, false) }
func BenchmarkDecodeRangeCoded(b *testing.B)      { benchmarkStage(b, RangeCoded, true) }
