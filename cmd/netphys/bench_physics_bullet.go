package main

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"time"

	"github.com/netphys/netphys/physics"
	"github.com/netphys/netphys/physics/collide"
)

// bulletPeer drives the Bullet harness of bench/bullet (harness.cpp, which
// documents the protocol and Bullet's settings) over its stdin and stdout.
type bulletPeer struct {
	cmd *exec.Cmd
	in  io.WriteCloser
	out *bufio.Reader
}

// startPeer starts the comparison engine that o.peer asks for, or returns
// nil for none. With "bullet" a missing harness is built by
// bench/bullet/build.sh, which needs libbullet-dev.
func startPeer(ctx context.Context, o benchOptions, prog *progress) (*bulletPeer, error) {
	switch o.peer {
	case "none":
		return nil, nil
	case "auto":
		if _, err := os.Stat(o.bulletBin); err != nil {
			return nil, nil
		}
	case "bullet":
		if _, err := os.Stat(o.bulletBin); err != nil {
			script := filepath.Join(filepath.Dir(filepath.Dir(o.bulletBin)), "build.sh")
			prog.report("bench physics: building the Bullet harness with %s", script)
			out, err := exec.CommandContext(ctx, "bash", script).CombinedOutput()
			if err != nil {
				return nil, fmt.Errorf("building the Bullet harness (%s): %v\n%s", script, err, out)
			}
		}
	default:
		return nil, fmt.Errorf("--peer %q: want bullet, auto or none", o.peer)
	}
	cmd := exec.CommandContext(ctx, o.bulletBin)
	in, err := cmd.StdinPipe()
	if err != nil {
		return nil, err
	}
	out, err := cmd.StdoutPipe()
	if err != nil {
		return nil, err
	}
	cmd.Stderr = os.Stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("starting the Bullet harness: %w", err)
	}
	return &bulletPeer{cmd: cmd, in: in, out: bufio.NewReader(out)}, nil
}

// load sends the world's dynamic boxes (the ground plane is the harness's
// own) as Bullet's scene.
func (p *bulletPeer) load(w *physics.World, sleep bool) error {
	type box struct {
		shape collide.Shape
		mass  float64
		st    physics.BodyState
	}
	var boxes []box
	for _, id := range w.Bodies(nil) {
		if w.Type(id) != physics.Dynamic {
			continue
		}
		sh := w.Shape(id)
		st, err := w.State(id)
		if err != nil {
			return err
		}
		if sh.Kind != collide.Box {
			return errors.New("bench physics: the Bullet harness takes boxes only")
		}
		boxes = append(boxes, box{sh, w.Mass(id), st})
	}
	sl := 0
	if sleep {
		sl = 1
	}
	bw := bufio.NewWriter(p.in)
	fmt.Fprintf(bw, "world %d %d\n", len(boxes), sl)
	for _, b := range boxes {
		h, q, pos := b.shape.HalfExtents, b.st.Rotation, b.st.Position
		fmt.Fprintf(bw, "box %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g %.17g\n",
			h.X, h.Y, h.Z, b.mass, pos.X, pos.Y, pos.Z, q.X, q.Y, q.Z, q.W)
	}
	if err := bw.Flush(); err != nil {
		return p.fail(err)
	}
	var ok string
	if _, err := fmt.Fscanln(p.out, &ok); err != nil || ok != "ok" {
		return p.fail(fmt.Errorf("harness answered %q: %v", ok, err))
	}
	return nil
}

// run steps Bullet k times and appends the step times to t.
func (p *bulletPeer) run(k int, t *stepTimes) error {
	if _, err := fmt.Fprintf(p.in, "run %d\n", k); err != nil {
		return p.fail(err)
	}
	for range k {
		var wall, cpu int64
		if _, err := fmt.Fscanln(p.out, &wall, &cpu); err != nil {
			return p.fail(err)
		}
		t.add(time.Duration(wall), time.Duration(cpu))
	}
	return nil
}

// awake returns the number of dynamic bodies Bullet has not deactivated.
func (p *bulletPeer) awake() (int, error) {
	if _, err := fmt.Fprintln(p.in, "awake"); err != nil {
		return 0, p.fail(err)
	}
	var word string
	var n int
	if _, err := fmt.Fscanln(p.out, &word, &n); err != nil || word != "awake" {
		return 0, p.fail(fmt.Errorf("harness answered %q: %v", word, err))
	}
	return n, nil
}

func (p *bulletPeer) fail(err error) error {
	return fmt.Errorf("bench physics: Bullet harness: %w", err)
}

func (p *bulletPeer) close() {
	fmt.Fprintln(p.in, "quit")
	p.in.Close()
	p.cmd.Wait()
}
