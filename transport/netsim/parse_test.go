package netsim

import (
	"errors"
	"strconv"
	"strings"
	"testing"
)

func TestParseProbability(t *testing.T) {
	for in, want := range map[string]float64{"5%": 0.05, "0.5%": 0.005, "0": 0, "100%": 1, "0.25": 0.25, " 1 % ": 0.01} {
		if got, err := ParseProbability(in); err != nil || got != want {
			t.Errorf("ParseProbability(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "%", "101%", "-1%", "1.5", "NaN", "five"} {
		if _, err := ParseProbability(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseProbability(%q) err = %v, want ErrSyntax", in, err)
		}
	}
	if _, err := ParseProbability("5"); err == nil || !strings.Contains(err.Error(), "write 5%") {
		t.Errorf(`ParseProbability("5") err = %v, want the advice to write 5%%`, err)
	}
}

func TestParseBandwidth(t *testing.T) {
	for in, want := range map[string]int64{
		"1mbit": 125_000, "1Mbit": 125_000, "256kbit": 32_000, "100KB": 100_000,
		"64KiB": 65_536, "2MB/s": 2_000_000, "1gbit": 125_000_000, "8000bit": 1000,
		"1500": 1500, "0": 0, "1.5mbps": 187_500, "10B": 10,
	} {
		if got, err := ParseBandwidth(in); err != nil || got != want {
			t.Errorf("ParseBandwidth(%q) = %v, %v; want %v", in, got, err, want)
		}
	}
	for _, in := range []string{"", "mbit", "-1KB", "1 furlong", "3bit", "1e30GB", "Inf"} {
		if _, err := ParseBandwidth(in); !errors.Is(err, ErrSyntax) {
			t.Errorf("ParseBandwidth(%q) err = %v, want ErrSyntax", in, err)
		}
	}
}

func FuzzParseBandwidth(f *testing.F) {
	for _, s := range []string{"1mbit", "256kbit", "100KB", "64KiB/s", "1500", "0", "1.5mbps"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		v, err := ParseBandwidth(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		// Any accepted rate is a plain byte count that reads back as itself.
		back, err := ParseBandwidth(strconv.FormatInt(v, 10) + "B")
		if v < 0 || err != nil || back != v {
			t.Fatalf("ParseBandwidth(%q) = %d; %dB reads back as %d, %v", s, v, v, back, err)
		}
	})
}

func FuzzParseProbability(f *testing.F) {
	for _, s := range []string{"5%", "0.5%", "0.25", "100%", "0"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		p, err := ParseProbability(s)
		if err != nil {
			if !errors.Is(err, ErrSyntax) {
				t.Fatalf("error %v does not wrap ErrSyntax", err)
			}
			return
		}
		if !(p >= 0 && p <= 1) {
			t.Fatalf("ParseProbability(%q) = %v outside [0, 1]", s, p)
		}
		if (Conditions{Loss: p}).Validate() != nil {
			t.Fatalf("ParseProbability(%q) = %v not a valid loss", s, p)
		}
	})
}
