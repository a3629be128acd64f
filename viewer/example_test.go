package viewer_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"strings"
	"time"

	"github.com/coder/websocket"

	"github.com/netphys/netphys/viewer"
)

// The demo's side: serve the page, publish every frame, read the keys. Here
// a Go WebSocket client plays the page and decodes what it receives.
func ExampleServer() {
	srv := viewer.New(viewer.DefaultConfig())
	defer srv.Close()
	web := httptest.NewServer(srv.Handler()) // the demo uses its own http.Server
	defer web.Close()

	ctx := context.Background()
	page, _, err := websocket.Dial(ctx, "ws"+strings.TrimPrefix(web.URL, "http")+"/ws", nil)
	if err != nil {
		panic(err)
	}
	defer page.CloseNow()
	_, hello, _ := page.Read(ctx) // {"type":"hello",...}
	fmt.Println(string(hello))

	// The page holds the right arrow...
	page.Write(ctx, websocket.MessageText, []byte(`{"type":"input","keys":["right"]}`))
	for srv.Input() == 0 {
		time.Sleep(time.Millisecond) // the server reads it on its own goroutine
	}
	fmt.Println("input:", srv.Input())

	// ...and the demo publishes the next frame at render rate.
	srv.Publish(viewer.Frame{
		Views: []viewer.View{
			{Name: "authority", Cubes: []viewer.Cube{{ID: 0, Position: [3]float32{0.1, 0.75, 0}, Rotation: [4]float32{0, 0, 0, 1}, HalfExtents: [3]float32{0.75, 0.75, 0.75}, Player: true}}},
			{Name: "remote", Cubes: []viewer.Cube{{ID: 0, Position: [3]float32{0, 0.75, 0}, Rotation: [4]float32{0, 0, 0, 1}, HalfExtents: [3]float32{0.75, 0.75, 0.75}, Player: true}}},
		},
		Figures: []viewer.Figure{{Name: "position error", Value: 10, Unit: "cm"}},
	})
	_, frame, _ := page.Read(ctx)
	seq, views, _ := viewer.DecodeFrame(frame)
	fmt.Printf("frame %d, %d bytes: %s player at x=%.1f, %s player at x=%.1f\n",
		seq, len(frame), views[0].Name, views[0].Cubes[0].Position[0], views[1].Name, views[1].Cubes[0].Position[0])
	_, figures, _ := page.Read(ctx)
	fmt.Println(string(figures))
	// Output:
	// {"type":"hello","protocol":4,"inputResendMs":500}
	// input: right
	// frame 1, 147 bytes: authority player at x=0.1, remote player at x=0.0
	// {"type":"figures","seq":1,"figures":[{"name":"position error","value":10,"unit":"cm"}]}
}
