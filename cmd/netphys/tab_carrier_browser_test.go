package main

import (
	"regexp"
	"strconv"
	"testing"
)

// serveCarrierLine is the line serve --webtransport prints at the end
// about the browsers' datagrams; tabCarrierLine the tab's.
var (
	serveCarrierLine = regexp.MustCompile(`webtransport\s+(\d+) sessions, datagrams (\d+) in (\d+) out, send errors (\d+); fragments: (\d+) packets sent in (\d+), (\d+) packets reassembled of (\d+), (\d+) dropped, (\d+) packets lost`)
	tabCarrierLine   = regexp.MustCompile(`carrier\s+(\d+) dropped, (\d+) sends failed; fragments: (\d+) packets reassembled of (\d+), (\d+) dropped, (\d+) packets lost; (\d+) packets sent in (\d+)`)
)

// carrierFigures are the two lines' numbers, by name.
type carrierFigures struct {
	sendErrors, serverSplit, serverFragments   int // the server's sends to the tab
	tabDropped, tabReassembled, tabFragmentsIn int // the tab's receipts
	tabFragmentsDropped, tabLost, tabSplit     int
	tabSendErrors                              int // the tab's sends the browser refused
}

// parseCarrier reads the figures of the server's and the tab's lines.
func parseCarrier(t *testing.T, tab, serve string) carrierFigures {
	t.Helper()
	s, c := serveCarrierLine.FindStringSubmatch(serve), tabCarrierLine.FindStringSubmatch(tab)
	if s == nil || c == nil {
		t.Fatalf("a carrier line is missing: server %q, tab %q\ntab:\n%s", s, c, tab)
	}
	n := func(x string) int {
		v, err := strconv.Atoi(x)
		if err != nil {
			t.Fatal(err)
		}
		return v
	}
	return carrierFigures{sendErrors: n(s[4]), serverSplit: n(s[5]), serverFragments: n(s[6]),
		tabDropped: n(c[1]), tabSendErrors: n(c[2]), tabReassembled: n(c[3]), tabFragmentsIn: n(c[4]), tabFragmentsDropped: n(c[5]), tabLost: n(c[6]), tabSplit: n(c[7])}
}

// checkCarrier: none of the server's sends to the tab and none of the
// tab's failed (a packet over a browser's datagram goes in fragments,
// frag.MaxDatagram), and the tab dropped no datagram and no fragment.
func checkCarrier(t *testing.T, tab, serve string) {
	t.Helper()
	f := parseCarrier(t, tab, serve)
	t.Logf("carrier figures: %+v", f)
	if f.sendErrors != 0 || f.tabSendErrors != 0 {
		t.Errorf("%d of the server's sends to the tab failed, %d of the tab's", f.sendErrors, f.tabSendErrors)
	}
	if f.tabReassembled > f.serverSplit {
		t.Errorf("the tab reassembled %d packets of the %d the server split", f.tabReassembled, f.serverSplit)
	}
	if f.tabFragmentsDropped != 0 || f.tabDropped != 0 {
		t.Errorf("the tab dropped %d fragments and %d datagrams", f.tabFragmentsDropped, f.tabDropped)
	}
}
