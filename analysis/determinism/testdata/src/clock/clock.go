package clock

import "time"

func bad(start time.Time) time.Duration {
	now := time.Now()            // want `time.Now uses the wall clock`
	_ = time.Since(start)        // want `time.Since uses the wall clock`
	time.Sleep(time.Millisecond) // want `time.Sleep uses the wall clock`
	f := time.Now                // want `time.Now uses the wall clock`
	_ = f
	return now.Sub(start)
}

func good(tick int64, start time.Time) time.Time {
	const step = time.Second / 60
	return start.Add(time.Duration(tick) * step) // time as an argument
}
