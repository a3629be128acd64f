package browsertest

import (
	"image"
	"image/color"
	"testing"
)

// TestCountColours paints the page's colours, lit and shaded, on the
// dark background in known amounts in each half and counts them back.
func TestCountColours(t *testing.T) {
	img := image.NewRGBA(image.Rect(0, 0, 40, 10))
	paint := func(x0, x1 int, c color.RGBA) {
		for y := 0; y < 10; y++ {
			for x := x0; x < x1; x++ {
				img.SetRGBA(x, y, c)
			}
		}
	}
	background := color.RGBA{0x33, 0x3a, 0x48, 0xff} // the ground
	paint(0, 40, background)
	paint(0, 3, color.RGBA{0x3b, 0x6e, 0xf0, 0xff})   // player, lit
	paint(3, 5, color.RGBA{0x20, 0x38, 0x90, 0xff})   // player, shaded
	paint(5, 9, color.RGBA{0xd8, 0x3a, 0x30, 0xff})   // interacting
	paint(9, 10, color.RGBA{0x50, 0x50, 0x50, 0xff})  // grey in shadow: too dark to tell from the ground
	paint(20, 21, color.RGBA{0xc8, 0xc8, 0xcc, 0xff}) // grey, lit
	paint(21, 23, color.RGBA{0x69, 0x6e, 0x7a, 0xff}) // grey, turned from the sun
	paint(23, 24, color.RGBA{0xff, 0xff, 0xff, 0xff}) // white overlay text counts as grey
	paint(24, 25, color.RGBA{0x60, 0x30, 0x30, 0xff}) // dark red: under the red threshold
	got := CountColours(img)
	want := [2]PixelCounts{{Player: 50, Red: 40}, {Grey: 40}}
	if got != want {
		t.Fatalf("counts %+v, want %+v", got, want)
	}
	// The same picture as a grid of three viewports: the left half, the
	// two columns of white and dark red, and one not drawn yet.
	views := CountViews(img, PageState{Views: []View{
		{Cell: &Box{X: 0, Y: 0, W: 20, H: 10}},
		{Cell: &Box{X: 23, Y: 2, W: 2, H: 30}}, // beyond the picture: cut
		{},
	}})
	if len(views) != 3 || views[0] != want[0] || views[1] != (PixelCounts{Grey: 8}) || views[2] != (PixelCounts{}) {
		t.Fatalf("counts per view %+v, want %+v, {Grey: 8} and none", views, want[0])
	}
}
