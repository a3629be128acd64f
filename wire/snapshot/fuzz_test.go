package snapshot

import (
	"bytes"
	"testing"
)

// fuzzReference returns a small reference for the fuzz targets: two
// decoded snapshots of 12 cubes from the synthetic script.
func fuzzReference(st Stage) (Reference, *Snapshot) {
	seq := synthSequence(12, 40, 5)
	c := Codec{Stage: st, Config: DefaultConfig()}
	prev, _ := c.Quantize(seq[30])
	base, _ := c.Quantize(seq[33])
	return Reference{Base: &base, Prev: &prev, BaseAge: 5, PrevAge: 3}, seq[38]
}

// FuzzDecode decodes arbitrary bytes as a packet of every stage. A packet
// either fails or decodes to a snapshot that is already quantized and
// whose encoding is the packet itself, range-coded stage included.
func FuzzDecode(f *testing.F) {
	for _, st := range Stages {
		ref, snap := fuzzReference(st)
		c := Codec{Stage: st, Config: DefaultConfig()}
		for _, r := range []Reference{ref, {}} {
			pkt, err := c.Encode(make([]byte, 4096), snap, r)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(uint8(st), r.Base != nil, bytes.Clone(pkt))
		}
	}
	refs := map[Stage]Reference{}
	for _, st := range Stages {
		refs[st], _ = fuzzReference(st)
	}
	f.Fuzz(func(t *testing.T, stage uint8, withBase bool, pkt []byte) {
		st := Stage(stage%uint8(numStages)) + 1
		c := Codec{Stage: st, Config: DefaultConfig()}
		ref := refs[st]
		if !withBase {
			ref = Reference{}
		}
		got := &Snapshot{Cubes: make([]Cube, 12)}
		if err := c.Decode(pkt, got, ref); err != nil {
			return
		}
		q, err := c.Quantize(got)
		if err != nil {
			t.Fatalf("%v: decoded snapshot does not quantize: %v", st, err)
		}
		for i := range q.Cubes {
			if q.Cubes[i] != got.Cubes[i] {
				t.Fatalf("%v cube %d: decoded %+v is not quantized (%+v)", st, i, got.Cubes[i], q.Cubes[i])
			}
		}
		again, err := c.Encode(make([]byte, 4096), got, ref)
		if err != nil {
			t.Fatalf("%v: re-encoding: %v", st, err)
		}
		back := &Snapshot{Cubes: make([]Cube, 12)}
		if err := c.Decode(again, back, ref); err != nil {
			t.Fatalf("%v: decoding the re-encoding: %v", st, err)
		}
		for i := range back.Cubes {
			if back.Cubes[i] != got.Cubes[i] {
				t.Fatalf("%v cube %d: round trip changed it", st, i)
			}
		}
		if !bytes.Equal(again, pkt) {
			t.Fatalf("%v: re-encoding differs from the packet:\n% x\n% x", st, again, pkt)
		}
	})
}
