// Package agones is a client of the Agones SDK server's HTTP gateway: the
// sidecar that runs beside a game server in its Kubernetes pod and tells
// Agones when the server is Ready, that it is healthy, when it shuts down,
// and that tells the server when it has been Allocated to a match.
//
// It speaks plain JSON over net/http (Agones' Go SDK module is a gRPC
// client; this package needs neither it nor gRPC). The gateway listens on
// 127.0.0.1 at the port Agones puts in AGONES_SDK_HTTP_PORT (9358 when it
// is unset); FromEnv builds a Client for it.
//
//	sdk := agones.FromEnv()
//	err := sdk.Ready(ctx)                   // once the UDP socket is bound
//	go sdk.HealthLoop(ctx, 2*time.Second)   // more often than spec.health.periodSeconds
//	err = sdk.Watch(ctx, func(gs agones.GameServer) {
//		if gs.Status.State == agones.StateAllocated { ... gs.ObjectMeta.Annotations ... }
//	})
//	err = sdk.Shutdown(ctx)                 // the match is over
//
// What the gateway answers, as recorded from Agones' own sdk-server: int64
// fields are JSON strings ("count":"1"), int32 fields numbers; every call
// is POST with a JSON body ({} when there is nothing to say: /health with
// no body is a 400); errors are HTTP 500 with a gRPC status
// {"code":2,"message":...}; Counters and Lists live under /v1beta1/;
// player tracking under /alpha/player/ answers only when the PlayerTracking
// feature gate is on; GET /watch/gameserver is a chunked stream of
// {"result":GameServer} lines, the first the current state.
//
// The gateway is the pod's own sidecar, but its bytes are still read with
// bounds: a body is read up to MaxBody bytes, a watch line up to MaxBody,
// and a malformed one is an error, never a panic.
//
// Package agonestest holds an in-process fake of the same endpoints for
// tests.
package agones
