package transport

import (
	"log/slog"
	"net/netip"

	"github.com/netphys/netphys/transport/netcode"
)

// readBatchMax and writeBatchMax bound the datagrams one system call reads
// or writes where the platform batches them (recvmmsg and sendmmsg on
// Linux): a server of many clients then pays a system call per burst
// rather than one per datagram.
const (
	readBatchMax  = 32
	writeBatchMax = 64
)

// datagramIO reads and writes a socket's datagrams, several per system
// call where the platform and the socket allow (newBatcher), one per call
// otherwise. read belongs to one goroutine; write may be called from
// several.
type datagramIO struct {
	conn PacketConn
	bufs [][]byte   // the read buffers, readBufferBytes each
	got  []received // what the last read put in bufs, index by index
	b    batcher    // nil: one datagram per call
}

// received is one datagram read: its buffer's first n bytes, from from
// (not valid if the platform gave an address that is no UDP address: the
// datagram is then to be ignored).
type received struct {
	n    int
	from netip.AddrPort
}

// batcher is a platform's batched reads and writes of one socket.
type batcher interface {
	// read fills got[:k] from bufs[:k], k >= 1, with one system call,
	// waiting until a datagram arrives or the read deadline passes.
	read(bufs [][]byte, got []received) (int, error)
	// write writes dgs in as few system calls as it can, and returns how
	// many datagrams could not be written and the first error. It is
	// safe to call from several goroutines.
	write(dgs []netcode.Datagram) (failed int, err error)
}

// newDatagramIO reads up to reads datagrams per call: batched if reads is
// more than 1 and conn is a socket the platform batches for (a
// *net.UDPConn on Linux), one at a time otherwise.
func newDatagramIO(conn PacketConn, reads int) *datagramIO {
	var b batcher
	if reads > 1 {
		b = newBatcher(conn)
	}
	if b == nil {
		reads = 1
	}
	reads = min(reads, readBatchMax)
	d := &datagramIO{conn: conn, b: b, bufs: make([][]byte, reads), got: make([]received, reads)}
	all := make([]byte, reads*readBufferBytes)
	for i := range d.bufs {
		d.bufs[i] = all[i*readBufferBytes : (i+1)*readBufferBytes : (i+1)*readBufferBytes]
	}
	return d
}

// read waits for datagrams and returns how many arrived: bufs[i][:got[i].n]
// from got[i].from for i below the count.
func (d *datagramIO) read() (int, error) {
	if d.b != nil {
		return d.b.read(d.bufs, d.got)
	}
	n, from, err := d.conn.ReadFromUDPAddrPort(d.bufs[0])
	if err != nil {
		return 0, err
	}
	d.got[0] = received{n: n, from: from}
	return 1, nil
}

// write sends dgs; failures are logged at debug level, as a lost
// datagram is.
func (d *datagramIO) write(dgs []netcode.Datagram, log *slog.Logger) {
	if d.b != nil {
		if failed, err := d.b.write(dgs); failed > 0 {
			log.Debug("write failed", "datagrams", failed, "err", err)
		}
		return
	}
	for _, dg := range dgs {
		if _, err := d.conn.WriteToUDPAddrPort(dg.Data, dg.To); err != nil {
			log.Debug("write failed", "to", dg.To, "err", err)
		}
	}
}
