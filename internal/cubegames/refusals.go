package cubegames

import (
	"fmt"
	"strings"
	"sync"

	"github.com/netphys/netphys/match"
)

// refusal is the shape of a model's refusal counter (predict.Refusal,
// lockstep.Refusal, statesync.Refusal, interp.Refusal): a stable
// snake_case reason and its count.
type refusal = struct {
	Reason string
	Count  uint64
}

// refusalScrape keeps a model's refusals by reason as of the host's last
// Update, so that serve's /metrics may read them from another goroutine
// (match.Refuser) while the model itself is only touched by the match's.
type refusalScrape struct {
	mu     sync.Mutex
	counts []match.Count
}

// keep replaces the kept refusals with rs; the host calls it in Update.
func keep[R ~refusal](k *refusalScrape, rs []R) {
	k.mu.Lock()
	defer k.mu.Unlock()
	k.counts = k.counts[:0]
	for _, r := range rs {
		k.counts = append(k.counts, match.Count(r))
	}
}

// RefusalCounts returns a copy of the refusals as of the host's last
// Update (match.Refuser); it may be called from any goroutine.
func (k *refusalScrape) RefusalCounts() []match.Count {
	k.mu.Lock()
	defer k.mu.Unlock()
	return append([]match.Count(nil), k.counts...)
}

// refusals prints a server's refusals by reason, the non-zero ones, for
// its summary. The same counters, zeros included, are what serve's
// /metrics serves as netphys_model_refused_total{reason}.
func refusals[R ~refusal](rs []R) string {
	var b strings.Builder
	for _, r := range rs {
		c := refusal(r)
		if c.Count == 0 {
			continue
		}
		if b.Len() > 0 {
			b.WriteString(", ")
		}
		fmt.Fprintf(&b, "%s %d", c.Reason, c.Count)
	}
	if b.Len() == 0 {
		return "none"
	}
	return b.String()
}
