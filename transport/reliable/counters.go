package reliable

// Counters count what an Endpoint did since it was created or Reset.
// The first eleven match reliable.c's RELIABLE_ENDPOINT_COUNTER_* (a
// duplicate in reliable.c is PacketsDuplicate here too); the rest count
// drops reliable.c only logs.
type Counters struct {
	PacketsSent              uint64 // packets passed to SendPacket and sent
	PacketsReceived          uint64 // regular datagrams (valid or not) and reassembled packets
	PacketsAcked             uint64 // own packets reported by Acks
	PacketsStale             uint64 // dropped: older than the received-packets window
	PacketsInvalid           uint64 // dropped: malformed regular packet
	PacketsTooLargeToSend    uint64 // SendPacket refused: above MaxPacketSize
	PacketsTooLargeToReceive uint64 // dropped: payload above MaxPacketSize
	PacketsDuplicate         uint64 // dropped: sequence already received
	FragmentsSent            uint64
	FragmentsReceived        uint64 // fragments stored for reassembly
	FragmentsInvalid         uint64 // dropped: malformed, or count differs from the packet's other fragments
	FragmentsStale           uint64 // dropped: older than the reassembly window
	FragmentsDuplicate       uint64 // dropped: fragment, or its whole packet, already received
	AcksOverflowed           uint64 // acks not recorded because the ack buffer was full
}
