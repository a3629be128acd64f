package netsim

import (
	"errors"
	"fmt"
	"math"
	"strconv"
	"strings"
)

// ErrSyntax is returned by the parsers of command-line values.
var ErrSyntax = errors.New("netsim: cannot parse")

// ParseProbability parses a probability written as a percentage ("5%",
// "0.5%") or a fraction ("0.05") and returns it as a fraction in [0, 1].
// A bare number above 1, such as "5", is refused with a message to write
// "5%": read either way it would surprise someone.
func ParseProbability(s string) (float64, error) {
	t := strings.TrimSpace(s)
	scale := 1.0
	if v, ok := strings.CutSuffix(t, "%"); ok {
		t, scale = strings.TrimSpace(v), 100
	}
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) {
		return 0, fmt.Errorf("%w: probability %q", ErrSyntax, s)
	}
	if scale == 1 && v > 1 && v <= 100 {
		return 0, fmt.Errorf("%w: probability %q: a bare number is a fraction from 0 to 1; for %s percent write %s%%", ErrSyntax, s, t, t)
	}
	p := v / scale
	if p < 0 || p > 1 {
		return 0, fmt.Errorf("%w: probability %q outside 0-100%%", ErrSyntax, s)
	}
	return p, nil
}

// Rate units in bytes per second. Bit rates are decimal and
// case-insensitive (kbit = 1000 bit/s; kbps and mbps are bits too, as
// networks quote them). Byte rates are case-sensitive so that B is never
// mistaken for b: KB = 1000 bytes/s, KiB = 1024.
var (
	bitUnits = []rateUnit{
		{"gbit", 1e9 / 8}, {"mbit", 1e6 / 8}, {"kbit", 1e3 / 8}, {"bit", 1.0 / 8},
		{"gbps", 1e9 / 8}, {"mbps", 1e6 / 8}, {"kbps", 1e3 / 8}, {"bps", 1.0 / 8},
	}
	byteUnits = []rateUnit{
		{"GiB", 1 << 30}, {"MiB", 1 << 20}, {"KiB", 1 << 10},
		{"GB", 1e9}, {"MB", 1e6}, {"KB", 1e3}, {"kB", 1e3}, {"B", 1},
	}
)

type rateUnit struct {
	suffix string
	bytes  float64
}

// ParseBandwidth parses a rate such as "1mbit", "256kbit", "100KB" or
// "64KiB/s" and returns bytes per second. A bare number is bytes per
// second; "0" means unlimited.
func ParseBandwidth(s string) (int64, error) {
	t := strings.TrimSuffix(strings.TrimSpace(s), "/s")
	unit := 1.0
	lower := strings.ToLower(t)
	found := false
	for _, u := range bitUnits {
		if strings.HasSuffix(lower, u.suffix) {
			t, unit, found = t[:len(t)-len(u.suffix)], u.bytes, true
			break
		}
	}
	for _, u := range byteUnits {
		if !found && strings.HasSuffix(t, u.suffix) {
			t, unit, found = t[:len(t)-len(u.suffix)], u.bytes, true
		}
	}
	t = strings.TrimSpace(t)
	v, err := strconv.ParseFloat(t, 64)
	if err != nil || math.IsNaN(v) || math.IsInf(v, 0) || v < 0 {
		return 0, fmt.Errorf("%w: bandwidth %q", ErrSyntax, s)
	}
	b := v * unit
	if b > 1e15 {
		return 0, fmt.Errorf("%w: bandwidth %q too large", ErrSyntax, s)
	}
	if b > 0 && b < 1 {
		return 0, fmt.Errorf("%w: bandwidth %q below 1 byte/s", ErrSyntax, s)
	}
	return int64(b), nil
}
