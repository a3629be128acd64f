package statesync

import (
	"bytes"
	"errors"
	"testing"
	"time"

	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// TestAgreementFollowsConvergence: a cube dropped from 2 m on the host
// falls and bounces a link's delay later on the guests, and no digest
// matches either way; once it rests every guest holds the host's bits
// and both sides report agreement from a tick after the host's world
// came to rest. differing() is the truth the figure must follow.
func TestAgreementFollowsConvergence(t *testing.T) {
	tm := newTestMatch(t, 6, netsim.Conditions{Latency: 50 * time.Millisecond, Loss: 0.1})
	tm.run(time.Second)
	dropped := tm.host.Tick()
	s := tm.hg.Object(5)
	s.Position = s.Position.Add(vecmath.V3(0, 2, 0))
	s.AtRest = false
	if err := tm.hg.SetObject(5, s); err != nil {
		t.Fatal(err)
	}
	tm.run(time.Duration(digestEvery+5) * tm.host.cfg.TimeStep)
	for k, g := range tm.guests {
		if ga, ha := g.Agreement(), tm.host.Agreement(k); ga.Agrees || ha.Agrees {
			t.Errorf("guest %d agrees with a cube falling: %+v, the host says %+v", k+1, ga, ha)
		}
	}
	tm.run(5 * time.Second)
	if d := tm.differing(); len(d) != 0 {
		t.Fatalf("objects %v differ 5 s after the drop", d)
	}
	for k, g := range tm.guests {
		ga, ha := g.Agreement(), tm.host.Agreement(k)
		for _, a := range []Agreement{ga, ha} {
			if !a.Agrees || a.Agreed == 0 || a.Agreed >= a.Reports || a.Since > a.Last {
				t.Fatalf("guest %d: %+v, want a run of agreeing digests after differing ones", k+1, a)
			}
			// The host's world came to rest after the drop, and the bits
			// agreed within two digests of that.
			if rested := a.Since - a.Rested; rested <= dropped || a.Rested > 2*digestEvery+10 {
				t.Errorf("guest %d: %+v: the host's world rested from tick %d, the cube dropped at %d", k+1, a, rested, dropped)
			}
		}
		t.Logf("guest %d: dropped at host tick %d; guest's figure %+v, host's %+v", k+1, dropped, ga, ha)
		// Both sides name the same event on the host's clock: within the
		// digests' period and a trip of the link.
		if d := int(ga.Since) - int(ha.Since); d < -digestEvery-10 || d > digestEvery+10 {
			t.Errorf("guest %d agreed from host tick %d, the host says %d", k+1, ga.Since, ha.Since)
		}
	}
}

func TestDigestRoundTripAndRefusals(t *testing.T) {
	d := digest{tick: 123456, sum: 0x0123456789abcdef, still: 99}
	b := appendDigest(nil, d)
	if len(b) != digestBytes || !isDigest(b) {
		t.Fatalf("%x: %d bytes", b, len(b))
	}
	if got, err := parseDigest(b); err != nil || got != d {
		t.Fatalf("parsed %+v, %v", got, err)
	}
	for name, bad := range map[string][]byte{
		"short":            b[:digestBytes-1],
		"long":             append(bytes.Clone(b), 0),
		"prefix":           append([]byte{0xD4}, b[1:]...),
		"still after tick": appendDigest(nil, digest{tick: 5, still: 6}),
	} {
		if _, err := parseDigest(bad); !errors.Is(err, ErrMalformed) {
			t.Errorf("%s: %v, want ErrMalformed", name, err)
		}
	}
	// Never mistaken for a packet: a reliable datagram's prefix byte has
	// its top two bits clear.
	if isDigest([]byte{0x3F}) || isDigest(nil) {
		t.Fatal("a packet taken for a digest")
	}
}

// TestHostCountsBadDigests: a guest's malformed digest is counted and
// refused, and the host's figure for it does not move.
func TestHostCountsBadDigests(t *testing.T) {
	tm := newTestMatch(t, 4, netsim.Conditions{})
	tm.run(time.Second)
	before, c := tm.host.Agreement(0), tm.host.Counters().Malformed
	if err := tm.host.Receive(tm.m.Now(), 0, []byte{digestPrefix, 1, 2}); !errors.Is(err, ErrMalformed) {
		t.Fatalf("a 3-byte digest: %v", err)
	}
	if tm.host.Counters().Malformed != c+1 || tm.host.Agreement(0) != before {
		t.Fatalf("malformed %d (was %d), agreement %+v (was %+v)", tm.host.Counters().Malformed, c, tm.host.Agreement(0), before)
	}
}

// FuzzDigestDecode: whatever parses re-encodes to the same bytes.
func FuzzDigestDecode(f *testing.F) {
	f.Add(appendDigest(nil, digest{tick: 600, sum: 42, still: 30}))
	f.Add([]byte{digestPrefix})
	f.Fuzz(func(t *testing.T, data []byte) {
		d, err := parseDigest(data)
		if err != nil {
			return
		}
		if out := appendDigest(nil, d); !bytes.Equal(out, data) {
			t.Fatalf("re-encoded as % x from % x", out, data)
		}
	})
}
