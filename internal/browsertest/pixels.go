package browsertest

import (
	"bytes"
	"fmt"
	"image"
	"image/png"
	"os"
	"path/filepath"

	"github.com/chromedp/chromedp"
)

// Screenshot captures the tab's viewport, as an image and as the PNG
// bytes it came in. It keeps each picture in the test's artifact
// directory, screenshot-1.png, ..., to see what a failed pixel count saw
// (go test -artifacts keeps the directory).
func (b *Browser) Screenshot() (image.Image, []byte) {
	b.t.Helper()
	shot, err := chromedp.Run(b.ctx, chromedp.CaptureScreenshot())
	if err != nil {
		b.t.Fatalf("screenshot: %v", err)
	}
	b.shots++
	path := filepath.Join(b.t.ArtifactDir(), fmt.Sprintf("screenshot-%d.png", b.shots))
	if err := os.WriteFile(path, shot, 0o644); err != nil {
		b.t.Fatalf("keep the screenshot: %v", err)
	}
	b.t.Logf("screenshot: %s", path)
	img, err := png.Decode(bytes.NewReader(shot))
	if err != nil {
		b.t.Fatalf("decode the screenshot: %v", err)
	}
	return img, shot
}

// PixelCounts counts the pixels of a picture that show cubes, by colour.
type PixelCounts struct {
	Player int // blue: the player cube
	Red    int // interacting cubes
	Grey   int // cubes at rest or moving alone
}

// CountColours classifies the pixels of each half of img, left and right,
// by the cube colours of the
// page, lit: blue-dominant for the player, red-dominant for interacting
// cubes, neutral grey brighter than the ground for the others (a grey face
// turned from the sun is about (105, 110, 122); the ground about (51, 58,
// 72), the background darker still). The overlays' light text counts as
// grey: a test that needs the canvas alone hides them first (Hide).
func CountColours(img image.Image) [2]PixelCounts {
	b := img.Bounds()
	mid := (b.Min.X + b.Max.X) / 2
	return [2]PixelCounts{
		countIn(img, image.Rect(b.Min.X, b.Min.Y, mid, b.Max.Y)),
		countIn(img, image.Rect(mid, b.Min.Y, b.Max.X, b.Max.Y)),
	}
}

// CountViews classifies the pixels of each view's viewport in img, a
// screenshot of the page in the state st, as CountColours does: the
// viewer lays its views out in a grid on a canvas at the page's top left
// (View.Cell). A view not drawn yet counts nothing.
func CountViews(img image.Image, st PageState) []PixelCounts {
	c := make([]PixelCounts, len(st.Views))
	for i, v := range st.Views {
		if v.Cell == nil {
			continue
		}
		r := image.Rect(int(v.Cell.X), int(v.Cell.Y), int(v.Cell.X+v.Cell.W), int(v.Cell.Y+v.Cell.H))
		c[i] = countIn(img, r.Intersect(img.Bounds()))
	}
	return c
}

// countIn classifies the pixels of img within r.
func countIn(img image.Image, r image.Rectangle) PixelCounts {
	var c PixelCounts
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			r16, g16, b16, _ := img.At(x, y).RGBA()
			r, g, bl := int(r16>>8), int(g16>>8), int(b16>>8)
			switch {
			case bl > r+60 && bl > g+25:
				c.Player++
			case r > g+70 && r > bl+70:
				c.Red++
			case r > 90 && abs(r-g) < 14 && abs(g-bl) < 18:
				c.Grey++
			}
		}
	}
	return c
}

func abs(x int) int {
	if x < 0 {
		return -x
	}
	return x
}
