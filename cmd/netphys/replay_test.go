package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/netphys/netphys/netmodel/lockstep/replay"
	"github.com/netphys/netphys/scene"
)

// TestReplayTwentySeconds is the 20-second version of the 10-minute
// figure (replay --record-sample 10m): four bots play the 900-cube world
// for 20 s into a replay, which then re-simulates with every one of its
// 1200 checksums equal, in a few kilobytes.
func TestReplayTwentySeconds(t *testing.T) {
	heavyTest(t)
	path := filepath.Join(t.TempDir(), "m.replay")
	var out strings.Builder
	if err := run(context.Background(), []string{"replay", "--record-sample", "20s", "--out", path}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	t.Log(out.String())
	for _, want := range []string{"cube world cubes900, 4 players", "ticks: 1200 (20s at 60 Hz)", "checksums: 1200 of 1200 agree"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("output misses %q", want)
		}
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(out.String(), "file: "+strconv.Itoa(int(st.Size()))+" bytes") {
		t.Errorf("output does not give the file's size, %d bytes", st.Size())
	}
	// 1200 checksums take 4800 bytes; the inputs of four players a few
	// hundred: kilobytes a minute.
	if st.Size() < 4800 || st.Size() > 7000 {
		t.Errorf("%d bytes for 20 s, want 4.8 to 7 kB", st.Size())
	}
}

// TestReplayNamesTheFirstBadTick: a replay whose checksum of tick 50 was
// altered fails verification naming tick 50, and the agreeing count.
func TestReplayNamesTheFirstBadTick(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.replay")
	var out strings.Builder
	if err := run(context.Background(), []string{"replay", "--record-sample", "2s", "--layout", "pyramid10", "--players", "2", "--out", good}, &out); err != nil {
		t.Fatalf("%v\n%s", err, out.String())
	}
	f, err := os.Open(good)
	if err != nil {
		t.Fatal(err)
	}
	rep, err := replay.Read[scene.Input](f)
	f.Close()
	if err != nil {
		t.Fatal(err)
	}
	var buf bytes.Buffer
	rec, err := replay.NewRecorder[scene.Input](&buf, rep.Header)
	if err != nil {
		t.Fatal(err)
	}
	for tick := range rep.Ticks() {
		sum, _ := rep.Sum(tick)
		if tick == 50 {
			sum ^= 1
		}
		rec.Record(rep.At(tick), uint64(sum))
	}
	if err := rec.Close(); err != nil {
		t.Fatal(err)
	}
	bad := filepath.Join(dir, "bad.replay")
	if err := os.WriteFile(bad, buf.Bytes(), 0o644); err != nil {
		t.Fatal(err)
	}
	out.Reset()
	err = run(context.Background(), []string{"replay", bad}, &out)
	if err == nil || !strings.Contains(err.Error(), "from tick 50") || !regexp.MustCompile(`checksums: 119 of 120 agree; the first that differs is tick 50`).MatchString(out.String()) {
		t.Fatalf("err %v\n%s", err, out.String())
	}
}

// TestReplayRefusesWhatItCannotPlay: not a replay, a cut replay, flags
// out of range; each says what is wrong.
func TestReplayRefusesWhatItCannotPlay(t *testing.T) {
	dir := t.TempDir()
	junk := filepath.Join(dir, "junk")
	os.WriteFile(junk, []byte("hello, world"), 0o644)
	path := filepath.Join(dir, "m.replay")
	var out strings.Builder
	if err := run(context.Background(), []string{"replay", "--record-sample", "5s", "--layout", "tower20", "--players", "1", "--out", path}, &out); err != nil {
		t.Fatal(err)
	}
	whole, _ := os.ReadFile(path)
	cut := filepath.Join(dir, "cut.replay")
	os.WriteFile(cut, whole[:len(whole)-3], 0o644)
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"replay", junk}, "not a netphys replay"},
		{[]string{"replay", cut}, "the file reads up to tick " + strconv.Itoa(replay.ChunkTicks)},
		{[]string{"replay", "--speed", "20", path}, "--speed 20"},
		{[]string{"replay"}, "give one FILE"},
		{[]string{"replay", "--record-sample", "1s"}, "--out FILE"},
		{[]string{"replay", "--record-sample", "1s", "--players", "5", "--out", path}, "--players 5"},
	} {
		err := run(context.Background(), tt.args, &out)
		if err == nil || !strings.Contains(err.Error(), tt.want) {
			t.Errorf("%q: %v, want %q", tt.args, err, tt.want)
		}
	}
}
