package predict_test

import (
	"testing"
	"time"

	"github.com/netphys/netphys/netmodel/predict"
	"github.com/netphys/netphys/netmodel/simmatch"
	"github.com/netphys/netphys/transport/netsim"
	"github.com/netphys/netphys/vecmath"
)

// The karts (example_test.go): a game with its own input type, no shots
// and no joining, which the model's old built-in shooter input could not
// carry. Over a lossy, jittery link the client's predictions of its kart
// all hold, the slot nobody plays stands still with the zero input, and
// nothing shoots.
func TestAGameWithItsOwnInputAndNoShots(t *testing.T) {
	cfg := predict.DefaultConfig()
	srv, err := predict.NewServer[Drive](cfg, newKarts(2), simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	m, err := simmatch.New(simmatch.Config{Sim: netsim.Config{Seed: 4, Conditions: netsim.Conditions{
		Latency: 50 * time.Millisecond, Jitter: 10 * time.Millisecond, Loss: 0.05}}}, srv)
	if err != nil {
		t.Fatal(err)
	}
	drive := func(t predict.Tick, _ *predict.View) Drive {
		return Drive{Throttle: int16(int(t)%2000 - 1000), Steer: int8(int(t/7)%201 - 100)}
	}
	c, err := predict.NewClient[Drive](cfg, newKarts(2), drive, simmatch.Epoch)
	if err != nil {
		t.Fatal(err)
	}
	slot, err := m.Join(c)
	if err != nil {
		t.Fatal(err)
	}
	if err := m.Run(10 * time.Second); err != nil {
		t.Fatal(err)
	}
	st, sc := c.Stats(), srv.Counters()
	t.Logf("client %+v\nserver %+v", st, sc)
	if st.Compared < 400 || st.Mispredicted != 0 || st.ComparedContact != 0 || st.Shots != 0 || st.BadPackets != 0 {
		t.Fatalf("client %+v", st)
	}
	if sc.Shots != 0 || sc.BadPackets != 0 || sc.Packets < 500 {
		t.Fatalf("server %+v", sc)
	}
	other := 1 - slot
	if b := srv.Game().Body(other); b.Position != vecmath.V3(float64(4*other), 0, 0) || !b.AtRest || !srv.Present(other) {
		t.Fatalf("kart %d nobody drives: %+v", other, b)
	}
	if b := srv.Game().Body(slot); b.Position == vecmath.V3(float64(4*slot), 0, 0) {
		t.Fatalf("kart %d did not move: %+v", slot, b)
	}
}
