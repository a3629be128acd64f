package lockstep

// inputRing holds one player's inputs by tick in a power-of-two buffer.
// Inputs for ticks before have are known and contiguous; the owner keeps
// pushes within Buffer ticks of the oldest tick it still needs.
type inputRing[I any] struct {
	buf  []I
	have Tick
}

func newInputRing[I any](size int) inputRing[I] { return inputRing[I]{buf: make([]I, size)} }

func (r *inputRing[I]) at(t Tick) I { return r.buf[int(t)&(len(r.buf)-1)] }

// last is the newest known input, the zero input before any: what a
// rollback client predicts for the ticks after it.
func (r *inputRing[I]) last() I {
	if r.have == 0 {
		var zero I
		return zero
	}
	return r.at(r.have - 1)
}

func (r *inputRing[I]) push(in I) {
	r.buf[int(r.have)&(len(r.buf)-1)] = in
	r.have++
}

// fill sets dst to the inputs of ticks [first, first+n) taken from the
// ring, reusing dst's capacity.
func (r *inputRing[I]) fill(dst *run[I], first Tick, n int) {
	dst.first = first
	dst.inputs = dst.inputs[:0]
	for t := first; t < first+Tick(n); t++ {
		dst.inputs = append(dst.inputs, r.at(t))
	}
}

// windowMax is the largest sample of the last windowMaxBuckets seconds,
// kept as one maximum per second so that it costs O(1) per sample.
type windowMax struct {
	max [windowMaxBuckets]float64
	sec [windowMaxBuckets]int64 // the second each bucket holds, +1 (0: empty)
}

const windowMaxBuckets = 10

func (w *windowMax) add(sec int64, v float64) {
	i := int(sec % windowMaxBuckets)
	if w.sec[i] != sec+1 {
		w.sec[i], w.max[i] = sec+1, v
		return
	}
	w.max[i] = max(w.max[i], v)
}

// get returns the maximum over the window ending at second sec, and false
// when it holds no sample.
func (w *windowMax) get(sec int64) (float64, bool) {
	m, ok := 0.0, false
	for i := range w.max {
		if s := w.sec[i] - 1; w.sec[i] != 0 && s > sec-windowMaxBuckets && s <= sec {
			if !ok || w.max[i] > m {
				m, ok = w.max[i], true
			}
		}
	}
	return m, ok
}
