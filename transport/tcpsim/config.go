package tcpsim

import (
	"errors"
	"fmt"
	"time"
)

// ErrConfig is returned by New for a Config that cannot work.
var ErrConfig = errors.New("tcpsim: invalid config")

// Config sets the TCP behaviours the model keeps. The defaults are Linux's
// where Linux has one.
type Config struct {
	// MSS is the most payload bytes per segment. Default 1192, what fits a
	// netcode payload with the segment header.
	MSS int
	// InitialRTO is the retransmission timeout before any RTT sample:
	// RFC 6298's 1 s.
	InitialRTO time.Duration
	// MinRTO and MaxRTO bound the timeout: Linux's 200 ms and 120 s
	// (RFC 6298 asks for at least 1 s; every deployed stack uses less).
	MinRTO, MaxRTO time.Duration
	// Granularity is the clock granularity G of RFC 6298's
	// RTO = SRTT + max(G, 4·RTTVAR). Linux ticks at 1–4 ms.
	Granularity time.Duration
	// InitialWindow is the congestion window at the start, in segments
	// (RFC 6928's 10).
	InitialWindow int
	// DupAckThreshold is the number of duplicate acks that triggers fast
	// retransmit: 3.
	DupAckThreshold int
	// SendBuffer and ReceiveBuffer bound the bytes held each way: written
	// but not acknowledged, and received out of order or not yet read.
	SendBuffer, ReceiveBuffer int
}

// DefaultConfig returns the defaults above.
func DefaultConfig() Config {
	return Config{
		MSS:             MaxSegment - HeaderSize,
		InitialRTO:      time.Second,
		MinRTO:          200 * time.Millisecond,
		MaxRTO:          120 * time.Second,
		Granularity:     4 * time.Millisecond,
		InitialWindow:   10,
		DupAckThreshold: 3,
		SendBuffer:      64 * 1024,
		ReceiveBuffer:   64 * 1024,
	}
}

func (c *Config) validate() error {
	switch {
	case c.MSS < 1 || c.MSS > MaxSegment-HeaderSize:
		return fmt.Errorf("%w: MSS %d", ErrConfig, c.MSS)
	case c.MinRTO <= 0 || c.InitialRTO < c.MinRTO || c.MaxRTO < c.InitialRTO || c.Granularity < 0:
		return fmt.Errorf("%w: RTO initial %v, min %v, max %v", ErrConfig, c.InitialRTO, c.MinRTO, c.MaxRTO)
	case c.InitialWindow < 1 || c.DupAckThreshold < 1:
		return fmt.Errorf("%w: window %d, dup-ack threshold %d", ErrConfig, c.InitialWindow, c.DupAckThreshold)
	case c.SendBuffer < c.MSS || c.ReceiveBuffer < c.MSS || c.ReceiveBuffer > 1<<30:
		return fmt.Errorf("%w: buffers %d and %d", ErrConfig, c.SendBuffer, c.ReceiveBuffer)
	}
	return nil
}
