package netmodel

import "time"

// Traffic counts one client's datagrams each way, as a driver sees them,
// with PacketOverhead per datagram in the byte counts. Every driver
// (simmatch in virtual time, udpdrive on real UDP) reports it, so the
// models' kbps figures mean the same thing wherever they were measured.
type Traffic struct {
	UpPackets, DownPackets uint64 // sent by the client / sent to it by the server
	UpBytes, DownBytes     uint64
	// UpErrors and DownErrors count datagrams the receiving side dropped:
	// the server's Receive errors for this client, the client's errors.
	UpErrors, DownErrors uint64
}

// UpKbps is the mean rate from the client over d, in kilobits per second.
func (t Traffic) UpKbps(d time.Duration) float64 { return kbps(t.UpBytes, d) }

// DownKbps is the mean rate to the client over d.
func (t Traffic) DownKbps(d time.Duration) float64 { return kbps(t.DownBytes, d) }

// Sub returns the counts of t since an earlier reading u, for rates over
// a window.
func (t Traffic) Sub(u Traffic) Traffic {
	return Traffic{
		UpPackets: t.UpPackets - u.UpPackets, DownPackets: t.DownPackets - u.DownPackets,
		UpBytes: t.UpBytes - u.UpBytes, DownBytes: t.DownBytes - u.DownBytes,
		UpErrors: t.UpErrors - u.UpErrors, DownErrors: t.DownErrors - u.DownErrors,
	}
}

func kbps(bytes uint64, d time.Duration) float64 {
	if d <= 0 {
		return 0
	}
	return float64(bytes) * 8 / 1000 / d.Seconds()
}
