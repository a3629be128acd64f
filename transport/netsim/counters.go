package netsim

// Counters count what a simulator did with the packets sent through it.
// At any time Sent + Duplicated = Delivered + Lost + QueueDropped + Pending.
type Counters struct {
	Sent           uint64 // packets passed to Send
	BytesSent      uint64
	Delivered      uint64 // packets returned by Receive, duplicates included
	BytesDelivered uint64
	Lost           uint64 // dropped by Loss or Burst
	QueueDropped   uint64 // dropped by the bandwidth queue (tail drop)
	Duplicated     uint64 // extra copies made
	Reordered      uint64 // packets held back by ReorderDelay
	Pending        uint64 // packets in flight now
}
