package reliable_test

import (
	"fmt"
	"time"

	"github.com/netphys/netphys/transport/reliable"
)

// Two endpoints exchange packets; the client learns which of its packets
// the server received.
func Example() {
	now := time.Unix(0, 0)
	client, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)
	server, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)

	carried := map[reliable.Sequence]string{}
	for _, input := range []string{"jump", "left", "fire"} {
		seq, datagrams, _ := client.SendPacket(now, []byte(input))
		carried[seq] = input
		if input == "left" {
			continue // lost on the way
		}
		for _, d := range datagrams {
			seq, payload, _ := server.ReceivePacket(now, d)
			fmt.Printf("server got %d: %s\n", seq, payload)
		}
	}

	// The server's next packet acks what it received.
	now = now.Add(50 * time.Millisecond)
	_, datagrams, _ := server.SendPacket(now, []byte("snapshot"))
	client.ReceivePacket(now, datagrams[0])
	for _, seq := range client.Acks() {
		fmt.Printf("acked %d: %s\n", seq, carried[seq])
	}
	client.ClearAcks()
	// Output:
	// server got 0: jump
	// server got 2: fire
	// acked 2: fire
	// acked 0: jump
}

// A payload larger than FragmentAbove travels as fragments.
func ExampleEndpoint_SendPacket_fragments() {
	now := time.Unix(0, 0)
	a, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)
	b, _ := reliable.NewEndpoint(reliable.DefaultConfig(), now)
	_, datagrams, _ := a.SendPacket(now, make([]byte, 3000))
	for i, d := range datagrams {
		_, payload, _ := b.ReceivePacket(now, d)
		fmt.Printf("fragment %d: %d bytes, delivered %d bytes\n", i, len(d), len(payload))
	}
	// Output:
	// fragment 0: 1037 bytes, delivered 0 bytes
	// fragment 1: 1029 bytes, delivered 0 bytes
	// fragment 2: 957 bytes, delivered 3000 bytes
}
