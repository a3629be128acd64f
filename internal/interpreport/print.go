package interpreport

import (
	"fmt"
	"io"
)

// Print writes the tables.
func Print(w io.Writer, res *Result) {
	fmt.Fprintf(w, "snapshot interpolation: 901 cubes incl. the player, %.0f s of the scripted minute (figures after %.0f s), stage 9 range coded, adaptive buffering\n", res.Seconds, res.Warmup)
	fmt.Fprintln(w, "delay: added to the network's one-way latency; err: moving cubes against the server's real state at the time shown;")
	fmt.Fprintln(w, "pen: how much nearer the player's centre than in the real state a cube touching it is drawn (per-frame deepest: mean over frames with cubes at the player, max)")
	if len(res.Rows) > 0 {
		header(w)
	}
	for _, r := range res.Rows {
		line(w, r)
	}
	if len(res.Anchors) > 0 {
		fmt.Fprintf(w, "\nbuffering: adaptive (the rows above) against the article's fixed delay and Mirror's buffer, %d pps\n", res.AnchorsRate)
		header(w)
		for _, r := range res.Rows {
			if r.PPS != res.AnchorsRate || r.Mode != "hermite" {
				continue
			}
			line(w, r)
			for _, a := range res.Anchors {
				if a.Condition == r.Condition {
					line(w, a)
				}
			}
		}
	}
	if len(res.Profiles) > 0 {
		fmt.Fprintf(w, "\nspikes and drift, %d pps: spiky = 100 ms RTT, ±40 ms jitter, a 300 ms stall every 4 s, 2 s of 20 %% loss every 10 s;\n", res.AnchorsRate)
		fmt.Fprintln(w, "clock ±d = the client's clock runs d fast or slow, on 100 ms RTT / 5 % / 10 ms; slow %: frames whose shown time advanced < 90 % of real time;")
		fmt.Fprintln(w, "every row follows the clock drift; only the adaptive buffer's clock slows down when data runs short")
		fmt.Fprintf(w, "%-31s %-11s %9s %8s %8s %7s %7s %9s %8s %9s\n",
			"interpolation", "profile", "delay ms", "p95 ms", "max ms", "dry %", "slow %", "err mm", "p95 mm", "down kbps")
		for _, r := range res.Profiles {
			fmt.Fprintf(w, "%-31s %-11s %9.1f %8.1f %8.1f %7.2f %7.2f %9.2f %8.2f %9.1f\n",
				r.Mode, r.Condition, ms(r.DelayMean), ms(r.DelayP95), ms(r.DelayMax), r.DryPercent, r.SlowPercent,
				1000*r.ErrMean, 1000*r.ErrP95, r.DownKbps)
		}
	}
	if len(res.Velocity) > 0 {
		fmt.Fprintf(w, "\nHermite tangents sent (stage 9 codes each changed cube's velocity) or derived from the neighbouring snapshots, %s\n", res.VelocityCondition)
		header(w)
		for _, v := range res.Velocity {
			for _, r := range res.Rows {
				if r.PPS == v.PPS && r.Condition == v.Condition && (r.Mode == "hermite" || r.Mode == "linear") {
					line(w, r)
				}
			}
			line(w, v)
		}
	}
	if len(res.Cost) > 0 {
		c := res.Cost[0]
		fmt.Fprintf(w, "\nserver cost: %d clients at %d pps, %s, the katamari segment (%s of Update; clients that only acknowledge)\n", c.Clients, c.PPS, c.Condition, cpuClock)
		fmt.Fprintf(w, "%-26s %16s %18s %16s\n", "codec", "µs/client/snap", "encodings/packet", "clients/core")
		for _, c := range res.Cost {
			fmt.Fprintf(w, "%-26s %16.1f %18.3f %16.0f\n", c.Codec, c.MicrosPerClient, c.EncodingsPerPkt, c.ClientsPerCore)
		}
	}
	fmt.Fprintf(w, "\nbodies coded per packet sent, Prev candidates included: %.3f (clients with the same baselines share them); enc µs: %s\n", res.EncodingsPerPkt, cpuClock)
}

func header(w io.Writer) {
	fmt.Fprintf(w, "%4s %-31s %-14s %9s %8s %7s %9s %8s %8s %8s %8s %9s %7s %8s\n",
		"pps", "interpolation", "network", "delay ms", "p95 ms", "dry %", "err mm", "p95 mm", "max mm", "pen mm", "pen max", "down kbps", "up kbps", "enc µs")
}

func line(w io.Writer, r Row) {
	fmt.Fprintf(w, "%4d %-31s %-14s %9.1f %8.1f %7.2f %9.2f %8.2f %8.1f %8.2f %8.1f %9.1f %7.1f %8.1f\n",
		r.PPS, r.Mode, r.Condition, ms(r.DelayMean), ms(r.DelayP95), r.DryPercent,
		1000*r.ErrMean, 1000*r.ErrP95, 1000*r.ErrMax, 1000*r.PenMean, 1000*r.PenMax,
		r.DownKbps, r.UpKbps, r.EncodeMicros)
}
