package reliable

import (
	"errors"
	"fmt"
)

// ErrConfig is returned by NewEndpoint for a Config that cannot work.
var ErrConfig = errors.New("reliable: invalid config")

// Config sizes an Endpoint. The defaults are reliable.c's
// reliable_default_config, so a netphys endpoint and a reliable.c endpoint
// with default configs interoperate.
type Config struct {
	// MaxPacketSize is the largest payload SendPacket accepts and
	// ReceivePacket delivers, in bytes. Default 16 KiB.
	MaxPacketSize int
	// FragmentAbove: payloads larger than this many bytes are sent as
	// fragments. Default 1024.
	FragmentAbove int
	// MaxFragments is the most fragments per packet, 1 to 256. Default 16.
	MaxFragments int
	// FragmentSize is the payload bytes per fragment, 1 to 1024. Default 1024.
	FragmentSize int
	// AckBufferSize bounds the acks held between ClearAcks calls. Default 256.
	AckBufferSize int
	// SentPacketsBufferSize is how many sent packets are remembered for
	// acks, RTT and loss; a power of two. Default 256.
	SentPacketsBufferSize int
	// ReceivedPacketsBufferSize is how many received sequences are
	// remembered for ack bits and duplicate detection; a power of two.
	// Default 256.
	ReceivedPacketsBufferSize int
	// FragmentReassemblyBufferSize is how many packets can be in
	// reassembly at once; a power of two. Each slot owns, once used, a buffer of
	// MaxFragments*FragmentSize bytes. Default 64.
	FragmentReassemblyBufferSize int
	// RTTSmoothingFactor is the weight of each new RTT sample in the
	// exponential moving average. Default 0.0025.
	RTTSmoothingFactor float64
	// RTTHistorySize is how many RTT samples the min/max/average and
	// jitter statistics cover. Default 512.
	RTTHistorySize int
	// PacketLossSmoothingFactor weighs each new loss estimate. Default 0.1.
	PacketLossSmoothingFactor float64
	// BandwidthSmoothingFactor weighs each new bandwidth estimate. Default 0.1.
	BandwidthSmoothingFactor float64
	// PacketHeaderSize is added to every packet in the bandwidth
	// figures, in bytes: 28 for UDP over IPv4 (20+8), 48 over IPv6.
	PacketHeaderSize int
}

// DefaultConfig returns reliable.c's default configuration.
func DefaultConfig() Config {
	return Config{
		MaxPacketSize:                16 * 1024,
		FragmentAbove:                1024,
		MaxFragments:                 16,
		FragmentSize:                 1024,
		AckBufferSize:                256,
		SentPacketsBufferSize:        256,
		ReceivedPacketsBufferSize:    256,
		FragmentReassemblyBufferSize: 64,
		RTTSmoothingFactor:           0.0025,
		RTTHistorySize:               512,
		PacketLossSmoothingFactor:    0.1,
		BandwidthSmoothingFactor:     0.1,
		PacketHeaderSize:             28,
	}
}

// validate reports the first setting that cannot work.
func (c *Config) validate() error {
	positive := []struct {
		name string
		v    int
	}{
		{"MaxPacketSize", c.MaxPacketSize},
		{"FragmentAbove", c.FragmentAbove},
		{"MaxFragments", c.MaxFragments},
		{"FragmentSize", c.FragmentSize},
		{"AckBufferSize", c.AckBufferSize},
		{"SentPacketsBufferSize", c.SentPacketsBufferSize},
		{"ReceivedPacketsBufferSize", c.ReceivedPacketsBufferSize},
		{"FragmentReassemblyBufferSize", c.FragmentReassemblyBufferSize},
		{"RTTHistorySize", c.RTTHistorySize},
	}
	for _, p := range positive {
		if p.v <= 0 {
			return fmt.Errorf("%w: %s is %d, must be positive", ErrConfig, p.name, p.v)
		}
	}
	if c.MaxFragments > MaxFragments {
		return fmt.Errorf("%w: MaxFragments %d above %d", ErrConfig, c.MaxFragments, MaxFragments)
	}
	if c.FragmentSize > MaxFragmentSize {
		return fmt.Errorf("%w: FragmentSize %d above %d", ErrConfig, c.FragmentSize, MaxFragmentSize)
	}
	// Sequence buffers are powers of two, so that 65536 is a multiple of
	// their size: otherwise the sequences just before and after the wrap
	// to 0 share slots and evict each other (reliable.c has this flaw with
	// such sizes; its defaults are powers of two). Wider than half the
	// sequence space, they would confuse new and old.
	for _, n := range []int{c.SentPacketsBufferSize, c.ReceivedPacketsBufferSize, c.FragmentReassemblyBufferSize} {
		if n&(n-1) != 0 || n > 32768 {
			return fmt.Errorf("%w: sequence buffer of %d entries: want a power of two up to 32768", ErrConfig, n)
		}
	}
	if c.MaxPacketSize > c.FragmentAbove && c.fragmentsFor(c.MaxPacketSize) > c.MaxFragments {
		return fmt.Errorf("%w: MaxPacketSize %d needs %d fragments of %d bytes, MaxFragments is %d",
			ErrConfig, c.MaxPacketSize, c.fragmentsFor(c.MaxPacketSize), c.FragmentSize, c.MaxFragments)
	}
	return nil
}

// fragmentsFor returns how many fragments carry n payload bytes.
func (c *Config) fragmentsFor(n int) int { return (n + c.FragmentSize - 1) / c.FragmentSize }
