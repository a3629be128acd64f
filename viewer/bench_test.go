package viewer_test

import (
	"testing"

	"github.com/netphys/netphys/viewer"
)

// benchFrame is the demo's frame: two views of the articles' 900 cubes and
// a player, and six figures.
func benchFrame() viewer.Frame {
	w := newTestWorld()
	return w.frame()
}

// BenchmarkAppendFrame measures encoding the two 901-cube views, which
// Publish does once per frame under its lock.
func BenchmarkAppendFrame(b *testing.B) {
	f := benchFrame()
	buf := make([]byte, 0, viewer.FrameSize(f.Views))
	b.SetBytes(int64(viewer.FrameSize(f.Views)))
	for b.Loop() {
		var err error
		if buf, err = viewer.AppendFrame(buf[:0], 1, f.Views); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkPublish measures what the demo's render loop pays per frame
// with no page connected: encoding and the figures message.
func BenchmarkPublish(b *testing.B) {
	srv := viewer.New(viewer.Config{Logger: discardLogger()})
	defer srv.Close()
	f := benchFrame()
	for i := 0; b.Loop(); i++ {
		f.Figures[0].Value = float64(i) // the tick changes every frame
		if err := srv.Publish(f); err != nil {
			b.Fatal(err)
		}
	}
}
