package agones

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

// recorded is a line of GET /watch/gameserver as Agones' sdk-server
// (1.57.0-dev, local mode) sent it.
const recorded = `{"result":{"object_meta":{"name":"local","namespace":"default","uid":"1234","resource_version":"v1","generation":"1","creation_timestamp":"1795776343","deletion_timestamp":"0","annotations":{"agones.dev/sdk-m":"x1","annotation":"true"},"labels":{"islocal":"true"}},"spec":{"health":{"disabled":false,"period_seconds":3,"failure_threshold":5,"initial_delay_seconds":10}},"status":{"state":"Allocated","address":"127.0.0.1","addresses":[],"ports":[{"name":"default","port":7777}],"players":{"count":"0","capacity":"0","ids":[]},"counters":{"rooms":{"count":"3","capacity":"10"}},"lists":{"players":{"capacity":"100","values":["test0","test1","test2","7"]}}}}}`

func TestDecodeRecordedWatchLine(t *testing.T) {
	gs, err := DecodeWatchLine([]byte(recorded))
	if err != nil {
		t.Fatal(err)
	}
	if gs.Status.State != StateAllocated || gs.ObjectMeta.Annotations["agones.dev/sdk-m"] != "x1" || gs.ObjectMeta.UID != "1234" {
		t.Fatalf("decoded %+v", gs.ObjectMeta)
	}
	if p, ok := gs.Status.Port("default"); !ok || p != 7777 {
		t.Fatalf("port default: %d %v", p, ok)
	}
	if c := gs.Status.Counters["rooms"]; c.Count != 3 || c.Capacity != 10 {
		t.Fatalf("counter rooms %+v", c)
	}
	if l := gs.Status.Lists["players"]; l.Capacity != 100 || len(l.Values) != 4 {
		t.Fatalf("list players %+v", l)
	}
	if h := gs.Spec.Health; h.PeriodSeconds != 3 || h.FailureThreshold != 5 || h.InitialDelaySeconds != 10 {
		t.Fatalf("health %+v", h)
	}
}

func TestDecodeRefusesWhatIsNotTheGatewaysForm(t *testing.T) {
	for _, in := range []string{
		``, `{`, `[]`, `{"result":null}`, `{}`,
		`{"result":{"status":{"players":{"count":"x"}}}}`,
		`{"result":{"status":{"players":{"count":"99999999999999999999"}}}}`,
		`{"error":{"code":14,"message":"unavailable"}}`,
	} {
		if _, err := DecodeWatchLine([]byte(in)); err == nil {
			t.Errorf("DecodeWatchLine(%q) = nil error", in)
		}
	}
	if _, err := DecodeGameServer([]byte(`{"status":{"lists":{"p":{"capacity":"1e3"}}}}`)); !errors.Is(err, ErrDecode) {
		t.Errorf("a float int64: %v, want ErrDecode", err)
	}
	if _, err := DecodeGameServer([]byte(`"` + strings.Repeat("a", MaxBody) + `"`)); !errors.Is(err, ErrDecode) {
		t.Errorf("a body over MaxBody: %v, want ErrDecode", err)
	}
	// Truncated at every byte, the recorded line is an error, never a panic.
	for i := range len(recorded) {
		if _, err := DecodeWatchLine([]byte(recorded[:i])); err == nil {
			t.Fatalf("recorded line truncated to %d bytes decoded", i)
		}
	}
}

func TestInt64ReadsStringsAndNumbersWritesStrings(t *testing.T) {
	var v struct{ A, B, C Int64 }
	if err := json.Unmarshal([]byte(`{"A":"-5","B":7,"C":null}`), &v); err != nil {
		t.Fatal(err)
	}
	if v.A != -5 || v.B != 7 || v.C != 0 {
		t.Fatalf("read %+v", v)
	}
	b, _ := json.Marshal(Counter{Count: 3, Capacity: 10})
	if string(b) != `{"count":"3","capacity":"10"}` {
		t.Fatalf("wrote %s", b)
	}
}

// FuzzDecodeWatchLine: any bytes decode or fail, never panic, and what
// decodes re-encodes to a line that decodes to the same GameServer.
func FuzzDecodeWatchLine(f *testing.F) {
	f.Add([]byte(recorded))
	f.Add([]byte(`{"result":{"status":{"state":"Ready","players":{"count":"1","capacity":2,"ids":["a"]}}}}`))
	f.Add([]byte(`{"error":{"code":2,"message":"x"}}`))
	f.Fuzz(func(t *testing.T, b []byte) {
		gs, err := DecodeWatchLine(b)
		if err != nil {
			return
		}
		again, err := json.Marshal(map[string]any{"result": gs})
		if err != nil {
			t.Fatal(err)
		}
		gs2, err := DecodeWatchLine(again)
		if err != nil {
			t.Fatalf("re-encoded line does not decode: %v\n%s", err, again)
		}
		a, _ := json.Marshal(gs)
		b2, _ := json.Marshal(gs2)
		if string(a) != string(b2) {
			t.Fatalf("round trip changed the GameServer:\n%s\n%s", a, b2)
		}
	})
}
