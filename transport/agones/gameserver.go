package agones

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"strconv"
)

// MaxBody bounds what the client reads of one answer or one watch line:
// a GameServer with its labels, annotations, counters and lists is a few
// kilobytes; a List holds at most 1000 values of at most 63 bytes.
const MaxBody = 1 << 20

// ErrDecode reports an answer of the SDK server that is not the JSON
// expected.
var ErrDecode = errors.New("agones: malformed answer")

// Game server states (GameServer.Status.State) this package acts on; the
// others (Creating, Starting, Scheduled, RequestReady, Unhealthy, Error)
// are passed through as they come.
const (
	StateScheduled = "Scheduled"
	StateReady     = "Ready"
	StateReserved  = "Reserved"
	StateAllocated = "Allocated"
	StateShutdown  = "Shutdown"
	StateUnhealthy = "Unhealthy"
)

// Int64 is an int64 field of the gateway's JSON: protobuf's JSON mapping
// writes int64 as a string ("count":"3"). It reads a string or a number
// and writes a string.
type Int64 int64

// UnmarshalJSON reads "3", 3 or null (0).
func (n *Int64) UnmarshalJSON(b []byte) error {
	b = bytes.TrimSpace(b)
	if string(b) == "null" {
		*n = 0
		return nil
	}
	if len(b) >= 2 && b[0] == '"' && b[len(b)-1] == '"' {
		b = b[1 : len(b)-1]
	}
	v, err := strconv.ParseInt(string(b), 10, 64)
	if err != nil {
		return fmt.Errorf("%w: int64 %.40q", ErrDecode, b)
	}
	*n = Int64(v)
	return nil
}

// MarshalJSON writes n as a JSON string, as the gateway expects.
func (n Int64) MarshalJSON() ([]byte, error) {
	return []byte(`"` + strconv.FormatInt(int64(n), 10) + `"`), nil
}

// GameServer is the part of Agones' GameServer the SDK reports that a game
// server acts on (the gateway's snake_case names).
type GameServer struct {
	ObjectMeta ObjectMeta `json:"object_meta"`
	Spec       struct {
		Health Health `json:"health"`
	} `json:"spec"`
	Status Status `json:"status"`
}

// ObjectMeta is the GameServer's Kubernetes metadata. Labels and
// annotations a GameServerAllocation applies arrive here unchanged; those
// the game server sets through SetLabel and SetAnnotation arrive prefixed
// with "agones.dev/sdk-".
type ObjectMeta struct {
	Name        string            `json:"name"`
	Namespace   string            `json:"namespace"`
	UID         string            `json:"uid"`
	Labels      map[string]string `json:"labels"`
	Annotations map[string]string `json:"annotations"`
}

// Health is the GameServer's spec.health: Agones marks the server
// Unhealthy when FailureThreshold periods of PeriodSeconds pass without a
// Health call, after InitialDelaySeconds.
type Health struct {
	Disabled            bool  `json:"disabled"`
	PeriodSeconds       int32 `json:"period_seconds"`
	FailureThreshold    int32 `json:"failure_threshold"`
	InitialDelaySeconds int32 `json:"initial_delay_seconds"`
}

// Status is the GameServer's status.
type Status struct {
	State     string             `json:"state"`
	Address   string             `json:"address"`
	Ports     []Port             `json:"ports"`
	Players   *Players           `json:"players"` // nil unless player tracking is on
	Counters  map[string]Counter `json:"counters"`
	Lists     map[string]List    `json:"lists"`
	Addresses []struct {
		Type    string `json:"type"`
		Address string `json:"address"`
	} `json:"addresses"`
}

// Port is one port of the GameServer, as players reach it.
type Port struct {
	Name string `json:"name"`
	Port int32  `json:"port"`
}

// Players is player tracking's status (alpha, behind a feature gate).
type Players struct {
	Count    Int64    `json:"count"`
	Capacity Int64    `json:"capacity"`
	IDs      []string `json:"ids"`
}

// Counter is one of the GameServer's Counters (beta).
type Counter struct {
	Name     string `json:"name,omitempty"`
	Count    Int64  `json:"count"`
	Capacity Int64  `json:"capacity"`
}

// List is one of the GameServer's Lists (beta).
type List struct {
	Name     string   `json:"name,omitempty"`
	Capacity Int64    `json:"capacity"`
	Values   []string `json:"values"`
}

// DecodeGameServer reads a GameServer from the gateway's JSON.
func DecodeGameServer(b []byte) (GameServer, error) {
	var gs GameServer
	if err := decode(b, &gs); err != nil {
		return GameServer{}, err
	}
	return gs, nil
}

// DecodeWatchLine reads one line of GET /watch/gameserver:
// {"result":GameServer}, or {"error":{...}} when the stream fails.
func DecodeWatchLine(b []byte) (GameServer, error) {
	var line struct {
		Result *GameServer `json:"result"`
		Error  *struct {
			Code    int    `json:"code"`
			Message string `json:"message"`
		} `json:"error"`
	}
	if err := decode(b, &line); err != nil {
		return GameServer{}, err
	}
	if line.Error != nil {
		return GameServer{}, fmt.Errorf("agones: watch: code %d: %.200s", line.Error.Code, line.Error.Message)
	}
	if line.Result == nil {
		return GameServer{}, fmt.Errorf("%w: watch line without a result", ErrDecode)
	}
	return *line.Result, nil
}

func decode(b []byte, v any) error {
	if len(b) > MaxBody {
		return fmt.Errorf("%w: %d bytes, more than %d", ErrDecode, len(b), MaxBody)
	}
	if err := json.Unmarshal(b, v); err != nil {
		if errors.Is(err, ErrDecode) {
			return err
		}
		return fmt.Errorf("%w: %v", ErrDecode, err)
	}
	return nil
}

// Port returns the port named name ("default" for a single-port
// GameServer), or the first port when name is empty.
func (s Status) Port(name string) (int32, bool) {
	for _, p := range s.Ports {
		if name == "" || p.Name == name {
			return p.Port, true
		}
	}
	return 0, false
}
